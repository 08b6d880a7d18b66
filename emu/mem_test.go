package emu

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// storeCase is one store shape: a type qualifier and a vector length.
type storeCase struct {
	typ string
	vec int
}

func (c storeCase) size() int {
	t, _ := ParseType(c.typ)
	return t.Size()
}

// regType is the register type a test holds values of c.typ in.
func (c storeCase) regType() string {
	switch c.typ {
	case ".f32":
		return ".f32"
	case ".f64":
		return ".f64"
	}
	switch c.size() {
	case 1, 2:
		return ".b16"
	case 4:
		return ".b32"
	}
	return ".b64"
}

// testValue is the value lane-independent formula the kernels compute for
// element i of thread g: g*K1 + (i+1)*K2 (mod 2^64).
func testValue(g, i int) uint64 {
	return uint64(g)*0x9E3779B97F4A7C15 + uint64(i+1)*0xD1B54A32D192ED03
}

// valueCode emits PTX computing element i of thread index %rd9 into %v<i>.
func (c storeCase) valueCode(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\tmad.lo.u64 %%rd8, %%rd9, -7046029254386353131, %d;\n", int64(uint64(i+1)*0xD1B54A32D192ED03))
	switch c.regType() {
	case ".b16":
		fmt.Fprintf(&b, "\tcvt.u16.u64 %%v%d, %%rd8;\n", i)
	case ".b32":
		fmt.Fprintf(&b, "\tcvt.u32.u64 %%v%d, %%rd8;\n", i)
	case ".f32":
		fmt.Fprintf(&b, "\tcvt.u32.u64 %%r8, %%rd8;\n\tmov.b32 %%v%d, %%r8;\n", i)
	case ".f64":
		fmt.Fprintf(&b, "\tmov.b64 %%v%d, %%rd8;\n", i)
	default:
		fmt.Fprintf(&b, "\tmov.b64 %%v%d, %%rd8;\n", i)
	}
	return b.String()
}

func (c storeCase) operand(prefix string) string {
	if c.vec == 1 {
		return prefix + "0"
	}
	var el []string
	for i := range c.vec {
		el = append(el, fmt.Sprintf("%s%d", prefix, i))
	}
	return "{" + strings.Join(el, ", ") + "}"
}

func (c storeCase) vq() string {
	if c.vec == 1 {
		return ""
	}
	return fmt.Sprintf(".v%d", c.vec)
}

// kernel builds a kernel in which each thread computes its values and
// stores them through route: "global", "generic", "shared", "local",
// "generic-shared", "generic-local" (the last four store there first, load
// back and store the loaded values to global memory).
func (c storeCase) kernel(route string) string {
	stride := c.size() * c.vec
	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, ".visible .entry k(.param .u64 out) {\n\t.reg .b64 %%rd<12>;\n\t.reg .b32 %%r<12>;\n\t.reg %s %%v<8>;\n\t.reg %s %%w<8>;\n", c.regType(), c.regType())
	fmt.Fprintf(&b, "\t.shared .align 32 .b8 sbuf[%d];\n\t.local .align 32 .b8 lbuf[%d];\n", 64*stride, stride)
	b.WriteString("\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tcvt.u64.u32 %rd9, %r1;\n")
	for i := range c.vec {
		b.WriteString(c.valueCode(i))
	}
	fmt.Fprintf(&b, "\tmul.lo.u64 %%rd2, %%rd9, %d;\n\tadd.u64 %%rd3, %%rd1, %%rd2;\n", stride)
	st := fmt.Sprintf("%s%s", c.vq(), c.typ)
	switch route {
	case "global":
		b.WriteString("\tcvta.to.global.u64 %rd3, %rd3;\n")
		fmt.Fprintf(&b, "\tst.global.relaxed.gpu%s [%%rd3], %s;\n", st, c.operand("%v"))
	case "generic":
		fmt.Fprintf(&b, "\tst%s [%%rd3], %s;\n", st, c.operand("%v"))
	case "shared", "generic-shared", "shared-cta":
		b.WriteString("\tmov.u64 %rd4, sbuf;\n\tadd.u64 %rd4, %rd4, %rd2;\n")
		sp := ".shared"
		if route == "shared-cta" {
			sp = ".shared::cta"
		}
		if route == "generic-shared" {
			b.WriteString("\tcvta.shared.u64 %rd4, %rd4;\n")
			sp = ""
		}
		fmt.Fprintf(&b, "\tst%s%s [%%rd4], %s;\n\tbar.sync 0;\n\tld%s%s %s, [%%rd4];\n", sp, st, c.operand("%v"), sp, st, c.operand("%w"))
		fmt.Fprintf(&b, "\tst.global%s [%%rd3], %s;\n", st, c.operand("%w"))
	case "local", "generic-local":
		b.WriteString("\tmov.u64 %rd4, lbuf;\n")
		sp := ".local"
		if route == "generic-local" {
			b.WriteString("\tcvta.local.u64 %rd4, %rd4;\n")
			sp = ""
		}
		fmt.Fprintf(&b, "\tst%s%s [%%rd4], %s;\n\tld%s%s %s, [%%rd4];\n", sp, st, c.operand("%v"), sp, st, c.operand("%w"))
		fmt.Fprintf(&b, "\tst.global%s [%%rd3], %s;\n", st, c.operand("%w"))
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// expected returns the bytes every route must produce for n threads: the
// low bytes of each value, little-endian, elements at ascending addresses.
func (c storeCase) expected(n int) []byte {
	sz := c.size()
	out := make([]byte, n*sz*c.vec)
	var tmp [8]byte
	for g := range n {
		for i := range c.vec {
			binary.LittleEndian.PutUint64(tmp[:], testValue(g, i))
			copy(out[(g*c.vec+i)*sz:], tmp[:sz])
		}
	}
	return out
}

var storeTypes = []string{".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".f32", ".f64"}

func TestStoreEveryTypeSpaceAndVector(t *testing.T) {
	const n = 40 // threads: a full warp and a partial one
	for _, typ := range storeTypes {
		for _, vec := range []int{1, 2, 4} {
			c := storeCase{typ, vec}
			if c.size()*vec > 16 {
				continue
			}
			for _, route := range []string{"global", "generic", "shared", "shared-cta", "generic-shared", "local", "generic-local"} {
				name := fmt.Sprintf("%s.v%d/%s", typ, vec, route)
				t.Run(name, func(t *testing.T) {
					res := launch(t, c.kernel(route), Config{Block: dims(n, 1, 1)}, buf(n*c.size()*vec))
					if got, want := res.Buffers[0].Data, c.expected(n); string(got) != string(want) {
						t.Fatalf("stored bytes differ\n got %x\nwant %x", got[:32], want[:32])
					}
				})
			}
		}
	}
}

// TestStoreWideVectors covers .v8 of 32-bit and .v4 of 64-bit types
// (global only, PTX 8.8).
func TestStoreWideVectors(t *testing.T) {
	for _, c := range []storeCase{{".b32", 8}, {".u32", 8}, {".f32", 8}, {".b64", 4}, {".u64", 4}, {".f64", 4}} {
		t.Run(c.typ+c.vq(), func(t *testing.T) {
			res := launch(t, c.kernel("global"), Config{Block: dims(33, 1, 1)}, buf(33*32))
			if got, want := res.Buffers[0].Data, c.expected(33); string(got) != string(want) {
				t.Fatalf("stored bytes differ")
			}
		})
	}
}

func TestStoreVectorSinkLeavesBytes(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0x11111111;
	mov.u32 %r2, 0x33333333;
	st.global.v8.b32 [%rd1], {%r1, _, %r2, _, %r1, _, _, %r2};
	ret;
}`
	in := make([]byte, 32)
	for i := range in {
		in[i] = 0xEE
	}
	res := launch(t, src, Config{Block: dims(1, 1, 1)}, Arg{IsBuffer: true, Buffer: in})
	want := []uint32{0x11111111, 0xEEEEEEEE, 0x33333333, 0xEEEEEEEE, 0x11111111, 0xEEEEEEEE, 0xEEEEEEEE, 0x33333333}
	if got := u32s(res.Buffers[0].Data); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %x, want %x", got, want)
	}
}

// TestStoreRelaxedTruncation: a wider register stores its low bits (§9.4.1).
func TestStoreRelaxedTruncation(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	.reg .f32 %f1;
	ld.param.u64 %rd1, [out];
	mov.b64 %rd2, 0x1122334455667788;
	mov.u32 %r1, 0xAABBCCDD;
	mov.f32 %f1, 0f3F800000;
	st.global.u8 [%rd1], %r1;
	st.global.b16 [%rd1+2], %r1;
	st.global.u32 [%rd1+4], %rd2;
	st.global.b16 [%rd1+8], %f1;
	st.global.s8 [%rd1+10], %rd2;
	ret;
}`
	res := launch(t, src, Config{}, buf(16))
	want := []byte{0xDD, 0, 0xDD, 0xCC, 0x88, 0x77, 0x66, 0x55, 0x00, 0x00, 0x88, 0, 0, 0, 0, 0}
	if got := res.Buffers[0].Data; string(got) != string(want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}

func TestStoreB128(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<6>;
	.reg .b32 %r<5>;
	.reg .b128 %q<3>;
	ld.param.u64 %rd1, [out];
	mov.b64 %rd2, 0x0706050403020100;
	mov.b64 %rd3, 0x0f0e0d0c0b0a0908;
	mov.b128 %q1, {%rd2, %rd3};
	st.global.b128 [%rd1], %q1;
	ld.global.b128 %q2, [%rd1];
	mov.b128 {%rd4, %rd5}, %q2;
	st.global.v2.b64 [%rd1+16], {%rd5, %rd4};
	mov.b128 {%r1, %r2, %r3, %r4}, %q2;
	st.global.v4.b32 [%rd1+32], {%r4, %r3, %r2, %r1};
	st.global.b32 [%rd1+48], %q1;
	ret;
}`
	res := launch(t, src, Config{}, buf(64))
	var want []byte
	for i := range 16 {
		want = append(want, byte(i))
	}
	want = append(want, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)
	want = append(want, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3)
	want = append(want, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if got := res.Buffers[0].Data; string(got) != string(want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
}

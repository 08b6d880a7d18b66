package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// Fragment layouts of the floating-point mma shapes, element i of a
// thread's fragment, written out per shape as the manual's figures give
// them (§9.7.14.5.14, g = groupID, t = threadID_in_group).
func floatAPos(shape, ty string, lane, i int) (row, col int) {
	g, t := lane>>2, lane%4
	switch {
	case ty == "e4m3" || ty == "e5m2": // m16n8k32, four per register
		return mmaAPos(16, 32, 4, lane, i/4, i%4)
	case ty == "f16" || ty == "bf16":
		row = g
		if i == 2 || i == 3 || i == 6 || i == 7 {
			row = g + 8
		}
		col = t*2 + i%2
		if i >= 4 {
			col += 8
		}
		return row, col
	case shape == "m8n8k4": // f64
		return g, t
	}
	// tf32 and f64 on m16n8k4/k8/k16: a0 (g, t), a1 (g+8, t), a2 (g, t+4), ...
	return g + 8*(i%2), t + 4*(i/2)
}

func floatBPos(shape, ty string, lane, i int) (row, col int) {
	g, t := lane>>2, lane%4
	switch {
	case ty == "e4m3" || ty == "e5m2":
		return mmaBPos(32, 4, lane, i/4, i%4)
	case ty == "f16" || ty == "bf16":
		row = t*2 + i%2
		if i >= 2 {
			row += 8
		}
		return row, g
	}
	return t + 4*i, g
}

// fpBits encodes a small integer v exactly in a format of ebits exponent
// and mbits fraction bits.
func fpBits(v, ebits, mbits, bias int) uint64 {
	if v == 0 {
		return 0
	}
	var sign uint64
	if v < 0 {
		sign, v = 1<<(ebits+mbits), -v
	}
	e := 0
	for 1<<(e+1) <= v {
		e++
	}
	m := uint64(v-1<<e) << (mbits - e)
	return sign | uint64(e+bias)<<mbits | m
}

var floatFmt = map[string][3]int{"f16": {5, 10, 15}, "bf16": {8, 7, 127}, "tf32": {8, 23, 127}, "f32": {8, 23, 127},
	"f64": {11, 52, 1023}, "e4m3": {4, 3, 7}, "e5m2": {5, 2, 15}}

func fbits(ty string, v int) uint64 { f := floatFmt[ty]; return fpBits(v, f[0], f[1], f[2]) }

func fwidth(ty string) int {
	switch ty {
	case "f16", "bf16":
		return 16
	case "e4m3", "e5m2":
		return 8
	case "f64":
		return 64
	}
	return 32
}

// TestMmaFloatLayouts multiplies small-integer matrices (every product and
// sum exact, so the result does not depend on the rounding model) with
// each floating-point shape and type and compares D with A·B + C.
func TestMmaFloatLayouts(t *testing.T) {
	type tcase struct{ shape, d, a, c string }
	cases := []tcase{{"m16n8k8", "f32", "f16", "f32"}, {"m16n8k16", "f32", "f16", "f32"}, {"m16n8k16", "f16", "f16", "f16"},
		{"m16n8k16", "f32", "f16", "f16"}, {"m16n8k16", "f16", "f16", "f32"},
		{"m16n8k8", "f32", "bf16", "f32"}, {"m16n8k16", "f32", "bf16", "f32"}, {"m16n8k4", "f32", "tf32", "f32"},
		{"m16n8k8", "f32", "tf32", "f32"}, {"m16n8k32", "f32", "e4m3", "f32"}, {"m16n8k32", "f32", "e5m2", "f32"},
		{"m8n8k4", "f64", "f64", "f64"}, {"m16n8k4", "f64", "f64", "f64"}, {"m16n8k8", "f64", "f64", "f64"}, {"m16n8k16", "f64", "f64", "f64"}}
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range cases {
		var m, n, k int
		fmt.Sscanf(c.shape, "m%dn%dk%d", &m, &n, &k)
		A, B, C := make([][]int, m), make([][]int, k), make([][]int, m)
		for i := range A {
			A[i] = make([]int, k)
			C[i] = make([]int, n)
			for j := range A[i] {
				A[i][j] = r.IntN(9) - 4
			}
			for j := range C[i] {
				C[i][j] = r.IntN(9) - 4
			}
		}
		for i := range B {
			B[i] = make([]int, n)
			for j := range B[i] {
				B[i][j] = r.IntN(9) - 4
			}
		}
		wa, wc, wd := fwidth(c.a), fwidth(c.c), fwidth(c.d)
		word := 32
		if wa == 64 {
			word = 64
		}
		per := max(1, word/wa)
		na, nb := m*k/32/per, k*n/32/per
		nc, nd := m*n/32*wc/word, m*n/32*wd/word
		if wc == 64 {
			nc = m * n / 32
		}
		if wd == 64 {
			nd = m * n / 32
		}
		// in: lane-major words of a, b, c registers (register r of lane l at r*32+l).
		regs := make([]uint64, 32*(na+nb+nc))
		for l := range 32 {
			for i := range na * per {
				row, col := floatAPos(c.shape, c.a, l, i)
				regs[(i/per)*32+l] |= fbits(c.a, A[row][col]) << (uint(i%per) * uint(wa))
			}
			for i := range nb * per {
				row, col := floatBPos(c.shape, c.a, l, i)
				regs[(na+i/per)*32+l] |= fbits(c.a, B[row][col]) << (uint(i%per) * uint(wa))
			}
			cper := max(1, word/wc)
			for i := range m * n / 32 {
				row, col := mmaCPos(l, i)
				regs[(na+nb+i/cper)*32+l] |= fbits(c.c, C[row][col]) << (uint(i%cper) * uint(wc))
			}
		}
		in := make([]byte, word/8*len(regs))
		for i, v := range regs {
			if word == 64 {
				binary.LittleEndian.PutUint64(in[8*i:], v)
			} else {
				binary.LittleEndian.PutUint32(in[4*i:], uint32(v))
			}
		}
		op := fmt.Sprintf("mma.sync.aligned.%s.row.col.%s.%s.%s.%s", c.shape, c.d, c.a, c.a, c.c)
		res := launch(t, mmaFloatKernel(op, word, na, nb, nc, nd), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(word/8*32*nd))
		out := res.Buffers[1].Data
		dper := max(1, word/wd)
		for l := range 32 {
			for i := range m * n / 32 {
				row, col := mmaCPos(l, i)
				want := C[row][col]
				for kk := range k {
					want += A[row][kk] * B[kk][col]
				}
				var w uint64
				if word == 64 {
					w = binary.LittleEndian.Uint64(out[8*((i/dper)*32+l):])
				} else {
					w = uint64(binary.LittleEndian.Uint32(out[4*((i/dper)*32+l):]))
				}
				got := w >> (uint(i%dper) * uint(wd)) & (1<<uint(wd) - 1)
				if wd == 64 {
					got = w
				}
				if got != fbits(c.d, want) {
					t.Fatalf("%s: lane %d element %d (row %d col %d): got %#x, want %d (%#x)", op, l, i, row, col, got, want, fbits(c.d, want))
				}
			}
		}
	}
}

func mmaFloatKernel(op string, word, na, nb, nc, nd int) string {
	var b strings.Builder
	ty := "b32"
	if word == 64 {
		ty = "b64"
	}
	b.WriteString(strings.Replace(header, "sm_90", "sm_90a", 1))
	fmt.Fprintf(&b, ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n\t.reg .b64 %%rd<8>;\n\t.reg .b32 %%r<4>;\n\t.reg .%s %%v<80>;\n", ty)
	fmt.Fprintf(&b, "\tld.param.u64 %%rd1, [in];\n\tld.param.u64 %%rd2, [out];\n\tmov.u32 %%r0, %%laneid;\n\tmul.wide.u32 %%rd3, %%r0, %d;\n\tadd.u64 %%rd4, %%rd1, %%rd3;\n\tadd.u64 %%rd5, %%rd2, %%rd3;\n", word/8)
	regs := func(first, n int) string {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("%%v%d", first+i))
		}
		return "{" + strings.Join(names, ", ") + "}"
	}
	for i := range na + nb + nc {
		fmt.Fprintf(&b, "\tld.global.%s %%v%d, [%%rd4+%d];\n", ty, i, 32*word/8*i)
	}
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", op, regs(60, nd), regs(0, na), regs(na, nb), regs(na+nb, nc))
	for i := range nd {
		fmt.Fprintf(&b, "\tst.global.%s [%%rd5+%d], %%v%d;\n", ty, 32*word/8*i, 60+i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// gemmSm80 is a 16×8×32 f16 GEMM with f32 accumulation written the way
// Triton's sm_80 output is: tiles staged in shared memory, A read with
// ldmatrix.x4, B with ldmatrix.x2.trans, mma.m16n8k16 over k in steps of
// 16, and the accumulator fragments stored to global memory.
const gemmSm80 = `.version 8.5
.target sm_80
.address_size 64
.visible .entry gemm(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
	.shared .align 16 .b8 sa[1024];
	.shared .align 16 .b8 sb[512];
	.reg .pred %p<2>;
	.reg .b32 %r<40>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	mov.u32 %r1, %tid.x;
	// stage A (16x32 f16, 1024 bytes: 32 per lane) and B (32x8 f16, 16 per lane)
	mul.wide.u32 %rd4, %r1, 32;
	add.u64 %rd5, %rd1, %rd4;
	ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
	ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd5+16];
	shl.b32 %r10, %r1, 5;
	mov.u32 %r11, sa;
	add.u32 %r12, %r11, %r10;
	st.shared.v4.u32 [%r12], {%r2, %r3, %r4, %r5};
	st.shared.v4.u32 [%r12+16], {%r6, %r7, %r8, %r9};
	mul.wide.u32 %rd6, %r1, 16;
	add.u64 %rd7, %rd2, %rd6;
	ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd7];
	shl.b32 %r13, %r1, 4;
	mov.u32 %r14, sb;
	add.u32 %r15, %r14, %r13;
	st.shared.v4.u32 [%r15], {%r2, %r3, %r4, %r5};
	bar.sync 0;
	// ldmatrix row addresses: A row (lane%16), column block 8*(lane/16);
	// B row (lane%16) of the k step
	and.b32 %r16, %r1, 15;
	shr.u32 %r17, %r1, 4;
	shl.b32 %r18, %r16, 6;
	shl.b32 %r19, %r17, 4;
	add.u32 %r20, %r18, %r19;
	add.u32 %r21, %r11, %r20;
	shl.b32 %r22, %r16, 4;
	add.u32 %r23, %r14, %r22;
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mov.u32 %r30, 0;
LOOP:
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r24, %r25, %r26, %r27}, [%r21];
	ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r28, %r29}, [%r23];
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r24, %r25, %r26, %r27}, {%r28, %r29}, {%f0, %f1, %f2, %f3};
	add.u32 %r21, %r21, 32;
	add.u32 %r23, %r23, 256;
	add.u32 %r30, %r30, 1;
	setp.lt.u32 %p1, %r30, 2;
	@%p1 bra LOOP;
	// C fragment: rows g and g+8, columns 2t and 2t+1 (row-major 16x8 f32)
	shr.u32 %r31, %r1, 2;
	and.b32 %r32, %r1, 3;
	shl.b32 %r33, %r31, 3;
	shl.b32 %r34, %r32, 1;
	add.u32 %r35, %r33, %r34;
	mul.wide.u32 %rd8, %r35, 4;
	add.u64 %rd9, %rd3, %rd8;
	st.global.v2.f32 [%rd9], {%f0, %f1};
	st.global.v2.f32 [%rd9+256], {%f2, %f3};
	ret;
}
`

// TestGemmSm80 runs gemmSm80 on small integers (exact in every model:
// compared with A·B computed here) and on random f16 values (compared with
// the Ampere model applied to the two k halves in turn, as the kernel's
// loop issues them).
func TestGemmSm80(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, exact := range []bool{true, false} {
		a := make([]uint64, 16*32) // row-major 16x32
		b := make([]uint64, 32*8)  // row-major 32x8
		val := func() uint64 {
			if exact {
				return fbits("f16", r.IntN(9)-4)
			}
			return uint64(r.Uint32()&0x3fff | r.Uint32()&0x8000) // |x| < 2
		}
		for i := range a {
			a[i] = val()
		}
		for i := range b {
			b[i] = val()
		}
		ab, bb := make([]byte, 2*len(a)), make([]byte, 2*len(b))
		for i, v := range a {
			binary.LittleEndian.PutUint16(ab[2*i:], uint16(v))
		}
		for i, v := range b {
			binary.LittleEndian.PutUint16(bb[2*i:], uint16(v))
		}
		res := launch(t, gemmSm80, Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: ab}, Arg{IsBuffer: true, Buffer: bb}, buf(4*16*8))
		got := u32s(res.Buffers[2].Data)
		want := make([]uint64, 16*8)
		if exact {
			for i := range 16 {
				for j := range 8 {
					s := 0
					for kk := range 32 {
						s += f16Int(a[i*32+kk]) * f16Int(b[kk*8+j])
					}
					want[i*8+j] = uint64(math.Float32bits(float32(s)))
				}
			}
		} else {
			for half := range 2 {
				p := &tensorcore.Problem{In: tensorcore.F16, Out: tensorcore.F32, M: 16, N: 8, K: 16,
					A: make([]uint64, 16*16), B: make([]uint64, 8*16), C: want, D: want}
				for i := range 16 {
					for kk := range 16 {
						p.A[i*16+kk] = a[i*32+16*half+kk]
					}
				}
				for j := range 8 {
					for kk := range 16 {
						p.B[j*16+kk] = b[(16*half+kk)*8+j]
					}
				}
				tensorcore.Ampere.MMA(p)
			}
		}
		for i := range want {
			if uint64(got[i]) != want[i] {
				t.Fatalf("exact=%v: C[%d][%d] = %#x, want %#x", exact, i/8, i%8, got[i], want[i])
			}
		}
	}
}

// f16Int is the value of a small-integer f16 bit pattern.
func f16Int(x uint64) int {
	e := int(x>>10&31) - 15
	v := (1024 + int(x&1023)) >> (10 - e)
	if x&0x8000 != 0 {
		v = -v
	}
	if x&0x7fff == 0 {
		return 0
	}
	return v
}

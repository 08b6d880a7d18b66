package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// wmmaKernel loads A, B and C with wmma.load (A and C with layouts la and
// lc, B with lb, default strides), multiplies them and stores D row-major.
func wmmaKernel(target, shape, la, lb, lc, at, ct, dt, mmaTypes string, na, nb, nc, nd int, regT string) string {
	regs := func(first, n int) string {
		s := "{"
		for i := range n {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%%v%d", first+i)
		}
		return s + "}"
	}
	return fmt.Sprintf(`.version 8.5
.target %s
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
	.reg .b64 %%rd<8>;
	.reg .%s %%v<80>;
	ld.param.u64 %%rd1, [pa];
	ld.param.u64 %%rd2, [pb];
	ld.param.u64 %%rd3, [pc];
	ld.param.u64 %%rd4, [pd];
	wmma.load.a.sync.aligned.%s.%s.global.%s %s, [%%rd1];
	wmma.load.b.sync.aligned.%s.%s.global.%s %s, [%%rd2];
	wmma.load.c.sync.aligned.%s.%s.global.%s %s, [%%rd3];
	wmma.mma.sync.aligned.%s.%s.%s%s %s, %s, %s, %s;
	wmma.store.d.sync.aligned.row.%s.global.%s [%%rd4], %s;
	ret;
}
`, target, regT, la, shape, at, regs(0, na), lb, shape, at, regs(na, nb), lc, shape, ct, regs(na+nb, nc),
		la, lb, shape, mmaTypes, regs(60, nd), regs(0, na), regs(na, nb), regs(na+nb, nc), shape, dt, regs(60, nd))
}

// putMatrix lays out an r×c matrix of w-bit values row- or column-major.
func putMatrix(vals []uint64, r, c, w int, col bool) []byte {
	out := make([]byte, max(r*c*w/8, 32))
	for i := range r {
		for j := range c {
			pos := i*c + j
			if col {
				pos = j*r + i
			}
			bit := pos * w
			switch w {
			case 32:
				binary.LittleEndian.PutUint32(out[bit/8:], uint32(vals[i*c+j]))
			case 16:
				binary.LittleEndian.PutUint16(out[bit/8:], uint16(vals[i*c+j]))
			case 64:
				binary.LittleEndian.PutUint64(out[bit/8:], vals[i*c+j])
			default:
				out[bit/8] |= byte(vals[i*c+j]&(1<<uint(w)-1)) << uint(bit%8)
			}
		}
	}
	return out
}

// TestWmma runs wmma.load/mma/store on every shape with small-integer
// values (exact in any model) in every layout, and compares D with A·B + C
// computed here.
func TestWmma(t *testing.T) {
	type tc struct {
		shape, at, ct, dt, types string
		na, nb, nc, nd           int
		reg                      string
	}
	cases := []tc{
		{"m16n16k16", "f16", "f32", "f32", ".f32.f32", 8, 8, 8, 8, "b32"},
		{"m16n16k16", "f16", "f16", "f16", ".f16.f16", 8, 8, 4, 4, "b32"},
		{"m32n8k16", "f16", "f32", "f16", ".f16.f32", 8, 8, 8, 4, "b32"},
		{"m8n32k16", "f16", "f16", "f32", ".f32.f16", 8, 8, 4, 8, "b32"},
		{"m16n16k16", "bf16", "f32", "f32", ".f32.bf16.bf16.f32", 4, 4, 8, 8, "b32"},
		{"m16n16k8", "tf32", "f32", "f32", ".f32.tf32.tf32.f32", 4, 4, 8, 8, "b32"},
		{"m8n8k4", "f64", "f64", "f64", ".f64.f64.f64.f64", 1, 1, 2, 2, "b64"},
		{"m16n16k16", "s8", "s32", "s32", ".s32.s8.s8.s32", 2, 2, 8, 8, "b32"},
		{"m32n8k16", "u8", "s32", "s32", ".s32.u8.u8.s32", 4, 1, 8, 8, "b32"},
		{"m8n8k32", "s4", "s32", "s32", ".s32.s4.s4.s32", 1, 1, 2, 2, "b32"},
		{"m8n8k128", "b1", "s32", "s32", ".s32.b1.b1.s32.xor.popc", 1, 1, 2, 2, "b32"},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		var m, n, k int
		fmt.Sscanf(c.shape, "m%dn%dk%d", &m, &n, &k)
		layouts := [][3]bool{{false, false, false}, {true, true, true}, {false, true, false}, {true, false, true}}
		if c.at == "s4" || c.at == "b1" {
			layouts = [][3]bool{{false, true, false}, {false, true, true}}
		}
		for _, lay := range layouts {
			A, B, C := make([]int, m*k), make([]int, k*n), make([]int, m*n)
			lo, hi := -4, 4
			if c.at == "u8" || c.at == "b1" {
				lo = 0
			}
			if c.at == "b1" {
				hi = 1
			}
			for i := range A {
				A[i] = lo + r.IntN(hi-lo+1)
			}
			for i := range B {
				B[i] = lo + r.IntN(hi-lo+1)
			}
			for i := range C {
				C[i] = r.IntN(9) - 4
			}
			enc := func(ty string, v int) uint64 {
				switch ty {
				case "s8", "u8", "s32", "s4", "b1":
					return uint64(v) & (1<<uint(fwidth2(ty)) - 1)
				}
				return fbits(ty, v)
			}
			bitsOf := func(ty string, vals []int) []uint64 {
				out := make([]uint64, len(vals))
				for i, v := range vals {
					out[i] = enc(ty, v)
				}
				return out
			}
			name := map[bool]string{false: "row", true: "col"}
			src := wmmaKernel("sm_90", c.shape, name[lay[0]], name[lay[1]], name[lay[2]], c.at, c.ct, c.dt, c.types, c.na, c.nb, c.nc, c.nd, c.reg)
			wd := fwidth2(c.dt)
			res := launch(t, src, Config{Block: dims(32, 1, 1)},
				Arg{IsBuffer: true, Buffer: putMatrix(bitsOf(c.at, A), m, k, fwidth2(c.at), lay[0])},
				Arg{IsBuffer: true, Buffer: putMatrix(bitsOf(c.at, B), k, n, fwidth2(c.at), lay[1])},
				Arg{IsBuffer: true, Buffer: putMatrix(bitsOf(c.ct, C), m, n, fwidth2(c.ct), lay[2])},
				buf(m*n*wd/8))
			out := res.Buffers[3].Data
			for i := range m {
				for j := range n {
					want := C[i*n+j]
					for kk := range k {
						if c.at == "b1" {
							want += A[i*k+kk] ^ B[kk*n+j]
						} else {
							want += A[i*k+kk] * B[kk*n+j]
						}
					}
					var got uint64
					switch wd {
					case 16:
						got = uint64(binary.LittleEndian.Uint16(out[2*(i*n+j):]))
					case 32:
						got = uint64(binary.LittleEndian.Uint32(out[4*(i*n+j):]))
					case 64:
						got = binary.LittleEndian.Uint64(out[8*(i*n+j):])
					}
					if w := enc(c.dt, want); got != w {
						t.Fatalf("%s %s layouts %v: D[%d][%d] = %#x, want %d (%#x)", c.shape, c.types, lay, i, j, got, want, w)
					}
				}
			}
		}
	}
}

func fwidth2(ty string) int {
	switch ty {
	case "s8", "u8":
		return 8
	case "s4":
		return 4
	case "b1":
		return 1
	case "s32":
		return 32
	}
	return fwidth(ty)
}

// TestWmmaRoundTrip: a fragment loaded with one layout and stored with
// the other transposes the matrix, element for element (f32 values that
// are not integers, so no arithmetic is involved).
func TestWmmaRoundTrip(t *testing.T) {
	src := `.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pd)
{
	.reg .b64 %rd<4>;
	.reg .f32 %f<8>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pd];
	wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1];
	wmma.store.d.sync.aligned.col.m16n16k16.global.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
	ret;
}
`
	in := make([]byte, 4*256)
	for i := range 256 {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)+0.25))
	}
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(4*256))
	out := u32s(res.Buffers[1].Data)
	for i := range 16 {
		for j := range 16 {
			if got, want := math.Float32frombits(out[j*16+i]), float32(i*16+j)+0.25; got != want {
				t.Fatalf("(%d,%d): got %v, want %v", i, j, got, want)
			}
		}
	}
}

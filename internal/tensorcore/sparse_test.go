package tensorcore

import (
	"math/rand/v2"
	"testing"
)

// TestSparseAgainstExactReference: random sparse problems (every stored
// element at a random column, two per group of four) on every
// architecture and format, each element of D against refDot (exact
// rationals) on the stored elements and the rows of B they select.
func TestSparseAgainstExactReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, arch := range []*Arch{Volta, Turing, Ampere, Ada, Hopper, Blackwell} {
		for _, c := range []struct {
			in, out Format
			k       int
		}{{F16, F32, 32}, {BF16, F32, 32}, {F16, F16, 16}, {TF32, F32, 16}, {E4M3, F32, 64}, {E5M2, F32, 64}} {
			if (c.in == E4M3 || c.in == E5M2) && arch.FP8ViaF16 {
				continue
			}
			const m, n = 4, 3
			half := c.k / 2
			p := &Problem{Kind: Sync, In: c.in, Out: c.out, M: m, N: n, K: c.k,
				A: make([]uint64, m*half), B: make([]uint64, n*c.k), C: make([]uint64, m*n), D: make([]uint64, m*n)}
			index := make([]int, m*half)
			for i := range m {
				for g := 0; g < half; g += 2 { // two of each four columns, in order
					lo := r.IntN(3)
					hi := lo + 1 + r.IntN(3-lo)
					index[i*half+g], index[i*half+g+1] = 2*g+lo, 2*g+hi
				}
			}
			for i := range p.A {
				p.A[i] = randFinite(r, c.in)
			}
			for i := range p.B {
				p.B[i] = randFinite(r, c.in)
			}
			for i := range p.C {
				p.C[i] = randFinite(r, c.out)
			}
			if err := arch.SparseMMA(p, index); err != nil {
				t.Fatal(err)
			}
			for i := range m {
				for j := range n {
					a := p.A[i*half : (i+1)*half]
					b := make([]uint64, half)
					for jj := range half {
						b[jj] = p.B[j*c.k+index[i*half+jj]]
					}
					want := refDot(a, b, p.C[i*n+j], c.in, c.out, arch.fracOf(c.in), arch.blockOf(c.in))
					if p.D[i*n+j] != want {
						t.Fatalf("%s %v→%v k%d D[%d][%d] = %#x, want %#x", arch.Name, c.in, c.out, c.k, i, j, p.D[i*n+j], want)
					}
				}
			}
		}
	}
}

// TestSparseBlocks: on Hopper (blocks of 16 f16 products, F = 25) the 16
// stored products of a k32 sparse row form one block. Eight products of
// 2^-26 (stored 0-7, dense columns 0-13) and 1·1 (stored 8, column 16)
// share it: unit 2^-25, the small ones are truncated away, D = 1. Had the
// zeros of the dense row counted, columns 0-15 would be a block of their
// own summing exactly to 2^-23, and D would be 1 + 2^-23.
func TestSparseBlocks(t *testing.T) {
	const h1, hTiny = 0x3c00, 0x0800 // f16 1.0 and 2^-13
	p := &Problem{Kind: Sync, In: F16, Out: F32, M: 1, N: 1, K: 32,
		A: make([]uint64, 16), B: make([]uint64, 32), C: []uint64{0}, D: []uint64{0}}
	index := make([]int, 16)
	for j := range 16 {
		index[j] = 4*(j/2) + j%2 // columns 0, 1, 4, 5, ...
	}
	for j := range 8 {
		p.A[j], p.B[index[j]] = hTiny, hTiny
	}
	p.A[8], p.B[16] = h1, h1
	if err := Hopper.SparseMMA(p, index); err != nil {
		t.Fatal(err)
	}
	if p.D[0] != f32(1) {
		t.Errorf("sparse block: got %#x, want 1", p.D[0])
	}
	if err := Hopper.SparseMMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 64, A: make([]uint64, 32), B: make([]uint64, 64),
		C: []uint64{0}, D: []uint64{0}}, make([]int, 32)); err == nil {
		t.Error("sparse FP8 mma.sync on Hopper: no error")
	}
}

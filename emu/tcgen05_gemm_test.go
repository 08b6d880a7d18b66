package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// gemmKernelPath is the warp-specialized Blackwell GEMM (TMA loads into a
// three-stage mbarrier pipeline, tcgen05.mma into Tensor Memory, an
// epilogue with tcgen05.ld, st.global and a TMA store); its header says
// how it is launched.
const gemmKernelPath = "testdata/tcgen05_gemm.ptx"

// gemmShared is the dynamic shared memory the kernel asks for: 1024 bytes
// of alignment slack, three 32 KiB stages and 32 KiB of epilogue staging.
const gemmShared = 1024 + 3*32768 + 32768

// gemmProblem is one launch of the kernel: A is m×k and B is n×k, both
// row-major bf16 bit patterns.
type gemmProblem struct {
	m, n, k int
	A, B    []uint16
	epi     int // 0: tcgen05.ld.32x32b, 1: tcgen05.ld.16x256b
	cfg     Config
}

// run launches the kernel and returns D as f32 bits (st.global) and as
// bf16 bits (the TMA store), both row-major m×n.
func (g *gemmProblem) run(t *testing.T) (f32 []uint32, bf16 []uint16) {
	t.Helper()
	src, err := os.ReadFile(gemmKernelPath)
	if err != nil {
		t.Fatal(err)
	}
	p := compile(t, string(src))
	bytesOf := func(x []uint16) []byte {
		b := make([]byte, 2*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	// every output byte starts as 0xff, so an element never written is a NaN that matches nothing
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 0xff
		}
		return b
	}
	kMajor := func(rows int) tensormap.Map {
		return tensormap.Map{Type: tensormap.BF16, Rank: 2, Dims: [5]uint64{uint64(g.k), uint64(rows)},
			Strides: [4]uint64{uint64(2 * g.k)}, Box: [5]uint32{64, 128}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
			Swizzle: tensormap.Swizzle128B}
	}
	mA, mB := kMajor(g.m), kMajor(g.n)
	mD := tensormap.Map{Type: tensormap.BF16, Rank: 2, Dims: [5]uint64{uint64(g.n), uint64(g.m)},
		Strides: [4]uint64{uint64(2 * g.n)}, Box: [5]uint32{64, 32}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
		Swizzle: tensormap.Swizzle128B}
	args := []Arg{
		{TensorMap: &mA, MapOf: 3}, {TensorMap: &mB, MapOf: 4}, {TensorMap: &mD, MapOf: 5},
		{IsBuffer: true, Buffer: bytesOf(g.A)}, {IsBuffer: true, Buffer: bytesOf(g.B)},
		{IsBuffer: true, Buffer: fill(2 * g.m * g.n)}, {IsBuffer: true, Buffer: fill(4 * g.m * g.n)},
		scalar(uint64(g.n)), scalar(uint64(g.k / 64)), scalar(uint64(g.epi)),
	}
	cfg := g.cfg
	cfg.Grid, cfg.Block, cfg.SharedBytes = dims(g.n/128, g.m/128, 1), dims(128, 1, 1), gemmShared
	res, err := execute(p, cfg, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	f32 = u32s(res.Buffers[6].Data)
	out := res.Buffers[5].Data
	bf16 = make([]uint16, g.m*g.n)
	for i := range bf16 {
		bf16[i] = binary.LittleEndian.Uint16(out[2*i:])
	}
	return f32, bf16
}

// bf16Value is the value of a bf16 bit pattern (the top half of a binary32).
func bf16Value(b uint16) float64 { return float64(math.Float32frombits(uint32(b) << 16)) }

// bf16RoundNearest rounds the binary32 x to bf16, ties to even, by
// comparing x with its two bf16 neighbours (x finite).
func bf16RoundNearest(x uint32) uint16 {
	lo := uint16(x >> 16) // toward zero
	hi := lo + 1          // away from zero (the next magnitude)
	v := float64(math.Float32frombits(x))
	dl, dh := math.Abs(v-bf16Value(lo)), math.Abs(bf16Value(hi)-v)
	if dl < dh || dl == dh && lo&1 == 0 {
		return lo
	}
	return hi
}

// checkGemm compares the kernel's two outputs with the f32 reference.
func checkGemm(t *testing.T, m, n int, want, got []uint32, gotBF []uint16) {
	t.Helper()
	bad := 0
	for i := range m {
		for j := range n {
			w, g, gb := want[i*n+j], got[i*n+j], gotBF[i*n+j]
			wb := bf16RoundNearest(w)
			if (g != w || gb != wb) && bad < 8 {
				t.Errorf("D[%d][%d] = %#08x (%g) and bf16 %#04x, want %#08x (%g) and %#04x",
					i, j, g, math.Float32frombits(g), gb, w, math.Float32frombits(w), wb)
			}
			if g != w || gb != wb {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d elements differ", bad, m*n)
	}
}

// smallIntBF16 returns n bf16 values drawn from the integers -3..3.
func smallIntBF16(r *rand.Rand, n int) []uint16 {
	x := make([]uint16, n)
	for i := range x {
		x[i] = uint16(math.Float32bits(float32(r.IntN(7)-3)) >> 16)
	}
	return x
}

// TestTcgen05GemmExact runs the GEMM on small integers, where every product
// and every partial sum is exact in any model of the tensor core: D is
// A·B^T computed with integers in the test, and its bf16 copy is D rounded
// to nearest-even. Each tcgen05.ld shape runs under a different
// completion policy (eager, delayed, random).
func TestTcgen05GemmExact(t *testing.T) {
	const m, n, k = 256, 256, 256
	r := rand.New(rand.NewPCG(22, 1))
	A, B := smallIntBF16(r, m*k), smallIntBF16(r, n*k)
	want := make([]uint32, m*n)
	for i := range m {
		for j := range n {
			s := 0
			for kk := range k {
				s += int(bf16Value(A[i*k+kk])) * int(bf16Value(B[j*k+kk]))
			}
			want[i*n+j] = math.Float32bits(float32(s))
		}
	}
	for _, tc := range []struct {
		epi int
		cfg Config
	}{{0, Config{Async: AsyncEager}}, {1, Config{Async: AsyncDelayed}}, {0, Config{Async: AsyncRandom, Seed: 7}}} {
		t.Run(fmt.Sprintf("epi%d_%v", tc.epi, tc.cfg.Async), func(t *testing.T) {
			g := &gemmProblem{m: m, n: n, k: k, A: A, B: B, epi: tc.epi, cfg: tc.cfg}
			got, gotBF := g.run(t)
			checkGemm(t, m, n, want, got, gotBF)
		})
	}
}

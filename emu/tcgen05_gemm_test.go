package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// gemmKernelPath is the warp-specialized Blackwell GEMM (TMA loads into a
// three-stage mbarrier pipeline, tcgen05.mma into Tensor Memory, an
// epilogue with tcgen05.ld, st.global and a TMA store); its header says
// how it is launched.
const gemmKernelPath = "testdata/tcgen05_gemm.ptx"

// gemm2SMKernelPath is its 2SM form: a CTA pair per 256 × 128 tile,
// tcgen05.mma.cta_group::2, TMA loads with .cta_group::2 signalling CTA 0.
const gemm2SMKernelPath = "testdata/tcgen05_gemm_2sm.ptx"

// gemm2SMShared is the 2SM kernel's dynamic shared memory: alignment slack,
// three 24 KiB stages, 32 KiB of staging.
const gemm2SMShared = 1024 + 3*24576 + 32768

// gemmShared is the dynamic shared memory the kernel asks for: 1024 bytes
// of alignment slack, three 32 KiB stages and 32 KiB of epilogue staging.
const gemmShared = 1024 + 3*32768 + 32768

// gemmKind is an instantiation of the kernel for one tcgen05.mma kind, as
// a C++ template would make it: the .kind qualifier, the instruction
// descriptor, the tensor maps' element type and the elements of K in one
// 128-byte row of a stage (the TMA box's inner extent). Every kind reads
// 32 bytes of K per MMA, so a stage is four MMAs in each.
type gemmKind struct {
	qual   string
	idesc  uint32
	typ    tensormap.DataType
	kStage int
}

var (
	gemmBF16 = gemmKind{".kind::f16", tcIdescOf(1, 1, 1, 128, 128), tensormap.BF16, 64}
	gemmTF32 = gemmKind{".kind::tf32", tcIdescOf(1, 2, 2, 128, 128), tensormap.F32, 32}
	gemmE4M3 = gemmKind{".kind::f8f6f4", tcIdescOf(1, 0, 0, 128, 128), tensormap.U8, 128}
)

// source is the kernel's text for kind g.
func (g gemmKind) source(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(gemmKernelPath)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if g.qual == gemmBF16.qual {
		return src
	}
	for _, r := range [][2]string{
		{".kind::f16 [%r8]", g.qual + " [%r8]"},
		{fmt.Sprintf("mov.u32 %%r31, %d;", gemmBF16.idesc), fmt.Sprintf("mov.u32 %%r31, %d;", g.idesc)},
		{"shl.b32 %r29, %r21, 6;", fmt.Sprintf("shl.b32 %%r29, %%r21, %d;", bits.TrailingZeros(uint(g.kStage)))},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("%s: no %q to instantiate", gemmKernelPath, r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	return src
}

// gemmProblem is one launch of the kernel: A is m×k and B is n×k, both
// row-major, elements of the kind's size in little-endian bytes.
type gemmProblem struct {
	kind    gemmKind
	pair    bool // the 2SM kernel (tcgen05_gemm_2sm.ptx)
	m, n, k int
	A, B    []byte
	epi     int // 0: tcgen05.ld.32x32b, 1: tcgen05.ld.16x256b
	cfg     Config
}

// run launches the kernel and returns D as f32 bits (st.global) and as
// bf16 bits (the TMA store), both row-major m×n.
func (g *gemmProblem) run(t *testing.T) (f32 []uint32, bf16 []uint16) {
	t.Helper()
	src := g.kind.source(t)
	if g.pair {
		b, err := os.ReadFile(gemm2SMKernelPath)
		if err != nil {
			t.Fatal(err)
		}
		src = string(b)
	}
	p := compile(t, src)
	// every output byte starts as 0xff, so an element never written is a NaN that matches nothing
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 0xff
		}
		return b
	}
	es := g.kind.typ.ElemSize()
	kMajor := func(rows int) tensormap.Map {
		return tensormap.Map{Type: g.kind.typ, Rank: 2, Dims: [5]uint64{uint64(g.k), uint64(rows)},
			Strides: [4]uint64{uint64(es * g.k)}, Box: [5]uint32{uint32(g.kind.kStage), 128}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
			Swizzle: tensormap.Swizzle128B}
	}
	mA, mB := kMajor(g.m), kMajor(g.n)
	if g.pair {
		mB.Box[1] = 64 // each CTA of the pair loads half of the tile's columns
	}
	mD := tensormap.Map{Type: tensormap.BF16, Rank: 2, Dims: [5]uint64{uint64(g.n), uint64(g.m)},
		Strides: [4]uint64{uint64(2 * g.n)}, Box: [5]uint32{64, 32}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
		Swizzle: tensormap.Swizzle128B}
	args := []Arg{
		{TensorMap: &mA, MapOf: 3}, {TensorMap: &mB, MapOf: 4}, {TensorMap: &mD, MapOf: 5},
		{IsBuffer: true, Buffer: g.A}, {IsBuffer: true, Buffer: g.B},
		{IsBuffer: true, Buffer: fill(2 * g.m * g.n)}, {IsBuffer: true, Buffer: fill(4 * g.m * g.n)},
		scalar(uint64(g.n)), scalar(uint64(g.k / g.kind.kStage)), scalar(uint64(g.epi)),
	}
	cfg := g.cfg
	cfg.Grid, cfg.Block, cfg.SharedBytes = dims(g.n/128, g.m/128, 1), dims(128, 1, 1), gemmShared
	if g.pair {
		cfg.Grid, cfg.Cluster, cfg.SharedBytes = dims(2*g.n/128, g.m/256, 1), dims(2, 1, 1), gemm2SMShared
	}
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

// le16 and le32 are x as little-endian bytes.
func le16(x []uint16) []byte {
	b := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

func le32(x []uint32) []byte {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
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
	want := gemmIntRef(m, n, k, A, B)
	for _, tc := range []struct {
		epi int
		cfg Config
	}{{0, Config{Async: AsyncEager}}, {1, Config{Async: AsyncDelayed}}, {0, Config{Async: AsyncRandom, Seed: 7}}, {1, Config{Async: AsyncDelayed, Race: true}}} {
		t.Run(fmt.Sprintf("epi%d_%v", tc.epi, tc.cfg.Async), func(t *testing.T) {
			g := &gemmProblem{kind: gemmBF16, m: m, n: n, k: k, A: le16(A), B: le16(B), epi: tc.epi, cfg: tc.cfg}
			got, gotBF := g.run(t)
			checkGemm(t, m, n, want, got, gotBF)
		})
	}
}

// randomBF16 returns n bf16 values with random signs, significands and
// exponents from 2^-6 to 2^6, so that the products of a row and a column
// span 24 binades and the tensor core's alignment truncates.
func randomBF16(r *rand.Rand, n int) []uint16 {
	x := make([]uint16, n)
	for i := range x {
		x[i] = uint16(r.IntN(2))<<15 | uint16(127-6+r.IntN(13))<<7 | uint16(r.IntN(128))
	}
	return x
}

// blackwellBlockRZ is one tcgen05.mma.kind::f16 step of the published
// model (MMA-Sim, arXiv 2511.10909; Khattak and Mikaitis, arXiv
// 2512.07004) for one element of D, written here on float64: the
// accumulator and the 16 exact products are aligned to the largest
// exponent among them, each is truncated toward zero to 25 fraction bits
// below it, the truncated terms are added exactly, and the sum is rounded
// toward zero to binary32. Every step is exact in float64: a bf16 product
// has 16 significant bits, the accumulator 24, and the sum of 17 terms
// below 2^26 units of 2^q needs 31.
func blackwellBlockRZ(acc float32, a, b []float64) float32 {
	terms := []float64{float64(acc)}
	for i := range a {
		terms = append(terms, a[i]*b[i])
	}
	emax := math.MinInt
	for _, x := range terms {
		if x != 0 {
			_, e := math.Frexp(x) // x = f·2^e, 0.5 <= |f| < 1: the leading bit is 2^(e-1)
			emax = max(emax, e-1)
		}
	}
	if emax == math.MinInt {
		return 0
	}
	q := emax - 25
	sum := 0.0
	for _, x := range terms {
		sum += math.Ldexp(math.Trunc(math.Ldexp(x, -q)), q)
	}
	f := float32(sum)
	if math.Abs(float64(f)) > math.Abs(sum) { // float32() rounded away from zero
		f = math.Nextafter32(f, 0)
	}
	return f
}

// TestTcgen05GemmModel runs the GEMM on random bf16 data whose sums lose
// bits, and compares D with the published tensor-core model evaluated in
// the test (blackwellBlockRZ, one step per tcgen05.mma of K = 16, the f32
// result of each the accumulator of the next); the TMA-stored copy is D
// rounded to bf16. A float64 dot product (no truncation) differs from D
// in most elements, so the comparison sees the model.
func TestTcgen05GemmModel(t *testing.T) {
	const m, n, k = 256, 128, 256
	r := rand.New(rand.NewPCG(22, 2))
	A, B := randomBF16(r, m*k), randomBF16(r, n*k)
	av, bv := make([]float64, len(A)), make([]float64, len(B))
	for i, x := range A {
		av[i] = bf16Value(x)
	}
	for i, x := range B {
		bv[i] = bf16Value(x)
	}
	want := make([]uint32, m*n)
	plain := 0 // elements where a float64 dot product rounded to f32 agrees
	for i := range m {
		for j := range n {
			var acc float32
			dot := 0.0
			for k0 := 0; k0 < k; k0 += 16 {
				acc = blackwellBlockRZ(acc, av[i*k+k0:i*k+k0+16], bv[j*k+k0:j*k+k0+16])
			}
			for kk := range k {
				dot += av[i*k+kk] * bv[j*k+kk]
			}
			if float32(dot) == acc {
				plain++
			}
			want[i*n+j] = math.Float32bits(acc)
		}
	}
	if plain > m*n/4 {
		t.Fatalf("the data does not exercise the model: %d of %d elements equal a float64 dot product", plain, m*n)
	}
	g := &gemmProblem{kind: gemmBF16, m: m, n: n, k: k, A: le16(A), B: le16(B), epi: 1, cfg: Config{Async: AsyncRandom, Seed: 3}}
	got, gotBF := g.run(t)
	checkGemm(t, m, n, want, got, gotBF)
}

// e4m3Value is the value of an E4M3 byte (OCP FP8: bias 7, no infinities,
// S.1111.111 NaN), written out from the format's definition.
func e4m3Value(b byte) float64 {
	sign := 1.0
	if b&0x80 != 0 {
		sign = -1
	}
	e, m := int(b>>3&15), float64(b&7)
	switch {
	case b&0x7f == 0x7f:
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(m/8, -6)
	}
	return sign * math.Ldexp(1+m/8, e-7)
}

// gemmOperand draws n elements of kind g's input format with draw (which
// gets the random source and returns a value exact in the format) and
// returns their bytes and values.
func gemmOperand(g gemmKind, n int, draw func() float64) ([]byte, []float64) {
	vals := make([]float64, n)
	switch g.typ {
	case tensormap.BF16:
		bits := make([]uint16, n)
		for i := range bits {
			bits[i] = uint16(math.Float32bits(float32(draw())) >> 16)
			vals[i] = bf16Value(bits[i])
		}
		return le16(bits), vals
	case tensormap.F32: // tf32: the low 13 bits are zero
		bits := make([]uint32, n)
		for i := range bits {
			bits[i] = math.Float32bits(float32(draw())) &^ 0x1fff
			vals[i] = float64(math.Float32frombits(bits[i]))
		}
		return le32(bits), vals
	}
	code := map[float64]byte{}
	for c := range 256 {
		if v := e4m3Value(byte(c)); !math.IsNaN(v) && (v != 0 || c == 0) {
			code[v] = byte(c)
		}
	}
	b := make([]byte, n)
	for i := range b {
		v := draw()
		c, ok := code[v]
		if !ok {
			panic(fmt.Sprintf("%g is not an e4m3 value", v))
		}
		b[i], vals[i] = c, v
	}
	return b, vals
}

// TestTcgen05GemmKinds runs the same kernel instantiated for .kind::tf32
// and .kind::f8f6f4 (e4m3): on small integers D is A·B^T exactly; on random
// data it is the published model evaluated in the test, one block per MMA
// (8 tf32 or 32 e4m3 products and the accumulator, aligned and truncated to
// 25 fraction bits, rounded toward zero).
func TestTcgen05GemmKinds(t *testing.T) {
	for _, kind := range []gemmKind{gemmTF32, gemmE4M3} {
		kmma := 32 / kind.typ.ElemSize() // K of one MMA
		random := func(r *rand.Rand) func() float64 {
			if kind.typ == tensormap.U8 {
				return func() float64 {
					for {
						if v := e4m3Value(byte(r.IntN(256))); !math.IsNaN(v) {
							return v
						}
					}
				}
			}
			return func() float64 { // tf32: 10 fraction bits, exponents -6..6
				return float64(r.IntN(2)*2-1) * math.Ldexp(1+float64(r.IntN(1024))/1024, r.IntN(13)-6)
			}
		}
		for _, exact := range []bool{true, false} {
			name := strings.TrimPrefix(kind.qual, ".kind::") + map[bool]string{true: "_exact", false: "_model"}[exact]
			t.Run(name, func(t *testing.T) {
				const m, n, k = 128, 256, 256
				r := rand.New(rand.NewPCG(22, uint64(len(name))))
				draw := random(r)
				if exact {
					draw = func() float64 { return float64(r.IntN(7) - 3) }
				}
				A, av := gemmOperand(kind, m*k, draw)
				B, bv := gemmOperand(kind, n*k, draw)
				want, plain := make([]uint32, m*n), 0
				for i := range m {
					for j := range n {
						var acc float32
						for k0 := 0; k0 < k; k0 += kmma {
							acc = blackwellBlockRZ(acc, av[i*k+k0:i*k+k0+kmma], bv[j*k+k0:j*k+k0+kmma])
						}
						dot := 0.0
						for kk := range k {
							dot += av[i*k+kk] * bv[j*k+kk]
						}
						if exact && float32(dot) != acc {
							t.Fatalf("reference: the model gives %g for an exact dot product of %g", acc, dot)
						}
						if float32(dot) == acc {
							plain++
						}
						want[i*n+j] = math.Float32bits(acc)
					}
				}
				if !exact && plain > m*n/4 {
					t.Fatalf("the data does not exercise the model: %d of %d elements equal a float64 dot product", plain, m*n)
				}
				g := &gemmProblem{kind: kind, m: m, n: n, k: k, A: A, B: B, epi: len(name) % 2, cfg: Config{Async: AsyncDelayed}}
				got, gotBF := g.run(t)
				checkGemm(t, m, n, want, got, gotBF)
			})
		}
	}
}

// gemmModelRef is D = A·B^T of m×k and n×k bf16 matrices by the
// published model evaluated in the test (blackwellBlockRZ per MMA of K =
// 16), as f32 bits.
func gemmModelRef(m, n, k int, A, B []uint16) []uint32 {
	av, bv := make([]float64, len(A)), make([]float64, len(B))
	for i, x := range A {
		av[i] = bf16Value(x)
	}
	for i, x := range B {
		bv[i] = bf16Value(x)
	}
	want := make([]uint32, m*n)
	for i := range m {
		for j := range n {
			var acc float32
			for k0 := 0; k0 < k; k0 += 16 {
				acc = blackwellBlockRZ(acc, av[i*k+k0:i*k+k0+16], bv[j*k+k0:j*k+k0+16])
			}
			want[i*n+j] = math.Float32bits(acc)
		}
	}
	return want
}

// gemmIntRef is D = A·B^T of small-integer bf16 matrices, with integers.
func gemmIntRef(m, n, k int, A, B []uint16) []uint32 {
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
	return want
}

// TestTcgen05Gemm2SM runs the 2SM kernel (a CTA pair per 256 × 128 tile,
// tcgen05.mma.cta_group::2 with M = 256, both CTAs' TMA loads completing
// on CTA 0's mbarriers, multicast commits): small integers on 256 × 256 ×
// 256 against A·B^T computed with integers in the test (eager, and delayed
// with the .16x256b epilogue), and random bf16 on 256 × 128 × 128 against
// the published model evaluated in the test.
func TestTcgen05Gemm2SM(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 3))
	A, B := smallIntBF16(r, 256*256), smallIntBF16(r, 256*256)
	exact := gemmIntRef(256, 256, 256, A, B)
	RA, RB := randomBF16(r, 256*128), randomBF16(r, 128*128)
	model := gemmModelRef(256, 128, 128, RA, RB)
	for _, tc := range []struct {
		name    string
		m, n, k int
		A, B    []uint16
		want    []uint32
		epi     int
		cfg     Config
	}{
		{"exact_eager", 256, 256, 256, A, B, exact, 0, Config{}},
		{"exact_delayed", 256, 256, 256, A, B, exact, 1, Config{Async: AsyncDelayed}},
		{"model_random", 256, 128, 128, RA, RB, model, 1, Config{Async: AsyncRandom, Seed: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gemmProblem{kind: gemmBF16, pair: true, m: tc.m, n: tc.n, k: tc.k, A: le16(tc.A), B: le16(tc.B), epi: tc.epi, cfg: tc.cfg}
			got, gotBF := g.run(t)
			checkGemm(t, tc.m, tc.n, tc.want, got, gotBF)
		})
	}
}

package emu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// Whole sm_90a kernels of testdata/emu/hopper run to the right result: the
// references are computed here in float64 from the inputs, independently of
// the emulator and of internal/tensorcore.

// halfBits encodes x, which must be exactly representable as a normal or
// zero binary16 value, as its bits.
func halfBits(t testing.TB, x float64) uint16 {
	if x == 0 {
		return 0
	}
	var sign uint16
	if x < 0 {
		sign, x = 0x8000, -x
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	e := exp - 1 + 15
	m := (frac*2 - 1) * 1024
	if e <= 0 || e >= 31 || m != math.Trunc(m) {
		t.Fatalf("%g is not a normal binary16 value", x)
	}
	return sign | uint16(e)<<10 | uint16(m)
}

// halfValue decodes binary16 bits (normal, subnormal or zero).
func halfValue(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, m := int(h>>10&31), float64(h&1023)
	if e == 0 {
		return s * m * math.Ldexp(1, -24)
	}
	return s * (1 + m/1024) * math.Ldexp(1, e-15)
}

// halfMatrix stores vals (row-major) as binary16.
func halfMatrix(t testing.TB, vals []float64) []byte {
	out := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(out[2*i:], halfBits(t, v))
	}
	return out
}

// hopperKernel reads a kernel of testdata/emu/hopper.
func hopperKernel(t testing.TB, name string) string {
	t.Helper()
	src, err := os.ReadFile("../testdata/emu/hopper/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// f32At is element i of a little-endian float32 buffer.
func f32At(b []byte, i int) float64 {
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
}

// gemmBound is how far an f32-output tensor-core dot product over the
// Hopper model may be from the exact value: each block of 16 products and
// the accumulator are aligned to the largest of them and truncated to 25
// fraction bits (at most 17 terms, each losing less than one unit 2^-25 of
// the largest magnitude), and the block's sum is rounded toward zero to
// binary32 (less than 2^-23 of it). The magnitudes are taken from the exact
// partial sums, so the bound is 2^-22 times the sum over blocks of the
// largest term or partial sum the block sees.
func gemmBound(a, b []float64) float64 {
	var bound, acc float64
	for k0 := 0; k0 < len(a); k0 += 16 {
		largest := math.Abs(acc)
		for k := k0; k < k0+16 && k < len(a); k++ {
			p := a[k] * b[k]
			largest = math.Max(largest, math.Abs(p))
			acc += p
		}
		largest = math.Max(largest, math.Abs(acc))
		bound += largest * math.Ldexp(1, -22)
	}
	return bound
}

// runWsGemm runs ws_gemm.ptx (nvcc 12.5's PTX of ws_gemm.cu) on A (m×k)
// and B (n×k), both row-major, and returns D (m×n, f32, row-major).
func runWsGemm(t testing.TB, A, B []float64, m, n, k int, async AsyncPolicy) []byte {
	t.Helper()
	mapA := tensormap.Map{Type: tensormap.F16, Rank: 2, Dims: [5]uint64{uint64(k), uint64(m)},
		Strides: [4]uint64{uint64(2 * k)}, Box: [5]uint32{64, 128}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
		Swizzle: tensormap.Swizzle128B}
	mapB := mapA
	mapB.Dims = [5]uint64{uint64(k), uint64(n)}
	mapB.Box = [5]uint32{64, 64}
	const stages = 2
	cfg := Config{Grid: dims(n/64, m/128, 1), Block: dims(384, 1, 1), SharedBytes: stages*24<<10 + 1024, Async: async}
	res := launch(t, hopperKernel(t, "ws_gemm.ptx"), cfg,
		Arg{TensorMap: &mapA, MapOf: 2}, Arg{TensorMap: &mapB, MapOf: 3},
		Arg{IsBuffer: true, Buffer: halfMatrix(t, A)}, Arg{IsBuffer: true, Buffer: halfMatrix(t, B)},
		buf(4*m*n), s32(m), s32(n), s32(k))
	return res.Buffers[4].Data
}

// TestWsGemmExact: small integers, whose products and sums are exact in
// any tensor-core model, so D must equal A·Bᵀ exactly. K = 256 walks the
// two-stage ring twice (both parities of every barrier), and the 2×2 grid
// gives every CTA its own tile coordinates.
func TestWsGemmExact(t *testing.T) {
	const m, n, k = 256, 128, 256
	r := rand.New(rand.NewPCG(22, 90))
	A, B := make([]float64, m*k), make([]float64, n*k)
	for i := range A {
		A[i] = float64(r.IntN(9) - 4)
	}
	for i := range B {
		B[i] = float64(r.IntN(9) - 4)
	}
	for _, async := range []AsyncPolicy{AsyncEager, AsyncDelayed} {
		d := runWsGemm(t, A, B, m, n, k, async)
		for i := range m {
			for j := range n {
				want := 0.0
				for kk := range k {
					want += A[i*k+kk] * B[j*k+kk]
				}
				if got := f32At(d, i*n+j); got != want {
					t.Fatalf("async %v: D[%d][%d] = %g, want %g", async, i, j, got, want)
				}
			}
		}
	}
}

// TestWsGemmRandom: random binary16 values in [-1, 1) against the float64
// product, within gemmBound of each element.
func TestWsGemmRandom(t *testing.T) {
	const m, n, k = 128, 64, 512
	r := rand.New(rand.NewPCG(5, 7))
	A, B := make([]float64, m*k), make([]float64, n*k)
	for i := range A {
		A[i] = float64(r.IntN(4096)-2048) / 2048
	}
	for i := range B {
		B[i] = float64(r.IntN(4096)-2048) / 2048
	}
	d := runWsGemm(t, A, B, m, n, k, AsyncEager)
	inexact := 0
	for i := range m {
		for j := range n {
			want := 0.0
			for kk := range k {
				want += A[i*k+kk] * B[j*k+kk]
			}
			got := f32At(d, i*n+j)
			if bound := gemmBound(A[i*k:(i+1)*k], B[j*k:(j+1)*k]); math.Abs(got-want) > bound {
				t.Fatalf("D[%d][%d] = %g, want %g within %g", i, j, got, want, bound)
			}
			if got != want {
				inexact++
			}
		}
	}
	if inexact == 0 {
		t.Fatal("every element is exact: the data does not exercise the truncation")
	}
}

// runTritonMatmul runs triton_matmul.ptx on A (m×k) and B (k×n), both
// row-major, and returns C (m×n, f16, row-major) as float64 values. C is
// filled with 0x7e00 (a NaN) first, so elements the kernel does not store
// show up.
func runTritonMatmul(t *testing.T, A, B []float64, m, n, k int) []float64 {
	t.Helper()
	grid := ((m + 127) / 128) * ((n + 63) / 64)
	cfg := Config{Grid: dims(grid, 1, 1), Block: dims(256, 1, 1), SharedBytes: 3*24<<10 + 1024}
	c := make([]byte, 2*m*n)
	for i := 0; i < len(c); i += 2 {
		binary.LittleEndian.PutUint16(c[i:], 0x7e00)
	}
	res := launch(t, hopperKernel(t, "triton_matmul.ptx"), cfg,
		Arg{IsBuffer: true, Buffer: halfMatrix(t, A)}, Arg{IsBuffer: true, Buffer: halfMatrix(t, B)},
		Arg{IsBuffer: true, Buffer: c}, s32(m), s32(n), s32(k), s32(k), s32(n), s32(n))
	out := make([]float64, m*n)
	for i := range out {
		out[i] = halfValue(binary.LittleEndian.Uint16(res.Buffers[2].Data[2*i:]))
	}
	return out
}

// TestTritonMatmulExact: M, N and K that are not multiples of the blocks
// (masked cp.async chunks read zeros, masked stores are skipped), small
// integers whose products, sums and f16 result are exact.
func TestTritonMatmulExact(t *testing.T) {
	const m, n, k = 192, 120, 160
	r := rand.New(rand.NewPCG(3, 4))
	A, B := make([]float64, m*k), make([]float64, k*n)
	for i := range A {
		A[i] = float64(r.IntN(7) - 3)
	}
	for i := range B {
		B[i] = float64(r.IntN(7) - 3)
	}
	c := runTritonMatmul(t, A, B, m, n, k)
	for i := range m {
		for j := range n {
			want := 0.0
			for kk := range k {
				want += A[i*k+kk] * B[kk*n+j]
			}
			if c[i*n+j] != want {
				t.Fatalf("C[%d][%d] = %g, want %g", i, j, c[i*n+j], want)
			}
		}
	}
}

// TestTritonMatmulRandom: random f16 values in [-1, 1); C is the f32
// accumulator (within gemmBound of the exact product) rounded to nearest
// f16, so it may be off by gemmBound plus half a unit in the last place of
// binary16 at the result's magnitude.
func TestTritonMatmulRandom(t *testing.T) {
	const m, n, k = 128, 64, 256
	r := rand.New(rand.NewPCG(8, 1))
	A, B := make([]float64, m*k), make([]float64, k*n)
	for i := range A {
		A[i] = float64(r.IntN(4096)-2048) / 2048
	}
	for i := range B {
		B[i] = float64(r.IntN(4096)-2048) / 2048
	}
	c := runTritonMatmul(t, A, B, m, n, k)
	col := make([]float64, k)
	for i := range m {
		for j := range n {
			want := 0.0
			for kk := range k {
				col[kk] = B[kk*n+j]
				want += A[i*k+kk] * col[kk]
			}
			_, e := math.Frexp(math.Abs(want) + gemmBound(A[i*k:(i+1)*k], col))
			halfULP := math.Ldexp(1, max(e-1, -14)-11)
			if d := math.Abs(c[i*n+j] - want); d > gemmBound(A[i*k:(i+1)*k], col)+halfULP {
				t.Fatalf("C[%d][%d] = %g, want %g (off by %g)", i, j, c[i*n+j], want, d)
			}
		}
	}
}

// TestTritonAttentionForward runs triton_attn_fwd.ptx (softmax(s·QKᵀ)V per
// head, online softmax over four K/V blocks in a two-stage TMA ring) on
// random f16 Q, K, V in [-1, 1) for two heads, against the float64
// reference. The kernel rounds P to f16 before the second product (a
// relative error of at most 2^-11 on each weight, while the row sum uses the
// unrounded weights) and O to f16 at the end (half a unit, at most 2^-12 for
// |O| < 1); ex2.approx and the tensor core's truncation add errors near
// 2^-22. So each O may be off by 2^-11·max|V| + 2^-12 plus a margin of
// 2^-14, and M (the row's log2-sum-exp2, in f32) by 2^-16.
func TestTritonAttentionForward(t *testing.T) {
	const heads, nctx, hd = 2, 256, 64
	const smScale = 0.5
	rows := heads * nctx
	r := rand.New(rand.NewPCG(6, 6))
	Q, K, V := make([]float64, rows*hd), make([]float64, rows*hd), make([]float64, rows*hd)
	for _, x := range [][]float64{Q, K, V} {
		for i := range x {
			x[i] = float64(r.IntN(2048)-1024) / 1024
		}
	}
	mapOf := func(box int) tensormap.Map {
		return tensormap.Map{Type: tensormap.F16, Rank: 2, Dims: [5]uint64{hd, uint64(rows)},
			Strides: [4]uint64{2 * hd}, Box: [5]uint32{hd, uint32(box)}, ElemStrides: [5]uint32{1, 1, 1, 1, 1},
			Swizzle: tensormap.Swizzle128B}
	}
	mq, mk, mv, mo := mapOf(128), mapOf(64), mapOf(64), mapOf(128)
	cfg := Config{Grid: dims(nctx/128, heads, 1), Block: dims(256, 1, 1), SharedBytes: 49<<10 + 1024}
	res := launch(t, hopperKernel(t, "triton_attn_fwd.ptx"), cfg,
		scalar(uint64(math.Float32bits(smScale))), buf(4*rows),
		Arg{TensorMap: &mq, MapOf: 7}, Arg{TensorMap: &mk, MapOf: 8}, Arg{TensorMap: &mv, MapOf: 9},
		Arg{TensorMap: &mo, MapOf: 10}, s32(nctx),
		Arg{IsBuffer: true, Buffer: halfMatrix(t, Q)}, Arg{IsBuffer: true, Buffer: halfMatrix(t, K)},
		Arg{IsBuffer: true, Buffer: halfMatrix(t, V)}, buf(2*rows*hd))
	gotM, gotO := res.Buffers[1].Data, res.Buffers[10].Data
	s := make([]float64, nctx)
	var worstO, worstM float64
	for h := range heads {
		for i := range nctx {
			qi := (h*nctx + i) * hd
			peak := math.Inf(-1)
			for j := range nctx {
				kj := (h*nctx + j) * hd
				dot := 0.0
				for d := range hd {
					dot += Q[qi+d] * K[kj+d]
				}
				s[j] = smScale * dot
				peak = math.Max(peak, s[j])
			}
			sum := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - peak)
				sum += s[j]
			}
			want, got := (peak+math.Log(sum))/math.Ln2, f32At(gotM, h*nctx+i)
			if worstM = math.Max(worstM, math.Abs(got-want)); math.Abs(got-want) > math.Ldexp(1, -16) {
				t.Fatalf("head %d row %d: M = %g, want %g", h, i, got, want)
			}
			for d := range hd {
				want := 0.0
				for j := range nctx {
					want += s[j] / sum * V[(h*nctx+j)*hd+d]
				}
				got := halfValue(binary.LittleEndian.Uint16(gotO[2*(qi+d):]))
				worstO = math.Max(worstO, math.Abs(got-want))
				if tol := math.Ldexp(1, -11) + math.Ldexp(1, -12) + math.Ldexp(1, -14); math.Abs(got-want) > tol {
					t.Fatalf("head %d: O[%d][%d] = %g, want %g (tolerance %g)", h, i, d, got, want, tol)
				}
			}
		}
	}
	t.Logf("largest error: O %.3g, M %.3g", worstO, worstM)
}

// bf16Bits encodes x, which must be exactly representable as a normal or
// zero bfloat16 value.
func bf16Bits(t testing.TB, x float64) uint16 {
	b := math.Float32bits(float32(x))
	if float64(float32(x)) != x || b&0xffff != 0 {
		t.Fatalf("%g is not a bfloat16 value", x)
	}
	return uint16(b >> 16)
}

// runWsGemmCluster runs ws_gemm_cluster.ptx on A (m×k) and B (n×k), both
// row-major bf16, and returns D (m×n, bf16, row-major) as float64 values.
func runWsGemmCluster(t *testing.T, A, B []float64, m, n, k int, async AsyncPolicy) []float64 {
	t.Helper()
	enc := func(v []float64) []byte {
		out := make([]byte, 2*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint16(out[2*i:], bf16Bits(t, x))
		}
		return out
	}
	mapOf := func(inner, outer, box0, box1 int) tensormap.Map {
		return tensormap.Map{Type: tensormap.BF16, Rank: 2, Dims: [5]uint64{uint64(inner), uint64(outer)},
			Strides: [4]uint64{uint64(2 * inner)}, Box: [5]uint32{uint32(box0), uint32(box1)},
			ElemStrides: [5]uint32{1, 1, 1, 1, 1}, Swizzle: tensormap.Swizzle128B}
	}
	mapA, mapB, mapD := mapOf(k, m, 64, 128), mapOf(k, n, 64, 64), mapOf(n, m, 64, 128)
	cfg := Config{Grid: dims(m/128, n/128, 1), Cluster: dims(2, 1, 1), Block: dims(384, 1, 1),
		SharedBytes: 3*32<<10 + 32<<10 + 1024, Async: async}
	res := launch(t, hopperKernel(t, "ws_gemm_cluster.ptx"), cfg,
		Arg{TensorMap: &mapA, MapOf: 3}, Arg{TensorMap: &mapB, MapOf: 4}, Arg{TensorMap: &mapD, MapOf: 5},
		Arg{IsBuffer: true, Buffer: enc(A)}, Arg{IsBuffer: true, Buffer: enc(B)}, buf(2*m*n), s32(k))
	out := make([]float64, m*n)
	for i := range out {
		out[i] = refBF16(uint64(binary.LittleEndian.Uint16(res.Buffers[5].Data[2*i:]))) // ops_halfcmp_test.go
	}
	return out
}

// TestWsGemmClusterExact: entries in {-1, 0, 1} and K = 256, so every
// result is an integer of magnitude at most 256, exact in bfloat16. Four
// k-tiles through three stages wrap the ring; the eager run's 2×2 grid is
// two clusters of two CTAs, the delayed run (operations land as late as
// possible) one cluster.
func TestWsGemmClusterExact(t *testing.T) {
	const m, k = 256, 256
	r := rand.New(rand.NewPCG(2, 1))
	for _, run := range []struct {
		n     int
		async AsyncPolicy
	}{{256, AsyncEager}, {128, AsyncDelayed}} {
		n := run.n
		A, B := make([]float64, m*k), make([]float64, n*k)
		for i := range A {
			A[i] = float64(r.IntN(3) - 1)
		}
		for i := range B {
			B[i] = float64(r.IntN(3) - 1)
		}
		d := runWsGemmCluster(t, A, B, m, n, k, run.async)
		for i := range m {
			for j := range n {
				want := 0.0
				for kk := range k {
					want += A[i*k+kk] * B[j*k+kk]
				}
				if d[i*n+j] != want {
					t.Fatalf("async %v: D[%d][%d] = %g, want %g", run.async, i, j, d[i*n+j], want)
				}
			}
		}
	}
}

// TestWsGemmClusterRandom: random bfloat16 values in [-1, 1) (8
// significant bits), D within gemmBound of the exact product plus half a
// unit in the last place of bfloat16 (2^-8 relative).
func TestWsGemmClusterRandom(t *testing.T) {
	const m, n, k = 256, 128, 128
	r := rand.New(rand.NewPCG(4, 4))
	A, B := make([]float64, m*k), make([]float64, n*k)
	for i := range A {
		A[i] = float64(r.IntN(512)-256) / 256
	}
	for i := range B {
		B[i] = float64(r.IntN(512)-256) / 256
	}
	d := runWsGemmCluster(t, A, B, m, n, k, AsyncEager)
	for i := range m {
		for j := range n {
			want := 0.0
			for kk := range k {
				want += A[i*k+kk] * B[j*k+kk]
			}
			bound := gemmBound(A[i*k:(i+1)*k], B[j*k:(j+1)*k])
			_, e := math.Frexp(math.Abs(want) + bound)
			if diff := math.Abs(d[i*n+j] - want); diff > bound+math.Ldexp(1, e-1-8) {
				t.Fatalf("D[%d][%d] = %g, want %g (off by %g)", i, j, d[i*n+j], want, diff)
			}
		}
	}
}

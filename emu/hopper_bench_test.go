package emu

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkWsGemm runs ws_gemm.ptx on a 256×256×512 f16 problem (8 CTAs,
// 8 k-tiles each).
func BenchmarkWsGemm(b *testing.B) {
	const m, n, k = 256, 256, 512
	r := rand.New(rand.NewPCG(1, 2))
	A, B := make([]float64, m*k), make([]float64, n*k)
	for i := range A {
		A[i] = float64(r.IntN(9) - 4)
	}
	for i := range B {
		B[i] = float64(r.IntN(9) - 4)
	}
	t := &testing.T{}
	for b.Loop() {
		runWsGemm(t, A, B, m, n, k, AsyncEager)
	}
}

package emu

import (
	"os"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
)

// BenchmarkTcgen05Lifecycle emulates the TMEM lifecycle kernel on 64 CTAs
// of a warpgroup each (alloc, st .32x32b.x8, wait, two ld, dealloc).
func BenchmarkTcgen05Lifecycle(b *testing.B) {
	src, err := os.ReadFile("../testdata/emu/tmem/lifecycle.ptx")
	if err != nil {
		b.Fatal(err)
	}
	p := compile(b, string(src))
	cfg := Config{Grid: [3]int{64, 1, 1}, Block: [3]int{128, 1, 1}}
	for b.Loop() {
		res, err := execute(p, cfg, []Arg{{IsBuffer: true, Buffer: make([]byte, 6144)}})
		if err != nil || res.Report != nil {
			b.Fatal(err, res.Report)
		}
	}
}

// BenchmarkTcgen05StLd128 emulates a warpgroup storing and loading 128
// registers per thread (.32x32b.x128) through the decoder and interpreter.
func BenchmarkTcgen05StLd128(b *testing.B) {
	p := compile(b, formKernel(tmem.Form{Shape: tmem.Shape32x32b, Num: 128}))
	cfg := Config{Block: [3]int{128, 1, 1}}
	b.SetBytes(2 * 128 * 128 * 4)
	for b.Loop() {
		res, err := execute(p, cfg, []Arg{{IsBuffer: true, Buffer: make([]byte, 128*128*4)}})
		if err != nil || res.Report != nil {
			b.Fatal(err, res.Report)
		}
	}
}

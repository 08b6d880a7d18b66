package main

import (
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// BenchmarkCheckFile measures what `ptxkit check FILE` does with a file
// once it is read: parse, resolve and validate, one top-level statement at
// a time, on the 8 MB many-kernel module of the check benchmarks.
func BenchmarkCheckFile(b *testing.B) {
	benchCheckFile(b, []byte(benchmod.Check(8<<20)))
}

// BenchmarkCheckFileLongKernels is BenchmarkCheckFile on a module of the
// same size whose kernels are four times as long (four times fewer of
// them): the difference is the cost of a kernel's header, declarations and
// setup.
func BenchmarkCheckFileLongKernels(b *testing.B) {
	benchCheckFile(b, []byte(benchmod.CheckLong(8<<20, 4)))
}

// benchCheckFile runs checkFile on src b.N times.
func benchCheckFile(b *testing.B, src []byte) {
	benchmod.Run(b, len(src), func() {
		if l := checkFile("bench.ptx", src, check.Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

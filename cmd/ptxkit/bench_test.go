package main

import (
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
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

// BenchmarkCheckFileWholeBodies is BenchmarkCheckFile with the pipeline
// that streams top-level statements with whole function bodies
// (parser.ReuseBodies, Resolver.Add, Checker.Add), what `ptxkit check`
// did before it streamed bodies statement by statement: the ratio of the
// two is the cost of the finer streaming.
func BenchmarkCheckFileWholeBodies(b *testing.B) {
	src := []byte(benchmod.Check(8 << 20))
	benchmod.Run(b, len(src), func() {
		if l := checkFileWholeBodies("bench.ptx", src, check.Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

// BenchmarkCheckFileWholeBodiesLongKernels is BenchmarkCheckFileWholeBodies
// on the module of BenchmarkCheckFileLongKernels.
func BenchmarkCheckFileWholeBodiesLongKernels(b *testing.B) {
	src := []byte(benchmod.CheckLong(8<<20, 4))
	benchmod.Run(b, len(src), func() {
		if l := checkFileWholeBodies("bench.ptx", src, check.Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

// checkFileWholeBodies is checkFile streaming whole function bodies.
func checkFileWholeBodies(name string, src []byte, cfg check.Config) diag.List {
	st := parser.NewStream(name, string(src), parser.ReuseBodies)
	chk := check.NewChecker(name, cfg)
	for s := st.Next(); s != nil; s = st.Next() {
		if len(st.Errors()) == 0 {
			chk.Add(s)
		}
	}
	chk.End()
	errs := st.Errors()
	if !errs.HasErrors() {
		errs = append(errs, chk.Diagnostics()...)
	}
	return errs
}

// BenchmarkCheckFileCompiler is BenchmarkCheckFile on the compiler-style
// module of scripts/bench-startup.sh and scripts/bench-check-cat.sh
// (benchmod.Compiler), 16 MiB: serial, the parser and the checker on one
// goroutine; piped, the parser on a goroutine of its own (checkPiped).
func BenchmarkCheckFileCompiler(b *testing.B) {
	src := []byte(benchmod.Compiler(16 << 20))
	defer func(n int) { pipeMinBytes = n }(pipeMinBytes)
	b.Run("serial", func(b *testing.B) {
		pipeMinBytes = 1 << 62
		benchCheckFile(b, src)
	})
	b.Run("piped", func(b *testing.B) {
		pipeMinBytes = 0
		benchCheckFile(b, src)
	})
}

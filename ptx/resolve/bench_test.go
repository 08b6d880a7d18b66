package resolve_test

import (
	"sync"
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// benchModule returns the compiler-style generated module of the
// parser's benchmarks, about size bytes (internal/benchmod).
func benchModule(size int) string { return benchmod.Compiler(size) }

var benchSrc = sync.OnceValue(func() string { return benchModule(8 << 20) })

// benchTree parses the benchmark module once.
func benchTree(b *testing.B) *ast.Module {
	m, errs := parser.ParseString("bench.ptx", benchSrc())
	if errs.HasErrors() {
		b.Fatal(errs.Err())
	}
	return m
}

// BenchmarkModule measures Module on the tree of an 8 MB generated
// module, parsed once.
func BenchmarkModule(b *testing.B) {
	m := benchTree(b)
	b.SetBytes(int64(len(benchSrc())))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		if _, errs := resolve.Module(m); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(benchSrc()), start)
}

// BenchmarkStream measures a Resolver without KeepUses fed the statements
// of the same tree one by one.
func BenchmarkStream(b *testing.B) {
	m := benchTree(b)
	b.SetBytes(int64(len(benchSrc())))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		r := resolve.NewResolver(m.Filename)
		r.KeepUses = false
		for _, s := range m.Stmts {
			r.Add(s)
		}
		if errs := r.Diagnostics(); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(benchSrc()), start)
}

// BenchmarkParseStream measures a parser.Stream that recycles function
// bodies feeding a Resolver without KeepUses: the front end of a
// validator that never holds the whole tree.
func BenchmarkParseStream(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		r := resolve.NewResolver("bench.ptx")
		r.KeepUses = false
		for s := st.Next(); s != nil; s = st.Next() {
			r.Add(s)
		}
		if errs := append(st.Errors(), r.Diagnostics()...); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

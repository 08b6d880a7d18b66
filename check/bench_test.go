package check

import (
	"fmt"
	"os"
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// benchModule returns the benchmark module of about size bytes: copies
// of a kernel with index arithmetic, loads and the store forms kernels use
// (internal/benchmod).
func benchModule(size int) string { return benchmod.Check(size) }

// TestWriteBenchModule writes the benchmark module to $PTXKIT_BENCH_OUT
// ($PTXKIT_BENCH_MB megabytes, default 32) for scripts/bench-check.sh.
func TestWriteBenchModule(t *testing.T) {
	out := os.Getenv("PTXKIT_BENCH_OUT")
	if out == "" {
		t.Skip("PTXKIT_BENCH_OUT not set")
	}
	mb := 32
	fmt.Sscan(os.Getenv("PTXKIT_BENCH_MB"), &mb)
	if err := os.WriteFile(out, []byte(benchModule(mb<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBenchModuleIsValid(t *testing.T) {
	src := benchModule(1)
	m, errs := parser.ParseString("bench.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if l := Module(m, Config{}); l.HasErrors() {
		t.Fatal(l)
	}
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skip("ptxas 12.5 not found")
	}
	if l := ptxasErrorLines(t, ptxas, t.TempDir(), "sm_90", src); len(l) > 0 {
		t.Fatalf("ptxas rejects lines %v", l)
	}
}

// BenchmarkCheck measures check.Module alone on an 8 MB module.
func BenchmarkCheck(b *testing.B) {
	src, m := benchTree(b)
	benchmod.Run(b, len(src), func() {
		if l := Module(m, Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

// BenchmarkChecker measures a Checker fed the statements of the same
// module in source order (what a streaming caller does, without the
// parsing).
func BenchmarkChecker(b *testing.B) {
	src, m := benchTree(b)
	benchmod.Run(b, len(src), func() {
		c := NewChecker("bench.ptx", Config{})
		for _, s := range m.Stmts {
			c.Add(s)
		}
		c.End()
		if l := c.Diagnostics(); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

// benchTree returns the 8 MB benchmark module and its tree.
func benchTree(b *testing.B) (string, *ast.Module) {
	src := benchModule(8 << 20)
	m, errs := parser.ParseString("bench.ptx", src)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	return src, m
}

// BenchmarkStreamCheck measures parsing as a stream with recycled function
// bodies and checking each statement as it comes (no name resolution).
func BenchmarkStreamCheck(b *testing.B) {
	src := benchModule(8 << 20)
	benchmod.Run(b, len(src), func() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		c := NewChecker("bench.ptx", Config{})
		for s := st.Next(); s != nil; s = st.Next() {
			c.Add(s)
		}
		c.End()
		if l := append(st.Errors(), c.Diagnostics()...); len(l) != 0 {
			b.Fatal(l)
		}
	})
}

// BenchmarkParseResolveCheck measures the three passes over a whole tree:
// parse the module, resolve it, validate it (`ptxkit check` streams
// instead; see cmd/ptxkit BenchmarkCheckFile).
func BenchmarkParseResolveCheck(b *testing.B) {
	src := benchModule(8 << 20)
	benchmod.Run(b, len(src), func() {
		m, errs := parser.ParseString("bench.ptx", src)
		_, rerrs := resolve.Module(m)
		if len(errs)+len(rerrs) != 0 {
			b.Fatal(errs, rerrs)
		}
		Module(m, Config{})
	})
}

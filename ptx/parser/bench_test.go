package parser_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/scanner"
)

// benchModule returns the compiler-style generated module of about size
// bytes (internal/benchmod).
func benchModule(size int) []byte { return []byte(benchmod.Compiler(size)) }

var benchSrc = sync.OnceValue(func() []byte { return benchModule(8 << 20) })

func TestBenchModuleParses(t *testing.T) {
	src := benchModule(64 << 10)
	m, errs := parser.ParseFile("bench.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	if _, rerrs := resolve.Module(m); rerrs.HasErrors() {
		t.Fatal(rerrs.Err())
	}
}

// BenchmarkParse measures parsing throughput on an 8 MB generated module.
func BenchmarkParse(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		if _, errs := parser.ParseFile("bench.ptx", src); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

// BenchmarkParseResolve measures parsing plus name resolution.
func BenchmarkParseResolve(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		m, _ := parser.ParseFile("bench.ptx", src)
		if _, errs := resolve.Module(m); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

// BenchmarkParseCompilerOutput parses the llc-generated test modules (with
// their comments, debug sections and spacing) one after another.
func BenchmarkParseCompilerOutput(b *testing.B) {
	var srcs [][]byte
	n := 0
	for _, f := range testdataPTX(b) {
		if filepath.Base(filepath.Dir(f)) != "llc" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		n += len(src)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		for _, src := range srcs {
			if _, errs := parser.ParseFile("llc.ptx", src); errs.HasErrors() {
				b.Fatal(errs.Err())
			}
		}
	}
	benchmod.ReportCPU(b, n, start)
}

// BenchmarkResolve measures name resolution alone on the tree of the
// module of BenchmarkParse, parsed once.
func BenchmarkResolve(b *testing.B) {
	src := benchSrc()
	m, errs := parser.ParseFile("bench.ptx", src)
	if errs.HasErrors() {
		b.Fatal(errs.Err())
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		if _, errs := resolve.Module(m); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

// BenchmarkScanLimit tokenizes the module of BenchmarkParse without
// building a tree: the speed the parser would have if building the tree
// cost nothing, an upper bound for it.
func BenchmarkScanLimit(b *testing.B) {
	src := string(benchSrc())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	var s scanner.Scanner
	for b.Loop() {
		s.Init(src, nil)
		for s.Scan().Kind != scanner.EOF {
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

// BenchmarkCopyLimit copies the module of BenchmarkParse once: the
// machine's memory bandwidth, the physical limit of any pass that reads
// its input.
func BenchmarkCopyLimit(b *testing.B) {
	src := benchSrc()
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkParseStreamCheckModule streams the store-heavy module of the
// check benchmarks (internal/benchmod), the one `ptxkit check` is timed on.
func BenchmarkParseStreamCheckModule(b *testing.B) { benchStream(b, benchmod.Check(8<<20)) }

// BenchmarkParseStream parses the module of BenchmarkParse one top-level
// statement at a time with recycled function bodies, as `ptxkit check`
// does: every node is built, but no module-sized tree is ever live.
func BenchmarkParseStream(b *testing.B) { benchStream(b, string(benchSrc())) }

// benchStream streams src with recycled bodies b.N times.
func benchStream(b *testing.B, src string) {
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := benchmod.CPUTime()
	for b.Loop() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		for s := st.Next(); s != nil; s = st.Next() {
		}
		if errs := st.Errors(); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

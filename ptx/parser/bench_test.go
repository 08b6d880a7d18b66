package parser_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/scanner"
)

// benchModule returns a generated module of many kernels in the style of
// compiler output (declarations, parameter loads, address arithmetic,
// scalar and vector stores, guarded branches, calls), about size bytes.
func benchModule(size int) []byte {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90a\n.address_size 64\n\n")
	b.WriteString(".func (.param .b32 func_retval0) helper(.param .b32 p0)\n{\n\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [p0];\n\tadd.s32 %r2, %r1, 1;\n\tst.param.b32 [func_retval0], %r2;\n\tret;\n}\n\n")
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(&b, ".visible .entry kernel_%d(\n\t.param .u64 kernel_%d_param_0,\n\t.param .u32 kernel_%d_param_1\n)\n.maxntid 256, 1, 1\n{\n", k, k, k)
		b.WriteString("\t.reg .pred %p<4>;\n\t.reg .b32 %r<64>;\n\t.reg .f32 %f<16>;\n\t.reg .b64 %rd<32>;\n\t.shared .align 16 .b8 smem[4096];\n\n")
		fmt.Fprintf(&b, "\tld.param.u64 %%rd1, [kernel_%d_param_0];\n\tld.param.u32 %%r1, [kernel_%d_param_1];\n", k, k)
		b.WriteString("\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, %tid.x;\n\tmov.u32 %r3, %ctaid.x;\n\tmad.lo.s32 %r4, %r3, 256, %r2;\n")
		b.WriteString("\tsetp.ge.s32 %p1, %r4, %r1;\n\t@%p1 bra $L__BB0_2;\n")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&b, "\tmul.wide.s32 %%rd%d, %%r4, %d;\n", 3+i%20, 4*(i+1))
			fmt.Fprintf(&b, "\tadd.s64 %%rd%d, %%rd2, %%rd%d;\n", 3+i%20, 3+i%20)
			fmt.Fprintf(&b, "\tld.global.nc.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd%d+%d];\n", 3+i%20, 16*i)
			fmt.Fprintf(&b, "\tfma.rn.f32 %%f5, %%f1, 0f3F800000, %%f2;\n")
			fmt.Fprintf(&b, "\tst.global.v4.f32 [%%rd%d+-%d], {%%f5, %%f2, %%f3, %%f4};\n", 3+i%20, 16*i)
			fmt.Fprintf(&b, "\tst.shared.u32 [smem+%d], %%r%d;\n", 4*i, 5+i)
			fmt.Fprintf(&b, "\tst.global.L1::no_allocate.relaxed.gpu.u32 [%%rd%d], %%r%d; // store %d\n", 3+i%20, 5+i, i)
		}
		b.WriteString("\t{ // callseq\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n\t.param .b32 retval0;\n\tcall.uni (retval0), helper, (param0);\n\tld.param.b32 %r30, [retval0+0];\n\t}\n")
		b.WriteString("$L__BB0_2:\n\tret;\n}\n\n")
	}
	return []byte(b.String())
}

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

// reportCPUThroughput adds the metric "MB/cpu-s": input megabytes per
// second of CPU time spent by the whole process, which does not depend on
// how busy the other cores of the machine are.
func reportCPUThroughput(b *testing.B, n int, start time.Duration) {
	if start == 0 {
		return
	}
	if d := cpuTime() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkParse measures parsing throughput on an 8 MB generated module.
func BenchmarkParse(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, errs := parser.ParseFile("bench.ptx", src); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	reportCPUThroughput(b, len(src), start)
}

// BenchmarkParseResolve measures parsing plus name resolution.
func BenchmarkParseResolve(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		m, _ := parser.ParseFile("bench.ptx", src)
		if _, errs := resolve.Module(m); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	reportCPUThroughput(b, len(src), start)
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
	start := cpuTime()
	for b.Loop() {
		for _, src := range srcs {
			if _, errs := parser.ParseFile("llc.ptx", src); errs.HasErrors() {
				b.Fatal(errs.Err())
			}
		}
	}
	reportCPUThroughput(b, n, start)
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
	start := cpuTime()
	for b.Loop() {
		if _, errs := resolve.Module(m); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	reportCPUThroughput(b, len(src), start)
}

// BenchmarkScanLimit tokenizes the module of BenchmarkParse without
// building a tree: the speed the parser would have if building the tree
// cost nothing, an upper bound for it.
func BenchmarkScanLimit(b *testing.B) {
	src := string(benchSrc())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	var s scanner.Scanner
	for b.Loop() {
		s.Init(src, nil)
		for s.Scan().Kind != scanner.EOF {
		}
	}
	reportCPUThroughput(b, len(src), start)
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
func BenchmarkParseStreamCheckModule(b *testing.B) {
	src := benchmod.Check(8 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		for s := st.Next(); s != nil; s = st.Next() {
		}
		if errs := st.Errors(); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	reportCPUThroughput(b, len(src), start)
}

// BenchmarkParseStream parses the module of BenchmarkParse one top-level
// statement at a time with recycled function bodies, as `ptxkit check`
// does: every node is built, but no module-sized tree is ever live.
func BenchmarkParseStream(b *testing.B) {
	src := string(benchSrc())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		for s := st.Next(); s != nil; s = st.Next() {
		}
		if errs := st.Errors(); errs.HasErrors() {
			b.Fatal(errs.Err())
		}
	}
	reportCPUThroughput(b, len(src), start)
}

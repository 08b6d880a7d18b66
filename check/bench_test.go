package check

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// benchKernel is one kernel of the benchmark module: index arithmetic,
// loads and the store forms kernels use (vector, strong, shared, local,
// cache-hinted, predicated). %d is replaced by the kernel number.
const benchKernel = `.visible .entry store_kernel_%d(
	.param .u64 out,
	.param .u64 in,
	.param .u32 n
)
{
	.reg .pred %%p<4>;
	.reg .b32 %%r<24>;
	.reg .f32 %%f<12>;
	.reg .b64 %%rd<16>;
	.shared .align 16 .b32 tile[256];
	.local .align 16 .b32 spill[4];

	ld.param.u64 %%rd1, [out];
	ld.param.u64 %%rd2, [in];
	ld.param.u32 %%r1, [n];
	cvta.to.global.u64 %%rd3, %%rd1;
	cvta.to.global.u64 %%rd4, %%rd2;
	mov.u32 %%r2, %%tid.x;
	mov.u32 %%r3, %%ctaid.x;
	mov.u32 %%r4, %%ntid.x;
	mad.lo.s32 %%r5, %%r3, %%r4, %%r2;
	setp.ge.s32 %%p1, %%r5, %%r1;
	@%%p1 bra $L_done_%d;
	mul.wide.s32 %%rd5, %%r5, 16;
	add.s64 %%rd6, %%rd4, %%rd5;
	ld.global.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd6];
	add.f32 %%f5, %%f1, %%f2;
	mul.f32 %%f6, %%f3, %%f4;
	fma.rn.f32 %%f7, %%f5, %%f6, %%f1;
	add.s64 %%rd7, %%rd3, %%rd5;
	st.global.v4.f32 [%%rd7], {%%f5, %%f6, %%f7, %%f1};
	st.global.cs.f32 [%%rd7+4], %%f7;
	st.global.L1::no_allocate.v2.f32 [%%rd7+8], {%%f1, %%f2};
	shl.b32 %%r6, %%r2, 2;
	mov.u32 %%r7, tile;
	add.s32 %%r8, %%r7, %%r6;
	st.shared.f32 [%%r8], %%f7;
	st.shared.u32 [tile+4], %%r5;
	bar.sync 0;
	ld.shared.f32 %%f8, [%%r8];
	st.local.f32 [spill], %%f8;
	st.local.v2.u32 [spill+8], {%%r5, %%r6};
	ld.local.f32 %%f9, [spill];
	st.relaxed.gpu.global.u32 [%%rd7+12], %%r5;
	st.release.sys.global.f32 [%%rd7], %%f9;
	st.volatile.global.u32 [%%rd7+4], %%r6;
	cvt.rn.f16.f32 %%r9, %%f9;
	st.global.b16 [%%rd7+2], %%r9;
	st.global.u8 [%%rd7+1], %%r5;
	setp.eq.s32 %%p2, %%r2, 0;
	@%%p2 st.global.b64 [%%rd7+8], %%rd5;
	@!%%p2 st.global.wt.u32 [%%rd7+8], %%r5;
	st.global.L2::cache_hint.u32 [%%rd7], %%r5, %%rd5;
	st.shared.v4.b32 [%%r8], {%%r5, %%r6, %%r7, %%r8};
	st.u32 [%%rd1], %%r5;
$L_done_%d:
	ret;
}

`

// benchModule returns a module of about size bytes made of benchKernel
// copies.
func benchModule(size int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, benchKernel, i, i, i)
	}
	return b.String()
}

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
	src := benchModule(8 << 20)
	m, errs := parser.ParseString("bench.ptx", src)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if l := Module(m, Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	}
	reportCPU(b, cpu0, len(src))
}

// BenchmarkChecker measures a Checker fed the statements of the same
// module in source order (what a streaming caller does, without the
// parsing).
func BenchmarkChecker(b *testing.B) {
	src := benchModule(8 << 20)
	m, errs := parser.ParseString("bench.ptx", src)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		c := NewChecker("bench.ptx", Config{})
		for _, s := range m.Stmts {
			c.Add(s)
		}
		if l := c.Diagnostics(); len(l) != 0 {
			b.Fatal(l)
		}
	}
	reportCPU(b, cpu0, len(src))
}

// BenchmarkStreamCheck measures parsing as a stream with recycled function
// bodies and checking each statement as it comes (no name resolution).
func BenchmarkStreamCheck(b *testing.B) {
	src := benchModule(8 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		c := NewChecker("bench.ptx", Config{})
		for s := st.Next(); s != nil; s = st.Next() {
			c.Add(s)
		}
		if l := append(st.Errors(), c.Diagnostics()...); len(l) != 0 {
			b.Fatal(l)
		}
	}
	reportCPU(b, cpu0, len(src))
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the throughput per CPU-second, which stays meaningful on
// a machine shared with other work (wall-clock MB/s does not).
func reportCPU(b *testing.B, cpu0 time.Duration, size int) {
	if d := cpuTime() - cpu0; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkParseResolveCheck measures what `ptxkit check` does per file.
func BenchmarkParseResolveCheck(b *testing.B) {
	src := benchModule(8 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		m, errs := parser.ParseString("bench.ptx", src)
		_, rerrs := resolve.Module(m)
		if len(errs)+len(rerrs) != 0 {
			b.Fatal(errs, rerrs)
		}
		Module(m, Config{})
	}
	reportCPU(b, cpu0, len(src))
}

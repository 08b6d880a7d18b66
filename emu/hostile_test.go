package emu

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tcgenStoreLoop allocates Tensor Memory and then issues tcgen05.st forever
// without a tcgen05.wait::st.
const tcgenStoreLoop = `.version 8.6
.target sm_100a
.address_size 64
.entry k()
{
	.reg .b32 %r<40>;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, slot;
	mov.u32 %r6, 64;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r6;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %r3, [%r1];
L:
	tcgen05.st.sync.aligned.32x32b.x8.b32 [%r3], {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17};
	bra.uni L;
}
`

// TestHostileUnwaitedAsyncQueueBounded checks that a kernel issuing
// asynchronous operations it never waits for keeps a bounded queue under
// --async delayed and random, and stops at the step budget.
func TestHostileUnwaitedAsyncQueueBounded(t *testing.T) {
	for _, pol := range []AsyncPolicy{AsyncDelayed, AsyncRandom} {
		p := compile(t, tcgenStoreLoop)
		mem := p.newMemory()
		mem.setParams(nil)
		cfg := Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1), Async: pol, MaxSteps: 20000}
		if err := cfg.normalize(p); err != nil {
			t.Fatal(err)
		}
		wk := newWorker(p, &cfg, mem, nil)
		r := wk.runCluster(0, [3]int{})
		if r == nil || r.Rule != RuleMaxSteps {
			t.Fatalf("%v: report %v, want %s", pol, r, RuleMaxSteps)
		}
		if n := len(wk.cl.async); n > maxQueuedAsync {
			t.Errorf("%v: %d operations queued, want at most %d", pol, n, maxQueuedAsync)
		}
	}
}

// TestHostileBufferArgsBoundedTogether checks that Launch.Run refuses buffer
// arguments larger than MaxBufferBytes together before allocating them.
func TestHostileBufferArgsBoundedTogether(t *testing.T) {
	p := compile(t, `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b)
{
	ret;
}
`)
	half := make([]byte, MaxBufferBytes/2+1) // never written: no resident pages
	_, err := execute(p, Config{}, []Arg{{IsBuffer: true, Buffer: half}, {IsBuffer: true, Buffer: half}})
	if !errors.Is(err, ErrLaunch) || !strings.Contains(err.Error(), "argument 1 (b): buffer of 536870913 bytes: the buffers of a launch take at most 1073741824 bytes (1024 MiB) together; 536870911 are left") {
		t.Fatalf("err = %v", err)
	}
}

// TestHostileLaunchLimits checks the launch limits that keep the
// emulator's time and memory bounded whatever the configuration.
func TestHostileLaunchLimits(t *testing.T) {
	defer func(b uint64) { maxLaunchBytes = b }(maxLaunchBytes)
	maxLaunchBytes = launchBudget(0) // 1 GiB, whatever this machine has
	trivial := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
	bigLocal := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.local .b8 a[100000];\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, a;\n\tst.local.u8 [%rd1], 1;\n\tret;\n}\n"
	cases := []struct {
		src  string
		cfg  Config
		want string
	}{
		{trivial, Config{Grid: dims(maxGridCTAs+1, 1, 1)}, "grid of 16777217 CTAs; the emulator runs at most 16777216"},
		{trivial, Config{Grid: dims(1<<31-1, 65535, 65535)}, "the emulator runs at most"},
		{trivial, Config{Grid: dims(1, 65536, 1)}, "larger than a GPU allows"},
		{trivial, Config{Block: dims(1<<31-1, 1<<31-1, 4)}, "threads per CTA (at most 1024"},
		{trivial, Config{Grid: dims(1<<20, 1<<20, 1), Cluster: dims(1<<20, 1<<20, 1)}, "cluster of 1099511627776 CTAs (at most 16)"},
		{trivial, Config{Grid: dims(4, 1, 1), Cluster: dims(3, 1, 1)}, "grid x dimension (4) is not a multiple of the cluster x dimension (3)"},
		{bigLocal, Config{Block: dims(1024, 1, 1), Grid: dims(16, 1, 1), Cluster: dims(16, 1, 1)}, "emulating one cluster needs 1"},
	}
	for _, c := range cases {
		p := compile(t, c.src)
		_, err := execute(p, c.cfg, nil)
		if !errors.Is(err, ErrLaunch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestHostileJobsBoundedByMemory checks that --jobs is lowered so that the
// clusters emulated at once fit in maxLaunchBytes, and that the results do
// not change.
func TestHostileJobsBoundedByMemory(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.local .b8 a[100000];
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u64 %rd1, a;
	mov.u32 %r1, %ctaid.x;
	st.local.u32 [%rd1+99996], %r1;
	ld.local.u32 %r2, [%rd1+99996];
	mov.u32 %r3, %tid.x;
	setp.ne.u32 %p1, %r3, 0;
	@%p1 ret;
	ld.param.u64 %rd2, [out];
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r2;
	ret;
}
`
	p := compile(t, src)
	cfg := Config{Grid: dims(8, 1, 1), Block: dims(1024, 1, 1), Jobs: 256}
	c := cfg
	if err := c.normalize(p); err != nil {
		t.Fatal(err)
	}
	per := clusterBytes(p, &c)
	if per*uint64(c.Jobs) > maxLaunchBytes || c.Jobs < 1 || c.Jobs >= 256 {
		t.Fatalf("jobs %d x %d bytes per cluster exceeds %d", c.Jobs, per, maxLaunchBytes)
	}
	res := launch(t, src, cfg, buf(32))
	for i, v := range u32s(res.Buffers[0].Data) {
		if v != uint32(i) {
			t.Errorf("out[%d] = %d, want %d", i, v, i)
		}
	}
}

// spinKernel loops 1000 times per thread: 3,001 warp-instructions per warp.
const spinKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, 0;
L:	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 1000;
	@%p1 bra.uni L;
	ret;
}
`

// TestHostileLaunchStepBudget checks that MaxLaunchSteps bounds a grid of
// many clusters that each stay under MaxSteps, whatever Jobs is, and that
// a grid within the budget completes.
func TestHostileLaunchStepBudget(t *testing.T) {
	p := compile(t, spinKernel)
	perCluster := uint64(3001 + warpStartSteps)
	for _, jobs := range []int{1, 3} {
		cfg := Config{Grid: dims(100, 1, 1), Block: dims(32, 1, 1), Jobs: jobs, MaxLaunchSteps: 10 * perCluster}
		res, err := execute(p, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report == nil || res.Report.Rule != RuleMaxSteps || !strings.Contains(res.Report.Message, "(--max-launch-steps)") {
			t.Fatalf("jobs %d: report %v", jobs, res.Report)
		}
		if res.Stats.CTAs < 10 || res.Stats.CTAs >= 100 {
			t.Errorf("jobs %d: %d CTAs ran, want the budget's 10 and a few in flight", jobs, res.Stats.CTAs)
		}
	}
	cfg := Config{Grid: dims(100, 1, 1), Block: dims(32, 1, 1), MaxLaunchSteps: 100 * perCluster}
	res, err := execute(p, cfg, nil)
	if err != nil || res.Report != nil || res.Stats.CTAs != 100 {
		t.Fatalf("within the budget: err %v, report %v, %d CTAs", err, res.Report, res.Stats.CTAs)
	}
}

// TestAdoptedBufferNotCopied checks that an adopted buffer argument is the
// allocation itself (a 1 GiB buffer is then held once, not twice) and that
// a plain one is copied.
func TestAdoptedBufferNotCopied(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	st.global.u32 [%rd1], 7;
	st.global.u32 [%rd2], 9;
	ret;
}
`
	adopted, copied := make([]byte, 8), make([]byte, 8)
	res := launch(t, src, Config{Block: dims(1, 1, 1)},
		Arg{IsBuffer: true, Buffer: adopted, Adopt: true}, Arg{IsBuffer: true, Buffer: copied})
	if adopted[0] != 7 || &res.Buffers[0].Data[0] != &adopted[0] {
		t.Errorf("adopted buffer: %v, not the allocation", adopted)
	}
	if copied[0] != 0 || res.Buffers[1].Data[0] != 9 {
		t.Errorf("copied buffer changed (%v) or allocation wrong (%v)", copied, res.Buffers[1].Data)
	}
}

// TestHostileProgramTooLong checks that decoding stops with one
// positioned error once a kernel exceeds the instruction limit.
func TestHostileProgramTooLong(t *testing.T) {
	defer func(n int) { programInstLimit = n }(programInstLimit)
	programInstLimit = 8
	src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n" +
		strings.Repeat("\tadd.u32 %r1, %r1, 1;\n", 20) + "}\n"
	m, errs := parser.ParseString("long.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	_, errs = Decode(m, "")
	if len(errs) != 1 || errs[0].Pos.Line != 15 || !strings.Contains(errs[0].Message, "more than 8 instructions") {
		t.Fatalf("errors: %v", errs)
	}
}

// TestHostilePrintfBoundedPerLaunch checks that the printf output of a
// launch is bounded in all, not only per cluster, and that what is kept
// (a prefix in cluster order) does not depend on Jobs.
func TestHostilePrintfBoundedPerLaunch(t *testing.T) {
	l := newPrintLog()
	chunk := make([]byte, maxLaunchPrintfBytes/4+1)
	for _, i := range []int{5, 1, 0, 3, 2, 4} { // finishing out of order
		l.add(i, chunk)
	}
	if l.dropFrom != 3 || l.bytes != 3*len(chunk) {
		t.Fatalf("kept %d bytes, dropping from cluster %d; want clusters 0-2", l.bytes, l.dropFrom)
	}
	out := l.output(10)
	if len(out) > maxLaunchPrintfBytes+200 || !strings.HasSuffix(string(out), "[printf output of clusters from 3 on not kept: more than 16777216 bytes in all]\n") {
		t.Errorf("output of %d bytes ends %q", len(out), out[max(0, len(out)-100):])
	}

	src := `.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.global .align 1 .b8 fmt[4] = {120, 120, 10, 0};
.visible .entry k()
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	.param .b64 p0;
	.param .b64 p1;
	.param .b32 r;
	mov.u64 %rd1, fmt;
	cvta.global.u64 %rd1, %rd1;
	st.param.b64 [p0], %rd1;
	mov.u64 %rd2, 0;
	st.param.b64 [p1], %rd2;
	mov.u32 %r1, 0;
L:
	call.uni (r), vprintf, (p0, p1);
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 12000;
	@%p1 bra.uni L;
	ret;
}
`
	// Each cluster prints 12000*32 lines of 3 bytes: 1.1 MiB, truncated at
	// maxPrintfBytes (with a note); 15 of them fit in maxLaunchPrintfBytes.
	var outs [2][]byte
	for k, jobs := range []int{1, 2} {
		res := launch(t, src, Config{Grid: dims(20, 1, 1), Block: dims(32, 1, 1), Jobs: jobs})
		outs[k] = res.Stats.Printf
		if n := len(res.Stats.Printf); n > maxLaunchPrintfBytes+1000 {
			t.Errorf("jobs %d: %d bytes of printf output", jobs, n)
		}
		if !strings.Contains(string(res.Stats.Printf), "[printf output of clusters from 15 on not kept") {
			t.Errorf("jobs %d: no note about the dropped output", jobs)
		}
	}
	if string(outs[0]) != string(outs[1]) {
		t.Errorf("printf output differs between Jobs 1 and 2")
	}
}

// TestHostileRequiredClusterShape checks that a grid is checked against
// the cluster shape .reqnctapercluster requires: grid 4 with clusters of
// 3 emulated one cluster and dropped the fourth CTA.
func TestHostileRequiredClusterShape(t *testing.T) {
	p := compile(t, ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n.reqnctapercluster 3, 1, 1\n{\n\tret;\n}\n")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Grid: dims(4, 1, 1)}, "grid x dimension (4) is not a multiple of the cluster x dimension (3)"},
		{Config{Grid: dims(6, 1, 1), Cluster: dims(2, 1, 1)}, "the kernel requires clusters of (3,1,1) CTAs (.reqnctapercluster); got (2,1,1)"},
	} {
		if _, err := execute(p, c.cfg, nil); !errors.Is(err, ErrLaunch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.cfg, err, c.want)
		}
	}
	l := Launch{Kernel: p, Config: Config{Grid: dims(6, 1, 1)}}
	if err := l.Check(); err != nil || l.Cluster != dims(3, 1, 1) {
		t.Fatalf("Check: %v, cluster %v", err, l.Cluster)
	}
	res, err := l.Run()
	if err != nil || res.Report != nil || res.Stats.CTAs != 6 {
		t.Fatalf("grid 6: err %v, report %v, %d CTAs", err, res.Report, res.Stats.CTAs)
	}
}

// TestHostileLaunchDirectiveValues checks that .maxntid, .reqntid and
// .reqnctapercluster values that do not fit a launch dimension are
// decode errors (a .maxntid product overflowing to 0 lifted the limit).
func TestHostileLaunchDirectiveValues(t *testing.T) {
	for _, dir := range []string{".maxntid 4294967296, 4294967296, 1", ".reqntid 0x100000000", ".reqnctapercluster -1"} {
		m, errs := parser.ParseString("d.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n"+dir+"\n{\n\tret;\n}\n")
		if errs.HasErrors() {
			t.Fatal(errs.Err())
		}
		_, errs = Decode(m, "")
		if !errs.HasErrors() || errs[0].Pos.Line != 5 || !strings.Contains(errs[0].Message, "is out of range (0 to 2147483647)") {
			t.Errorf("%s: %v", dir, errs)
		}
	}
}

// TestLaunchBudget checks the bound on the emulator's state per launch:
// a quarter of the machine's memory, within 1 and 8 GiB.
func TestLaunchBudget(t *testing.T) {
	for _, c := range []struct{ total, want uint64 }{
		{0, 1 << 30}, {2 << 30, 1 << 30}, {24 << 30, 6 << 30}, {1 << 40, 8 << 30},
	} {
		if got := launchBudget(c.total); got != c.want {
			t.Errorf("launchBudget(%d) = %d, want %d", c.total, got, c.want)
		}
	}
}

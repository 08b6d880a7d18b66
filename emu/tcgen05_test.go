package emu

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tcRun parses, decodes and runs src with one output buffer of n bytes.
func tcRun(t *testing.T, src string, cfg Config, n int) (*Result, *Program) {
	t.Helper()
	m, errs := parser.ParseString("tmem.ptx", src)
	if errs.HasErrors() {
		t.Fatalf("parse: %v", errs)
	}
	p, errs := Decode(m, "")
	if errs.HasErrors() {
		t.Fatalf("decode: %v", errs)
	}
	res, err := execute(p, cfg, []Arg{{IsBuffer: true, Buffer: make([]byte, n)}})
	if err != nil {
		t.Fatal(err)
	}
	return res, p
}

func tcWords(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
	return out
}

func tcPolicies() []Config {
	return []Config{
		{Async: AsyncEager},
		{Async: AsyncDelayed},
		{Async: AsyncRandom, Seed: 1},
		{Async: AsyncRandom, Seed: 7},
	}
}

// TestTMEMLifecycle runs the TMEM lifecycle idiom (corpus IDIOMS.md §2) on
// a warpgroup and checks what every thread loaded back.
func TestTMEMLifecycle(t *testing.T) {
	src, err := os.ReadFile("../testdata/emu/tmem/lifecycle.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range tcPolicies() {
		t.Run(fmt.Sprintf("%v/seed%d", cfg.Async, cfg.Seed), func(t *testing.T) {
			cfg.Block = [3]int{128, 1, 1}
			res, _ := tcRun(t, string(src), cfg, 6144)
			if res.Report != nil {
				t.Fatalf("report: %v", res.Report)
			}
			out := tcWords(res.Buffers[0].Data)
			for th := range 128 {
				for j := range 8 {
					if got, want := out[th*8+j], uint32(th*100+j); got != want {
						t.Fatalf(".32x32b.x8: thread %d reg %d = %d, want %d", th, j, got, want)
					}
				}
				// .16x64b.x4 reads lanes 0-15 of the warp's quarter: thread t
				// of warp q gets lane 32q + t/4 (+8 for odd t), column
				// 2j + bit 1 of t; that cell holds lane*100 + column.
				q, l := th/32, th%32
				for j := range 4 {
					lane := 32*q + l/4 + 8*(l%2)
					col := 2*j + (l/2)%2
					if got, want := out[1024+th*4+j], uint32(lane*100+col); got != want {
						t.Fatalf(".16x64b.x4: thread %d reg %d = %d, want %d (lane %d col %d)", th, j, got, want, lane, col)
					}
				}
			}
		})
	}
}

// TestTMEMDumpCapture checks the Tensor Memory kept for --dump-tmem.
func TestTMEMDumpCapture(t *testing.T) {
	src, err := os.ReadFile("../testdata/emu/tmem/lifecycle.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := parser.ParseString("lifecycle.ptx", string(src))
	p, errs := Decode(m, "")
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	l := Launch{Kernel: p, Config: Config{Grid: [3]int{2, 1, 1}, Block: [3]int{128, 1, 1}},
		Args: []Arg{{IsBuffer: true, Buffer: make([]byte, 6144)}}, TMEMOf: &[3]int{1, 0, 0}}
	res, err := l.Run()
	if err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	snap := res.TMEM
	if snap == nil || snap.CTA != [3]int{1, 0, 0} {
		t.Fatalf("snapshot %+v", snap)
	}
	for lane := range 128 {
		for col := range 8 {
			if got := snap.Mem.Cell(lane, col); got != uint32(lane*100+col) || !snap.Mem.Written(lane, col) {
				t.Fatalf("cell (%d,%d) = %d", lane, col, got)
			}
		}
		if snap.Mem.Written(lane, 8) {
			t.Fatalf("cell (%d,8) written", lane)
		}
	}
	var b strings.Builder
	snap.Mem.Dump(&b)
	if !strings.Contains(b.String(), "\n      97 000025e4 000025e5 000025e6") {
		t.Errorf("dump lacks lane 97 (97*100 = 0x25e4):\n%.400s", b.String())
	}
	l.TMEMOf = nil
	if res, err := l.Run(); err != nil || res.TMEM != nil {
		t.Fatalf("a launch without TMEMOf captured %v (err %v)", res.TMEM, err)
	}
}

// tcKernel is a one-warpgroup kernel around body: warp 0 allocates NCOLS
// columns into %r2 (taddr of the warp's lane quarter in %r3), body runs,
// then warp 0 frees them. %r0 = %tid.x, %r7 = warp, %r8 = lane,
// %p0 = (warp == 0).
const tcKernel = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %%r<64>;
	.reg .b64 %%rd<4>;
	.reg .pred %%p<4>;
	.shared .align 8 .b64 slot[2];
	mov.u32 %%r0, %%tid.x;
	shr.u32 %%r7, %%r0, 5;
	and.b32 %%r8, %%r0, 31;
	setp.eq.u32 %%p0, %%r7, 0;
	mov.u32 %%r1, slot;
	mov.u32 %%r6, %d;
	@%%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r1], %%r6;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %%r2, [%%r1];
	shl.b32 %%r4, %%r7, 21;
	add.s32 %%r3, %%r2, %%r4;
%s
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r2, %%r6;
	ret;
}
`

const stX2 = "\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r0, %r8};\n"
const waitSt = "\ttcgen05.wait::st.sync.aligned;\n"
const ldX2 = "\ttcgen05.ld.sync.aligned.32x32b.x2.b32 {%r20, %r21}, [%r3];\n"

// TestTcgen05Sanitizer runs each rule's violating kernel, expecting its
// report, and the corrected kernel, expecting a clean run.
func TestTcgen05Sanitizer(t *testing.T) {
	tests := []struct {
		name     string
		cols     int
		bad, ok  string
		rule     string
		frags    []string
		warps    int
		clusterN int
	}{
		{
			name: "taddr differs across the warp",
			cols: 32,
			bad:  "\tadd.s32 %r9, %r3, %r8;\n\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r9], {%r0, %r8};\n" + waitSt,
			ok:   "\tadd.s32 %r9, %r3, 0;\n\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r9], {%r0, %r8};\n" + waitSt,
			rule: string(tmem.RuleTaddrMismatch), frags: []string{"thread 1 has", "lane 1"},
		},
		{
			name: "diverged warp",
			cols: 32,
			bad:  "\tsetp.lt.u32 %p1, %r8, 16;\n\t@%p1 bra SKIP;\n" + stX2 + waitSt + "SKIP:\n",
			ok:   "\tsetp.lt.u32 %p1, %r7, 16;\n\t@%p1 bra SKIP;\n" + stX2 + waitSt + "SKIP:\n",
			rule: ruleTcgen05Aligned, frags: []string{"diverged warp"},
		},
		{
			name: "non-uniform guard",
			cols: 32,
			bad:  "\tsetp.lt.u32 %p1, %r8, 16;\n\t@%p1 " + stX2[1:] + waitSt,
			ok:   "\tsetp.lt.u32 %p1, %r7, 16;\n\t@%p1 " + stX2[1:] + waitSt,
			rule: ruleTcgen05Aligned, frags: []string{"false guard"},
		},
		{
			name: "lane quarter",
			cols: 32,
			bad:  "\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r2], {%r0, %r8};\n" + waitSt,
			ok:   stX2 + waitSt,
			rule: string(tmem.RuleLaneQuarter), frags: []string{"of its warpgroup) accesses lanes 0..31; it may only access lanes"},
		},
		{
			name: "unallocated columns",
			cols: 32,
			bad:  "\tadd.s32 %r9, %r3, 31;\n\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r9], {%r0, %r8};\n" + waitSt,
			ok:   "\tadd.s32 %r9, %r3, 30;\n\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r9], {%r0, %r8};\n" + waitSt,
			rule: string(tmem.RuleUnallocated), frags: []string{"column 32, which is not allocated"},
		},
		{
			name: "ld of an unwaited st",
			cols: 32,
			bad:  stX2 + ldX2 + waitSt,
			ok:   stX2 + waitSt + ldX2,
			rule: string(tmem.RuleUnwaitedStore), frags: []string{"no tcgen05.wait::st in between"},
		},
		{
			name: "alloc after relinquish",
			cols: 32,
			bad:  "\t@%p0 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 32;\n\t@%p0 ld.shared.b32 %r9, [slot+4];\n\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r9, 32;\n",
			ok:   "\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 32;\n\t@%p0 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\t@%p0 ld.shared.b32 %r9, [slot+4];\n\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r9, 32;\n",
			rule: string(tmem.RuleAllocAfterRelinquish),
		},
		{
			name: "mixed cta_group",
			cols: 32,
			bad:  "\t@%p0 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n",
			ok:   "\t@%p0 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n",
			rule: string(tmem.RuleMixedCTAGroup),
		},
		{
			name: "missing dealloc",
			cols: 32,
			bad:  "\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 64;\n",
			ok:   "\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 64;\n\t@%p0 ld.shared.b32 %r9, [slot+4];\n\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r9, 64;\n",
			rule: string(tmem.RuleMissingDealloc), frags: []string{"64 columns at column 64 still allocated", "tmem.ptx:23:2"},
		},
		{
			name: "bad nCols",
			cols: 32,
			bad:  "\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 48;\n",
			ok:   "",
			rule: string(tmem.RuleNCols),
		},
		{
			name: "commit to an uninitialized mbarrier",
			cols: 32,
			bad:  "\tadd.u32 %r9, %r1, 8;\n\tsetp.eq.u32 %p1, %r0, 0;\n\t@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r9];\n",
			ok:   "\tadd.u32 %r9, %r1, 8;\n\tsetp.eq.u32 %p1, %r0, 0;\n\t@%p1 mbarrier.init.shared::cta.b64 [%r9], 1;\n\t@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r9];\n",
			rule: "mbarrier-uninit", frags: []string{"tcgen05.commit arrive-on the mbarrier at offset 0x8 of CTA rank 0"},
		},
		{
			name: "dealloc of another size",
			cols: 32,
			bad:  "\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;\n",
			ok:   "",
			rule: string(tmem.RuleDealloc), frags: []string{"64 columns at column 0, but 32 were allocated there"},
		},
		{
			name: "nCols differs across the warp",
			cols: 32,
			bad:  "\tadd.u32 %r9, %r8, 32;\n\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+8], %r9;\n",
			ok:   "\tmov.u32 %r9, 32;\n\t@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+8], %r9;\n\t@%p0 ld.shared.b32 %r10, [slot+8];\n\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;\n",
			rule: ruleTcgen05Uniform, frags: []string{"different nCols: lane 0 has 0x20, lane 1 has 0x21"},
		},
		{
			name: "exited lane",
			cols: 32,
			bad:  "\tsetp.ge.u32 %p1, %r8, 31;\n\t@%p1 exit;\n" + stX2 + waitSt,
			ok:   "\tsetp.ge.u32 %p1, %r7, 31;\n\t@%p1 exit;\n" + stX2 + waitSt,
			rule: ruleTcgen05Aligned, frags: []string{"after thread 31 of the warp exited"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				body string
				bad  bool
			}{{tt.bad, true}, {tt.ok, false}} {
				src := fmt.Sprintf(tcKernel, tt.cols, c.body)
				res, _ := tcRun(t, src, Config{Block: [3]int{128, 1, 1}}, 64)
				if !c.bad {
					if res.Report != nil {
						t.Fatalf("corrected kernel reported: %v", res.Report)
					}
					continue
				}
				if res.Report == nil {
					t.Fatalf("no report, want %s", tt.rule)
				}
				if res.Report.Rule != tt.rule {
					t.Fatalf("rule %s, want %s: %v", res.Report.Rule, tt.rule, res.Report)
				}
				msg := res.Report.Error()
				if !strings.Contains(msg, "see PTX ISA §") {
					t.Errorf("report cites no spec section: %s", msg)
				}
				for _, f := range tt.frags {
					if !strings.Contains(msg, f) {
						t.Errorf("report %q lacks %q", msg, f)
					}
				}
			}
		})
	}
}

// TestTcgen05Commit: warp 0 stores, one elected thread commits to an
// mbarrier, warp 1 waits on the barrier's phase and reads the cells after
// the writer's tcgen05.wait::st and a CTA barrier. The commit's arrival
// lands after the store under every async policy.
func TestTcgen05Commit(t *testing.T) {
	body := `	mov.u32 %r10, slot;
	add.u32 %r10, %r10, 8;
	setp.eq.u32 %p2, %r0, 0;
	@%p2 mbarrier.init.shared::cta.b64 [%r10], 1;
	bar.sync 0;
	@%p0 tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r0, %r8};
	@%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r10];
	@%p0 tcgen05.wait::st.sync.aligned;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r10], 0;
	@!%p3 bra WAIT;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%p0 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r20, %r21}, [%r3];
	@%p0 tcgen05.wait::ld.sync.aligned;
	ld.param.u64 %rd0, [out];
	mul.wide.u32 %rd1, %r0, 8;
	add.u64 %rd2, %rd0, %rd1;
	@%p0 st.global.v2.u32 [%rd2], {%r20, %r21};
`
	for _, cfg := range tcPolicies() {
		t.Run(fmt.Sprintf("%v/seed%d", cfg.Async, cfg.Seed), func(t *testing.T) {
			cfg.Block = [3]int{64, 1, 1}
			res, _ := tcRun(t, fmt.Sprintf(tcKernel, 32, body), cfg, 512)
			if res.Report != nil {
				t.Fatalf("report: %v", res.Report)
			}
			out := tcWords(res.Buffers[0].Data)
			for th := range 32 {
				if out[2*th] != uint32(th) || out[2*th+1] != uint32(th) {
					t.Fatalf("thread %d loaded %d %d", th, out[2*th], out[2*th+1])
				}
			}
		})
	}
}

// TestTcgen05AllocBlocks: two warps each want all 512 columns; the second
// alloc blocks until the first warp frees them. Holding the columns across
// a CTA barrier the other warp cannot reach is a deadlock.
func TestTcgen05AllocBlocks(t *testing.T) {
	const src = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %%r<16>;
	.reg .b64 %%rd<4>;
	.shared .align 4 .b32 slot[2];
	mov.u32 %%r0, %%tid.x;
	shr.u32 %%r7, %%r0, 5;
	mov.u32 %%r1, slot;
	shl.b32 %%r2, %%r7, 2;
	add.u32 %%r1, %%r1, %%r2;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r1], 512;
	ld.shared.b32 %%r3, [%%r1];
	shl.b32 %%r4, %%r7, 21;
	add.u32 %%r5, %%r3, %%r4;
	tcgen05.st.sync.aligned.32x32b.x1.b32 [%%r5], {%%r0};
	tcgen05.wait::st.sync.aligned;
	%s
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r3, 512;
	ret;
}
`
	res, _ := tcRun(t, fmt.Sprintf(src, ""), Config{Block: [3]int{64, 1, 1}}, 64)
	if res.Report != nil {
		t.Fatalf("sequential full allocations: %v", res.Report)
	}
	res, _ = tcRun(t, fmt.Sprintf(src, "bar.sync 0;"), Config{Block: [3]int{64, 1, 1}}, 64)
	if res.Report == nil || res.Report.Rule != ruleDeadlock {
		t.Fatalf("report %v, want deadlock", res.Report)
	}
	if msg := res.Report.Error(); !strings.Contains(msg, "tcgen05.alloc of 512 columns: Tensor Memory has 0 free columns") {
		t.Errorf("deadlock report does not explain the blocked alloc:\n%s", msg)
	}
}

// TestTcgen05AllocPair: a .cta_group::2 allocation by one warp of each CTA
// of a pair gives both the same columns; different column counts, or no
// peer CTA, are reported.
func TestTcgen05AllocPair(t *testing.T) {
	const src = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 slot;
	mov.u32 %r0, %cluster_ctarank;
	mov.u32 %r1, slot;
	mul.lo.u32 %r2, %r0, NCOLS_STEP;
	add.u32 %r2, %r2, 32;
	tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], %r2;
	ld.shared.b32 %r3, [%r1];
	ld.param.u64 %rd0, [out];
	mul.wide.u32 %rd1, %r0, 4;
	add.u64 %rd2, %rd0, %rd1;
	st.global.u32 [%rd2], %r3;
	tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r3, %r2;
	ret;
}
`
	run := func(step string, cluster int) *Result {
		m, errs := parser.ParseString("pair.ptx", strings.Replace(src, "NCOLS_STEP", step, 1))
		if errs.HasErrors() {
			t.Fatal(errs)
		}
		p, errs := Decode(m, "")
		if errs.HasErrors() {
			t.Fatal(errs)
		}
		res, err := execute(p, Config{Grid: [3]int{2, 1, 1}, Cluster: [3]int{cluster, 1, 1}, Block: [3]int{32, 1, 1}},
			[]Arg{{IsBuffer: true, Buffer: make([]byte, 8)}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("0", 2)
	if res.Report != nil {
		t.Fatalf("pair: %v", res.Report)
	}
	if out := tcWords(res.Buffers[0].Data); out[0] != 0 || out[1] != 0 {
		t.Fatalf("pair allocations at %#x and %#x, want column 0 in both", out[0], out[1])
	}
	res = run("32", 2)
	if res.Report == nil || res.Report.Rule != ruleTcgen05Uniform || !strings.Contains(res.Report.Message, "64 columns, its peer (rank 0) for 32") {
		t.Fatalf("different nCols: report %v", res.Report)
	}
	res = run("0", 1)
	if res.Report == nil || res.Report.Rule != ruleTcgen05Pair {
		t.Fatalf("no peer: report %v", res.Report)
	}
}

// TestTcgen05Unsupported: tcgen05 forms the emulator does not implement
// are decode diagnostics, not silent misbehaviour.
func TestTcgen05Unsupported(t *testing.T) {
	for _, inst := range []string{
		"tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%r20, %r21}, %r22, [%r3];",
		"tcgen05.mma.sp.cta_group::1.kind::f16 [%r3], %rd1, %rd2, [%r3], %r4, 1;",
		"tcgen05.st.sync.aligned.32x32b.x2.b16 [%r3], {%r20, %r21};",
	} {
		src := fmt.Sprintf(tcKernel, 32, "\t"+inst+"\n")
		m, errs := parser.ParseString("u.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: parse: %v", inst, errs)
		}
		if _, errs := Decode(m, ""); !errs.HasErrors() || !strings.Contains(errs[0].Message, "does not implement") {
			t.Errorf("%s: decode diagnostics %v, want \"does not implement\"", inst, errs)
		}
	}
}

// TestTcgen05LdWait: tcgen05.ld destination registers are written when the
// load lands, no later than tcgen05.wait::ld. Under the delayed policy a
// kernel that reads them before the wait sees the old register values.
func TestTcgen05LdWait(t *testing.T) {
	const store = `	ld.param.u64 %rd0, [out];
	mul.wide.u32 %rd1, %r0, 8;
	add.u64 %rd2, %rd0, %rd1;
	mov.u32 %r20, 7;
	mov.u32 %r21, 7;
`
	read := "\tst.global.v2.u32 [%rd2], {%r20, %r21};\n"
	waitLd := "\ttcgen05.wait::ld.sync.aligned;\n"
	for _, c := range []struct {
		name   string
		body   string
		policy AsyncPolicy
		stale  bool
	}{
		{"waited/delayed", stX2 + waitSt + ldX2 + waitLd + read, AsyncDelayed, false},
		{"waited/random", stX2 + waitSt + ldX2 + waitLd + read, AsyncRandom, false},
		{"unwaited/eager", stX2 + waitSt + ldX2 + read + waitLd, AsyncEager, false},
		{"unwaited/delayed", stX2 + waitSt + ldX2 + read + waitLd, AsyncDelayed, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _ := tcRun(t, fmt.Sprintf(tcKernel, 32, store+c.body), Config{Block: [3]int{128, 1, 1}, Async: c.policy, Seed: 3}, 1024)
			if res.Report != nil {
				t.Fatal(res.Report)
			}
			out := tcWords(res.Buffers[0].Data)
			for tid := range 128 {
				want := [2]uint32{uint32(tid), uint32(tid % 32)}
				if c.stale {
					want = [2]uint32{7, 7}
				}
				if got := [2]uint32{out[2*tid], out[2*tid+1]}; got != want {
					t.Fatalf("thread %d read %v, want %v", tid, got, want)
				}
			}
		})
	}
}

// TestTcgen05CommitMulticast: one thread of CTA rank 0 commits with
// ctaMask 0b11; the mbarrier at the same offset in both CTAs of the
// cluster completes its phase. A mask naming a rank outside the cluster is
// reported.
func TestTcgen05CommitMulticast(t *testing.T) {
	const src = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b16 %rs<2>;
	.reg .b64 %rd<4>;
	.reg .pred %p<4>;
	.shared .align 8 .b64 bar;
	mov.u32 %r0, %tid.x;
	mov.u32 %r1, %cluster_ctarank;
	setp.eq.u32 %p0, %r0, 0;
	mov.u32 %r2, bar;
	@%p0 mbarrier.init.shared::cta.b64 [%r2], 1;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	setp.eq.u32 %p1, %r1, 0;
	and.pred %p1, %p1, %p0;
	mov.u16 %rs1, MASK;
	@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r2], %rs1;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra WAIT;
	ld.param.u64 %rd0, [out];
	mul.wide.u32 %rd1, %r1, 4;
	add.u64 %rd2, %rd0, %rd1;
	@%p0 st.global.u32 [%rd2], 1;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ret;
}
`
	run := func(mask string) *Result {
		p := compile(t, strings.Replace(src, "MASK", mask, 1))
		res, err := execute(p, Config{Grid: [3]int{2, 1, 1}, Cluster: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, Async: AsyncDelayed},
			[]Arg{{IsBuffer: true, Buffer: make([]byte, 8)}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("3")
	if res.Report != nil {
		t.Fatalf("report: %v", res.Report)
	}
	if out := tcWords(res.Buffers[0].Data); out[0] != 1 || out[1] != 1 {
		t.Fatalf("CTAs passed the barrier: %v", out)
	}
	// Rank 1's barrier is never signalled: deadlock.
	if res := run("1"); res.Report == nil || res.Report.Rule != ruleDeadlock {
		t.Fatalf("mask 0b01: report %v, want deadlock", res.Report)
	}
	if res := run("4"); res.Report == nil || res.Report.Rule != ruleOutOfBounds || !strings.Contains(res.Report.Message, "ctaMask 0x0004") {
		t.Fatalf("mask 0b100: report %v", res.Report)
	}
}

// TestTcgen05PartialWarp: a CTA of 16 threads may allocate and free Tensor
// Memory, but tcgen05.st needs the registers of 32 threads.
func TestTcgen05PartialWarp(t *testing.T) {
	const src = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
	ld.shared.b32 %r2, [%r1];
	BODY
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
	ret;
}
`
	res, _ := tcRun(t, strings.Replace(src, "BODY", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", 1), Config{Block: [3]int{16, 1, 1}}, 4)
	if res.Report != nil {
		t.Fatalf("alloc/relinquish/dealloc by 16 threads: %v", res.Report)
	}
	res, _ = tcRun(t, strings.Replace(src, "BODY", "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r1};", 1), Config{Block: [3]int{16, 1, 1}}, 4)
	if res.Report == nil || res.Report.Rule != ruleTcgen05Aligned || !strings.Contains(res.Report.Message, "partial warp of 16 threads") {
		t.Fatalf("tcgen05.st by 16 threads: report %v", res.Report)
	}
}

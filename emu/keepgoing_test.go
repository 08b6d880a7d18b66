package emu

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// threeBugs has three distinct problems: an out-of-bounds store by
// threads 16..31 (the buffer holds 16 words), a misaligned load in the
// branch of threads 0..3, and a shfl by the even lanes that reads the odd
// lanes, which do not execute it. Threads 0..3 then store what the
// misaligned load gave them to word 15.
const threeBugs = `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	setp.lt.u32 %p1, %r1, 4;
	@!%p1 bra SKIP;
	ld.global.u32 %r2, [%rd1+2];
	st.global.u32 [%rd1+60], %r2;
SKIP:
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p2, %r3, 0;
	add.u32 %r5, %r1, 1;
	@%p2 shfl.sync.idx.b32 %r4, %r1, %r5, 0x1f, 0x55555555;
	ret;
}
`

// threeBugsGrid is threeBugs for a grid whose CTAs may run in parallel
// (Jobs > 1): only CTA 0 makes the stores that land, so that no two CTAs
// write the same word (a kernel racing on purpose is a data race of the
// emulator's own goroutines too); every CTA makes the three problems.
const threeBugsGrid = `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<5>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r6, %ctaid.x;
	setp.eq.u32 %p3, %r6, 0;
	setp.ge.u32 %p4, %r1, 16;
	or.pred %p4, %p4, %p3;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	@%p4 st.global.u32 [%rd3], %r1;
	setp.lt.u32 %p1, %r1, 4;
	@!%p1 bra SKIP;
	ld.global.u32 %r2, [%rd1+2];
	@%p3 st.global.u32 [%rd1+60], %r2;
SKIP:
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p2, %r3, 0;
	add.u32 %r5, %r1, 1;
	@%p2 shfl.sync.idx.b32 %r4, %r1, %r5, 0x1f, 0x55555555;
	ret;
}
`

func keptSummary(res *Result) string {
	s := ""
	for _, k := range res.Reports {
		s += fmt.Sprintf("%s@%d x%d %v; ", k.Rule, k.Pos.Line, k.Count, k.Thread.Thread)
	}
	return s + fmt.Sprintf("left out %d", res.LeftOut)
}

func TestKeepGoingReportsEveryDistinctProblem(t *testing.T) {
	res := launchReport(t, threeBugs, Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, buf(64))
	if res.Report == nil || res.Report.Rule != ruleOutOfBounds || res.Reports != nil {
		t.Fatalf("without KeepGoing: report %v, reports %v; want one out-of-bounds report", res.Report, res.Reports)
	}
	res = launchReport(t, threeBugs, Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, KeepGoing: true}, buf(64))
	want := "out-of-bounds@14 x16 [16 0 0]; misaligned@17 x4 [0 0 0]; shfl-inactive-lane@23 x1 [0 0 0]; left out 0"
	if got := keptSummary(res); got != want {
		t.Fatalf("kept reports:\n got %s\nwant %s", got, want)
	}
	if res.Report != res.Reports[0].Report {
		t.Errorf("Report is not the first of Reports")
	}
	out := res.Buffers[0].Data
	for i := range 15 {
		if v := binary.LittleEndian.Uint32(out[4*i:]); v != uint32(i) {
			t.Errorf("word %d = %d, want %d (the run went on after the reports)", i, v, i)
		}
	}
	if v := binary.LittleEndian.Uint32(out[60:]); v != 0 {
		t.Errorf("word 15 = %d, want 0: a suppressed load yields 0", v)
	}
}

func TestKeepGoingIsBoundedAndDeterministic(t *testing.T) {
	cfg := Config{Grid: [3]int{4, 1, 1}, Block: [3]int{32, 1, 1}, KeepGoing: true, MaxReports: 2}
	res := launchReport(t, threeBugsGrid, cfg, buf(64))
	want := "out-of-bounds@18 x64 [16 0 0]; misaligned@21 x16 [0 0 0]; left out 4"
	if got := keptSummary(res); got != want {
		t.Fatalf("kept reports:\n got %s\nwant %s", got, want)
	}
	if res.Report.Thread.CTA != [3]int{0, 0, 0} {
		t.Errorf("first report in CTA %v, want CTA 0", res.Report.Thread.CTA)
	}
	cfg.Jobs = 4
	if got := keptSummary(launchReport(t, threeBugsGrid, cfg, buf(64))); got != want {
		t.Fatalf("with 4 jobs:\n got %s\nwant %s", got, want)
	}
	cfg.Jobs, cfg.Cooperative = 1, true
	if got := keptSummary(launchReport(t, threeBugsGrid, cfg, buf(64))); got != want {
		t.Fatalf("cooperative:\n got %s\nwant %s", got, want)
	}
}

func TestKeepGoingStopsAtTrap(t *testing.T) {
	src := `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1+1];
	trap;
	st.global.u32 [%rd1], 7;
	ret;
}
`
	res := launchReport(t, src, Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, KeepGoing: true}, buf(16))
	want := "misaligned@10 x32 [0 0 0]; trap@11 x1 [0 0 0]; left out 0"
	if got := keptSummary(res); got != want {
		t.Fatalf("kept reports:\n got %s\nwant %s", got, want)
	}
	if res.Buffers[0].Data[0] != 0 {
		t.Errorf("the store after trap ran")
	}
}

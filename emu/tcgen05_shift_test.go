package emu

import (
	"fmt"
	"strings"
	"testing"
)

// tcShiftKernel: 128 threads store row tid (cells tid*100 + c, 8 columns)
// with tcgen05.st, thread 0 shifts the matrix at lane LANE down and
// commits, every thread waits and loads its row back.
const tcShiftKernel = `.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.shared .align 8 .b64 bar[1];
	.shared .align 4 .b32 slot[1];
	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	setp.eq.u32 %p2, %r1, 0;
	mov.u32 %r3, slot;
	mov.u32 %r4, 32;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r3], %r4;
	mov.u32 %r5, bar;
	@%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %r6, [%r3];
	shl.b32 %r7, %r2, 21;
	add.u32 %r8, %r6, %r7;
	mul.lo.u32 %r9, %r1, 100;
	add.u32 %r10, %r9, 1;
	add.u32 %r11, %r9, 2;
	add.u32 %r12, %r9, 3;
	add.u32 %r13, %r9, 4;
	add.u32 %r14, %r9, 5;
	add.u32 %r15, %r9, 6;
	add.u32 %r16, %r9, 7;
	tcgen05.st.sync.aligned.32x32b.x8.b32 [%r8], {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16};
	tcgen05.wait::st.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@!%p2 bra WAIT;
	add.u32 %r17, %r6, LANE;
	tcgen05.shift.cta_group::1.down [%r17];
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
	@!%p3 bra WAIT;
	tcgen05.fence::after_thread_sync;
	tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%r8];
	tcgen05.wait::ld.sync.aligned;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 32;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.b32 [%rd3], {%r20, %r21, %r22, %r23};
	st.global.v4.b32 [%rd3+16], {%r24, %r25, %r26, %r27};
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, %r4;
	ret;
}
`

// TestTcgen05Shift: rows from the address's lane to 126 move one lane
// down, the first row of the matrix keeps its cells, rows above the lane
// are untouched; a lane not a multiple of 32 is reported.
func TestTcgen05Shift(t *testing.T) {
	for _, base := range []int{0, 32, 96} {
		for _, cfg := range []Config{{}, {Async: AsyncDelayed}} {
			cfg.Block = dims(128, 1, 1)
			src := strings.Replace(tcShiftKernel, "LANE", fmt.Sprint(base<<16), 1)
			out := u32s(launch(t, src, cfg, buf(128*32)).Buffers[0].Data)
			for r := range 128 {
				from := r
				if r > base {
					from = r - 1
				}
				for c := range 8 {
					if want := uint32(from*100 + c); out[r*8+c] != want {
						t.Fatalf("lane %d, async %d: cell (%d,%d) = %d, want %d", base, cfg.Async, r, c, out[r*8+c], want)
					}
				}
			}
		}
	}
	src := strings.Replace(tcShiftKernel, "LANE", fmt.Sprint(16<<16), 1)
	res := launchReport(t, src, Config{Block: dims(128, 1, 1)}, buf(128*32))
	if res.Report == nil || !strings.Contains(res.Report.Message, "lane 16 is not a multiple of 32") {
		t.Fatalf("lane 16: report %v", res.Report)
	}
}

// TestTcgen05ShiftPair: .cta_group::2 issued by rank 0 shifts the matrix
// in both CTAs of the pair; a multicast commit signals both mbarriers.
func TestTcgen05ShiftPair(t *testing.T) {
	src := strings.Replace(tcShiftKernel, "LANE", "0", 1)
	for _, r := range [][2]string{
		{".reg .b64 %rd<8>;", ".reg .b64 %rd<8>;\n\t.reg .b16 %rs<2>;\n\t.reg .pred %q<2>;"},
		{"mov.u32 %r1, %tid.x;", "mov.u32 %r1, %tid.x;\n\tmov.u32 %r30, %cluster_ctarank;"},
		{"cta_group::1.sync.aligned.shared::cta.b32", "cta_group::2.sync.aligned.shared::cta.b32"},
		{"tcgen05.dealloc.cta_group::1", "tcgen05.dealloc.cta_group::2"},
		{"mul.lo.u32 %r9, %r1, 100;", "mul.lo.u32 %r9, %r1, 100;\n\tmad.lo.u32 %r9, %r30, 100000, %r9;"},
		{"\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;\n\t@!%p2 bra WAIT;", "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\ttcgen05.fence::after_thread_sync;\n\tsetp.eq.u32 %q1, %r30, 0;\n\tand.pred %q1, %q1, %p2;\n\t@!%q1 bra WAIT;"},
		{"tcgen05.shift.cta_group::1.down", "tcgen05.shift.cta_group::2.down"},
		{"\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];", "\tmov.u16 %rs1, 3;\n\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r5], %rs1;"},
		{"mul.wide.u32 %rd2, %r1, 32;", "mad.lo.u32 %r31, %r30, 128, %r1;\n\tmul.wide.u32 %rd2, %r31, 32;"},
		{"\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;\n\t@%p1 tcgen05.dealloc", "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\ttcgen05.fence::after_thread_sync;\n\t@%p1 tcgen05.dealloc"},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("no %q", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	p := compile(t, src)
	res, err := execute(p, Config{Block: dims(128, 1, 1), Grid: dims(2, 1, 1), Cluster: dims(2, 1, 1)}, []Arg{buf(2 * 128 * 32)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("report: %v", res.Report)
	}
	out := u32s(res.Buffers[0].Data)
	for rank := range 2 {
		for r := range 128 {
			from := max(r-1, 0)
			for c := range 8 {
				if want := uint32(rank*100000 + from*100 + c); out[(rank*128+r)*8+c] != want {
					t.Fatalf("rank %d cell (%d,%d) = %d, want %d", rank, r, c, out[(rank*128+r)*8+c], want)
				}
			}
		}
	}
}

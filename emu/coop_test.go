package emu

import (
	"errors"
	"strings"
	"testing"
)

// gridSyncKernel is the grid barrier of the CUDA runtime's
// cooperative_groups::grid_group::sync as nvcc 13 emits it: the workspace
// address from %envreg1:%envreg2 (trap when null), one thread per CTA
// adding to the word at offset 4 (CTA 0 adds 0x80000001 - nCTAs) and
// spinning with ld.acquire.gpu until bit 31 flips. Phase one stores
// t*2654435761 at a[t]; after the barrier each thread copies
// a[(t*7+1) % n] to b[t].
const gridSyncKernel = header + `
.visible .entry k(.param .u64 pa, .param .u64 pb)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd10, [pa];
	ld.param.u64 %rd11, [pb];
	mov.u32 %r20, %envreg2;
	cvt.u64.u32 %rd6, %r20;
	mov.u32 %r21, %envreg1;
	cvt.u64.u32 %rd7, %r21;
	bfi.b64 %rd1, %rd7, %rd6, 32, 32;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mad.lo.s32 %r5, %r1, %r2, %r3;
	mul.lo.s32 %r6, %r4, %r2;
	mul.lo.s32 %r7, %r5, -1640531535;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd10, %rd2;
	st.global.u32 [%rd3], %r7;
	setp.ne.s64 %p3, %rd1, 0;
	@%p3 bra HAVE;
	trap;
HAVE:
	add.s64 %rd4, %rd1, 4;
	barrier.sync 0;
	setp.ne.s32 %p4, %r3, 0;
	@%p4 bra AFTER;
	setp.eq.s32 %p5, %r1, 0;
	mov.u32 %r8, -2147483647;
	sub.s32 %r9, %r8, %r4;
	selp.b32 %r10, %r9, 1, %p5;
	atom.add.release.gpu.u32 %r11, [%rd4], %r10;
SPIN:
	ld.acquire.gpu.u32 %r12, [%rd4];
	xor.b32 %r13, %r12, %r11;
	setp.gt.s32 %p6, %r13, -1;
	@%p6 bra SPIN;
AFTER:
	barrier.sync 0;
	mad.lo.s32 %r14, %r5, 7, 1;
	rem.u32 %r15, %r14, %r6;
	mul.wide.u32 %rd5, %r15, 4;
	add.s64 %rd8, %rd10, %rd5;
	ld.global.u32 %r16, [%rd8];
	add.s64 %rd9, %rd11, %rd2;
	st.global.u32 [%rd9], %r16;
	ret;
}
`

// TestCooperativeGridSync: with --cooperative every CTA sees every other
// CTA's phase-one stores after the grid barrier, whatever the schedule.
func TestCooperativeGridSync(t *testing.T) {
	const grid, block = 12, 96
	n := grid * block
	for _, seed := range []uint64{0, 1, 9} {
		res := launch(t, gridSyncKernel, Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Cooperative: true, Seed: seed}, buf(4*n), buf(4*n))
		got := u32s(res.Buffers[1].Data)
		for i := range n {
			src := uint32((i*7 + 1) % n)
			if want := src * 2654435761; got[i] != want {
				t.Fatalf("seed %d: b[%d] = %#x, want %#x (a[%d])", seed, i, got[i], want, src)
			}
		}
		if res.Stats.WarpInsts > 100000 {
			t.Errorf("seed %d: %d warp-instructions; the barrier's spin loop should yield", seed, res.Stats.WarpInsts)
		}
	}
}

// TestGridSyncWithoutCooperativeLaunchTraps: an ordinary launch passes no
// workspace (%envreg1 and %envreg2 read 0), so the runtime's check traps,
// as it does on the GPU.
func TestGridSyncWithoutCooperativeLaunchTraps(t *testing.T) {
	res := launchReport(t, gridSyncKernel, Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1)}, buf(256), buf(256))
	wantReport(t, res, "trap")
}

// TestCooperativeLaunchTooLarge: a cooperative grid must fit on the GPU
// at once (132 SMs; here 2 CTAs of 1024 threads per SM).
func TestCooperativeLaunchTooLarge(t *testing.T) {
	p := compile(t, gridSyncKernel)
	_, err := execute(p, Config{Grid: dims(265, 1, 1), Block: dims(1024, 1, 1), Cooperative: true}, []Arg{buf(4 * 265 * 1024), buf(4 * 265 * 1024)})
	if !errors.Is(err, ErrLaunch) || !strings.Contains(err.Error(), "at most 264") {
		t.Fatalf("err = %v, want a launch error naming 264 CTAs", err)
	}
}

// TestEnvregAndReservedSmem reads the driver-set registers: %envreg1/2
// hold the zeroed grid workspace of a cooperative launch (and 0 otherwise,
// as do the other %envreg), and %reserved_smem_offset_* describe 1 KiB of
// shared memory the CTA may use, past its own.
func TestEnvregAndReservedSmem(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .b32 %r<16>;
	.shared .align 8 .b8 mine[40];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %envreg1;
	mov.u32 %r2, %envreg2;
	mov.u32 %r3, %envreg0;
	mov.u32 %r4, %envreg31;
	cvt.u64.u32 %rd2, %r1;
	cvt.u64.u32 %rd3, %r2;
	bfi.b64 %rd4, %rd2, %rd3, 32, 32;
	setp.eq.u64 %p1, %rd4, 0;
	mov.u32 %r5, 0;
	@%p1 bra NOWS;
	ld.global.u32 %r5, [%rd4+4];
	add.u32 %r5, %r5, 100;
NOWS:
	mov.u32 %r6, %reserved_smem_offset_begin;
	mov.u32 %r7, %reserved_smem_offset_end;
	mov.u32 %r8, %reserved_smem_offset_cap;
	mov.u32 %r9, %reserved_smem_offset_1;
	mov.u32 %r10, mine;
	st.shared.u32 [%r9+1016-512], 5;
	ld.shared.u32 %r11, [%r9+1016-512];
	sub.u32 %r12, %r7, %r6;
	sub.u32 %r13, %r6, %r10;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r8};
	st.global.v4.u32 [%rd1+16], {%r11, %r12, %r13, %r9};
	ret;
}
`
	src = strings.Replace(src, ".reg .b32 %r<16>;", ".reg .b32 %r<16>;\n\t.reg .pred %p<2>;", 1)
	for _, coop := range []bool{false, true} {
		res := launch(t, src, Config{Block: dims(32, 1, 1), Cooperative: coop}, buf(32))
		o := u32s(res.Buffers[0].Data)
		ws := uint32(0)
		if coop {
			ws = 100 // the workspace word read 0
		}
		if o[0] != 0 || o[1] != 0 || o[2] != ws {
			t.Fatalf("cooperative %v: envreg0 %d, envreg31 %d, workspace word+100 %d", coop, o[0], o[1], o[2])
		}
		if o[3] != 1024 || o[5] != 1024 || o[4] != 5 {
			t.Fatalf("cap %d, end-begin %d, store/load in the region %d", o[3], o[5], o[4])
		}
		if o[6] < 40 || o[6]%16 != 0 {
			t.Fatalf("reserved region at %d bytes past the CTA's variables", o[6])
		}
	}
}

// TestCooperativeBarrierNeverReached: when a CTA exits without reaching
// the grid barrier, the others spin until the step budget stops them.
func TestCooperativeBarrierNeverReached(t *testing.T) {
	src := strings.Replace(gridSyncKernel, "\tsetp.ne.s64 %p3, %rd1, 0;", "\tsetp.eq.u32 %p7, %r1, 3;\n\t@%p7 bra DONE;\n\tsetp.ne.s64 %p3, %rd1, 0;", 1)
	src = strings.Replace(src, "\tret;\n}", "DONE:\n\tret;\n}", 1)
	res := launchReport(t, src, Config{Grid: dims(4, 1, 1), Block: dims(64, 1, 1), Cooperative: true, MaxSteps: 200000}, buf(4*256), buf(4*256))
	wantReport(t, res, RuleMaxSteps)
}

// TestCooperativeDeadlock: when no CTA of a cooperative grid can move,
// the run stops with a deadlock report.
func TestCooperativeDeadlock(t *testing.T) {
	src := header + `
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra DONE;
	bar.sync 1, 64;
DONE:
	ret;
}
`
	res := launchReport(t, src, Config{Grid: dims(3, 1, 1), Block: dims(64, 1, 1), Cooperative: true})
	wantReport(t, res, ruleDeadlock)
}

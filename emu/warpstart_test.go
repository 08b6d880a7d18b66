package emu

import "testing"

// TestWarpStartRegisters runs five CTAs of 105 threads (four warps, the
// last partial) on one worker, so every CTA after the first starts its
// warps from the worker's register template: each thread writes its
// special registers, a constant and a register it read before writing
// (zero at every start), and each value must be the one the thread's
// coordinates give.
func TestWarpStartRegisters(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %warpid;
	mov.u32 %r6, %laneid;
	mov.u32 %r7, %lanemask_lt;
	add.u32 %r8, %r8, 7;
	mad.lo.u32 %r10, %r3, 3, %r2;
	mad.lo.u32 %r10, %r10, 5, %r1;
	mad.lo.u32 %r10, %r4, 105, %r10;
	mul.wide.u32 %rd2, %r10, 32;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
	ret;
}
`
	for _, jobs := range []int{1, 2} {
		res := launch(t, src, Config{Grid: dims(5, 1, 1), Block: dims(5, 3, 7), Cluster: dims(1, 1, 1), Jobs: jobs}, buf(5*105*32))
		got := u32s(res.Buffers[0].Data)
		for cta := range 5 {
			for th := range 105 {
				l := th % 32
				want := [8]uint32{uint32(th % 5), uint32(th / 5 % 3), uint32(th / 15), uint32(cta),
					uint32(th / 32), uint32(l), 1<<uint(l) - 1, 7}
				at := (cta*105 + th) * 8
				if g := [8]uint32(got[at : at+8]); g != want {
					t.Fatalf("jobs %d, CTA %d thread %d: %v, want %v", jobs, cta, th, g, want)
				}
			}
		}
	}
}

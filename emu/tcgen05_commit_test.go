package emu

import (
	"fmt"
	"strings"
	"testing"
)

// tcCommitFourKernel: a cluster of four CTAs; thread 0 of CTA rank 1
// copies a matrix to its Tensor Memory with tcgen05.cp and commits it with
// .multicast::cluster and ctaMask MASK. Every CTA whose bit is set waits on
// its own mbarrier's phase 0; after a cluster barrier each CTA tests its
// phase without waiting and stores (waited, completed): 1 and 1 for the
// CTAs of the mask, 0 and 0 for the others.
const tcCommitFourKernel = `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b16 %rs<2>;
	.reg .b64 %rd<8>;
	.reg .pred %p<8>;
	.shared .align 1024 .b8 smem[2048];
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 slot;
	mov.u32 %r0, %tid.x;
	mov.u32 %r1, %cluster_ctarank;
	setp.eq.u32 %p0, %r0, 0;
	mov.u32 %r2, bar;
	@%p0 mbarrier.init.shared::cta.b64 [%r2], 1;
	mov.u32 %r3, slot;
	mov.u32 %r4, 32;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r3], %r4;
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %r5, [%r3];
	setp.eq.u32 %p1, %r1, 1;
	and.pred %p1, %p1, %p0;
	@!%p1 bra WAIT;
	mov.u32 %r6, smem;
	cvt.u64.u32 %rd1, %r6;
	shr.u64 %rd1, %rd1, 4;
	or.b64 %rd1, %rd1, 70437464178688; // LBO 128, SBO 256, bits 46-48 = 0b001
	tcgen05.cp.cta_group::1.32x128b.warpx4 [%r5], %rd1;
	mov.u16 %rs1, MASK;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r2], %rs1;
WAIT:
	mov.u32 %r7, 1;
	shl.b32 %r7, %r7, %r1;
	and.b32 %r7, %r7, MASK;
	setp.ne.u32 %p2, %r7, 0;
	mov.u32 %r8, 0;
	@!%p2 bra TESTED;
	mov.u32 %r8, 1;
SPIN:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
	@!%p3 bra SPIN;
TESTED:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 0;
	selp.u32 %r9, 1, 0, %p4;
	ld.param.u64 %rd2, [out];
	mul.wide.u32 %rd3, %r1, 8;
	add.u64 %rd4, %rd2, %rd3;
	@%p0 st.global.v2.u32 [%rd4], {%r8, %r9};
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, %r4;
	ret;
}
`

// TestTcgen05CommitMulticastFour: a multicast commit from CTA rank 1 of a
// four-CTA cluster completes the phase of the mbarrier in exactly the CTAs
// its ctaMask names (ranks 0, 2 and 3, not the issuer; then all four),
// under eager and delayed completion.
func TestTcgen05CommitMulticastFour(t *testing.T) {
	for _, mask := range []int{0b1101, 0b1111, 0b0100} {
		for _, async := range []AsyncPolicy{AsyncEager, AsyncDelayed} {
			src := strings.ReplaceAll(tcCommitFourKernel, "MASK", fmt.Sprint(mask))
			cfg := Config{Grid: dims(4, 1, 1), Cluster: dims(4, 1, 1), Block: dims(32, 1, 1), Async: async}
			res := launch(t, src, cfg, buf(4*8))
			out := u32s(res.Buffers[0].Data)
			for rank := range 4 {
				in := uint32(mask >> rank & 1)
				if out[2*rank] != in || out[2*rank+1] != in {
					t.Errorf("mask %04b %v: CTA rank %d waited %d, phase completed %d; want %d and %d",
						mask, async, rank, out[2*rank], out[2*rank+1], in, in)
				}
			}
		}
	}
}

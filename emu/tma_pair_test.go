package emu

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// tmaPairKernel: CTA rank SRC of a four-CTA cluster loads a 64 × 8 u8 box
// into its own shared memory with .cta_group::2, signalling the mbarrier of
// CTA rank BAR (mapa); that CTA arms and waits on it, and the loading CTA
// copies the box out after a cluster barrier.
const tmaPairKernel = `.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u64 tensor)
{
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.shared .align 1024 .b8 smem[512];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, bar;
	mov.u32 %r4, smem;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	setp.eq.u32 %p2, %r2, BAR;
	and.pred %p2, %p2, %p1;
	@%p2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 512;
	setp.eq.u32 %p3, %r2, SRC;
	and.pred %p3, %p3, %p1;
	@!%p3 bra WAIT;
	mapa.shared::cluster.u32 %r5, %r3, BAR;
	mov.u64 %rd1, tmap;
	cvta.param.u64 %rd1, %rd1;
	mov.u32 %r6, 0;
	cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r4], [%rd1, {%r6, %r6}], [%r5];
WAIT:
	setp.eq.u32 %p4, %r2, BAR;
	@!%p4 bra DONE;
SPIN:
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r3], 0;
	@!%p5 bra SPIN;
DONE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@!%p3 bra EXIT;
	ld.param.u64 %rd2, [out];
	mov.u32 %r7, 0;
COPY:
	add.u32 %r8, %r4, %r7;
	ld.shared.u32 %r9, [%r8];
	cvt.u64.u32 %rd3, %r7;
	add.u64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r9;
	add.u32 %r7, %r7, 4;
	setp.lt.u32 %p6, %r7, 512;
	@%p6 bra COPY;
EXIT:
	ret;
}
`

// TestTMACtaGroup2: with .cta_group::2 a tensor load may complete on the
// mbarrier of its destination's peer CTA (rank 1 signalling rank 0, rank 2
// signalling rank 3: the box lands), not on a CTA outside the pair (rank 2
// signalling rank 0 is reported).
func TestTMACtaGroup2(t *testing.T) {
	tensor := make([]byte, 64*8)
	for i := range tensor {
		tensor[i] = byte(i*7 + 1)
	}
	run := func(src, bar string) *Result {
		s := strings.NewReplacer("SRC", src, "BAR", bar).Replace(tmaPairKernel)
		m := tensormap.Map{Type: tensormap.U8, Rank: 2, Dims: [5]uint64{64, 8}, Strides: [4]uint64{64},
			Box: [5]uint32{64, 8}, ElemStrides: [5]uint32{1, 1, 1, 1, 1}}
		cfg := Config{Grid: dims(4, 1, 1), Cluster: dims(4, 1, 1), Block: dims(32, 1, 1), Async: AsyncDelayed}
		return launchReport(t, s, cfg, Arg{TensorMap: &m, MapOf: 2}, buf(512), Arg{IsBuffer: true, Buffer: tensor})
	}
	for _, c := range [][2]string{{"1", "0"}, {"2", "3"}} {
		res := run(c[0], c[1])
		if res.Report != nil {
			t.Fatalf("rank %s signalling rank %s: %v", c[0], c[1], res.Report)
		}
		if got := res.Buffers[1].Data; string(got) != string(tensor) {
			t.Fatalf("rank %s signalling rank %s: the box did not land as loaded", c[0], c[1])
		}
	}
	wantReport(t, run("2", "0"), ruleAsyncSameCTA, "with .cta_group::2 it must be in that CTA or its peer (rank 3)")

}

// tmaMulticastPairKernel: CTA rank 1 of a four-CTA cluster multicasts a
// 64 × 8 u8 box to the CTAs of MASK with .cta_group::2, naming CTA rank
// BAR's mbarrier (mapa); each destination signals the mbarrier of its
// pair's CTA with BAR's parity, which arms for the bytes of both CTAs of
// its pair in the mask and waits; after a cluster barrier every CTA copies
// its shared memory out (256 u32 words each, zero where nothing landed).
const tmaMulticastPairKernel = `.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u64 tensor)
{
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .b16 %rs<2>;
	.reg .b64 %rd<8>;
	.shared .align 1024 .b8 smem[512];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, bar;
	mov.u32 %r4, smem;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	// CTA r waits when its parity is BAR's and its pair is in the mask: ARM bytes
	and.b32 %r10, %r2, 1;
	setp.eq.u32 %p2, %r10, BARPARITY;
	shr.u32 %r11, %r2, 1;
	shl.b32 %r11, %r11, 1;
	mov.u32 %r12, 3;
	shl.b32 %r12, %r12, %r11;
	and.b32 %r12, %r12, MASK;
	popc.b32 %r13, %r12;
	mul.lo.u32 %r13, %r13, 512;
	setp.ne.u32 %p7, %r13, 0;
	and.pred %p2, %p2, %p7;
	and.pred %p4, %p2, %p1;
	@%p4 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r13;
	setp.eq.u32 %p3, %r2, 1;
	and.pred %p3, %p3, %p1;
	@!%p3 bra WAIT;
	mapa.shared::cluster.u32 %r5, %r3, BAR;
	mov.u64 %rd1, tmap;
	cvta.param.u64 %rd1, %rd1;
	mov.u32 %r6, 0;
	mov.u16 %rs1, MASK;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [%r4], [%rd1, {%r6, %r6}], [%r5], %rs1;
WAIT:
	@!%p2 bra DONE;
SPIN:
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r3], 0;
	@!%p5 bra SPIN;
DONE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@!%p1 bra EXIT;
	ld.param.u64 %rd2, [out];
	mul.wide.u32 %rd5, %r2, 512;
	add.u64 %rd2, %rd2, %rd5;
	mov.u32 %r7, 0;
COPY:
	add.u32 %r8, %r4, %r7;
	ld.shared.u32 %r9, [%r8];
	cvt.u64.u32 %rd3, %r7;
	add.u64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r9;
	add.u32 %r7, %r7, 4;
	setp.lt.u32 %p6, %r7, 512;
	@%p6 bra COPY;
EXIT:
	ret;
}
`

// TestTMAMulticastCtaGroup2: a multicast tensor load with .cta_group::2
// lands in every CTA of the mask and completes, for each, on the mbarrier
// of its pair's CTA with the parity of the named mbarrier's CTA (rank 0:
// the pairs' even CTAs count both CTAs' bytes; rank 1: the odd ones), so
// those CTAs' waits end (a wrong CTA would leave one waiting forever or
// over-complete another); the CTAs outside the mask stay zero. Eager and
// delayed.
func TestTMAMulticastCtaGroup2(t *testing.T) {
	tensor := make([]byte, 64*8)
	for i := range tensor {
		tensor[i] = byte(i*5 + 3)
	}
	for _, c := range []struct {
		mask, bar string
		cfg       Config
	}{{"15", "0", Config{}}, {"15", "1", Config{Async: AsyncDelayed}}, {"13", "0", Config{Async: AsyncDelayed}}, {"12", "3", Config{}}} {
		parity := map[string]string{"0": "0", "1": "1", "3": "1"}[c.bar]
		s := strings.NewReplacer("MASK", c.mask, "BARPARITY", parity, "BAR", c.bar).Replace(tmaMulticastPairKernel)
		m := tensormap.Map{Type: tensormap.U8, Rank: 2, Dims: [5]uint64{64, 8}, Strides: [4]uint64{64},
			Box: [5]uint32{64, 8}, ElemStrides: [5]uint32{1, 1, 1, 1, 1}}
		cfg := c.cfg
		cfg.Grid, cfg.Cluster, cfg.Block = dims(4, 1, 1), dims(4, 1, 1), dims(32, 1, 1)
		res := launchReport(t, s, cfg, Arg{TensorMap: &m, MapOf: 2}, buf(4*512), Arg{IsBuffer: true, Buffer: tensor})
		if res.Report != nil {
			t.Fatalf("mask %s, mbarrier of rank %s: %v", c.mask, c.bar, res.Report)
		}
		var maskBits int
		for _, ch := range c.mask {
			maskBits = maskBits*10 + int(ch-'0')
		}
		for r := range 4 {
			got := string(res.Buffers[1].Data[512*r : 512*(r+1)])
			want := string(make([]byte, 512))
			if maskBits>>r&1 == 1 {
				want = string(tensor)
			}
			if got != want {
				t.Fatalf("mask %s, mbarrier of rank %s: CTA %d's shared memory is not what the mask implies", c.mask, c.bar, r)
			}
		}
	}
}

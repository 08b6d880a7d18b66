package emu

import (
	"fmt"
	"strings"
	"testing"
)

func TestStoreGlobalU32(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r2, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd3, %rd2, %rd3;
	mul.lo.u32 %r3, %r2, 2654435761;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	res := launch(t, src, Config{Grid: dims(3, 1, 1), Block: dims(40, 1, 1)}, buf(120*4))
	got := u32s(res.Buffers[0].Data)
	for i, v := range got {
		if want := uint32(i) * 2654435761; v != want {
			t.Fatalf("out[%d] = %#x, want %#x", i, v, want)
		}
	}
	if res.Stats.ThreadInsts != 120*11 {
		t.Errorf("thread insts = %d, want %d", res.Stats.ThreadInsts, 120*11)
	}
}

// TestStoreQualifiersAccepted: memory-order, scope, eviction and cache
// qualifiers (and a cache-policy operand), with fences and membars between
// the stores, leave the stored bytes as a plain store's (DIGEST §4: a sequentially consistent memory makes them
// functionally equal).
func TestStoreQualifiersAccepted(t *testing.T) {
	forms := []string{
		"st.global.u32", "st.weak.global.u32", "st.volatile.global.u32", "st.relaxed.cta.global.u32",
		"st.relaxed.gpu.global.u32", "st.relaxed.sys.global.u32", "st.release.cta.global.u32", "st.release.cluster.global.u32",
		"st.mmio.relaxed.sys.global.u32", "st.global.wb.u32", "st.global.cg.u32", "st.global.cs.u32", "st.global.wt.u32",
		"st.global.L1::no_allocate.u32", "st.global.L1::evict_last.u32", "st.global.L1::evict_normal.u32",
		"st.global.L2::evict_first.u32", "st.L1::no_allocate.relaxed.sys.global.u32", "st.b32", "st.relaxed.gpu.u32",
	}
	fences := []string{"fence.sc.cta;", "fence.acq_rel.gpu;", "fence.acq_rel.sys;", "fence.proxy.async;", "fence.proxy.async.shared::cta;",
		"membar.cta;", "membar.gl;", "membar.sys;", "fence.mbarrier_init.release.cluster;", "fence.acq_rel.cluster;"}
	var body strings.Builder
	for i, f := range forms {
		fmt.Fprintf(&body, "\tadd.u32 %%r2, %%r1, %d;\n\t%s [%%rd1+%d], %%r2;\n\t%s\n", i, f, 4*i, fences[i%len(fences)])
	}
	n := len(forms)
	fmt.Fprintf(&body, "\tcreatepolicy.fractional.L2::evict_last.b64 %%rd2, 1.0;\n\tst.global.L2::cache_hint.u32 [%%rd1+%d], %%r1, %%rd2;\n", 4*n)
	src := kernel1("\tmov.u32 %r1, 100;\n"+body.String(), "")
	res := launch(t, src, Config{}, buf(4*(n+1)))
	for i, v := range u32s(res.Buffers[0].Data) {
		want := uint32(100 + i)
		if i == n {
			want = 100
		}
		if v != want {
			t.Errorf("word %d (%s) = %d, want %d", i, append(forms, "cache_hint")[i], v, want)
		}
	}
}

// TestCvtaRoundTrips converts each space's address to generic and back,
// and classifies the generic addresses with isspacep.
func TestCvtaRoundTrips(t *testing.T) {
	src := header + `
.const .align 4 .u32 cv = 5;
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<12>;
	.reg .b32 %r<12>;
	.reg .pred %p<8>;
	.shared .align 4 .u32 sv;
	.local .align 4 .u32 lv;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, sv;
	mov.u64 %rd3, lv;
	mov.u64 %rd4, cv;
	mov.u64 %rd5, out;
	cvta.shared.u64 %rd6, %rd2;
	cvta.local.u64 %rd7, %rd3;
	cvta.const.u64 %rd8, %rd4;
	cvta.param.u64 %rd9, %rd5;
	cvta.to.shared.u64 %rd2, %rd6;
	cvta.to.local.u64 %rd3, %rd7;
	cvta.to.const.u64 %rd4, %rd8;
	cvta.to.param.u64 %rd5, %rd9;
	cvta.to.global.u64 %rd10, %rd1;
	mov.u32 %r1, 7;
	st.shared.u32 [%rd2], %r1;
	st.local.u32 [%rd3], %r1;
	ld.shared.u32 %r2, [sv];
	ld.local.u32 %r3, [lv];
	ld.const.u32 %r4, [%rd4];
	ld.param.u64 %rd11, [%rd5];
	ld.u32 %r5, [%rd8];
	ld.u64 %rd11, [%rd9];
	isspacep.shared %p1, %rd6;
	isspacep.local %p2, %rd7;
	isspacep.const %p3, %rd8;
	isspacep.param %p4, %rd9;
	isspacep.global %p5, %rd9;
	isspacep.local %p6, %rd6;
	isspacep.global %p7, %rd6;
	selp.u32 %r6, 1, 0, %p1;
	selp.u32 %r7, 2, 0, %p2;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 4, 0, %p3;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 8, 0, %p4;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 16, 0, %p5;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 32, 0, %p6;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 64, 0, %p7;
	or.b32 %r6, %r6, %r7;
	st.global.v4.u32 [%rd10], {%r2, %r3, %r4, %r5};
	st.global.u32 [%rd10+16], %r6;
	setp.eq.u64 %p1, %rd11, %rd1;
	selp.u32 %r8, 1, 0, %p1;
	st.global.u32 [%rd10+20], %r8;
	ret;
}`
	res := launch(t, src, Config{}, buf(24))
	got := u32s(res.Buffers[0].Data)
	want := []uint32{7, 7, 5, 5, 1 | 2 | 4 | 8 | 16, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestSeedChangesInterleaving: warps racing on one word leave a value
// that depends on the schedule; the same seed always leaves the same.
func TestSeedChangesInterleaving(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %warpid;
	mov.u32 %r2, 0;
L:
	st.global.u32 [%rd1], %r1;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 50;
	@%p1 bra L;`, "")
	seen := map[uint32]bool{}
	for seed := uint64(0); seed < 16; seed++ {
		a := launch(t, src, Config{Block: dims(256, 1, 1), Seed: seed}, buf(4))
		b := launch(t, src, Config{Block: dims(256, 1, 1), Seed: seed}, buf(4))
		if string(a.Buffers[0].Data) != string(b.Buffers[0].Data) {
			t.Fatalf("seed %d is not deterministic", seed)
		}
		seen[u32s(a.Buffers[0].Data)[0]] = true
	}
	if len(seen) < 2 {
		t.Errorf("16 seeds produced one outcome of a race: %v", seen)
	}
}

// TestLaunchBounds: .reqntid and .maxntid constrain the block as a real
// launch would.
func TestLaunchBounds(t *testing.T) {
	for _, c := range []struct {
		perf  string
		block [3]int
		ok    bool
	}{
		{".reqntid 64, 2", dims(64, 2, 1), true},
		{".reqntid 64, 2", dims(128, 1, 1), false},
		{".maxntid 128", dims(128, 1, 1), true},
		{".maxntid 128", dims(64, 4, 1), false},
	} {
		src := header + ".visible .entry k()\n" + c.perf + "\n{\n\tret;\n}\n"
		_, err := execute(compile(t, src), Config{Block: c.block}, nil)
		if (err == nil) != c.ok {
			t.Errorf("%s with block %v: err %v", c.perf, c.block, err)
		}
	}
}

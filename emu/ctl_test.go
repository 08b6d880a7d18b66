package emu

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// TestDSMEMStoreToPeer: each CTA of a 4-CTA cluster stores into the shared
// memory of rank+1 through mapa, the cluster synchronises, and each CTA
// copies its own shared memory out (PTX ISA §9.7.9.23, §5.1.7).
func TestDSMEMStoreToPeer(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	.reg .pred %p1;
	.shared .align 16 .b32 box[32];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	add.u32 %r4, %r2, 1;
	rem.u32 %r4, %r4, %r3;                 // peer rank
	mov.u32 %r5, box;
	shl.b32 %r6, %r1, 2;
	add.u32 %r5, %r5, %r6;
	mapa.shared::cluster.u32 %r7, %r5, %r4;
	mad.lo.u32 %r8, %r2, 1000, %r1;        // value: writer rank*1000 + tid
	st.shared::cluster.u32 [%r7], %r8;
	getctarank.shared::cluster.u32 %r9, %r7;
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	ld.shared.u32 %r10, [%r5];
	mov.u32 %r11, %ctaid.x;
	mad.lo.u32 %r11, %r11, 32, %r1;
	mul.wide.u32 %rd2, %r11, 8;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v2.u32 [%rd3], {%r10, %r9};
	ret;
}`
	for _, jobs := range []int{1, 2} {
		res := launch(t, src, Config{Grid: dims(8, 1, 1), Block: dims(32, 1, 1), Cluster: dims(4, 1, 1), Jobs: jobs}, buf(8*32*8))
		b := res.Buffers[0].Data
		for cta := range 8 {
			rank := cta % 4
			writer := (rank + 3) % 4
			for tid := range 32 {
				i := (cta*32 + tid) * 8
				v, r := binary.LittleEndian.Uint32(b[i:]), binary.LittleEndian.Uint32(b[i+4:])
				if v != uint32(writer*1000+tid) || r != uint32((rank+1)%4) {
					t.Fatalf("jobs %d cta %d tid %d: got value %d rank %d, want %d, %d", jobs, cta, tid, v, r, writer*1000+tid, (rank+1)%4)
				}
			}
		}
	}
}

// TestGenericDSMEM uses generic addresses with mapa.u64 and isspacep.
func TestGenericDSMEM(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<6>;
	.shared .align 8 .b32 box[4];
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %cluster_ctarank;
	xor.b32 %r3, %r2, 1;
	mov.u64 %rd2, box;
	cvta.shared.u64 %rd3, %rd2;
	mapa.u64 %rd4, %rd3, %r3;
	st.u32 [%rd4], %r2;
	isspacep.shared::cta %p1, %rd3;
	isspacep.shared::cta %p2, %rd4;
	isspacep.shared::cluster %p3, %rd4;
	isspacep.global %p4, %rd4;
	isspacep.global %p5, %rd1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.shared.u32 %r4, [box];
	selp.u32 %r5, 1, 0, %p1;
	selp.u32 %r6, 2, 0, %p2;
	or.b32 %r5, %r5, %r6;
	selp.u32 %r6, 4, 0, %p3;
	or.b32 %r5, %r5, %r6;
	selp.u32 %r6, 8, 0, %p4;
	or.b32 %r5, %r5, %r6;
	selp.u32 %r6, 16, 0, %p5;
	or.b32 %r5, %r5, %r6;
	mov.u32 %r7, %ctaid.x;
	mul.wide.u32 %rd5, %r7, 8;
	add.u64 %rd6, %rd1, %rd5;
	st.v2.u32 [%rd6], {%r4, %r5};
	ret;
}`
	res := launch(t, src, Config{Grid: dims(2, 1, 1), Block: dims(1, 1, 1), Cluster: dims(2, 1, 1)}, buf(16))
	got := u32s(res.Buffers[0].Data)
	// CTA 0's box holds rank 1's store and vice versa; flags: own shared is
	// ::cta, the peer's is ::cluster only, neither is global, the buffer is.
	want := []uint32{1, 1 | 4 | 16, 0, 1 | 4 | 16}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestSpecialRegisters(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	.reg .pred %p1;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %ntid.y;
	mov.u32 %r6, %ctaid.x;
	mov.u32 %r7, %ctaid.y;
	mov.u32 %r8, %nctaid.x;
	mov.u32 %r9, %laneid;
	mov.u32 %r10, %warpid;
	mov.u32 %r11, %nwarpid;
	mov.u32 %r12, %clusterid.x;
	mov.u32 %r13, %nclusterid.x;
	mov.u32 %r14, %cluster_ctaid.x;
	mov.u32 %r15, %cluster_nctaid.x;
	mov.u32 %r16, %cluster_ctarank;
	mov.u32 %r17, %cluster_nctarank;
	mov.pred %p1, %is_explicit_cluster;
	selp.u32 %r18, 1, 0, %p1;
	mov.u32 %r19, %smid;
	// linear thread id in the grid
	mad.lo.u32 %r0, %r3, %r5, %r2;
	mad.lo.u32 %r0, %r0, %r4, %r1;
	mul.lo.u32 %r19, %r4, %r5;
	shl.b32 %r19, %r19, 1;
	mad.lo.u32 %r7, %r7, %r8, %r6;
	mad.lo.u32 %r0, %r7, %r19, %r0;
	mul.wide.u32 %rd2, %r0, 80;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
	st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};
	st.global.v2.u32 [%rd3+64], {%r17, %r18};
	ret;
}`
	// grid 4x2 CTAs of 8x4x2 threads in clusters of 2x1.
	res := launch(t, src, Config{Grid: dims(4, 2, 1), Block: dims(8, 4, 2), Cluster: dims(2, 1, 1)}, buf(4*2*64*80))
	b := res.Buffers[0].Data
	for cy := range 2 {
		for cx := range 4 {
			for tz := range 2 {
				for ty := range 4 {
					for tx := range 8 {
						lin := tx + 8*(ty+4*tz)
						g := (cy*4+cx)*64 + lin
						got := u32s(b[g*80 : g*80+72])
						want := []uint32{uint32(tx), uint32(ty), uint32(tz), 8, 4, uint32(cx), uint32(cy*4 + cx), 4,
							uint32(lin % 32), uint32(lin / 32), 2, uint32(cx / 2), 2, uint32(cx % 2), 2, uint32(cx % 2), 2, 1}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("cta (%d,%d) thread (%d,%d,%d): got %v, want %v", cx, cy, tx, ty, tz, got, want)
						}
					}
				}
			}
		}
	}
}

// TestDivergenceAndReconvergence: lanes take different paths through an
// if/else and a data-dependent loop and then meet again at a barrier.
func TestDivergenceAndReconvergence(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	.shared .align 4 .b32 sm[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	mov.u32 %r3, 0;
	@%p1 bra EVEN;
	mov.u32 %r3, 1000;        // odd lanes
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2000;        // even lanes
JOIN:
	mov.u32 %r4, 0;           // loop tid%5 times
	rem.u32 %r5, %r1, 5;
LOOP:
	setp.ge.u32 %p2, %r4, %r5;
	@%p2 bra DONE;
	add.u32 %r3, %r3, 7;
	add.u32 %r4, %r4, 1;
	bra LOOP;
DONE:
	shl.b32 %r6, %r1, 2;
	mov.u32 %r2, sm;
	add.u32 %r6, %r6, %r2;
	st.shared.u32 [%r6], %r3;
	bar.sync 0;
	xor.b32 %r7, %r1, 63;
	shl.b32 %r7, %r7, 2;
	mov.u32 %r2, sm;
	add.u32 %r7, %r7, %r2;
	ld.shared.u32 %r3, [%r7];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	for _, seed := range []uint64{0, 1, 99} {
		res := launch(t, src, Config{Block: dims(64, 1, 1), Seed: seed}, buf(64*4))
		got := u32s(res.Buffers[0].Data)
		for i, v := range got {
			j := i ^ 63
			want := uint32(1000 + 1000*(1-j%2) + 7*(j%5))
			if v != want {
				t.Fatalf("seed %d: out[%d] = %d, want %d", seed, i, v, want)
			}
		}
	}
}

// TestCallWithParams: .func arguments and results pass through .param
// space with st.param/ld.param (§5.1.6.4), including from divergent lanes.
func TestCallWithParams(t *testing.T) {
	src := header + `
.func (.param .b32 ret0) mix(.param .b32 a, .param .b64 b)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.b32 %r1, [a];
	ld.param.b64 %rd1, [b];
	cvt.u32.u64 %r2, %rd1;
	mad.lo.u32 %r3, %r1, 3, %r2;
	st.param.b32 [ret0], %r3;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;
	.reg .pred %p1;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, 7;
	setp.lt.u32 %p1, %r1, 20;
	@!%p1 bra SKIP;
	cvt.u64.u32 %rd2, %r1;
	add.u64 %rd2, %rd2, 100;
	{
	.param .b32 param0;
	.param .b64 param1;
	.param .b32 retval0;
	st.param.b32 [param0], %r1;
	st.param.b64 [param1], %rd2;
	call.uni (retval0), mix, (param0, param1);
	ld.param.b32 %r5, [retval0];
	}
SKIP:
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r5;
	ret;
}`
	res := launch(t, src, Config{Block: dims(40, 1, 1)}, buf(160))
	for i, v := range u32s(res.Buffers[0].Data) {
		want := uint32(7)
		if i < 20 {
			want = uint32(3*i + i + 100)
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

// TestModuleVariables: .global and .const variables with initializers,
// including an address initializer, and ld.const.
func TestModuleVariables(t *testing.T) {
	src := header + `
.global .align 4 .u32 table[4] = {10, 20, 30, 40};
.const .align 8 .f64 scale = 0d4000000000000000;
.const .align 4 .b16 halves[2] = {0x3c00, 0xc000};
.global .align 8 .u64 ptr = generic(table);
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<6>;
	.reg .b16 %h<3>;
	.reg .b64 %rd<6>;
	.reg .f64 %fd<2>;
	ld.param.u64 %rd1, [out];
	ld.global.u64 %rd2, [ptr];
	ld.u32 %r1, [%rd2+8];
	ld.global.u32 %r2, [table+12];
	ld.const.f64 %fd1, [scale];
	ld.const.b16 %h1, [halves+2];
	mov.u64 %rd3, scale;
	cvta.const.u64 %rd4, %rd3;
	ld.f64 %fd1, [%rd4];
	st.global.v2.u32 [%rd1], {%r1, %r2};
	st.global.f64 [%rd1+8], %fd1;
	st.global.b16 [%rd1+16], %h1;
	mov.u32 %r3, 99;
	st.global.u32 [table], %r3;
	ld.global.u32 %r4, [table];
	st.global.u32 [%rd1+20], %r4;
	ret;
}`
	res := launch(t, src, Config{}, buf(24))
	b := res.Buffers[0].Data
	if v := u32s(b[:8]); v[0] != 30 || v[1] != 40 {
		t.Errorf("table loads = %v", v)
	}
	if v := binary.LittleEndian.Uint64(b[8:]); v != 0x4000000000000000 {
		t.Errorf("const f64 = %#x", v)
	}
	if v := binary.LittleEndian.Uint16(b[16:]); v != 0xc000 {
		t.Errorf("const b16 = %#x", v)
	}
	if v := binary.LittleEndian.Uint32(b[20:]); v != 99 {
		t.Errorf("stored module global = %d", v)
	}
}

// TestBarrierCounts: named barriers with thread counts let two groups of
// warps synchronise separately (§9.7.13.1).
func TestBarrierCounts(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p1;
	.shared .align 4 .b32 sm[128];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	add.u32 %r5, %r1, 1;
	st.shared.u32 [%r4], %r5;
	setp.lt.u32 %p1, %r1, 64;
	@%p1 bar.sync 1, 64;
	@!%p1 barrier.sync 2, 64;
	xor.b32 %r6, %r1, 32;           // partner in the same half
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r2, %r6;
	ld.shared.u32 %r7, [%r6];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r7;
	ret;
}`
	for _, seed := range []uint64{0, 5} {
		res := launch(t, src, Config{Block: dims(128, 1, 1), Seed: seed}, buf(512))
		for i, v := range u32s(res.Buffers[0].Data) {
			if v != uint32(i^32)+1 {
				t.Fatalf("seed %d: out[%d] = %d, want %d", seed, i, v, (i^32)+1)
			}
		}
	}
}

func TestAtomics(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	.reg .f32 %f<3>;
	.shared .align 4 .b32 cnt[2];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	atom.global.add.u32 %r2, [%rd1], 1;
	red.global.add.u32 [%rd1+4], %r1;
	atom.global.max.s32 %r3, [%rd1+8], %r1;
	atom.global.min.u32 %r3, [%rd1+12], %r1;
	atom.global.or.b32 %r3, [%rd1+16], %r1;
	atom.global.xor.b32 %r3, [%rd1+20], 1;
	atom.global.inc.u32 %r3, [%rd1+24], 5;
	atom.global.add.u64 %rd2, [%rd1+32], 3;
	cvt.rn.f32.u32 %f1, %r1;
	atom.global.add.f32 %f2, [%rd1+40], %f1;
	atom.shared.add.u32 %r4, [cnt], 2;
	atom.global.cas.b32 %r5, [%rd1+44], 0, %r1;
	bar.sync 0;
	ld.shared.u32 %r6, [cnt];
	st.global.u32 [%rd1+48], %r6;
	atom.global.exch.b32 %r7, [%rd1+52], 7;
	ret;
}`
	init := make([]byte, 56)
	binary.LittleEndian.PutUint32(init[12:], 1000)
	res := launch(t, src, Config{Grid: dims(3, 1, 1), Block: dims(50, 1, 1), Jobs: 2}, Arg{IsBuffer: true, Buffer: init})
	got := u32s(res.Buffers[0].Data)
	if got[0] != 150 || got[1] != 3*(49*50/2) || got[2] != 49 || got[3] != 0 || got[4] != 63 || got[5] != 0 {
		t.Errorf("add/red/max/min/or/xor = %v", got[:6])
	}
	if got[6] != 150%6 {
		t.Errorf("inc wraps: %d, want %d", got[6], 150%6)
	}
	if v := binary.LittleEndian.Uint64(res.Buffers[0].Data[32:]); v != 450 {
		t.Errorf("add.u64 = %d", v)
	}
	if f := float32frombits(got[10]); f != float32(3*(49*50/2)) {
		t.Errorf("add.f32 = %v", f)
	}
	if got[12] != 100 { // the last CTA's shared counter: 50 threads x 2
		t.Errorf("shared counter = %d", got[12])
	}
	if got[13] != 7 {
		t.Errorf("exch = %d", got[13])
	}
}

// TestDivergentCallsAndNestedLoops: lanes call a .func from different
// branches and return at different times; nested data-dependent loops
// reconverge before a barrier.
func TestDivergentCallsAndNestedLoops(t *testing.T) {
	src := header + `
.func (.param .b32 r) tri(.param .b32 n)
{
	.reg .b32 %r<5>;
	.reg .pred %p1;
	ld.param.b32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	setp.ge.u32 %p1, %r3, %r1;
	@%p1 bra END;
	add.u32 %r3, %r3, 1;
	add.u32 %r2, %r2, %r3;
	bra LOOP;
END:
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	mov.u32 %r5, 0;
	@%p1 bra EVEN;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r1;
	call (b), tri, (a);
	ld.param.b32 %r5, [b];
	}
	bra JOIN;
EVEN:
	mov.u32 %r3, 0;
OUTER:
	setp.ge.u32 %p2, %r3, %r1;
	@%p2 bra JOIN;
	mov.u32 %r4, 0;
INNER:
	add.u32 %r5, %r5, 1;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, 3;
	@%p2 bra INNER;
	add.u32 %r3, %r3, 2;
	bra OUTER;
JOIN:
	bar.sync 0;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}`
	for _, seed := range []uint64{0, 4} {
		res := launch(t, src, Config{Block: dims(48, 1, 1), Seed: seed}, buf(48*4))
		for i, v := range u32s(res.Buffers[0].Data) {
			want := uint32(i * (i + 1) / 2)
			if i%2 == 0 {
				want = uint32(3 * ((i + 1) / 2))
			}
			if v != want {
				t.Fatalf("seed %d lane %d: got %d, want %d", seed, i, v, want)
			}
		}
	}
}

// TestParamFuncSpace writes call arguments with st.param::func.
func TestParamFuncSpace(t *testing.T) {
	src := header + `
.func (.param .b64 r) twice(.param .b64 x)
{
	.reg .b64 %rd<3>;
	ld.param::func.b64 %rd1, [x];
	add.u64 %rd2, %rd1, %rd1;
	st.param::func.b64 [r], %rd2;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	{
	.param .b64 a;
	.param .b64 b;
	st.param::func.b64 [a], 0x4000000000000021;
	call.uni (b), twice, (a);
	ld.param::func.b64 %rd2, [b];
	}
	st.global.u64 [%rd1], %rd2;
	ret;
}`
	res := launch(t, src, Config{}, buf(8))
	if got := binary.LittleEndian.Uint64(res.Buffers[0].Data); got != 0x8000000000000042 {
		t.Fatalf("got %#x", got)
	}
}

// TestBarRed: __syncthreads_count/_and/_or as bar.red over 96 threads.
func TestBarRed(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	setp.eq.u32 %p1, %r2, 0;
	bar.red.popc.u32 %r3, 0, %p1;
	barrier.red.or.pred %p2, 1, %p1;
	bar.red.and.pred %p3, 2, !%p1;
	setp.lt.u32 %p1, %r1, 200;
	bar.red.and.pred %p0, 3, 96, %p1;
	selp.u32 %r4, 1, 0, %p2;
	selp.u32 %r5, 1, 0, %p3;
	selp.u32 %r6, 1, 0, %p0;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};`, "")
	for _, seed := range []uint64{0, 2} {
		res := launch(t, src, Config{Block: dims(96, 1, 1), Seed: seed}, buf(96*16))
		got := u32s(res.Buffers[0].Data)
		for i := range 96 {
			if g := got[4*i : 4*i+4]; g[0] != 32 || g[1] != 1 || g[2] != 0 || g[3] != 1 {
				t.Fatalf("seed %d thread %d: got %v, want [32 1 0 1]", seed, i, g)
			}
		}
	}
}

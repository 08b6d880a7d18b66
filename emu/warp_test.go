package emu

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// TestShuffle compares every shfl.sync mode with the §9.7.8.6 pseudocode
// evaluated here, for several b values, with lanes 30 and 31 inactive and
// outside the member mask: the clamp c = 29 keeps every source below lane
// 30 (reading an inactive lane is TestShuffleInactiveLane's).
func TestShuffle(t *testing.T) {
	for _, mode := range []string{"up", "down", "bfly", "idx"} {
		for _, b := range []int{0, 1, 3, 17} {
			c := 29
			if mode == "up" {
				c = 0
			}
			src := kernel1(fmt.Sprintf(`
	mov.u32 %%r1, %%laneid;
	setp.ge.u32 %%p3, %%r1, 30;
	@%%p3 bra DONE;
	mad.lo.u32 %%r2, %%r1, 7, 1;
	shfl.sync.%s.b32 %%r3|%%p1, %%r2, %d, %d, 0x3fffffff;
	selp.u32 %%r4, 1, 0, %%p1;
	mul.wide.u32 %%rd2, %%r1, 8;
	add.u64 %%rd3, %%rd1, %%rd2;
	st.global.v2.u32 [%%rd3], {%%r3, %%r4};
DONE:`, mode, b, c), "")
			res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(256))
			got := u32s(res.Buffers[0].Data)
			for l := range 30 {
				maxLane, minLane := c&31, 0
				var j int
				var ok bool
				switch mode {
				case "up":
					j, ok = l-b, l-b >= maxLane
				case "down":
					j, ok = l+b, l+b <= maxLane
				case "bfly":
					j, ok = l^b, l^b <= maxLane
				case "idx":
					j, ok = minLane|b, b <= maxLane
				}
				if !ok {
					j = l
				}
				if got[2*l] != uint32(j*7+1) || (got[2*l+1] == 1) != ok {
					t.Fatalf("%s b=%d lane %d: got (%d, %d), want (%d, %v)", mode, b, l, got[2*l], got[2*l+1], j*7+1, ok)
				}
			}
		}
	}
}

// TestShuffleInactiveLane: a lane that reads a lane that does not execute
// shfl.sync gets 0, as the H100 writes, and the read is reported; so is a
// shfl.sync executed by a lane outside its member mask.
func TestShuffleInactiveLane(t *testing.T) {
	body := func(mask string) string {
		return kernel1(`
	mov.u32 %r1, %laneid;
	setp.ge.u32 %p3, %r1, 30;
	@%p3 bra DONE;
	add.u32 %r2, %r1, 100;
	shfl.sync.down.b32 %r3, %r2, 1, 0x1f, `+mask+`;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
DONE:`, "")
	}
	res := launchReport(t, body("0x3fffffff"), Config{Block: dims(32, 1, 1)}, buf(128))
	wantReport(t, res, ruleShflInactive, "lane 29 reads lane 30", "returns 0", "lane 29")
	res = launchReport(t, body("0x1fffffff"), Config{Block: dims(32, 1, 1)}, buf(128))
	wantReport(t, res, ruleShflMembermask, "lane 29 executes shfl.sync.down.b32 but is not in its member mask 0x1fffffff")

	// The value: run the instruction on a warp whose lanes 30 and 31 do
	// not execute it.
	p := compile(t, body("0x3fffffff"))
	pc := slices.IndexFunc(p.Insts, func(in Inst) bool { return strings.HasPrefix(in.Opcode, "shfl") })
	w := newTestWarp(p, pc, 0x3fffffff)
	in := &p.Insts[pc]
	for l := range 32 {
		w.R[in.A+int32(l)] = uint64(l + 100)
		w.R[in.B+int32(l)] = 1
		w.R[in.C+int32(l)] = 0x1f
		w.R[in.V[0]+int32(l)] = 0x3fffffff
	}
	if st := execShfl(w, in); st != Fault {
		t.Fatalf("status %v, want Fault", st)
	}
	for l := range 30 {
		want := uint64(l + 101)
		if l == 29 {
			want = 0
		}
		if got := w.R[in.D+int32(l)]; got != want {
			t.Errorf("lane %d: got %d, want %d", l, got, want)
		}
	}
}

func TestVoteReduxActivemask(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %laneid;
	setp.ge.u32 %p3, %r1, 20;
	@%p3 bra DONE;
	and.b32 %r2, %r1, 3;
	setp.eq.u32 %p1, %r2, 0;
	vote.sync.ballot.b32 %r3, %p1, 0xfffff;
	vote.sync.any.pred %p2, %p1, 0xfffff;
	selp.u32 %r4, 1, 0, %p2;
	vote.sync.all.pred %p2, !%p3, 0xfffff;
	selp.u32 %r5, 1, 0, %p2;
	vote.sync.uni.pred %p2, %p1, 0xfffff;
	selp.u32 %r6, 1, 0, %p2;
	activemask.b32 %r7;
	redux.sync.add.u32 %r8, %r1, 0xfffff;
	redux.sync.max.s32 %r9, %r2, 0xfffff;
	mul.wide.u32 %rd2, %r1, 32;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
	st.global.v4.u32 [%rd3+16], {%r7, %r8, %r9, %r1};
DONE:`, "")
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(32*32))
	got := u32s(res.Buffers[0].Data)
	var ballot uint32
	for l := 0; l < 20; l += 4 {
		ballot |= 1 << uint(l)
	}
	for l := range 20 {
		want := []uint32{ballot, 1, 1, 0, 0xfffff, 190, 3, uint32(l)}
		if fmt.Sprint(got[8*l:8*l+8]) != fmt.Sprint(want) {
			t.Fatalf("lane %d: got %v, want %v", l, got[8*l:8*l+8], want)
		}
	}
}

func TestBitInstructions(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, 0x89abcdef;
	mov.u32 %r2, 0x01234567;
	prmt.b32 %r3, %r1, %r2, 0x7531;
	prmt.b32 %r4, %r1, %r2, 0x0b2a;
	bfe.u32 %r5, %r1, 4, 12;
	bfe.s32 %r6, %r1, 28, 8;
	bfi.b32 %r7, %r2, %r1, 8, 12;
	lop3.b32 %r8, %r1, %r2, 0xff00ff00, 0x96;
	mul24.lo.s32 %r9, 0x00800001, 3;
	mad24.hi.u32 %r0, 0x00ffffff, 0x00ffffff, 5;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
	st.global.v4.u32 [%rd1+16], {%r7, %r8, %r9, %r0};
	popc.b32 %r1, %r1;
	clz.b32 %r2, %r2;
	brev.b32 %r3, %r2;
	st.global.v4.u32 [%rd1+32], {%r1, %r2, %r3, %r3};`, "")
	res := launch(t, src, Config{}, buf(48))
	got := u32s(res.Buffers[0].Data)
	a, b := uint32(0x89abcdef), uint32(0x01234567)
	bytesOf := func(x, y uint32) [8]uint32 {
		var o [8]uint32
		for i := range 4 {
			o[i] = x >> (8 * uint(i)) & 0xff
			o[4+i] = y >> (8 * uint(i)) & 0xff
		}
		return o
	}(a, b)
	prmt := func(sel uint32) uint32 {
		var v uint32
		for i := range 4 {
			s := sel >> (4 * uint(i)) & 0xf
			x := bytesOf[s&7]
			if s&8 != 0 {
				x = 0
				if bytesOf[s&7]&0x80 != 0 {
					x = 0xff
				}
			}
			v |= x << (8 * uint(i))
		}
		return v
	}
	m24 := int32(0x800001 - 0x1000000)
	mul24lo := uint32(m24 * 3)
	hi := uint64(0xffffff) * uint64(0xffffff) >> 16
	want := []uint32{
		prmt(0x7531), prmt(0x0b2a), a >> 4 & 0xfff, 0xfffffff8,
		a&^(0xfff<<8) | (b&0xfff)<<8, a ^ b ^ 0xff00ff00, mul24lo, uint32(hi + 5),
		uint32(bits.OnesCount32(a)), uint32(bits.LeadingZeros32(b)), bits.Reverse32(uint32(bits.LeadingZeros32(b))), bits.Reverse32(uint32(bits.LeadingZeros32(b))),
	}
	if fmt.Sprintf("%x", got) != fmt.Sprintf("%x", want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
}

// TestStmatrix stores four 8x8 b16 matrices (plain and transposed) with
// row addresses in a scrambled order and checks every element.
func TestStmatrix(t *testing.T) {
	for _, trans := range []string{"", ".trans"} {
		src := kernel1(`
	.shared .align 16 .b8 tile[512];
	mov.u32 %r1, %laneid;
	// register i of lane l: halves (l*8+i*2, l*8+i*2+1) + 1000*i
	shl.b32 %r2, %r1, 3;
	mov.u32 %r3, 0;
	mov.u32 %r9, 0;
REG:
	shl.b32 %r4, %r3, 1;
	add.u32 %r4, %r4, %r2;
	mad.lo.u32 %r4, %r3, 1000, %r4;
	add.u32 %r5, %r4, 1;
	shl.b32 %r5, %r5, 16;
	or.b32 %r6, %r4, %r5;
	setp.eq.u32 %p1, %r3, 0;
	@%p1 mov.u32 %r7, %r6;
	setp.eq.u32 %p1, %r3, 1;
	@%p1 mov.u32 %r8, %r6;
	setp.eq.u32 %p1, %r3, 2;
	@%p1 mov.u32 %r0, %r6;
	setp.eq.u32 %p1, %r3, 3;
	@%p1 mov.u32 %r9, %r6;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 4;
	@%p1 bra REG;
	// lane l supplies row address: slot (l*5 mod 32) * 16
	mul.lo.u32 %r2, %r1, 5;
	and.b32 %r2, %r2, 31;
	shl.b32 %r2, %r2, 4;
	mov.u32 %r3, tile;
	add.u32 %r3, %r3, %r2;
	stmatrix.sync.aligned.m8n8.x4`+trans+`.shared.b16 [%r3], {%r7, %r8, %r0, %r9};
	bar.sync 0;
	// copy the tile out: lane l copies 16 bytes
	mov.u32 %r3, tile;
	shl.b32 %r2, %r1, 4;
	add.u32 %r3, %r3, %r2;
	ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r3];
	cvt.u64.u32 %rd2, %r2;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};`, "")
		res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(512))
		got := res.Buffers[0].Data
		for m := range 4 {
			for row := range 8 {
				slot := (8*m + row) * 5 % 32
				for col := range 8 {
					r, c := row, col
					if trans != "" {
						r, c = col, row
					}
					lane := 4*r + c/2
					want := uint16(lane*8 + m*2 + c%2 + 1000*m)
					if g := binary.LittleEndian.Uint16(got[slot*16+2*col:]); g != want {
						t.Fatalf("%s matrix %d row %d col %d: got %d, want %d", trans, m, row, col, g, want)
					}
				}
			}
		}
	}
}

// TestLdmatrixInvertsStmatrix: ldmatrix of what stmatrix stored gives the
// registers back, with and without .trans, for .x1/.x2/.x4.
func TestLdmatrixInvertsStmatrix(t *testing.T) {
	for _, shape := range []struct{ x, regs string }{{".x1", "{%r4}"}, {".x2", "{%r4, %r5}"}, {".x4", "{%r4, %r5, %r6, %r7}"}} {
		for _, trans := range []string{"", ".trans"} {
			src := kernel1(`
	.shared .align 16 .b8 tile[512];
	mov.u32 %r1, %laneid;
	mul.lo.u32 %r4, %r1, 0x00030001;
	add.u32 %r5, %r4, 0x01000100;
	add.u32 %r6, %r4, 0x02000200;
	add.u32 %r7, %r4, 0x03000300;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, tile;
	add.u32 %r3, %r3, %r2;
	stmatrix.sync.aligned.m8n8`+shape.x+trans+`.shared.b16 [%r3], `+shape.regs+`;
	mov.u32 %r4, 0;
	mov.u32 %r5, 0;
	mov.u32 %r6, 0;
	mov.u32 %r7, 0;
	ldmatrix.sync.aligned.m8n8`+shape.x+trans+`.shared.b16 `+shape.regs+`, [%r3];
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};`, "")
			res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(512))
			n := map[string]int{".x1": 1, ".x2": 2, ".x4": 4}[shape.x]
			for l := range 32 {
				got := u32s(res.Buffers[0].Data[16*l : 16*l+16])
				for i := range 4 {
					want := uint32(l)*0x00030001 + uint32(i)*0x01000100
					if i >= n {
						want = 0
					}
					if got[i] != want {
						t.Fatalf("%s%s lane %d reg %d: got %#x, want %#x", shape.x, trans, l, i, got[i], want)
					}
				}
			}
		}
	}
}

// newTestWarp is a warp of a one-CTA launch of p, stopped at pc with the
// lanes of exec executing, for calling a handler directly.
func newTestWarp(p *Program, pc int, exec uint32) *Warp {
	cfg := &Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1), Cluster: dims(1, 1, 1)}
	c := &CTA{cluster: &Cluster{cfg: cfg, prog: p}}
	return &Warp{CTA: c, prog: p, R: make([]uint64, p.numSlots*32), pc: int32(pc), Exec: exec}
}

// TestReduxPerMask: lanes of one converged warp that name different
// member masks (cooperative groups' labeled_partition) each reduce over
// their own group only.
func TestReduxPerMask(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %laneid;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	selp.b32 %r3, 0x55555555, 0xaaaaaaaa, %p1;
	redux.sync.add.u32 %r4, %r1, %r3;
	redux.sync.max.u32 %r5, %r1, %r3;
	redux.sync.min.u32 %r6, %r1, %r3;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r3};`, "")
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(32*16))
	got := u32s(res.Buffers[0].Data)
	for l := range 32 {
		var sum, max, min uint32 = 0, 0, 31
		for j := l & 1; j < 32; j += 2 {
			sum += uint32(j)
			max = uint32(j)
			if uint32(j) < min {
				min = uint32(j)
			}
		}
		if got[4*l] != sum || got[4*l+1] != max || got[4*l+2] != min {
			t.Errorf("lane %d: add/max/min %v, want %d %d %d", l, got[4*l:4*l+3], sum, max, min)
		}
	}
}

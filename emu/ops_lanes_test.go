package emu

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// laneForms are instructions whose handlers have a converged-warp form
// (ops_lanes.go, ops_fast.go's full-warp loops).
var laneForms = []string{
	"setp.eq.u32 %p1|%p2, %r1, %r2;", "setp.ne.s32 %p1|%p2, %r1, %r2;", "setp.lt.u32 %p1, %r1, %r2;",
	"setp.lt.s32 %p1|%p2, %r1, %r2;", "setp.le.u32 %p1, %r1, %r2;", "setp.le.s32 %p2, %r1, %r2;",
	"setp.gt.u32 %p1|%p2, %r1, %r2;", "setp.gt.s32 %p1, %r1, 3;", "setp.ge.u32 %p1, %r1, %r2;",
	"setp.ge.s32 %p1|%p2, %r1, %r2;", "setp.lt.s32 %p1|%p2, %r1, %r1;",
	"selp.b32 %r3, %r1, %r2, %p1;", "selp.b64 %rd3, %rd1, %rd2, %p2;", "selp.f32 %f3, %f1, 0f3F800000, %p1;",
	"selp.b16 %h3, %h1, %h2, %p1;",
	"mul.wide.u32 %rd3, %r1, %r2;", "mul.wide.s32 %rd3, %r1, %r2;", "mul.wide.u32 %rd1, %r1, 4;",
	"add.f32 %f3, %f1, %f2;", "sub.f32 %f3, %f1, %f2;", "mul.f32 %f3, %f1, %f2;",
	"add.rn.f32 %f3, %f1, %f2;", "sub.rn.f32 %f3, %f1, %f2;", "mul.rn.f32 %f3, %f1, %f2;",
	"fma.rn.f32 %f3, %f1, %f2, %f4;", "mad.rn.f32 %f3, %f1, %f2, %f4;", "fma.rn.f32 %f1, %f1, %f2, %f1;",
	"sub.s32 %r3, %r1, %r2;", "sub.u64 %rd3, %rd1, %rd2;", "sub.s16 %h3, %h1, %h2;",
	"shr.s32 %r3, %r1, %r2;", "shr.s32 %r3, %r1, 1;", "shr.u64 %rd3, %rd1, %r2;", "shr.s64 %rd3, %rd1, %r2;",
	"shr.u16 %h3, %h1, %r2;", "shr.s16 %h3, %h1, %r2;", "shl.b64 %rd3, %rd1, %r2;", "shl.b16 %h3, %h1, %r2;",
	"min.s32 %r3, %r1, %r2;", "max.s32 %r3, %r1, %r2;", "min.u32 %r3, %r1, %r2;", "max.u64 %rd3, %rd1, %rd2;",
	"min.s64 %rd3, %rd1, %rd2;", "max.s16 %h3, %h1, %h2;",
	"div.u32 %r3, %r1, %r2;", "rem.u32 %r3, %r1, %r2;", "div.s32 %r3, %r1, %r2;", "rem.s32 %r3, %r1, %r2;",
	"div.s32 %r3, %r1, -1;", "rem.s64 %rd3, %rd1, -1;", "div.u64 %rd3, %rd1, %rd2;", "div.s64 %rd3, %rd1, %rd2;",
	"rem.s16 %h3, %h1, %h2;", "div.u32 %r3, %r1, 32;", "rem.u32 %r3, %r1, 0;",
	"and.b64 %rd3, %rd1, %rd2;", "or.b64 %rd3, %rd1, %rd2;", "and.b16 %h3, %h1, %h2;", "or.b16 %h3, %h1, %h2;",
	"cvt.u64.u32 %rd3, %r1;", "cvt.s64.s32 %rd3, %r1;", "cvt.u32.u64 %r3, %rd1;", "cvt.s32.s64 %r3, %rd1;",
	"cvt.s32.s16 %r3, %h1;", "cvt.u16.u32 %h3, %r1;", "cvt.s16.s32 %h3, %r1;", "cvt.u64.s16 %rd3, %h1;",
	"setp.eq.f32 %p1|%p2, %f1, %f2;", "setp.ne.f32 %p1, %f1, %f2;", "setp.lt.f32 %p1, %f1, %f2;",
	"setp.le.f32 %p1, %f1, %f2;", "setp.gt.f32 %p1|%p2, %f1, %f2;", "setp.ge.f32 %p1, %f1, 0f00000000;",
	"setp.equ.f32 %p1, %f1, %f2;", "setp.neu.f32 %p1, %f1, %f2;", "setp.ltu.f32 %p1, %f1, %f2;",
	"setp.leu.f32 %p1, %f1, %f2;", "setp.gtu.f32 %p1, %f1, %f2;", "setp.geu.f32 %p1|%p2, %f1, %f2;",
	"setp.num.f32 %p1, %f1, %f2;", "setp.nan.f32 %p1|%p2, %f1, %f2;", "setp.lt.ftz.f32 %p1, %f1, %f2;",
	"cvt.s64.u32 %rd3, %r1;", "cvt.sat.s32.s64 %r3, %rd1;", "cvt.rn.f32.s32 %f3, %r1;",
	"and.b32 %r3, %r1, %r2;", "or.b32 %r3, %r1, %r2;", "xor.b32 %r3, %r1, %r2;", "shl.b32 %r3, %r1, %r2;",
	"shr.u32 %r3, %r1, %r2;", "add.s32 %r3, %r1, %r2;", "add.s64 %rd3, %rd1, %rd2;", "mul.lo.s32 %r3, %r1, %r2;",
	"mad.lo.s32 %r3, %r1, %r2, %r4;", "mov.b32 %r3, %r1;", "mov.u64 %rd3, %rd1;",
}

// laneValues are register contents that reach the edges of the forms:
// shift counts around the width, signs, NaNs, infinities, subnormals.
var laneValues = []uint64{0, 1, 2, 15, 16, 31, 32, 33, 63, 64, 65, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000, 0x8000000000000000, ^uint64(0), 0x7fc00000, 0x7fa00000, 0xffc00000, 0x7f800000,
	0xff800000, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000, 0x7f7fffff, 0x33800000, 0x4b800001}

// fillLanes gives every lane of every slot a value from laneValues or a
// random one.
func fillLanes(r []uint64, rng *rand.Rand) {
	for i := range r {
		switch rng.IntN(3) {
		case 0:
			r[i] = laneValues[rng.IntN(len(laneValues))]
		case 1:
			r[i] = uint64(rng.Uint32())
		default:
			r[i] = rng.Uint64()
		}
	}
}

// TestLaneFormsMatchScalar runs each converged-warp form with every lane
// executing and with partial masks, and checks each lane against the same
// handler executed for that lane alone (the general path): a broken fast
// path, or a fast path taken for a partial mask, fails here.
func TestLaneFormsMatchScalar(t *testing.T) {
	var body strings.Builder
	for _, f := range laneForms {
		body.WriteString("\t" + f + "\n")
	}
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .pred %p<3>;
	.reg .b16 %h<4>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<5>;
` + body.String() + "\tret;\n}\n"
	p := compile(t, src)
	if p.Insts[len(laneForms)].Opcode != "ret" {
		t.Fatalf("the forms decode to %d instructions, not %d", len(p.Insts)-2, len(laneForms))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for pc := range laneForms {
		in := &p.Insts[pc]
		w, s := newTestWarp(p, pc, 0), newTestWarp(p, pc, 0)
		for trial := range 16 {
			init := make([]uint64, p.numSlots*32)
			fillLanes(init, rng)
			// The constant slots hold their immediates, as Warp.start leaves them.
			for _, k := range p.consts {
				for l := range 32 {
					init[int(k.slot)+l] = k.val
				}
			}
			for _, exec := range []uint32{allLanes, rng.Uint32(), 0x7fffffff, 1 << 31} {
				w.Exec = exec
				copy(w.R, init)
				if st := in.Exec(w, in); st != Continue {
					t.Fatalf("%s: status %d", laneForms[pc], st)
				}
				for l := range 32 {
					want := init
					if exec&(1<<uint(l)) != 0 {
						s.Exec = 1 << uint(l)
						copy(s.R, init)
						in.Exec(s, in)
						want = s.R
					}
					for slot := l; slot < len(w.R); slot += 32 {
						if w.R[slot] != want[slot] {
							t.Fatalf("%s (trial %d, exec %#08x): slot %d lane %d is %#x, the lane alone gives %#x",
								laneForms[pc], trial, exec, slot/32, l, w.R[slot], want[slot])
						}
					}
				}
			}
		}
	}
}

// shflRef is §9.7.8.6's pseudocode for lane l of a shuffle in which every
// lane executes: the value and the predicate.
func shflRef(mode uint64, src []uint64, l, b, c int) (uint64, uint64) {
	b &= 31
	seg := c >> 8 & 31
	maxLane, minLane := l&seg|c&31&^seg, l&seg
	var j int
	var ok bool
	switch mode {
	case shflUp:
		j = l - b
		ok = j >= maxLane
	case shflDown:
		j = l + b
		ok = j <= maxLane
	case shflBfly:
		j = l ^ b
		ok = j <= maxLane
	default:
		j = minLane | b&^seg
		ok = j <= maxLane
	}
	if !ok {
		j = l
	}
	return src[j] & 0xffffffff, b2u(ok)
}

// TestShuffleLanesMatchReference checks the full-warp shuffle against the
// ISA's pseudocode for every mode, per-lane lane offsets and clamps, and
// the member-mask report of shfl.sync.
func TestShuffleLanesMatchReference(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %tid.x;
	mov.u32 %r5, %tid.x;
	shfl.sync.up.b32 %r1|%p1, %r2, %r3, %r4, %r5;
	shfl.sync.down.b32 %r1|%p1, %r2, %r3, %r4, %r5;
	shfl.sync.bfly.b32 %r1|%p1, %r2, %r3, %r4, %r5;
	shfl.sync.idx.b32 %r1|%p1, %r2, %r3, %r4, %r5;
	shfl.sync.bfly.b32 %r2, %r2, %r3, %r4, %r5;
	shfl.sync.up.b32 %r2|%p1, %r2, %r3, %r4, %r5;
	ret;
}
`
	p := compile(t, src)
	rng := rand.New(rand.NewPCG(3, 4))
	// The movs make a, b, c and the member mask four live registers, in
	// four slots.
	for pc := 4; pc < 10; pc++ {
		in := &p.Insts[pc]
		if s := []int32{in.A, in.B, in.C, in.V[0]}; s[0] == s[1] || s[1] == s[2] || s[2] == s[3] || s[0] == s[2] || s[0] == s[3] || s[1] == s[3] {
			t.Fatalf("%s: operands share slots %v", in.Opcode, s)
		}
		for trial := range 200 {
			w := newTestWarp(p, pc, allLanes)
			fillLanes(w.R, rng)
			full := trial%4 != 0 // otherwise a random member mask, usually reported
			for l := range 32 {
				// Lane offsets and clamps: uniform, as compilers write them, or per lane.
				if trial%2 == 0 {
					w.R[in.B+int32(l)] = uint64(1 << (trial / 2 % 5))
					w.R[in.C+int32(l)] = []uint64{0, 31, 0x1f, 0x1c1f, 0x181f}[trial/2%5]
				}
				if trial%8 == 3 { // small per-lane offsets, one clamp (a rotation by idx)
					w.R[in.B+int32(l)] = uint64(l+1+trial/8) & 31
					w.R[in.C+int32(l)] = 0x1f
				}
				if full {
					w.R[in.V[0]+int32(l)] = 0xffffffff
				}
				if trial%8 == 4 { // only lane 0 outside
					w.R[in.V[0]+int32(l)] = 0xfffffffe
				}
			}
			init := append([]uint64(nil), w.R...)
			st := in.Exec(w, in)
			var wantV, wantP [32]uint64
			for l := range 32 {
				wantV[l], wantP[l] = shflRef(in.Imm, init[in.A:in.A+32], l, int(init[in.B+int32(l)]), int(init[in.C+int32(l)]))
			}
			outside := -1
			for l := 31; l >= 0; l-- {
				if uint32(init[in.V[0]+int32(l)])&(1<<uint(l)) == 0 {
					outside = l
				}
			}
			if (st == Fault) != (outside >= 0) {
				t.Fatalf("%s trial %d: status %d, first lane outside the member mask %d", in.Opcode, trial, st, outside)
			}
			if r := w.CTA.cluster.report; st == Fault && r.Thread.Lane != outside {
				t.Fatalf("%s trial %d: lane %d reported, want %d", in.Opcode, trial, r.Thread.Lane, outside)
			}
			for l := range 32 {
				if got := w.R[in.D+int32(l)]; got != wantV[l] {
					t.Fatalf("%s trial %d lane %d: value %#x, want %#x", in.Opcode, trial, l, got, wantV[l])
				}
				if in.D2 >= 0 && w.R[in.D2+int32(l)] != wantP[l] {
					t.Fatalf("%s trial %d lane %d: predicate %d, want %d", in.Opcode, trial, l, w.R[in.D2+int32(l)], wantP[l])
				}
			}
		}
	}
}

func TestPredMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		var g [32]uint64
		var want uint32
		for l := range g {
			g[l] = rng.Uint64()
			want |= uint32(g[l]&1) << uint(l)
		}
		if got := predMask(&g); got != want {
			t.Fatalf("predMask(%v) = %#x, want %#x", g, got, want)
		}
	}
}

// TestFillSpecialMatchesPerLane: a special register filled once per warp
// has, in every lane, the value special computes for that lane.
func TestFillSpecialMatchesPerLane(t *testing.T) {
	p := compile(t, ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n")
	cfg := &Config{Grid: dims(3, 2, 1), Block: dims(8, 3, 2), Cluster: dims(1, 1, 1), SharedBytes: 64}
	c := &CTA{ID: [3]int{2, 1, 0}, cluster: &Cluster{cfg: cfg, prog: p}}
	c.Warps = make([]*Warp, 2)
	w := &Warp{CTA: c, prog: p, Index: 1}
	for k := spTid; k <= spReserved1; k++ {
		for comp := range 4 {
			s := specialSlot{kind: k, comp: comp, off: 2}
			var got [32]uint64
			w.fillSpecial(s, &got)
			for l := range 32 {
				if want := w.special(s, l); got[l] != want {
					t.Fatalf("kind %d comp %d lane %d: %#x, want %#x", k, comp, l, got[l], want)
				}
			}
		}
	}
}

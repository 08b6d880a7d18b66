package emu

import (
	"math"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Integer warp-level matrix multiply-accumulate (PTX ISA §9.7.14.5.14):
// mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32
// .{s8,u8}.{s8,u8}.s32 d, a, b, c. The result is exact integer arithmetic
// (wrapping in 32 bits, or clamped to the s32 range with .satfinite), so
// it is the hardware's bit for bit. The floating-point shapes are not
// implemented: the tensor cores' accumulation does not round like IEEE
// operations, and the emulator has no hardware reference for it yet.

func init() {
	RegisterOpcode("mma", decodeMma)
}

// mmaInt is the Ext of an integer mma.
type mmaInt struct {
	m, n, k          int
	aSigned, bSigned bool
	satfinite        bool
	a, b, c, d       []int32 // register slots of the fragments
}

func decodeMma(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := ParseQuals(in)
	mi := &mmaInt{satfinite: q.Has(".satfinite")}
	switch {
	case q.Has(".m8n8k16"):
		mi.m, mi.n, mi.k = 8, 8, 16
	case q.Has(".m16n8k16"):
		mi.m, mi.n, mi.k = 16, 8, 16
	case q.Has(".m16n8k32"):
		mi.m, mi.n, mi.k = 16, 8, 32
	}
	if mi.m == 0 || len(q.Types) != 4 || q.Types[0] != TS32 || q.Types[3] != TS32 ||
		!isByteInt(q.Types[1]) || !isByteInt(q.Types[2]) || !q.Has(".row") || !q.Has(".col") || len(in.Operands) != 4 {
		return d.Errorf(in, "the emulator implements mma only on 8-bit integers (.m8n8k16, .m16n8k16, .m16n8k32 .row.col .s32.{s8,u8}.{s8,u8}.s32)")
	}
	mi.aSigned, mi.bSigned = q.Types[1] == TS8, q.Types[2] == TS8
	want := []int{mi.m * mi.n / 32, mi.m * mi.k / 128, mi.k * mi.n / 128, mi.m * mi.n / 32}
	var err error
	for i, dst := range []*[]int32{&mi.d, &mi.a, &mi.b, &mi.c} {
		if *dst, err = d.Vector(in.Operands[i], TB32, i == 0); err != nil {
			return err
		}
		if len(*dst) != want[i] {
			return d.Errorf(in.Operands[i], "%s needs %d registers in operand %d, got %d", in.FullOpcode(), want[i], i+1, len(*dst))
		}
		for _, s := range *dst {
			if s < 0 {
				return d.Errorf(in.Operands[i], "mma operands cannot be \"_\"")
			}
		}
	}
	out.Ext = mi
	out.Exec = execMmaInt
	return nil
}

func isByteInt(t Type) bool { return t == TS8 || t == TU8 }

// mmaIntPlace gives, for lane l and the j-th byte (A, B) or word (C, D)
// it holds, the row and column of the element (the fragment layouts of
// §9.7.14.5.14 for 8-bit integers): groupID = l/4 selects the rows of A,
// C, D and the column of B; threadID_in_group = l%4 the columns of A and
// the rows of B (four consecutive bytes each) and two consecutive columns
// of C and D; a second register moves 8 rows down (A, C, D) and a further
// one 16 columns right (A) or 16 rows down (B).
func mmaIntPlace(mi *mmaInt, frag byte, l, j int) (row, col int) {
	g, t := l/4, l%4
	reg, sub := j/4, j%4
	switch frag {
	case 'a':
		row, col = g, 4*t+sub
		if mi.m == 16 && reg%2 == 1 {
			row += 8
		}
		if reg >= 2 {
			col += 16
		}
	case 'b':
		row, col = 4*t+sub, g
		if reg == 1 {
			row += 16
		}
	default: // c, d: j is the word index
		row, col = g, 2*t+j%2
		if j >= 2 {
			row += 8
		}
	}
	return row, col
}

func execMmaInt(w *Warp, in *Inst) Status {
	mi := in.Ext.(*mmaInt)
	if w.Exec != w.live || w.live != 0xffffffff {
		return w.Fault(lane(w.Exec), RuleUnsupported, "PTX ISA §9.7.14.5.14 (mma)", "mma.sync.aligned executed by %d threads; every thread of the warp must execute it", bitsOn(w.Exec))
	}
	var a [16][32]int64
	var b [32][8]int64
	var c [16][8]int64
	ext := func(v uint64, signed bool) int64 {
		if signed {
			return int64(int8(v))
		}
		return int64(uint8(v))
	}
	for l := range 32 {
		for j := range 4 * len(mi.a) {
			r, k := mmaIntPlace(mi, 'a', l, j)
			a[r][k] = ext(w.R[mi.a[j/4]+int32(l)]>>(8*uint(j%4)), mi.aSigned)
		}
		for j := range 4 * len(mi.b) {
			k, col := mmaIntPlace(mi, 'b', l, j)
			b[k][col] = ext(w.R[mi.b[j/4]+int32(l)]>>(8*uint(j%4)), mi.bSigned)
		}
		for j := range mi.c {
			r, col := mmaIntPlace(mi, 'c', l, j)
			c[r][col] = int64(int32(w.R[mi.c[j]+int32(l)]))
		}
	}
	for l := range 32 {
		for j := range mi.d {
			r, col := mmaIntPlace(mi, 'd', l, j)
			s := c[r][col]
			for k := range mi.k {
				s += a[r][k] * b[k][col]
			}
			if mi.satfinite {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			w.R[mi.d[j]+int32(l)] = uint64(uint32(s))
		}
	}
	return Continue
}

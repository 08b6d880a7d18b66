package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Integer warp-level matrix multiply-accumulate (PTX ISA §9.7.14.5.14):
// mma.sync.aligned.shape.row.col{.satfinite}.s32.atype.btype.s32 d, a, b, c
// on 8-bit (.m8n8k16, .m16n8k16, .m16n8k32; .s8/.u8) and 4-bit (.m8n8k32,
// .m16n8k32, .m16n8k64; .s4/.u4) integers, and the single-bit form
// mma.sync.aligned.shape.row.col.s32.b1.b1.s32.{and,xor}.popc (.m8n8k128,
// .m16n8k128, .m16n8k256). The result is exact integer arithmetic
// (wrapping in 32 bits, or clamped to the s32 range with .satfinite), so
// it is the hardware's bit for bit. The floating-point shapes are in
// ops_mmafloat.go, the sparse forms (mma.sp) in ops_mmasparse.go.

func init() {
	RegisterOpcode("mma", decodeMma)
	RegisterOpcode("movmatrix", decodeMovmatrix)
}

// mmaInt is the Ext of an integer mma.
type mmaInt struct {
	m, n, k          int
	bits             int // element width: 8, 4 or 1
	aSigned, bSigned bool
	satfinite        bool
	xor              bool    // b1: .xor.popc (otherwise .and.popc)
	a, b, c, d       []int32 // register slots of the fragments
}

// mmaIntShapes are the shapes of each element width.
var mmaIntShapes = map[int][]mmaShape{
	8: {{isa.QM8n8k16, 8, 8, 16}, {isa.QM16n8k16, 16, 8, 16}, {isa.QM16n8k32, 16, 8, 32}},
	4: {{isa.QM8n8k32, 8, 8, 32}, {isa.QM16n8k32, 16, 8, 32}, {isa.QM16n8k64, 16, 8, 64}},
	1: {{isa.QM8n8k128, 8, 8, 128}, {isa.QM16n8k128, 16, 8, 128}, {isa.QM16n8k256, 16, 8, 256}}}

// mmaShape is an .mMnNkK qualifier and its dimensions.
type mmaShape struct {
	q       isa.Qual
	m, n, k int
}

var mmaIntTypes = map[isa.Qual][2]int{isa.QS8: {8, 1}, isa.QU8: {8, 0}, isa.QS4: {4, 1}, isa.QU4: {4, 0}, isa.QB1: {1, 0}}

func decodeMma(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if q.Has(isa.QSp) || q.Has(isa.QSp_Ordered_Metadata) {
		return decodeMmaSparse(d, in, out, q)
	}
	if isFloatMma(q) {
		return decodeMmaFloat(d, in, out, q)
	}
	mi := &mmaInt{satfinite: q.Has(isa.QSatfinite), xor: q.Has(isa.QXor)}
	var elems [][2]int
	for _, n := range q.List {
		if t, ok := mmaIntTypes[n]; ok {
			elems = append(elems, t)
		}
	}
	bad := len(elems) != 2 || elems[0][0] != elems[1][0] || !q.Has(isa.QRow) || !q.Has(isa.QCol) || len(in.Operands) != 4 ||
		q.List[len(q.List)-1] != isa.QS32 && elems[0][0] != 1
	if !bad {
		mi.bits, mi.aSigned, mi.bSigned = elems[0][0], elems[0][1] == 1, elems[1][1] == 1
		for _, sh := range mmaIntShapes[mi.bits] {
			if q.Has(sh.q) {
				mi.m, mi.n, mi.k = sh.m, sh.n, sh.k
			}
		}
		bad = mi.m == 0 || mi.bits == 1 && (!q.Has(isa.QPopc) || q.Has(isa.QAnd) == q.Has(isa.QXor))
	}
	if bad {
		return d.Errorf(in, "the emulator implements mma only on integers: .row.col .s32.{s8,u8}.{s8,u8}.s32 (m8n8k16, m16n8k16, m16n8k32), .s32.{s4,u4}.{s4,u4}.s32 (m8n8k32, m16n8k32, m16n8k64), .s32.b1.b1.s32.{and,xor}.popc (m8n8k128, m16n8k128, m16n8k256)")
	}
	perReg := 32 / mi.bits
	want := []int{mi.m * mi.n / 32, mi.m * mi.k / 32 / perReg, mi.k * mi.n / 32 / perReg, mi.m * mi.n / 32}
	if err := mmaFragments(d, in, [4]*[]int32{&mi.d, &mi.a, &mi.b, &mi.c}, [4]int(want), [4]Type{TB32, TB32, TB32, TB32}); err != nil {
		return err
	}
	out.Ext = mi
	out.Exec = execMmaInt
	return nil
}

// mmaIntPlace gives, for lane l and the j-th element (A, B) or word
// (C, D) it holds, the row and column of the element (the fragment layouts
// of §9.7.14.5.14 for integers, e = 32/bits elements per register):
// groupID = l/4 selects the rows of A, C, D and the column of B;
// threadID_in_group = l%4 the columns of A and the rows of B (e
// consecutive elements each) and two consecutive columns of C and D; a
// second register moves 8 rows down (A, C, D), and a further one k/2
// columns right (A) or k/2 rows down (B).
func mmaIntPlace(mi *mmaInt, frag byte, l, j int) (row, col int) {
	g, t := l/4, l%4
	e := 32 / mi.bits
	reg, sub := j/e, j%e
	switch frag {
	case 'a':
		row, col = g, e*t+sub
		if mi.m == 16 && reg%2 == 1 {
			row += 8
		}
		if reg >= 2 {
			col += mi.k / 2
		}
	case 'b':
		row, col = e*t+sub, g
		if reg == 1 {
			row += mi.k / 2
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
	var a [16][256]int64
	var b [256][8]int64
	var c [16][8]int64
	e := 32 / mi.bits
	ext := func(word uint64, sub int, signed bool) int64 {
		v := word >> uint(sub*mi.bits) & (1<<uint(mi.bits) - 1)
		if signed {
			return signExtend(v, mi.bits)
		}
		return int64(v)
	}
	for l := range 32 {
		for j := range e * len(mi.a) {
			r, k := mmaIntPlace(mi, 'a', l, j)
			a[r][k] = ext(w.R[mi.a[j/e]+int32(l)], j%e, mi.aSigned)
		}
		for j := range e * len(mi.b) {
			k, col := mmaIntPlace(mi, 'b', l, j)
			b[k][col] = ext(w.R[mi.b[j/e]+int32(l)], j%e, mi.bSigned)
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
				switch {
				case mi.bits > 1:
					s += a[r][k] * b[k][col]
				case mi.xor:
					s += a[r][k] ^ b[k][col]
				default:
					s += a[r][k] & b[k][col]
				}
			}
			if mi.satfinite {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			w.R[mi.d[j]+int32(l)] = uint64(uint32(s))
		}
	}
	return Continue
}

// decodeMovmatrix lowers movmatrix.sync.aligned.m8n8.trans.b16 d, a: the
// warp's 8x8 matrix of 16-bit elements (lane 4r+c/2 holds row r, columns
// c and c+1) transposed in place (§9.7.14.5.16).
func decodeMovmatrix(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.Has(isa.QTrans) || !q.Has(isa.QM8n8) {
		return d.Errorf(in, "movmatrix takes .m8n8.trans.b16")
	}
	return lanes3(d, in, out, 1, TB32, execMovmatrix)
}

func execMovmatrix(w *Warp, in *Inst) Status {
	if w.Exec != 0xffffffff {
		return w.Fault(lane(w.Exec), RuleUnsupported, "PTX ISA §9.7.14.5.16 (movmatrix)", "movmatrix executed by %d threads; .aligned requires the whole warp", bitsOn(w.Exec))
	}
	var src [32]uint32
	for l := range 32 {
		src[l] = uint32(w.R[in.A+int32(l)])
	}
	elem := func(r, c int) uint64 { return uint64(src[4*r+c/2] >> (16 * uint(c%2)) & 0xffff) }
	for l := range 32 {
		r, c := l/4, 2*(l%4)
		w.R[in.D+int32(l)] = elem(c, r) | elem(c+1, r)<<16
	}
	return Continue
}

func bitsOn(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// mmaFragments decodes the register vectors of an mma's operands d, a, b
// and c into dsts: operand i holds want[i] registers of type rt[i]; "_"
// is refused.
func mmaFragments(d *Decoder, in *ast.Instruction, dsts [4]*[]int32, want [4]int, rt [4]Type) error {
	for i, dst := range dsts {
		v, err := d.Vector(in.Operands[i], rt[i], i == 0)
		if err != nil {
			return err
		}
		if len(v) != want[i] {
			return d.Errorf(in.Operands[i], "%s needs %d registers in operand %d, got %d", in.FullOpcode(), want[i], i+1, len(v))
		}
		for _, s := range v {
			if s < 0 {
				return d.Errorf(in.Operands[i], "mma operands cannot be \"_\"")
			}
		}
		*dst = v
	}
	return nil
}

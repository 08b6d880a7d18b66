package emu

import (
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype (PTX ISA
// §9.7.14.5.1): Volta's quad-pair MMA. A warp computes four independent
// 8×8×4 products; MMA p (0-3) is held by lanes 4p..4p+3 (the low group)
// and 16+4p..16+4p+3 (the high group). With q = lane%4 and h = 4 for the
// high group (0 for the low one), the manual's fragment layouts are:
//
//	A row-major, element i (0-3):     row q + h, column i
//	A column-major:                   row i + h, column q
//	B row-major, element i:           row q, column i + h
//	B column-major:                   row i, column q + h
//	C/D .f16, element i (0-7):        row q + h, column i
//	C/D .f32, element i (0-7):        row (lane&1) + (i&2) + h, column (i&4) + (lane&2) + (i&1)
//
// Each of the four products is evaluated with internal/tensorcore's model
// of the module's target (Volta for sm_70: F = 23, one block of 4; on a
// later target the instruction is emulated by ptxas and this uses that
// target's arithmetic, one block since k = 4).

// mma884 is the Ext of an m8n8k4 f16 mma.
type mma884 struct {
	aRow, bRow bool // row-major A, B
	cf, df     tensorcore.Format
	arch       *tensorcore.Arch
	a, b, c, d []int32
}

// decodeMma884 decodes the f16 m8n8k4 form; mf holds its formats.
func decodeMma884(d *Decoder, in *ast.Instruction, out *Inst, q Quals, mf *mmaFloat) error {
	var layouts []isa.Qual
	for _, x := range q.List {
		if x == isa.QRow || x == isa.QCol {
			layouts = append(layouts, x)
		}
	}
	if len(layouts) != 2 || mf.bin != tensorcore.F16 || len(in.Operands) != 4 || q.Has(isa.QSatfinite) ||
		q.Has(isa.QSp) || q.Has(isa.QSp_Ordered_Metadata) || mf.cf != tensorcore.F16 && mf.cf != tensorcore.F32 ||
		mf.df != tensorcore.F16 && mf.df != tensorcore.F32 {
		return d.Errorf(in, "the emulator implements m8n8k4 f16 mma as mma.sync.aligned.m8n8k4.{row,col}.{row,col}.{f16,f32}.f16.f16.{f16,f32} (not %s)", in.FullOpcode())
	}
	x := &mma884{aRow: layouts[0] == isa.QRow, bRow: layouts[1] == isa.QRow, cf: mf.cf, df: mf.df, arch: mf.arch}
	words := func(f tensorcore.Format) int {
		if f == tensorcore.F16 {
			return 4
		}
		return 8
	}
	want := []int{words(x.df), 2, 2, words(x.cf)}
	if err := mmaFragments(d, in, [4]*[]int32{&x.d, &x.a, &x.b, &x.c}, [4]int(want), [4]Type{TB32, TB32, TB32, TB32}); err != nil {
		return err
	}
	out.Ext = x
	out.Exec = execMma884
	return nil
}

// mma884Place is the row and column, in its quad-pair's matrix, of
// element i of fragment frag ('a', 'b', or 'c' with the accumulator
// format f) held by lane l.
func (x *mma884) place(frag byte, f tensorcore.Format, l, i int) (row, col int) {
	q, h := l%4, 0
	if l >= 16 {
		h = 4
	}
	switch frag {
	case 'a':
		if x.aRow {
			return q + h, i
		}
		return i + h, q
	case 'b':
		if x.bRow {
			return q, i + h
		}
		return i, q + h
	}
	if f == tensorcore.F16 {
		return q + h, i
	}
	return l&1 + i&2 + h, i&4 + l&2 + i&1
}

func execMma884(w *Warp, in *Inst) Status {
	x := in.Ext.(*mma884)
	if w.Exec != w.live || w.live != 0xffffffff {
		return w.Fault(lane(w.Exec), RuleUnsupported, "PTX ISA §9.7.14.5.14 (mma)", "mma.sync.aligned executed by %d threads; every thread of the warp must execute it", bitsOn(w.Exec))
	}
	var probs [4]*tensorcore.Problem
	for p := range probs {
		probs[p] = &tensorcore.Problem{Kind: tensorcore.Sync, In: tensorcore.F16, Out: x.df, CIn: x.cf, M: 8, N: 8, K: 4,
			A: make([]uint64, 32), B: make([]uint64, 32), C: make([]uint64, 64), D: make([]uint64, 64)}
	}
	cb, db := x.cf.Bits(), x.df.Bits()
	for l := range 32 {
		p := probs[l%16/4]
		for i := range 4 {
			r, c := x.place('a', 0, l, i)
			p.A[r*4+c] = elemOf(w.R[x.a[i/2]+int32(l)], 16, i%2)
			r, c = x.place('b', 0, l, i)
			p.B[c*4+r] = elemOf(w.R[x.b[i/2]+int32(l)], 16, i%2)
		}
		per := 32 / cb
		for i := range 8 {
			r, c := x.place('c', x.cf, l, i)
			p.C[r*8+c] = elemOf(w.R[x.c[i/per]+int32(l)], cb, i%per)
		}
	}
	for _, p := range probs {
		x.arch.MMA(p)
	}
	per := 32 / db
	for l := range 32 {
		p := probs[l%16/4]
		words := make([]uint64, len(x.d))
		for i := range 8 {
			r, c := x.place('c', x.df, l, i)
			v := p.D[r*8+c]
			if db < 32 {
				v = (v & (1<<uint(db) - 1)) << uint(db*(i%per))
			}
			words[i/per] |= v
		}
		for i, s := range x.d {
			w.R[s+int32(l)] = words[i]
		}
	}
	return Continue
}

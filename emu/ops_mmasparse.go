package emu

import (
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// Sparse warp-level MMA (PTX ISA §9.7.14.6): mma.sp and
// mma.sp::ordered_metadata .sync.aligned.m16n8kK.row.col on f16 and bf16
// (k16, k32), tf32 (k8, k16), s8/u8 (k32, k64, .satfinite) and e4m3/e5m2
// (k64), d, a, b, c, e (metadata), f (sparsity selector, a constant).
//
// A holds only the stored half of each row: with e elements per register
// (2 for 16-bit types, 1 for tf32, 4 for 8-bit ones), g = lane/4 and
// t = lane%4, register r holds row g + 8·(r%2) and the stored elements of
// dense columns 2e·t + (r/2)·K/2 ... + 2e-1 (§9.7.14.6.2, the firstcol and
// lastcol formulas), in order. B, C and D are the dense layouts of the
// same shape (ops_mmafloat.go, ops_mma.go).
//
// Metadata: one 4-bit field per chunk of a row of A (4 columns of 16-bit
// and 8-bit types, 2 stored-and-zero tf32 columns) gives the positions of
// its stored elements, the low 2 bits that of the first one (tf32:
// 0b0100 the first column, 0b1110 the second). A row has F = K/4 fields
// (K/2 for tf32), and P = F/4 threads of each quad hold them, thread
// f·P + p (f the selector). The distribution of the fields over those
// threads is this implementation's reading of the manual's figures: the
// thread p holds fields 4p..4p+3 of row g in bits 0-15 (field c at
// 4·(c%4)) and the same fields of row g+8 in bits 16-31. A field with two
// equal positions, or (::ordered_metadata) a first position not below the
// second, or a tf32 field other than 0b0100 and 0b1110, is undefined
// behaviour and reported (rule mma-sparse-metadata).
//
// The arithmetic is tensorcore.Arch.SparseMMA (floating point) or exact
// integer arithmetic. Sparse FP8 on sm_90, which ptxas rebuilds into f16
// MMAs with shuffled operands, is refused at decode.

const ruleSparseMetadata = "mma-sparse-metadata"

const specMmaSparse = "PTX ISA §9.7.14.6.1 (sparse matrix storage)"

// mmaSparse is the Ext of an mma.sp.
type mmaSparse struct {
	k          int
	e          int // stored elements per A register
	tf32       bool
	ordered    bool
	sel        int
	in, bin    tensorcore.Format
	cf, df     tensorcore.Format
	integer    bool
	signed     [2]bool
	satfinite  bool
	arch       *tensorcore.Arch
	a, b, c, d []int32
	meta       int32
}

// sparseShapes are the dense K of each input type's sparse shapes.
var sparseShapes = map[isa.Qual][]int{isa.QF16: {16, 32}, isa.QBF16: {16, 32}, isa.QTf32: {8, 16},
	isa.QS8: {32, 64}, isa.QU8: {32, 64}, isa.QE4m3: {64}, isa.QE5m2: {64}}

func decodeMmaSparse(d *Decoder, in *ast.Instruction, out *Inst, q Quals) error {
	x := &mmaSparse{ordered: q.Has(isa.QSp_Ordered_Metadata), satfinite: q.Has(isa.QSatfinite), arch: tensorcore.ForSM(d.sm)}
	var types []isa.Qual
	for _, v := range q.List {
		if _, ok := mmaFloatFormats[v]; ok || v == isa.QS8 || v == isa.QU8 || v == isa.QS32 {
			types = append(types, v)
		}
	}
	unsupported := func() error {
		return d.Errorf(in, "the emulator implements mma.sp on .row.col f16/bf16 (m16n8k16, k32), tf32 (k8, k16), s8/u8 (k32, k64) and e4m3/e5m2 (k64) (not %s)", in.FullOpcode())
	}
	if len(types) != 4 || !q.Has(isa.QRow) || !q.Has(isa.QCol) || len(in.Operands) != 6 {
		return unsupported()
	}
	for _, sh := range mmaFloatShapes {
		if q.Has(sh.q) && sh.m == 16 {
			x.k = sh.k
		}
	}
	for _, sh := range []mmaShape{{isa.QM16n8k64, 16, 8, 64}} {
		if q.Has(sh.q) {
			x.k = sh.k
		}
	}
	ok := false
	for _, k := range sparseShapes[types[1]] {
		ok = ok || k == x.k
	}
	if !ok {
		return unsupported()
	}
	switch types[1] {
	case isa.QS8, isa.QU8:
		x.integer, x.e = true, 4
		x.signed = [2]bool{types[1] == isa.QS8, types[2] == isa.QS8}
		x.in, x.bin, x.cf, x.df = tensorcore.E4M3, tensorcore.E4M3, tensorcore.F32, tensorcore.F32 // widths only
	default:
		x.df, x.in, x.bin, x.cf = mmaFloatFormats[types[0]], mmaFloatFormats[types[1]], mmaFloatFormats[types[2]], mmaFloatFormats[types[3]]
		x.e = 32 / x.in.Bits()
		x.tf32 = x.in == tensorcore.TF32
		if (x.in == tensorcore.E4M3 || x.in == tensorcore.E5M2) && x.arch.FP8ViaF16 {
			return d.Errorf(in, "the emulator does not implement sparse FP8 mma on %s: ptxas lowers it to f16 MMAs with shuffled operands", x.arch.Name)
		}
	}
	fields := x.fields()
	threads := fields / 4
	sel, isConst := parser.ConstValue(in.Operands[5])
	if !isConst || sel < 0 || sel >= int64(4/threads) {
		return d.Errorf(in.Operands[5], "the sparsity selector of %s must be a constant from 0 to %d", in.FullOpcode(), 4/threads-1)
	}
	x.sel = int(sel)
	per := func(f tensorcore.Format) int { return max(1, 32/f.Bits()) }
	want := []int{4 / per(x.df), 16 * x.k / 2 / 32 / x.e, x.k * 8 / 32 / x.e, 4 / per(x.cf)}
	if x.integer {
		want[0], want[3] = 4, 4
	}
	if err := mmaFragments(d, in, [4]*[]int32{&x.d, &x.a, &x.b, &x.c}, [4]int(want), [4]Type{TB32, TB32, TB32, TB32}); err != nil {
		return err
	}
	var err error
	if x.meta, err = d.Src(in.Operands[4], TB32); err != nil {
		return err
	}
	out.Ext = x
	out.Exec = execMmaSparse
	return nil
}

// fields is the number of 4-bit metadata fields of a row of A.
func (x *mmaSparse) fields() int {
	if x.tf32 {
		return x.k / 2
	}
	return x.k / 4
}

// metaAt is the lane and bit offset of metadata field c of row r (0-15).
func (x *mmaSparse) metaAt(r, c int) (lane, bit int) {
	threads := x.fields() / 4
	t := x.sel*threads + c/4
	return 4*(r%8) + t, 16*(r/8) + 4*(c%4)
}

// storedAt is the row and stored column (0 to K/2-1) of element s of A
// register r of lane l.
func (x *mmaSparse) storedAt(l, r, s int) (row, col int) {
	g, t := l/4, l%4
	return g + 8*(r%2), x.e*t + (r/2)*x.k/4 + s
}

// denseColumns decodes the metadata into the dense column of every
// stored element (16 rows × K/2), or reports the first invalid field.
func (x *mmaSparse) denseColumns(w *Warp) ([]int, Status) {
	half := x.k / 2
	index := make([]int, 16*half)
	for r := range 16 {
		for c := range x.fields() {
			l, bit := x.metaAt(r, c)
			v := int(w.R[x.meta+int32(l)] >> uint(bit) & 0xf)
			i0, i1 := v&3, v>>2
			if x.tf32 {
				if v != 0b0100 && v != 0b1110 {
					return nil, w.Fault(l, ruleSparseMetadata, specMmaSparse, "tf32 sparsity metadata %#04b for row %d, columns %d-%d: only 0b0100 and 0b1110 are defined", v, r, 2*c, 2*c+1)
				}
				index[r*half+c] = 2*c + i0/2
				continue
			}
			if i0 == i1 || x.ordered && i0 > i1 {
				what := "two equal positions"
				if i0 != i1 {
					what = "positions out of order (::ordered_metadata)"
				}
				return nil, w.Fault(l, ruleSparseMetadata, specMmaSparse, "sparsity metadata %#04b for row %d, columns %d-%d has %s", v, r, 4*c, 4*c+3, what)
			}
			index[r*half+2*c], index[r*half+2*c+1] = 4*c+i0, 4*c+i1
		}
	}
	return index, Continue
}

func execMmaSparse(w *Warp, in *Inst) Status {
	x := in.Ext.(*mmaSparse)
	if w.Exec != w.live || w.live != 0xffffffff {
		return w.Fault(lane(w.Exec), RuleUnsupported, "PTX ISA §9.7.14.6 (mma.sp)", "mma.sp executed by %d threads; every thread of the warp must execute it", bitsOn(w.Exec))
	}
	index, st := x.denseColumns(w)
	if st != Continue {
		return st
	}
	half := x.k / 2
	p := &tensorcore.Problem{Kind: tensorcore.Sync, In: x.in, BIn: x.bin, Out: x.df, CIn: x.cf, M: 16, N: 8, K: x.k,
		A: make([]uint64, 16*half), B: make([]uint64, 8*x.k), C: make([]uint64, 128), D: make([]uint64, 128)}
	ib := x.in.Bits()
	cb, db := x.cf.Bits(), x.df.Bits()
	ec, ed := max(1, 32/cb), max(1, 32/db)
	for l := range 32 {
		for j := range x.e * len(x.a) {
			r, c := x.storedAt(l, j/x.e, j%x.e)
			p.A[r*half+c] = elemOf(w.R[x.a[j/x.e]+int32(l)], ib, j%x.e)
		}
		for j := range x.e * len(x.b) {
			r, c := mmaFragPlace('b', x.e, l, j)
			p.B[c*x.k+r] = elemOf(w.R[x.b[j/x.e]+int32(l)], ib, j%x.e)
		}
		for j := range ec * len(x.c) {
			r, c := mmaFragPlace('c', 1, l, j)
			p.C[r*8+c] = elemOf(w.R[x.c[j/ec]+int32(l)], cb, j%ec)
		}
	}
	if x.integer {
		dense := make([]uint64, 16*x.k)
		for i, k := range index {
			dense[i/half*x.k+k] = p.A[i]
		}
		mmaInteger(16, 8, x.k, x.signed, x.satfinite, dense, p.B, p.C, p.D)
	} else if err := x.arch.SparseMMA(p, index); err != nil {
		return w.Fault(0, RuleUnsupported, "PTX ISA §9.7.14.6 (mma.sp)", "%v", err)
	}
	for l := range 32 {
		words := make([]uint64, len(x.d))
		for j := range ed * len(x.d) {
			r, c := mmaFragPlace('d', 1, l, j)
			v := p.D[r*8+c]
			if db < 32 {
				v = (v & (1<<uint(db) - 1)) << uint(db*(j%ed))
			}
			words[j/ed] |= v
		}
		for i, s := range x.d {
			w.R[s+int32(l)] = words[i]
		}
	}
	return Continue
}

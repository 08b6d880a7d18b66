package emu

// The im2col load mode of the tensor copies (PTX ISA §5.5.4, §9.7.9.25.5.1):
//
//	cp.async.bulk.tensor.Nd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
//	        [dst], [tmap, {c, w, (h, (d,)) n}], [mbar], {offsets}{, ctaMask}{, policy}
//	cp.async.bulk.prefetch.tensor.Nd.L2.global.im2col [tmap, {..}], {offsets}{, policy}
//
// for N = 3, 4, 5, with one .b16 im2col offset per spatial dimension (W
// first). The box is the map's (package tensormap, im2col.go); the copy
// otherwise runs as a tiled load does.

import (
	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// tensorLoadMode reads .tile/.im2col: .im2col needs a rank of 3 to 5;
// .im2col_no_offs is not implemented.
func (d *Decoder) tensorLoadMode(in *ast.Instruction, op *tmaOp, q Quals) error {
	if q.Has(isa.QIm2col_No_Offs) {
		return d.Errorf(in, "the emulator does not implement the .im2col_no_offs mode of %s", op.name)
	}
	if m, ok := unrunTensorMode(q); ok {
		return d.Errorf(in, "the emulator does not implement the %s mode of %s (PTX ISA 8.6)", m, op.name)
	}
	op.im2col = q.Has(isa.QIm2col)
	if op.im2col && op.rank < 3 {
		return d.Errorf(in, "%s: the im2col mode needs .3d, .4d or .5d", op.name)
	}
	return nil
}

// unrunTensorMode returns the load or store mode of PTX ISA 8.6 that q
// names and the emulator's tensor copies do not run.
func unrunTensorMode(q Quals) (isa.Qual, bool) {
	for _, m := range []isa.Qual{isa.QTile_Gather4, isa.QTile_Scatter4, isa.QIm2col_W, isa.QIm2col_W_128} {
		if q.Has(m) {
			return m, true
		}
	}
	return 0, false
}

// im2colOffsets decodes {o0, ...}: rank-2 16-bit im2col offsets.
func (d *Decoder) im2colOffsets(op *tmaOp, e ast.Expr) error {
	vec, ok := e.(*ast.VectorExpr)
	if !ok || len(vec.Elems) != op.rank-2 {
		return d.Errorf(e, "%s needs %d im2col offsets in braces (one per spatial dimension)", op.name, op.rank-2)
	}
	op.offs = make([]int32, len(vec.Elems))
	for i, x := range vec.Elems {
		var err error
		if op.offs[i], err = d.Src(x, TU16); err != nil {
			return err
		}
	}
	return nil
}

// tensorStart reads lane l's coordinates and im2col offsets.
func (w *Warp) tensorStart(l int, in *Inst, op *tmaOp) tensormap.Start {
	st := tensormap.Start{Coords: w.tensorCoords(l, in, op.rank)}
	for i, s := range op.offs {
		st.Offsets[i] = int64(uint16(w.R[s+int32(l)]))
	}
	return st
}

// checkLoadMode checks that the instruction's load mode is the map's and
// that an im2col start lies in the bounding box.
func (w *Warp) checkLoadMode(l int, op *tmaOp, m *tensormap.Map, st tensormap.Start) bool {
	if op.im2col != (m.Mode == tensormap.ModeIm2col) {
		mode := map[bool]string{false: "tiled", true: "im2col"}
		w.Fault(l, ruleTensMap, specTMA, "%s uses the %s mode, but its tensor map is in %s mode", op.name, mode[op.im2col], mode[m.Mode == tensormap.ModeIm2col])
		return false
	}
	if err := m.CheckStart(st); err != nil {
		w.Fault(l, ruleTensMap, specTMA, "%s: %v", op.name, err)
		return false
	}
	return true
}

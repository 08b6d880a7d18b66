package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The operands of the tensor copies (cp.async.bulk.tensor,
// cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor), whose
// operand lists the forms table leaves unchecked (x*), held to ptxas 12.5's
// rules (each found by asking it; docs/tma.md):
//
//   - the operand count follows the direction and the qualifiers: a load
//     takes [dstMem], [tensorMap, coords], [mbar], then the im2col offsets
//     with .im2col, the ctaMask with .multicast::cluster and the cache
//     policy with .L2::cache_hint; a store or reduction [tensorMap, coords],
//     [srcMem] and the cache policy; a prefetch [tensorMap, coords], the
//     offsets and the policy ("Arguments mismatch");
//   - the tensor operand is [map, {c0, ...}] with one coordinate per
//     dimension ("Argument vector size mismatch"), each a 32-bit register
//     (of any 32-bit type) or an integer constant ("Incompatible elements of
//     vector expression"), no sink, and not a floating-point register next to
//     a constant ("Vector with elements of different types"); the map is a register or a .global
//     variable, not a .param or .const one ("State space mismatch"), with no
//     offset (a syntax error);
//   - the im2col offsets are a braced list of dims-2 16-bit integer
//     registers or constants ("Vector expected", "Argument vector size
//     mismatch", "Arguments mismatch" for .f16 or 32-bit registers);
//   - the load modes of PTX ISA 8.6 (the manual's syntax; no ptxas here
//     judges them): .tile::gather4 and .tile::scatter4 name a column and
//     four rows (five coordinates of a 2d map), and .im2col::w and
//     .im2col::w::128 take im2colInfo, the braced pair {wHalo, wOffset} of
//     16-bit values, whatever the dimension;
//   - ctaMask is a 16-bit integer register or a constant, the cache policy a
//     64-bit integer register or a constant;
//   - the state spaces are written destination first ("State space
//     incorrect" for .global.shared::cluster on a load).

const (
	specTensorCopy     = "PTX ISA §9.7.9.25.5.1 (cp.async.bulk.tensor)"
	specTensorReduce   = "PTX ISA §9.7.9.25.5.2 (cp.reduce.async.bulk.tensor)"
	specTensorPrefetch = "PTX ISA §9.7.9.25.5.3 (cp.async.bulk.prefetch.tensor)"
)

// tensorCopyShape is what the qualifiers of a tensor copy say about its
// operands.
type tensorCopyShape struct {
	spec                     string
	dims                     int
	load, prefetch           bool
	im2col, multicast, cache bool
	coords, offsets          int    // coordinates and im2col values written
	offsetsName              string // what the im2col values are
}

// tmaRules checks the operands of the tensor copies; other instructions
// pass through.
func (c *checker) tmaRules(in *ast.Instruction) {
	if in.Opcode != "cp" {
		return
	}
	qs := c.decode(in).form.Quals
	if !hasQual(qs, isa.QTensor) || !hasQual(qs, isa.QBulk) {
		return
	}
	sh := tensorCopyShape{spec: specTensorCopy, im2col: hasQual(qs, isa.QIm2col),
		multicast: hasQual(qs, isa.QMulticast_Cluster), cache: hasQual(qs, isa.QL2CacheHint)}
	for i, q := range []isa.Qual{isa.Q1d, isa.Q2d, isa.Q3d, isa.Q4d, isa.Q5d} {
		if hasQual(qs, q) {
			sh.dims = i + 1
		}
	}
	switch {
	case hasQual(qs, isa.QPrefetch):
		sh.spec, sh.prefetch = specTensorPrefetch, true
	case hasQual(qs, isa.QReduce):
		sh.spec = specTensorReduce
	default:
		sh.load = !hasQual(qs, isa.QBulk_Group)
	}
	if sh.dims == 0 {
		return // the form's problem, reported with it
	}
	sh.coords, sh.offsets, sh.offsetsName = sh.dims, sh.dims-2, "im2col offsets (dimensions - 2)"
	switch {
	case hasQual(qs, isa.QTile_Gather4), hasQual(qs, isa.QTile_Scatter4):
		sh.coords = 5 // a column and four rows
	case hasQual(qs, isa.QIm2col_W), hasQual(qs, isa.QIm2col_W_128):
		sh.im2col, sh.offsets, sh.offsetsName = true, 2, "im2col values {wHalo, wOffset}"
	}
	if !c.tensorSpaceOrder(in, qs, sh) {
		return
	}
	c.tensorCopyOperands(in, sh)
}

// tensorSpaceOrder reports a load whose .global comes before its shared
// destination, or a store or reduction whose .shared::cta comes before
// .global. qs are in's decoded qualifiers, one per written qualifier.
func (c *checker) tensorSpaceOrder(in *ast.Instruction, qs []isa.Qual, sh tensorCopyShape) bool {
	if sh.prefetch || len(qs) != len(in.Quals) {
		return true
	}
	global, shared := -1, -1
	for i, q := range qs {
		switch q {
		case isa.QGlobal:
			global = i
		case isa.QSharedCluster, isa.QSharedCta:
			shared = i
		}
	}
	if global < 0 || shared < 0 || (global > shared) == sh.load {
		return true
	}
	q := in.Quals[global]
	want := "the destination .global, then the source .shared::cta"
	if sh.load {
		want = "the shared-memory destination, then the source .global"
	}
	c.errorf(q.Pos, q.End(), "state-space-order", sh.spec, "", "%s names %s", in.FullOpcode(), want)
	return false
}

// tensorCopyOperands checks the operand count and each operand's kind.
func (c *checker) tensorCopyOperands(in *ast.Instruction, sh tensorCopyShape) {
	ops := in.Operands
	tensorAt, names := 0, []string{"[tensorMap, tensorCoords]"}
	switch {
	case sh.load:
		tensorAt, names = 1, []string{"[dstMem]", "[tensorMap, tensorCoords]", "[mbar]"}
	case !sh.prefetch:
		names = append(names, "[srcMem]")
	}
	offsetsAt, maskAt, policyAt := -1, -1, -1
	if sh.im2col {
		offsetsAt, names = len(names), append(names, "im2colOffsets")
	}
	if sh.multicast {
		maskAt, names = len(names), append(names, "ctaMask")
	}
	if sh.cache {
		policyAt, names = len(names), append(names, "cache-policy")
	}
	if len(ops) != len(names) {
		c.errorf(in.OpPos, in.OpPos.Advance(in.Opcode), "operand-count", sh.spec, "",
			"%s takes %d operands (%s), not %d", in.FullOpcode(), len(names), joinNames(names), len(ops))
		return
	}
	c.tensorOperand(in, ops[tensorAt], sh)
	if offsetsAt >= 0 {
		c.im2colOffsets(in, ops[offsetsAt], sh)
	}
	if maskAt >= 0 {
		c.tensorScalar(in, ops[maskAt], "ctaMask", 16, sh.spec)
	}
	if policyAt >= 0 {
		c.tensorScalar(in, ops[policyAt], "the cache policy", 64, sh.spec)
	}
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// tensorOperand checks [tensorMap, {coordinates}].
func (c *checker) tensorOperand(in *ast.Instruction, e ast.Expr, sh tensorCopyShape) {
	a, ok := e.(*ast.Address)
	var vec *ast.VectorExpr
	if ok && len(a.Index) == 1 {
		vec, _ = a.Index[0].(*ast.VectorExpr)
	}
	if vec == nil {
		c.errorf(e.Pos(), e.End(), "tensor-operand", sh.spec, "",
			"the tensor operand of %s is [tensorMap, {coordinates}]", in.FullOpcode())
		return
	}
	if a.HasOffset {
		c.errorf(a.Pos(), a.End(), "tensor-operand", sh.spec, "add the offset to the map's address first",
			"the tensor map of %s takes no offset", in.FullOpcode())
	}
	if id, ok := a.Base.(*ast.Ident); ok {
		if sym := c.lookup(id); sym != nil && !isReg(sym) && sym.StateSpace != isa.QGlobal {
			c.errorf(id.Pos(), id.End(), "tensor-map-space", sh.spec, "pass the map's generic address in a register",
				"the tensor map %s of %s is a %s variable; ptxas takes a register or a .global variable", id.Name, in.FullOpcode(), sym.StateSpace)
		}
	}
	if len(vec.Elems) != sh.coords {
		c.errorf(vec.Pos(), vec.End(), "tensor-coordinates", sh.spec, "",
			"%s takes %d coordinates, not %d", in.FullOpcode(), sh.coords, len(vec.Elems))
		return
	}
	float, constant := false, false
	for _, el := range vec.Elems {
		c.tensorElement(in, el, "a coordinate", 32, false, sh.spec)
		float = float || isFloatType(c.regType(el))
		constant = constant || isIntImm(el)
	}
	if float && constant {
		// ptxas 12.5 takes {%f1, %r2} but not {%f1, 7}: "Vector with
		// elements of different types are not allowed".
		c.errorf(vec.Pos(), vec.End(), "operand-type", sh.spec, "use integer registers",
			"the coordinates of %s mix a floating-point register and a constant", in.FullOpcode())
	}
}

// im2colOffsets checks the braced list of 16-bit im2col values: dims-2
// offsets, or {wHalo, wOffset} for the .im2col::w modes.
func (c *checker) im2colOffsets(in *ast.Instruction, e ast.Expr, sh tensorCopyShape) {
	vec, ok := e.(*ast.VectorExpr)
	if !ok {
		c.errorf(e.Pos(), e.End(), "tensor-operand", sh.spec, "", "the im2col offsets of %s are a braced list", in.FullOpcode())
		return
	}
	if len(vec.Elems) != sh.offsets {
		c.errorf(vec.Pos(), vec.End(), "tensor-coordinates", sh.spec, "",
			"%s takes %d %s, not %d", in.FullOpcode(), sh.offsets, sh.offsetsName, len(vec.Elems))
		return
	}
	for _, el := range vec.Elems {
		c.tensorElement(in, el, "an im2col offset", 16, true, sh.spec)
	}
}

// tensorScalar checks ctaMask or the cache policy: an integer register of
// the given width or an integer constant.
func (c *checker) tensorScalar(in *ast.Instruction, e ast.Expr, what string, bits int, spec string) {
	if _, ok := e.(*ast.VectorExpr); ok {
		c.errorf(e.Pos(), e.End(), "operand-kind", spec, "", "%s of %s is a %d-bit register or a constant, not a list", what, in.FullOpcode(), bits)
		return
	}
	c.tensorElement(in, e, what, bits, true, spec)
}

// tensorElement reports e unless it is an integer constant or a register
// of the given width (an integer register when integer is set).
func (c *checker) tensorElement(in *ast.Instruction, e ast.Expr, what string, bits int, integer bool, spec string) {
	if isIntImm(e) {
		return
	}
	if _, ok := e.(*ast.Sink); ok {
		c.errorf(e.Pos(), e.End(), "operand-kind", spec, "", "%s of %s cannot be the sink _", what, in.FullOpcode())
		return
	}
	sym, ok := c.namedReg(e)
	if !ok {
		if !unresolvedName(c, e) { // an undeclared name is resolution's report
			c.errorf(e.Pos(), e.End(), "operand-kind", spec, "", "%s of %s must be a register or an integer constant", what, in.FullOpcode())
		}
		return
	}
	t := sym.ElemType
	if t == isa.QNone {
		return
	}
	if t.Bits() != bits || t == isa.QPred || (integer && isFloatType(t)) {
		kind := ""
		if integer {
			kind = " integer"
		}
		c.errorf(e.Pos(), e.End(), "operand-type", spec, "", "%s of %s is a %d-bit%s register or a constant, not %s", what, in.FullOpcode(), bits, kind, t)
	}
}

// isFloatType reports whether t is a floating-point register type.
func isFloatType(t isa.Qual) bool {
	switch t {
	case isa.QF16, isa.QF16x2, isa.QBF16, isa.QBF16x2, isa.QF32, isa.QF64:
		return true
	}
	return false
}

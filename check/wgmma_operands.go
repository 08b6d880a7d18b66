package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The register operands of wgmma.mma_async{.sp}, whose operand list the
// forms table leaves unchecked (x*), held to ptxas 12.5's rules (each found
// by asking it; docs/hopper.md):
//
//   - d is a braced list of N/2 registers (N/4 for an f16 accumulator,
//     "Argument vector size mismatch"), no sink or constant; an f32
//     accumulator takes .f32 or .b32 registers, an f16 one .b32 or .f16x2,
//     an s32 one any 32-bit integer register ("Arguments mismatch" for the
//     others: .u32 or .s32 for f32, .f32 or .u32 for f16, .f32 for s32);
//   - a in registers is a braced list of 4 registers: .b32 or .f16x2 for the
//     floating-point inputs, any 32-bit register for the integer inputs;
//   - a-desc and b-desc are 64-bit integer registers or constants;
//   - scale-d is a predicate (the constants are checked in check/tensor.go);
//   - sp-meta is a 32-bit register.

// wgmmaOperands checks the register operands of wgmma.mma_async{.sp} whose
// decoded qualifiers are qs (one per written qualifier).
func (c *checker) wgmmaOperands(in *ast.Instruction, qs []isa.Qual) {
	n, dtype, atype, ok := wgmmaShapeTypes(in, qs)
	if !ok {
		return
	}
	ops := in.Operands
	if want := wgmmaOperandCount(in, qs, atype); len(ops) != want {
		c.errorf(in.OpPos, in.OpPos.Advance(in.Opcode), "operand-count", specWgmmaOperands, "",
			"%s takes %d operands, not %d", in.FullOpcode(), want, len(ops))
		return
	}
	perReg := 2
	if dtype == isa.QF16 {
		perReg = 4
	}
	c.wgmmaRegList(in, ops[0], "d", n/perReg, func(t isa.Qual) bool { return wgmmaDType(dtype, t) })
	if _, inRegs := ops[1].(*ast.VectorExpr); inRegs {
		integer := atype == isa.QS8 || atype == isa.QU8
		c.wgmmaRegList(in, ops[1], "a", 4, func(t isa.Qual) bool {
			return t.Bits() == 32 && t != isa.QPred && (integer || t == isa.QB32 || t == isa.QF16x2)
		})
	} else {
		c.wgmmaScalar(in, ops[1], "a-desc", 64, true)
	}
	c.wgmmaScalar(in, ops[2], "b-desc", 64, true)
	at := 3
	if hasQual(qs, isa.QSp) {
		c.wgmmaScalar(in, ops[3], "sp-meta", 32, false)
		at = 5
	}
	if at < len(ops) && !isIntImm(ops[at]) {
		if t := c.regType(unNot(ops[at])); t != isa.QNone && t != isa.QPred {
			c.errorf(ops[at].Pos(), ops[at].End(), "operand-type", specWgmmaOperands, "",
				"scale-d of %s is a predicate or the constant 0 or 1, not a %s register", in.FullOpcode(), t)
		}
	}
}

// wgmmaOperandCount is the operand count of a wgmma.mma_async form: d, a,
// b-desc, scale-d, then imm-scale-a/b and imm-trans-a/b for f16 and bf16
// (no imm-trans-a with A in registers), imm-scale-a/b for tf32 and FP8,
// nothing more for the integer types; .sp adds sp-meta and sp-sel.
func wgmmaOperandCount(in *ast.Instruction, qs []isa.Qual, atype isa.Qual) int {
	n := 4
	switch atype {
	case isa.QF16, isa.QBF16:
		n = 8
		if len(in.Operands) > 1 {
			if _, inRegs := in.Operands[1].(*ast.VectorExpr); inRegs {
				n = 7
			}
		}
	case isa.QTf32, isa.QE4m3, isa.QE5m2:
		n = 6
	}
	if hasQual(qs, isa.QSp) {
		n += 2
	}
	return n
}

// wgmmaShapeTypes returns N and the accumulator and A types of a wgmma
// instruction from its shape qualifier .m64nNkK and the types after it.
func wgmmaShapeTypes(in *ast.Instruction, qs []isa.Qual) (n int, dtype, atype isa.Qual, ok bool) {
	if len(qs) != len(in.Quals) {
		return 0, 0, 0, false
	}
	for i, q := range qs {
		if m, n, _, ok := q.MatrixShape(); ok && m == 64 && i+2 < len(qs) {
			return n, qs[i+1], qs[i+2], true
		}
	}
	return 0, 0, 0, false
}

// wgmmaDType reports whether a register of type t can hold accumulator
// elements of type dtype.
func wgmmaDType(dtype, t isa.Qual) bool {
	switch dtype {
	case isa.QF32:
		return t == isa.QF32 || t == isa.QB32
	case isa.QF16:
		return t == isa.QB32 || t == isa.QF16x2
	case isa.QS32:
		return t == isa.QB32 || t == isa.QS32 || t == isa.QU32
	}
	return true
}

// wgmmaRegList checks a braced list of count registers whose types ok
// accepts.
func (c *checker) wgmmaRegList(in *ast.Instruction, e ast.Expr, what string, count int, ok func(isa.Qual) bool) {
	v, isVec := e.(*ast.VectorExpr)
	if !isVec {
		c.errorf(e.Pos(), e.End(), "operand-kind", specWgmmaOperands, "", "%s of %s is a braced list of %d registers", what, in.FullOpcode(), count)
		return
	}
	if len(v.Elems) != count {
		c.errorf(v.Pos(), v.End(), "operand-count", specWgmmaOperands, "",
			"%s of %s is %d registers, not %d", what, in.FullOpcode(), count, len(v.Elems))
		return
	}
	for _, el := range v.Elems {
		sym, isReg := c.namedReg(el)
		switch {
		case !isReg:
			if !unresolvedName(c, el) {
				c.errorf(el.Pos(), el.End(), "operand-kind", specWgmmaOperands, "", "%s of %s holds registers only", what, in.FullOpcode())
			}
		case sym.ElemType != isa.QNone && !ok(sym.ElemType):
			c.errorf(el.Pos(), el.End(), "operand-type", specWgmmaOperands, "",
				"register %s (%s) cannot be an element of %s of %s", ast.NameOf(el), sym.ElemType, what, in.FullOpcode())
		}
	}
}

// wgmmaScalar checks a descriptor (a 64-bit integer register or, when
// constant is set, a constant) or sp-meta (a 32-bit register).
func (c *checker) wgmmaScalar(in *ast.Instruction, e ast.Expr, what string, bits int, constant bool) {
	if isIntImm(e) {
		if !constant {
			c.errorf(e.Pos(), e.End(), "operand-kind", specWgmmaOperands, "", "%s of %s is a register, not a constant", what, in.FullOpcode())
		}
		return
	}
	sym, isReg := c.namedReg(e)
	if !isReg {
		if !unresolvedName(c, e) {
			c.errorf(e.Pos(), e.End(), "operand-kind", specWgmmaOperands, "", "%s of %s is a register or a constant", what, in.FullOpcode())
		}
		return
	}
	t := sym.ElemType
	if t == isa.QNone {
		return
	}
	if t.Bits() != bits || t == isa.QPred || (bits == 64 && isFloatType(t)) {
		c.errorf(e.Pos(), e.End(), "operand-type", specWgmmaOperands, "", "%s of %s is a %d-bit register, not %s", what, in.FullOpcode(), bits, t)
	}
}

// unNot strips a leading ! from a predicate operand.
func unNot(e ast.Expr) ast.Expr {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == "!" {
		return u.X
	}
	return e
}

// unresolvedName reports whether e is a name the resolver did not find
// (which resolution reports on its own).
func unresolvedName(c *checker, e ast.Expr) bool {
	switch e.(type) {
	case *ast.Reg, *ast.Ident:
		return c.res.Resolved(e) == nil
	}
	return false
}

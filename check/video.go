package check

import (
	"strconv"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// Video operand selectors (PTX ISA 9.7.19 "Scalar Video Instructions",
// 9.7.20 "SIMD Video Instructions"): "%r2.b1", "%r1.h10", "%r3.b7654".
// The tree keeps them in ast.Reg.Sel; isa.VideoSel says which selector
// an operand's role takes. ptxas 12.5's rules, found by the differential
// test:
//
//   - only the video instructions take selectors, only on 32-bit
//     registers, and never on the third source c;
//   - the scalar forms take .b0-.b3, .h0, .h1 on a and b, and on d
//     only in the merge form
//     "d.dsel, a, b, c" without a secondary operation; vmad takes none
//     on d;
//   - the SIMD forms take .hxy/.bxyzw on a and b and a mask on d, and
//     constants in none of their operands.

const (
	ruleVideoSel    = "video-selector"
	secVideoScalar  = "PTX ISA 9.7.19 (Scalar Video Instructions)"
	secVideoSIMD    = "PTX ISA 9.7.20 (SIMD Video Instructions)"
	videoOperandsAt = "abc"
)

// videoOperands checks the selectors of an instruction's operands and
// what ptxas 12.5 refuses in a video instruction's operands beyond their
// forms: special registers, vector elements, "_" and vmad's negations.
func (c *checker) videoOperands(in *ast.Instruction, d *decoded) {
	fam := isa.VideoFamilyOf(in.Opcode)
	if fam == isa.VideoMad {
		c.vmadNegation(in, d)
	}
	for i, e := range in.Operands {
		if fam == isa.VideoMad {
			e = unNegate(e)
		}
		r, ok := e.(*ast.Reg)
		if fam != isa.NotVideo {
			c.videoOperandKind(in, i, e)
		}
		if !ok {
			c.nestedSelectors(e, fam)
			continue
		}
		if r.Sel == 0 {
			continue
		}
		if fam == isa.NotVideo {
			c.selError(r, secVideoScalar, "", "selector .%s: only the video instructions (vadd, vadd2, vadd4, ...) take operand selectors", r.Sel)
			continue
		}
		c.videoSelector(in, d, fam, i, r)
	}
}

// nestedSelectors reports selectors inside an operand: in an address or
// an expression ptxas 12.5 stops with a syntax error; in a braced vector
// it accepts them, with no documented meaning.
func (c *checker) nestedSelectors(e ast.Expr, fam isa.VideoFamily) {
	switch x := e.(type) {
	case *ast.Address:
		if r, ok := x.Base.(*ast.Reg); ok && r.Sel != 0 {
			c.selError(r, secVideoScalar, "remove the selector", "an address takes no selector (.%s)", r.Sel)
		}
	case *ast.BinaryExpr:
		if fam != isa.NotVideo {
			return // reported as a register plus constant
		}
		for _, y := range []ast.Expr{x.X, x.Y} {
			if r, ok := y.(*ast.Reg); ok && r.Sel != 0 {
				c.selError(r, secVideoScalar, "remove the selector", "an expression takes no selector (.%s)", r.Sel)
			}
		}
	case *ast.VectorExpr:
		for _, y := range x.Elems {
			if r, ok := y.(*ast.Reg); ok && r.Sel != 0 {
				pos := r.End()
				pos.Col -= int32(r.Sel.Len() + 1)
				pos.Offset -= int32(r.Sel.Len() + 1)
				c.warnf(pos, r.End(), ruleVideoSel, secVideoScalar, "remove the selector",
					"selector .%s in a vector: ptxas accepts it, but only the video instructions define selectors", r.Sel)
			}
		}
	}
}

// videoOperandKind reports operand i of a video instruction when it is a
// special register, a vector element or "_": ptxas 12.5 takes none of
// them ("Special register argument not allowed", "Result discard mode is
// not allowed").
func (c *checker) videoOperandKind(in *ast.Instruction, i int, e ast.Expr) {
	sec := secVideoScalar
	if isa.VideoFamilyOf(in.Opcode).SIMD() {
		sec = secVideoSIMD
	}
	if _, ok := regPlusImm(e); ok {
		c.errorf(e.Pos(), e.End(), "operand-kind", sec, "add the constant first (add)", "%s takes no register plus constant", in.Opcode)
		return
	}
	switch x := e.(type) {
	case *ast.Sink:
		c.errorf(e.Pos(), e.End(), "operand-kind", sec, "write the result to a register", "%s cannot discard its result (\"_\")", in.Opcode)
	case *ast.Reg:
		if c.special(x) != nil {
			c.errorf(e.Pos(), e.End(), "operand-kind", sec, "copy it to a register first (mov)",
				"%s takes no special register: operand %s is %s", in.Opcode, videoOperandName(i), printer.String(x))
		} else if sym := c.lookup(x); x.Comp != "" && (sym == nil || sym.VecLen() < 2 || isa.VideoFamilyOf(in.Opcode).SIMD()) {
			c.errorf(e.Pos(), e.End(), "operand-kind", sec, "copy the element to a 32-bit register first (mov)",
				"%s takes no vector element: operand %s is %s", in.Opcode, videoOperandName(i), printer.String(x))
		}
	}
}

// vmadNegation checks vmad's negated sources (PTX ISA 9.7.19.3): none
// with .po, and the product (a xor b negated) and c not both negated.
func (c *checker) vmadNegation(in *ast.Instruction, d *decoded) {
	var neg [4]bool
	for i, e := range in.Operands {
		if i > 0 && i < 4 && unNegate(e) != e {
			neg[i] = true
		}
	}
	switch {
	case d.op.Has(isa.QPo) && (neg[1] || neg[2] || neg[3]):
		c.errorf(in.Pos(), in.End(), "operand-kind", secVideoScalar, "drop .po or the negation", "vmad.po takes no negated operand")
	case neg[1] != neg[2] && neg[3]:
		c.errorf(in.Pos(), in.End(), "operand-kind", secVideoScalar, "negate the product (a or b) or c, not both",
			"vmad negates either the product a*b or c, not both")
	}
}

// unNegate returns x of "-x" (a vmad source), e otherwise.
func unNegate(e ast.Expr) ast.Expr {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == "-" {
		if _, isReg := u.X.(*ast.Reg); isReg {
			return u.X
		}
		if _, isID := u.X.(*ast.Ident); isID {
			return u.X
		}
	}
	return e
}

// vmadSource is the operand a form check sees: vmad's register sources
// without their '-' (negated constants stay constants).
func vmadSource(f *isa.OpForm, e ast.Expr) ast.Expr {
	if f != nil && isa.VideoFamilyOf(f.Opcode) == isa.VideoMad {
		return unNegate(e)
	}
	return e
}

// videoSelector checks the selector of operand i, register r, of a video
// instruction of family fam.
func (c *checker) videoSelector(in *ast.Instruction, d *decoded, fam isa.VideoFamily, i int, r *ast.Reg) {
	sec := secVideoScalar
	if fam.SIMD() {
		sec = secVideoSIMD
	}
	role := fam.Role(i)
	sel, _ := isa.ParseVideoSel(r.Sel.String())
	switch {
	case role == isa.VideoNoSel:
		c.selError(r, sec, "remove the selector", "operand %s of %s takes no selector", videoOperandName(i), in.Opcode)
	case role == isa.VideoScalarDst && sel.BytePair() && len(in.Operands) == 4:
		c.bytePairDst(in, r)
	case !sel.Fits(role):
		c.selError(r, sec, videoSelFix(role), "selector .%s is not allowed on operand %s of %s", r.Sel, videoOperandName(i), in.Opcode)
	case role == isa.VideoScalarDst && len(in.Operands) != 4:
		c.selError(r, sec, "add the operand c that the result is merged into", "a destination selector needs the merge form %s d.dsel, a, b, c", in.Opcode)
	case role == isa.VideoScalarDst && (d.op.Has(isa.QAdd) || d.op.Has(isa.QMin) || d.op.Has(isa.QMax)):
		c.selError(r, sec, "drop the selector or the secondary operation", "%s cannot have both a destination selector and a secondary operation", in.Opcode)
	default:
		sym := c.res.Resolved(r)
		switch {
		case sym == nil:
			// undeclared: name resolution reports it
		case !isReg(sym):
			c.selError(r, sec, "use a 32-bit register", "selector .%s needs a register; %s is not one declared with .reg", r.Sel, r.Name)
		case sym.Decl != nil && sym.Decl.Vector > 1:
			c.selError(r, sec, "select a component into a 32-bit register first", "selector .%s needs a 32-bit register; %s is a vector", r.Sel, r.Name)
		case sym.ElemType != isa.QNone && sym.ElemType.Bits() != 32:
			c.selError(r, sec, "use a 32-bit register", "selector .%s needs a 32-bit register; %s is %s", r.Sel, r.Name, sym.ElemType)
		}
	}
}

// bytePairDst reports a byte-pair destination selector (.b01, .b12,
// .b23): ptxas 12.5 takes it for sm_70 and later, where it emulates the
// video instructions, and fails on it for older targets; the manual does
// not list it.
func (c *checker) bytePairDst(in *ast.Instruction, r *ast.Reg) {
	pos := r.End()
	pos.Col -= int32(r.Sel.Len() + 1)
	pos.Offset -= int32(r.Sel.Len() + 1)
	if c.target.SM != 0 && c.target.SM < 70 {
		c.errorf(pos, r.End(), ruleVideoSel, secVideoScalar, "use .b0, .b1, .b2, .b3, .h0 or .h1",
			"selector .%s is not in the manual, and ptxas takes it only for sm_70 and later (target is %s)", r.Sel, c.target)
		return
	}
	c.warnf(pos, r.End(), ruleVideoSel, secVideoScalar, "use .b0, .b1, .b2, .b3, .h0 or .h1",
		"selector .%s on the destination of %s is not in the manual (which lists .b0-.b3, .h0, .h1); ptxas accepts it, with no documented meaning", r.Sel, in.Opcode)
}

// selError reports a selector problem at the selector of r.
func (c *checker) selError(r *ast.Reg, sec, fix, format string, args ...any) {
	pos := r.End()
	pos.Col -= int32(r.Sel.Len() + 1)
	pos.Offset -= int32(r.Sel.Len() + 1)
	c.errorf(pos, r.End(), ruleVideoSel, sec, fix, format, args...)
}

// videoOperandName names operand i of a video instruction: d, a, b, c.
func videoOperandName(i int) string {
	if i == 0 {
		return "d"
	}
	if i <= len(videoOperandsAt) {
		return videoOperandsAt[i-1 : i]
	}
	return "#" + strconv.Itoa(i)
}

// videoSelFix lists the selectors a role takes.
func videoSelFix(r isa.VideoRole) string {
	switch r {
	case isa.VideoScalarSrc, isa.VideoScalarDst:
		return "use .b0, .b1, .b2, .b3, .h0 or .h1"
	case isa.VideoSIMD2Src:
		return "use .hxy with x, y in 0-3 (a is .h10, b is .h32)"
	case isa.VideoSIMD4Src:
		return "use .bxyzw with digits in 0-7 (a is .b3210, b is .b7654)"
	case isa.VideoSIMD2Mask:
		return "use .h0, .h1 or .h10"
	case isa.VideoSIMD4Mask:
		return "use lanes in decreasing order: .b0, .b10, .b20, ... .b3210"
	}
	return ""
}

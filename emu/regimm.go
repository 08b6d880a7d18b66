package emu

import (
	"strconv"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Register-plus-immediate source operands ("st.global.u32 [a], %r2+5",
// "mov.u32 %r1, %r2+-3"): ptxas accepts them in any source operand and
// computes the register's value plus the immediate (it emits an add). The
// decoder lowers each into an add (or sub) into a fresh register before
// the instruction, which then reads that register.

// expandRegImm returns in with each "register ± integer" operand replaced
// by a fresh register that an add emitted before in computes, or in itself
// when it has none.
func (d *Decoder) expandRegImm(in *ast.Instruction) *ast.Instruction {
	var ops []ast.Expr
	for i, e := range in.Operands {
		r, ok := d.regImmOperand(e)
		if !ok {
			continue
		}
		if ops == nil {
			ops = append([]ast.Expr(nil), in.Operands...)
		}
		ops[i] = r
	}
	if ops == nil {
		return in
	}
	x := *in
	x.Operands = ops
	return &x
}

// regImmOperand lowers e when it is "register ± integer" on a scalar
// integer register, and returns the register that holds the sum.
func (d *Decoder) regImmOperand(e ast.Expr) (*ast.Reg, bool) {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != "+" && b.Op != "-" {
		return nil, false
	}
	r, ok := b.X.(*ast.Reg)
	if !ok || r.Comp != "" {
		return nil, false
	}
	s := d.lookup(r)
	if s == nil || s.kind != symReg || s.vec > 1 {
		return nil, false
	}
	typ := intTypeOfWidth(s.typ)
	if typ == "" {
		return nil, false
	}
	if _, ok := d.constValue(b.Y, s.typ); !ok {
		return nil, false
	}
	d.regImms++
	name := "%regimm." + strconv.Itoa(d.regImms) // '.' cannot occur in a PTX name
	tmp := &ast.Reg{Span: b.Span, Name: name}
	if d.tmpRegs == nil {
		d.tmpRegs = map[*ast.Reg]*symbol{}
	}
	d.tmpRegs[tmp] = &symbol{kind: symReg, typ: s.typ, slot: d.NewSlot()}
	op := "add"
	if b.Op == "-" {
		op = "sub"
	}
	add := &ast.Instruction{Span: b.Span, Opcode: op, OpPos: b.Pos(),
		Quals: []ast.Qual{{Pos: b.Pos(), Name: typ}}, Operands: []ast.Expr{tmp, r, b.Y}}
	d.lowerInst(add)
	return tmp, true
}

// intTypeOfWidth returns the signed integer type qualifier of t's width,
// or "" for a type an integer add does not apply to.
func intTypeOfWidth(t Type) string {
	switch t {
	case TB16, TU16, TS16:
		return isa.QS16.String()
	case TB32, TU32, TS32:
		return isa.QS32.String()
	case TB64, TU64, TS64:
		return isa.QS64.String()
	}
	return ""
}

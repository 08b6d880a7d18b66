package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// The immediate operands of the tensor-core forms, whose operand lists the
// forms table leaves unchecked (x*), held to ptxas 12.5's rules (each found
// by asking it; docs/tensorcore.md):
//
//   - wgmma.mma_async{.sp}: scale-d is a predicate or the constant 0 or 1;
//     imm-scale-a and imm-scale-b are the constants -1 or 1; imm-trans-a and
//     imm-trans-b the constants 0 or 1 ("unexpected value '2', expected to
//     be 0 or 1"; a register: "Arguments mismatch").
//   - wgmma.mma_async.sp: sp-sel is a constant, 0 or 1 for f16, bf16 and
//     tf32, 0 for FP8 and the integers.
//   - mma.sp{::ordered_metadata}: the sparsity selector is a constant in
//     0..3 for f16, bf16 and tf32 m16n8k8, 0..1 for tf32 m16n8k16 and the
//     8-bit integers' m16n8k32, 0 for m16n8k64 ("value '4' out of range,
//     expected to be in range [0..3]"). ptxas takes 2 and 3 for f16
//     m16n8k32, whose metadata the manual gives thread pairs 0 and 1 only.

const (
	specWgmmaOperands = "PTX ISA §9.7.15.5.2 (wgmma.mma_async)"
	specMmaSparse     = "PTX ISA §9.7.14.6.3 (mma.sp)"
)

// tensorRules checks the immediates of wgmma.mma_async{.sp} and mma.sp.
func (c *checker) tensorRules(in *ast.Instruction) {
	switch in.Opcode {
	case "wgmma", "mma":
	default:
		return
	}
	qs := c.decode(in).form.Quals
	switch {
	case in.Opcode == "wgmma" && hasQual(qs, isa.QMma_Async):
		c.wgmmaImmediates(in, qs)
		c.wgmmaOperands(in, qs) // check/wgmma_operands.go
	case in.Opcode == "mma" && (hasQual(qs, isa.QSp) || hasQual(qs, isa.QSp_Ordered_Metadata)):
		c.mmaSparseSelector(in, qs)
	}
}

// wgmmaImmediates checks the operands after b-desc (and sp-meta).
func (c *checker) wgmmaImmediates(in *ast.Instruction, qs []isa.Qual) {
	ops := in.Operands
	at := 3 // scale-d
	if hasQual(qs, isa.QSp) {
		if len(ops) < 5 {
			return // the operand count is reported elsewhere
		}
		maxSel := int64(1)
		if !hasQual(qs, isa.QF16) && !hasQual(qs, isa.QBF16) && !hasQual(qs, isa.QTf32) {
			maxSel = 0
		}
		c.tensorImm(in, ops[4], "sp-sel", specWgmmaOperands, 0, maxSel)
		at = 5
	}
	if len(ops) <= at {
		return
	}
	if isIntImm(ops[at]) {
		c.tensorImm(in, ops[at], "scale-d", specWgmmaOperands, 0, 1)
	}
	rest := ops[at+1:]
	for i, e := range rest {
		if i < 2 {
			c.tensorScale(in, e)
		} else {
			c.tensorImm(in, e, "imm-trans", specWgmmaOperands, 0, 1)
		}
	}
}

// tensorImm reports e unless it is an integer constant in lo..hi.
func (c *checker) tensorImm(in *ast.Instruction, e ast.Expr, what, spec string, lo, hi int64) {
	v, ok := parser.ConstValue(e)
	if !ok || !isIntImm(e) {
		c.errorf(e.Pos(), e.End(), "operand-kind", spec, "", "%s of %s must be an integer constant", what, in.FullOpcode())
		return
	}
	if v < lo || v > hi {
		c.errorf(e.Pos(), e.End(), "operand-range", spec, "", "%s of %s must be in %d..%d, not %d", what, in.FullOpcode(), lo, hi, v)
	}
}

// tensorScale reports an imm-scale operand other than the constants -1, 1.
func (c *checker) tensorScale(in *ast.Instruction, e ast.Expr) {
	v, ok := parser.ConstValue(e)
	if !ok || !isIntImm(e) {
		c.errorf(e.Pos(), e.End(), "operand-kind", specWgmmaOperands, "", "imm-scale of %s must be the constant -1 or 1", in.FullOpcode())
		return
	}
	if v != 1 && v != -1 {
		c.errorf(e.Pos(), e.End(), "operand-range", specWgmmaOperands, "", "imm-scale of %s must be -1 or 1, not %d", in.FullOpcode(), v)
	}
}

// mmaSparseSelector checks the last operand of mma.sp.
func (c *checker) mmaSparseSelector(in *ast.Instruction, qs []isa.Qual) {
	if len(in.Operands) != 6 {
		return
	}
	known := false
	for _, t := range []isa.Qual{isa.QF16, isa.QBF16, isa.QTf32, isa.QS8, isa.QU8, isa.QE4m3, isa.QE5m2} {
		known = known || hasQual(qs, t)
	}
	if !known {
		return // the 4-bit, single-bit and block-scaled forms: not asked
	}
	maxSel := int64(3)
	switch {
	case hasQual(qs, isa.QM16n8k64):
		maxSel = 0
	case hasQual(qs, isa.QTf32) && hasQual(qs, isa.QM16n8k16),
		(hasQual(qs, isa.QS8) || hasQual(qs, isa.QU8)) && hasQual(qs, isa.QM16n8k32):
		maxSel = 1
	}
	c.tensorImm(in, in.Operands[5], "the sparsity selector", specMmaSparse, 0, maxSel)
}

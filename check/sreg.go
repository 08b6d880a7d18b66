package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// special returns the special register that the name use e of the
// instruction being checked refers to, as the resolver bound it, or nil.
func (c *checker) special(e ast.Expr) *isa.SReg {
	if s := c.res.Resolved(e); s != nil && s.Kind == resolve.SpecialReg {
		return s.Special.SReg
	}
	return nil
}

// gateSpecial reports a read of special register r that the module's
// version or target lacks, as ptxas does ("Feature '%cluster_ctarank'
// requires PTX ISA .version 7.8 or later", "... requires .target sm_90 or
// higher"). The version and target that introduced each register are in
// isa's table (PTX ISA chapter 10, the "PTX ISA Notes" and "Target ISA
// Notes" of each section).
func (c *checker) gateSpecial(e ast.Expr, r *isa.SReg) {
	pos, end := e.Pos(), e.End()
	if c.version != 0 && c.version < r.PTX {
		c.errorf(pos, end, "ptx-version", r.Section, "raise .version to "+r.PTX.String(),
			"special register %s requires PTX ISA %s (this file declares %s)", r.Name, r.PTX, c.version)
	}
	if c.target.SM != 0 && !r.Arch.Allows(c.target, c.version) {
		c.errorf(pos, end, "target", r.Section, "compile for "+r.Arch.Minimal(),
			"special register %s requires %s (target is %s)", r.Name, r.Arch, c.target)
	}
}

// guardSpecial gates a guard predicate that is a special register
// (@%is_explicit_cluster).
func (c *checker) guardSpecial(g *ast.Guard) {
	if r := c.special(g.Reg); r != nil {
		c.gateSpecial(g.Reg, r)
	}
}

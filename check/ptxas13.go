package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// ptxas13Since is the first PTX ISA version ptxas 13.0 alone decides: ptxas
// 12.5 knows PTX ISA up to 8.5.
var ptxas13Since = isa.V(8, 6)

// followsPtxas13 reports whether the validator follows ptxas 13.0 where it
// accepts a form the pages forbid (Config.Ptxas).
func (c *checker) followsPtxas13() bool {
	switch c.cfg.Ptxas {
	case "13.0":
		return true
	case "12.5":
		return false
	}
	return c.version >= ptxas13Since
}

// againstPage returns the severity and message of a violation of the
// pages that ptxas 13.0 accepts: an error where the validator follows
// ptxas 12.5 (which rejects every such form) or is strict, a warning
// otherwise.
func (c *checker) againstPage(msg string) (diag.Severity, string) {
	if !c.followsPtxas13() {
		return diag.Error, msg
	}
	msg += " (ptxas 13.0 accepts it)"
	if c.cfg.Strict {
		return diag.Error, msg
	}
	return diag.Warning, msg
}

// ptxas13AcceptsNarrowAsync reports the one operand-dependent leniency of
// ptxas 13.0 on st.async's type: the weak form without its mbarrier
// operand accepts 16-bit types, which the page (32- and 64-bit types only)
// and the three-operand form reject.
func ptxas13AcceptsNarrowAsync(p *isa.Problem, in *ast.Instruction, f *isa.Form) bool {
	return p.Rule == "st-async-type" && len(in.Operands) == 2 && f.Type.Bits() == 16
}

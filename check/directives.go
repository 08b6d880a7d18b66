package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// directiveGate is the PTX ISA version and target a directive of a
// function body needs.
type directiveGate struct {
	ptx  isa.Version
	arch isa.Arch
	spec string
}

// directiveGates are the body directives ptxas 12.5 gates ("Feature
// '.branchtargets directive' requires PTX ISA .version 6.0 or later").
var directiveGates = map[string]directiveGate{
	".branchtargets": {isa.V(6, 0), isa.SM(30), "PTX ISA 11.3.2 (.branchtargets)"},
	".calltargets":   {isa.V(2, 1), isa.Arch{}, "PTX ISA 11.3.3 (.calltargets)"},
	".callprototype": {isa.V(2, 1), isa.Arch{}, "PTX ISA 11.3.4 (.callprototype)"},
}

// bodyDirective reports a directive of a function body that the module's
// version or target lacks.
func (c *checker) bodyDirective(d *ast.Directive) {
	g, ok := directiveGates[d.Name]
	if !ok {
		return
	}
	pos, end := d.Pos(), d.Pos().Advance(d.Name)
	if c.version != 0 && c.version < g.ptx {
		c.errorf(pos, end, "ptx-version", g.spec, "raise .version to "+g.ptx.String(),
			"%s requires PTX ISA %s (this file declares %s)", d.Name, g.ptx, c.version)
	}
	if c.target.SM != 0 && !g.arch.Allows(c.target, c.version) {
		c.errorf(pos, end, "target", g.spec, "compile for "+g.arch.Minimal(), "%s requires %s (target is %s)", d.Name, g.arch, c.target)
	}
}

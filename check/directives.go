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

// texSpace checks the texture declarations: the opaque types (.texref,
// .samplerref, .surfref) came with PTX ISA 1.5, which replaced the .tex
// state space: ptxas 12.5 refuses .tex from 1.5 on ("Deprecated feature:
// '.tex' not supported as of PTX version 1.5"), and its variables must be
// .u32 or .u64.
func (c *checker) texSpace(d *ast.VarDecl) {
	typ := isa.LookupQual(d.Type)
	switch typ {
	case isa.QTexref, isa.QSamplerref, isa.QSurfref:
		if c.version != 0 && c.version < isa.V(1, 5) {
			c.errorf(d.TypePos, d.TypePos.Advance(d.Type), "ptx-version", "PTX ISA 5.3 (Texture Sampler and Surface Types)",
				"raise .version to 1.5", "type %s requires PTX ISA 1.5 (this file declares %s)", d.Type, c.version)
		}
	}
	if isa.LookupQual(d.Space) != isa.QTex {
		return
	}
	const spec = "PTX ISA 5.1.7 (Texture State Space (deprecated))"
	if c.version != 0 && c.version >= isa.V(1, 5) {
		c.errorf(d.SpacePos, d.SpacePos.Advance(d.Space), "ptx-version", spec, "declare a .global .texref instead",
			".tex is not supported as of PTX ISA 1.5 (this file declares %s)", c.version)
	}
	if typ != isa.QU32 && typ != isa.QU64 {
		c.errorf(d.TypePos, d.TypePos.Advance(d.Type), "decl-type", spec, "declare it .u32 or .u64",
			"a .tex variable must be .u32 or .u64, not %s", d.Type)
	}
}

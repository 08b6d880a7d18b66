package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
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

// bodyDirective reports a directive a function body may not hold, or one
// that the module's version or target lacks.
func (c *checker) bodyDirective(d *ast.Directive) {
	if !isa.IsBodyDirective(d.Name) {
		c.errorf(d.Pos(), d.Pos().Advance(d.Name), "directive-placement", "PTX ISA 11 (Directives)", "",
			"%s is not a directive of a function body", d.Name)
		return
	}
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

// headerPlace is how far a module has come through its header: .version
// first, then one or more .target, then at most one .address_size, then
// everything else (PTX ISA §11.1; ptxas 12.5 reads them in that order
// only: "Missing .version directive at start of file", "Parsing error
// near '.target'").
type headerPlace uint8

const (
	beforeVersion headerPlace = iota
	afterVersion
	afterTarget
	pastHeader // after .address_size or any other statement
)

// placeDirective reports a module-scope directive out of the header's
// order or not of module scope, and moves the header on. The first
// problem of the header is reported where ptxas 12.5 stops, and the rest
// of the header is not judged: a .target or .address_size before .version
// is reported at the .version, an .address_size before any .target at
// itself once a .target follows (without one, the missing-target rule
// reports the module), anything else before .version at itself.
func (c *checker) placeDirective(d *ast.Directive) {
	pos, end := d.Pos(), d.Pos().Advance(d.Name)
	h := &c.hdr
	if pos.Before(h.furthest) {
		return // fed out of source order (an API caller): no order to judge
	}
	h.furthest = pos
	switch d.Name {
	case ".version":
		switch {
		case h.place == beforeVersion && !h.early:
			h.place = afterVersion
		case h.place == beforeVersion:
			c.misplaced(pos, end, "write .version first", ".version must be the first statement of the module")
			h.place = afterVersion
		default:
			c.misplaced(pos, end, "write .version once, as the module's first statement", ".version must be the first statement of the module")
		}
	case ".target":
		switch {
		case h.place == beforeVersion:
			h.early = true
		case h.place == afterVersion || h.place == afterTarget:
			h.place = afterTarget
		case h.addrEarly.Line != 0:
			c.misplaced(h.addrEarly, h.addrEarly.Advance(".address_size"), "write .target before .address_size",
				".address_size must follow .target")
		default:
			c.misplaced(pos, end, "write .target right after .version", ".target must follow .version, before any other statement")
		}
	case ".address_size":
		switch h.place {
		case beforeVersion:
			h.early = true
		case afterVersion:
			h.addrEarly, h.place = pos, pastHeader
		case afterTarget:
			h.place = pastHeader
		default:
			c.misplaced(pos, end, "write .address_size once, right after .target", ".address_size must follow .target, before any other statement")
		}
	default:
		switch {
		case !isa.IsModuleDirective(d.Name):
			c.misplaced(pos, end, "", "%s is not a directive of module scope", d.Name)
		case h.place == beforeVersion:
			c.misplaced(pos, end, "write .version first", "%s before .version: the module must begin with .version", d.Name)
		}
		h.place = pastHeader
	}
}

// misplaced reports a directive out of place, once for the header.
func (c *checker) misplaced(pos, end token.Pos, fix, format string, args ...any) {
	if c.hdr.misplaced {
		return
	}
	c.hdr.misplaced = true
	c.errorf(pos, end, "directive-placement", "PTX ISA 11.1 (PTX Module Directives)", fix, format, args...)
}

// passHeader notes a variable or function at pos: the header is over.
func (c *checker) passHeader(pos token.Pos) {
	c.hdr.place = pastHeader
	if c.hdr.furthest.Before(pos) {
		c.hdr.furthest = pos
	}
}

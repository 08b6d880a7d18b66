package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// textureRules gates the handle operand of the texture and surface
// instructions: a handle in a register ("indirect" access, in place of a
// .texref, .samplerref or .surfref name) needs PTX ISA 3.1 (ptxas 12.5:
// "Feature 'indirect texture access' requires PTX ISA .version 3.1").
func (c *checker) textureRules(in *ast.Instruction) {
	var what, spec string
	switch in.Opcode {
	case "tex", "tld4", "txq":
		what, spec = "indirect texture access", "PTX ISA 9.7.10 (Texture Instructions)"
	case "suld", "sust", "sured", "suq":
		what, spec = "indirect surface access", "PTX ISA 9.7.11 (Surface Instructions)"
	default:
		return
	}
	if c.version == 0 || c.version >= isa.V(3, 1) {
		return
	}
	for _, op := range in.Operands {
		a, ok := op.(*ast.Address)
		if !ok {
			continue
		}
		if sym := c.lookup(a.Base); sym != nil && isReg(sym) {
			c.errorf(a.Base.Pos(), a.Base.End(), "ptx-version", spec, "raise .version to 3.1 or name a .texref/.surfref",
				"%s (a handle in a register) requires PTX ISA 3.1 (this file declares %s)", what, c.version)
		}
		return // the first address holds the handle
	}
}

package main

import (
	"fmt"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

func init() {
	registerExplainSection(explainSection{"special reg", 67, renderSpecialRegs})
}

// renderSpecialRegs describes each special register the instruction reads
// (PTX ISA chapter 10), from isa's table: its type, what it holds, and the
// version and target that introduced it, which the instruction then also
// needs.
func renderSpecialRegs(x *explanation) []string {
	if x.Instr == nil {
		return nil
	}
	var lines []string
	seen := map[*isa.SReg]bool{}
	for _, op := range x.Instr.Operands {
		ast.Inspect(op, func(n ast.Node) bool {
			reg, ok := n.(*ast.Reg)
			if !ok {
				return true
			}
			r := isa.LookupSReg(reg.Name)
			if r == nil || seen[r] {
				return false
			}
			seen[r] = true
			shape := r.Type.String()
			if r.Vector {
				shape = ".v4 " + shape + " (.x .y .z)"
			}
			lines = append(lines, fmt.Sprintf("%s  %s: %s", r.Name, shape, r.Meaning),
				fmt.Sprintf("  requires PTX ISA %s, %s (%s)", r.PTX, r.Arch, r.Section))
			return false
		})
	}
	return lines
}

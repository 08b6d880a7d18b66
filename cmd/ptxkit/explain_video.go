package main

import (
	"fmt"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

func init() {
	registerExplainSection(explainSection{"selectors", 66, renderVideoSelectors})
}

// videoDefaults are the selectors a SIMD video instruction's operands
// take when none is written (PTX ISA 9.7.20).
var videoDefaults = map[isa.VideoFamily][3]string{
	isa.VideoSIMD2: {"h10", "h10", "h32"},
	isa.VideoSIMD4: {"b3210", "b3210", "b7654"},
}

// renderVideoSelectors explains the operand selectors of a video
// instruction (PTX ISA 9.7.19, 9.7.20): what each written selector picks
// or merges, and the SIMD forms' defaults for the others.
func renderVideoSelectors(x *explanation) []string {
	fam := isa.VideoFamilyOf(x.Instr.Opcode)
	if fam == isa.NotVideo {
		return nil
	}
	var l []string
	for i, e := range x.Instr.Operands {
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == "-" {
			e = u.X
		}
		r, _ := e.(*ast.Reg)
		name := string("dabc"[min(i, 3)])
		role := fam.Role(i)
		switch {
		case r != nil && r.Sel != 0:
			sel, _ := isa.ParseVideoSel(r.Sel.String())
			if !sel.Fits(role) && !(role == isa.VideoScalarDst && sel.BytePair()) {
				l = append(l, fmt.Sprintf("%-5s .%-6s not allowed here", name, r.Sel))
				continue
			}
			l = append(l, fmt.Sprintf("%-5s .%-6s %s", name, r.Sel, sel.Describe(role)))
		case fam.SIMD() && i < 3:
			def := videoDefaults[fam][i]
			sel, _ := isa.ParseVideoSel(def)
			l = append(l, fmt.Sprintf("%-5s .%-6s (default) %s", name, def, sel.Describe(role)))
		}
	}
	return l
}

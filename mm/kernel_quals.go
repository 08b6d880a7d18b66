package mm

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// kernelQualsOf returns the decoded qualifiers of in in source order
// (isa.QNone for a spelling isa does not know).
func kernelQualsOf(in *ast.Instruction) []isa.Qual {
	qs := make([]isa.Qual, len(in.Quals))
	for i, q := range in.Quals {
		qs[i] = isa.LookupQual(q.Name)
	}
	return qs
}

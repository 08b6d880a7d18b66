package mm

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The qualifiers a litmus kernel's instructions are read by, looked up
// once in isa: the kernel reader compares decoded qualifiers, never
// spellings.
var (
	qBulk      = isa.LookupQual(".bulk")
	qBulkGroup = isa.LookupQual(".bulk_group")
	qTensor    = isa.LookupQual(".tensor")
	qMulticast = isa.LookupQual(".multicast::cluster")
	qInit      = isa.LookupQual(".init")
	qInval     = isa.LookupQual(".inval")
	qExpectTx  = isa.LookupQual(".expect_tx")
	qArrive    = isa.LookupQual(".arrive")
	qTryWait   = isa.LookupQual(".try_wait")
	qTestWait  = isa.LookupQual(".test_wait")
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

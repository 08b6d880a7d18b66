package isa

import (
	"strings"
	"testing"
)

// decodeOpString decodes "opcode.q1.q2..." against the forms of its
// opcode and returns the rules of the problems, warnings marked "~".
func decodeOpString(s string, nops int) string {
	parts := strings.Split(s, ".")
	var names []string
	for _, p := range parts[1:] {
		names = append(names, "."+p)
	}
	var d OpDecode
	probs := DecodeOp(parts[0], names, LookupQuals(names, nil), nops, &d, nil)
	var rules []string
	for _, p := range probs {
		r := p.Rule
		if p.Warning {
			r = "~" + r
		}
		rules = append(rules, r)
	}
	return strings.Join(rules, " ")
}

// TestInstructionNames checks the rules ptxas 12.5 applies to the order
// of qualifiers (docs/ptxas-differences.md): the qualifiers that name the
// instruction come first (OpForm.Head), testp properties and the
// qualifiers of OpForm.Ignores are ignored after the name, .pred only on
// the instructions ptxas names by their opcode, and two state spaces are
// written destination first.
func TestInstructionNames(t *testing.T) {
	cases := []struct {
		instr string
		nops  int
		want  string
	}{
		{"mul.lo.s32", 3, ""},
		{"mul.s32.lo", 3, "qualifier-order"},
		{"mul.infinite.lo.s32", 3, "qualifier-order ~ignored-qualifier"},
		{"mul.lo.infinite.s32", 3, "~ignored-qualifier"},
		{"mul.rn.f32.pred", 3, "~ignored-qualifier"},
		{"mul.lo.u32.pred", 3, "qualifier-not-allowed"},
		{"cp.async.mbarrier.arrive.b64.shared", 1, ""},
		{"cp.shared.async.mbarrier.arrive.b64", 1, "qualifier-order"},
		{"cp.async.bulk.commit_group.infinite", 0, "~ignored-qualifier"},
		{"cp.async.commit_group.bulk", 0, "qualifier-not-allowed"},
		{"cp.async.ca.shared.global", 3, ""},
		{"cp.async.ca.shared::cta.global", 3, ""},
		{"cp.async.ca.global.shared", 3, "state-space-order"},
		{"cp.async.bulk.bulk_group.global.shared::cta", 3, ""},
		{"cp.async.bulk.shared::cta.global.bulk_group", 3, "state-space-order"},
		{"set.pred.ge.s32.f64", 3, "~ignored-qualifier"},
		{"bar.infinite.sync", 1, "~ignored-qualifier"},
		{"movmatrix.sync.bf16x2.aligned.m8n8.trans.tf32.b16", 2, "~ignored-qualifier ~ignored-qualifier"},
		{"movmatrix.sync.aligned.m8n8.trans.f16.b16", 2, "type-not-allowed qualifier-not-allowed"},
	}
	for _, c := range cases {
		if got := decodeOpString(c.instr, c.nops); got != c.want {
			t.Errorf("%s: problems %q, want %q", c.instr, got, c.want)
		}
	}
}

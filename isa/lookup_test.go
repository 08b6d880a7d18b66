package isa

import "testing"

func TestLookupQualAll(t *testing.T) {
	for q := Qual(1); q < numQuals; q++ {
		if got := LookupQual(q.String()); got != q {
			t.Errorf("LookupQual(%q) = %v, want %v", q.String(), got, q)
		}
	}
	for _, s := range []string{"", ".", "x", ".u33", ".globa", ".globall", ".L1::evict_normall", "st", ".V4", "generics"} {
		if got := LookupQual(s); got != QNone {
			t.Errorf("LookupQual(%q) = %v, want none", s, got)
		}
	}
	if p := qualIndex.Probes(); p > 3 {
		t.Errorf("a qualifier lookup takes up to %d probes", p)
	}
}

func TestDescribed(t *testing.T) {
	for _, in := range Instrs() {
		if !described(in.Opcode) {
			t.Errorf("described(%q) = false", in.Opcode)
		}
	}
	for _, g := range familyGates {
		if !described(splitOpcode(g.Prefix)) {
			t.Errorf("described(%q) = false (family %s)", splitOpcode(g.Prefix), g.Prefix)
		}
	}
	for _, op := range []string{"", "add", "mov", "ld", "s", "sst", "stt", "cvta", "tcgen06", "ret", "bra"} {
		if described(op) {
			t.Errorf("described(%q) = true", op)
		}
	}
	for _, op := range []string{"", "add", "mov", "ld", "s", "sst", "cvta", "bra", "setp"} {
		if MayDescribe(op) {
			t.Errorf("MayDescribe(%q) = true", op)
		}
	}
	for _, op := range []string{"st", "tcgen05", "red", "ret"} {
		if !MayDescribe(op) {
			t.Errorf("MayDescribe(%q) = false", op)
		}
	}
	if p := opcodeIndex.Probes(); p > 3 {
		t.Errorf("an opcode lookup takes up to %d probes", p)
	}
}

func splitOpcode(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i]
		}
	}
	return s
}

package isa

import (
	"strings"
	"testing"
)

// TestDeclWord checks the classification of declaration words (PTX ISA
// §5.1-§5.3) the front end relies on.
func TestDeclWord(t *testing.T) {
	cases := []struct {
		s    string
		kind DeclKind
		n    int
	}{
		{".reg", DeclSpace, 0}, {".sreg", DeclSpace, 0}, {".global", DeclSpace, 0}, {".tex", DeclSpace, 0},
		{".shared::cta", DeclSpace, 0}, {".param::entry", DeclSpace, 0}, {".shared::anything", DeclSpace, 0},
		{".v2", DeclVector, 2}, {".v4", DeclVector, 4}, {".v8", DeclVector, 8}, {".v3", DeclOther, 0},
		{".u32", DeclType, 0}, {".b128", DeclType, 0}, {".pred", DeclType, 0}, {".f16x2", DeclType, 0},
		{".e4m3", DeclType, 0}, {".texref", DeclType, 0}, {".surfref", DeclType, 0},
		{".u16x2", DeclOther, 0}, {".b1", DeclOther, 0}, {".e2m1", DeclOther, 0}, {".bf16", DeclOther, 0},
		{".bf16x2", DeclOther, 0}, {".tf32", DeclOther, 0}, {".e4m3x2", DeclOther, 0},
		{".align", DeclOther, 0}, {".ptr", DeclOther, 0}, {".u32::x", DeclOther, 0}, {"::", DeclOther, 0}, {"", DeclOther, 0},
	}
	for _, c := range cases {
		if k, n := DeclWord(c.s); k != c.kind || n != c.n {
			t.Errorf("DeclWord(%q) = %d, %d; want %d, %d", c.s, k, n, c.kind, c.n)
		}
	}
	for _, q := range declTypes {
		if q.Group() != GType {
			t.Errorf("declaration type %s is not a type", q)
		}
	}
	for _, q := range declSpaces {
		if q.Group() != GSpace {
			t.Errorf("declaration space %s is not a state space", q)
		}
	}
	if p := declIndex.Probes(); p > 4 {
		t.Errorf("a declaration word takes %d probes", p)
	}
}

// TestDeclQual checks that the small index of declaration words names
// the qualifiers the whole qualifier table does: a state space as
// LookupQual, a type as TypeByName, nothing for .reg and .sreg.
func TestDeclQual(t *testing.T) {
	words := []string{".reg", ".sreg", ".shared::cta", ".shared::cluster", ".param::entry", ".texref", ".bf16", ".v4", ".align", "", "::"}
	for _, q := range declSpaces {
		words = append(words, q.String())
	}
	for _, q := range declTypes {
		words = append(words, q.String())
	}
	for _, w := range words {
		want := TypeByName(w)
		if k, _ := DeclWord(w); k == DeclSpace || strings.Contains(w, "::") {
			want = LookupQual(w)
		}
		if w == ".reg" || w == ".sreg" {
			want = QNone
		}
		if got := DeclQual(w); got != want {
			t.Errorf("DeclQual(%q) = %v, want %v", w, got, want)
		}
	}
	if DeclQual(".global") != QGlobal || DeclQual(".u32") != QU32 || DeclQual(".reg") != QNone {
		t.Errorf("DeclQual: .global %v, .u32 %v, .reg %v", DeclQual(".global"), DeclQual(".u32"), DeclQual(".reg"))
	}
}

// TestFuncDirectives checks that the directives between a function's
// header and its body are described (§11.4, §11.5), and no others.
func TestFuncDirectives(t *testing.T) {
	for _, s := range []string{".maxntid", ".noreturn", ".pragma", ".reqnctapercluster", ".explicitcluster", ".maxclusterrank", ".blocksareclusters", ".abi_preserve"} {
		if LookupFuncDirective(s) == nil {
			t.Errorf("%s is not a function directive", s)
		}
	}
	for _, s := range []string{".reg", ".version", ".maxntid2", ""} {
		if LookupFuncDirective(s) != nil {
			t.Errorf("%s is a function directive", s)
		}
	}
}

// TestBitType checks the bit-size type of each width.
func TestBitType(t *testing.T) {
	for bits, want := range map[int]Qual{8: QB8, 16: QB16, 32: QB32, 64: QB64, 128: QB128, 1: QNone, 24: QNone} {
		if got := BitType(bits); got != want {
			t.Errorf("BitType(%d) = %s, want %s", bits, got, want)
		}
	}
}

package isa

import "strings"

// The words of a variable declaration (PTX ISA §5): the state spaces
// (§5.1), vector lengths (§5.2.2) and types (§5.2.1, §5.2.3, §5.3) that
// the front end reads before the declared name. The spellings are the
// qualifier table's; .reg, .sreg and the opaque types are no instruction's
// qualifier and are listed here.

// DeclKind classifies a dotted word of a declaration.
type DeclKind uint8

const (
	DeclOther  DeclKind = iota // not a space, vector or type
	DeclSpace                  // a state space, possibly with a sub-space (.shared::cta)
	DeclVector                 // .v2, .v4, .v8
	DeclType                   // a type a declaration may name
)

var (
	// declSpaces are the state spaces of Table 6 that qualify
	// instructions; declSpaceNames are the others.
	declSpaces     = []Qual{QConst, QGlobal, QLocal, QParam, QShared, QTex}
	declSpaceNames = []string{".reg", ".sreg"}

	declVectors = []Qual{QV2, QV4, QV8}

	// declTypes are the fundamental types (§5.2.1) and the alternate
	// floating-point formats (§5.2.3) a declaration may name, as ptxas
	// 12.5 reads them: .e4m3 and .e5m2 but not .bf16, .bf16x2 or .tf32
	// (a syntax error), nor the packed .e4m3x2 and the like ("may only be
	// used as an instruction type"); opaqueTypes are the texture, sampler
	// and surface types (§5.3).
	declTypes = []Qual{
		QS8, QS16, QS32, QS64, QU8, QU16, QU32, QU64,
		QB8, QB16, QB32, QB64, QB128,
		QF16, QF16x2, QF32, QF64, QE4m3, QE5m2, QPred,
	}
	opaqueTypes = []string{".texref", ".samplerref", ".surfref"}
)

// declIndex maps each declaration word to its kind (high byte) and, for
// a vector, its length (low byte).
var declIndex = func() *strIndex {
	var keys []string
	var vals []uint16
	add := func(s string, k DeclKind, n int) {
		keys = append(keys, s)
		vals = append(vals, uint16(k)<<8|uint16(n))
	}
	for _, q := range declSpaces {
		add(q.String(), DeclSpace, 0)
	}
	for _, s := range declSpaceNames {
		add(s, DeclSpace, 0)
	}
	for _, q := range declVectors {
		add(q.String(), DeclVector, q.Bits())
	}
	for _, q := range declTypes {
		add(q.String(), DeclType, 0)
	}
	for _, s := range opaqueTypes {
		add(s, DeclType, 0)
	}
	return newStrIndex(keys, vals)
}()

// DeclWord classifies a dotted word of a declaration, and returns the
// length of a vector. A state space followed by "::" and any sub-space
// (.shared::cta, .param::entry) is a state space: which sub-spaces a
// declaration may name is the validator's decision, not the grammar's.
func DeclWord(s string) (DeclKind, int) {
	v, ok := declIndex.get(s)
	if !ok {
		i := strings.Index(s, "::")
		if i < 0 {
			return DeclOther, 0
		}
		if v, ok = declIndex.get(s[:i]); !ok || DeclKind(v>>8) != DeclSpace {
			return DeclOther, 0
		}
	}
	return DeclKind(v >> 8), int(v & 0xff)
}

// IsStateSpace reports whether s is a state space that begins a
// declaration (DeclWord).
func IsStateSpace(s string) bool {
	k, _ := DeclWord(s)
	return k == DeclSpace
}

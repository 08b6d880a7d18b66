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

// declIndex maps each declaration word to its kind (bits 12 and up) and
// the qualifier it names (below; QNone for .reg, .sreg and the opaque
// types).
var declIndex = func() *strIndex {
	var keys []string
	var vals []uint16
	add := func(s string, k DeclKind, q Qual) {
		keys = append(keys, s)
		vals = append(vals, uint16(k)<<12|uint16(q))
	}
	for _, q := range declSpaces {
		add(q.String(), DeclSpace, q)
	}
	for _, s := range declSpaceNames {
		add(s, DeclSpace, QNone)
	}
	for _, q := range declVectors {
		add(q.String(), DeclVector, q)
	}
	for _, q := range declTypes {
		add(q.String(), DeclType, q)
	}
	for _, s := range opaqueTypes {
		add(s, DeclType, TypeByName(s))
	}
	return newStrIndex(keys, vals)
}()

// declQualBits masks the qualifier of a declIndex value.
const declQualBits = 1<<12 - 1

// DeclWord classifies a dotted word of a declaration, and returns the
// length of a vector. A state space followed by "::" and any sub-space
// (.shared::cta, .param::entry) is a state space: which sub-spaces a
// declaration may name is the validator's decision, not the grammar's.
func DeclWord(s string) (DeclKind, int) {
	v, ok := declIndex.Get(s)
	if !ok {
		i := strings.Index(s, "::")
		if i < 0 {
			return DeclOther, 0
		}
		if v, ok = declIndex.Get(s[:i]); !ok || DeclKind(v>>12) != DeclSpace {
			return DeclOther, 0
		}
		return DeclSpace, 0
	}
	k := DeclKind(v >> 12)
	if k != DeclVector {
		return k, 0
	}
	return k, Qual(v & declQualBits).Bits()
}

// DeclQual returns the qualifier that s, the state space or type of a
// declaration, names: LookupQual(s) for a state space (with its
// sub-space, .shared::cta), TypeByName(s) for a type, QNone for .reg,
// .sreg and words that are neither. Declarations are many, and their
// words few: this index of them is small and stays in cache.
func DeclQual(s string) Qual {
	if v, ok := declIndex.Get(s); ok {
		if k := DeclKind(v >> 12); k == DeclSpace || k == DeclType {
			return Qual(v & declQualBits)
		}
		return QNone
	}
	if strings.Contains(s, "::") {
		return LookupQual(s)
	}
	return TypeByName(s)
}

// IsStateSpace reports whether s is a state space that begins a
// declaration (DeclWord).
func IsStateSpace(s string) bool {
	k, _ := DeclWord(s)
	return k == DeclSpace
}

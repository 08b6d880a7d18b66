package isa

import (
	"slices"
	"sort"
	"strings"

	"github.com/ptxkit/ptxkit/isa/internal/strindex"
)

// Fixed string sets looked up once per instruction or declaration by the
// validator: qualifier spellings and the opcodes the tables or the family
// gates describe, in the open-addressed tables of isa/internal/strindex.
// The qualifier index (qualIndex) is generated into zforms.go with the
// forms; the small sets built from hand-written tables here are built by
// newStrIndex.

// strIndex maps each string of a fixed set to a small value.
type strIndex = strindex.Index

// newStrIndex builds the index of keys[i] -> vals[i].
func newStrIndex(keys []string, vals []uint16) *strIndex { return strindex.Build(keys, vals) }

// lookupQual is LookupQual.
func lookupQual(name string) Qual {
	q, _ := qualIndex.Get(name)
	return Qual(q)
}

// opcodeIndex holds the opcodes that have a table or a family gate;
// indexOpcodes builds it once the tables are registered. opcodeShape has bit n of entry b set when one of
// them is n bytes long and starts with b, which turns most other opcodes
// away with one load.
var (
	opcodeIndex *strIndex
	opcodeShape [256]uint32
)

func indexOpcodes() {
	var keys []string
	for op := range byOpcode {
		keys = append(keys, op)
	}
	for _, g := range familyGates {
		op, _, _ := strings.Cut(g.Prefix, ".")
		if _, ok := byOpcode[op]; !ok && !slices.Contains(keys, op) {
			keys = append(keys, op)
		}
	}
	sort.Strings(keys)
	opcodeIndex = newStrIndex(keys, make([]uint16, len(keys)))
	opcodeShape = [256]uint32{}
	for _, k := range keys {
		opcodeShape[k[0]] |= 1 << min(len(k), 31)
	}
}

// described reports whether the tables or a family gate describe some
// instruction with this opcode (the text before the first dot). The
// validator skips the qualifier decoding of every other instruction
// (add, mov, ld, ...).
func described(opcode string) bool {
	if !MayDescribe(opcode) {
		return false
	}
	_, ok := opcodeIndex.Get(opcode)
	return ok
}

// MayDescribe is a cheaper described that may also report true for some
// opcodes that are not described (those with the first byte and length
// of one that is: ret for red); it reads one byte of the opcode.
func MayDescribe(opcode string) bool {
	return opcode != "" && opcodeShape[opcode[0]]&(1<<min(len(opcode), 31)) != 0
}

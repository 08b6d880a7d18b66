package isa

import (
	"math/bits"
	"sort"

	"github.com/ptxkit/ptxkit/internal/word"
)

// Fixed string sets looked up once per instruction or declaration by the
// validator: qualifier spellings and the opcodes the tables or the family
// gates describe. Both are open-addressed tables, at most a quarter full,
// whose slots hold a key's packed word, length and value side by side, so
// that a probe reads one slot and a lookup allocates nothing; unknown
// strings stop at the first empty slot.

// strIndex maps each string of a fixed set to a small value.
//
// A slot holds only what a lookup of a key of up to 8 bytes (nearly
// all) reads, 16 bytes, so that an index of a few hundred keys stays
// within a few cache lines of the parser's and the validator's working
// set; the keys themselves, compared only for longer names, are kept
// beside the slots.
type strIndex struct {
	slots []strSlot
	keys  []string // keys[j] is the key of slots[j], or ""
	mask  uint32
}

// strSlot is one key: for keys of up to 8 bytes, w (word.Pack) and n
// decide a match; longer keys are compared as strings (strIndex.keys).
// n is zero in an empty slot.
type strSlot struct {
	w   uint64
	val uint16
	n   uint8 // len(key), at most 255 (a longer key is compared as a string)
}

// newStrIndex builds the index of keys[i] -> vals[i] with at least four
// times as many slots as keys, and twice as many again until no key is
// more than maxProbes slots from where its hash points.
func newStrIndex(keys []string, vals []uint16) *strIndex {
	n := 16
	for n < 4*len(keys) {
		n *= 2
	}
	for {
		x := &strIndex{slots: make([]strSlot, n), keys: make([]string, n), mask: uint32(n - 1)}
		for i, k := range keys {
			j := strHash(k) & x.mask
			for x.keys[j] != "" && x.keys[j] != k {
				j = (j + 1) & x.mask
			}
			x.keys[j] = k
			x.slots[j] = strSlot{w: word.Pack(k), n: uint8(min(len(k), 255)), val: vals[i]}
		}
		if x.probes() <= maxProbes || n >= 64*len(keys) {
			return x
		}
		n *= 2
	}
}

// maxProbes bounds the probe sequence of a key of a strIndex.
const maxProbes = 3

// strHash hashes s: a name of up to 8 bytes (nearly all) by its packed
// word and length, mixed once (internal/word); a longer one by its first,
// middle and last eight bytes and its length, so that names that differ
// anywhere in those (the wgmma shapes .m64n8k16 ... .m64n256k16, the
// collector buffers .collector::b0::lastuse ... ::b3::lastuse) spread.
func strHash(s string) uint32 {
	n := len(s)
	if n <= 8 {
		return shortHash(word.Pack(s), n)
	}
	w := word.Pack(s[:8]) ^ bits.RotateLeft64(word.Pack(s[n-8:]), 29) ^ bits.RotateLeft64(word.Pack(s[n/2-4:n/2+4]), 43)
	return uint32(word.Mix(w+uint64(n)*0x9e3779b97f4a7c15) >> 32)
}

// shortHash is strHash of a name of n <= 8 bytes packed in w.
func shortHash(w uint64, n int) uint32 { return uint32(word.Mix(w+uint64(n)) >> 32) }

// get returns the value of s, and false when s is not in the set.
// Strings of up to 8 bytes are compared as words.
func (x *strIndex) get(s string) (uint16, bool) {
	if len(s) <= 8 {
		w := word.Pack(s)
		j := shortHash(w, len(s)) & x.mask
		for {
			e := &x.slots[j]
			if e.n == 0 {
				return 0, false
			}
			if e.w == w && int(e.n) == len(s) {
				return e.val, true
			}
			j = (j + 1) & x.mask
		}
	}
	j := strHash(s) & x.mask
	for {
		e := &x.slots[j]
		if e.n == 0 {
			return 0, false
		}
		if int(e.n) == min(len(s), 255) && x.keys[j] == s {
			return e.val, true
		}
		j = (j + 1) & x.mask
	}
}

// probes returns the longest probe sequence of a key (for tests).
func (x *strIndex) probes() int {
	most := 0
	for j, k := range x.keys {
		if k == "" {
			continue
		}
		n := int((uint32(j)-strHash(k))&x.mask) + 1
		most = max(most, n)
	}
	return most
}

// qualIndex maps every qualifier spelling to its Qual.
var qualIndex = func() *strIndex {
	var keys []string
	var vals []uint16
	for q := Qual(1); q < numQuals; q++ {
		keys = append(keys, quals[q].name)
		vals = append(vals, uint16(q))
	}
	return newStrIndex(keys, vals)
}()

// lookupQual is LookupQual.
func lookupQual(name string) Qual {
	q, _ := qualIndex.get(name)
	return Qual(q)
}

// opcodeIndex holds the opcodes that have a table or a family gate;
// register rebuilds it. opcodeShape has bit n of entry b set when one of
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
	for op := range familyByOpcode {
		if _, ok := byOpcode[op]; !ok {
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
	_, ok := opcodeIndex.get(opcode)
	return ok
}

// MayDescribe is a cheaper described that may also report true for some
// opcodes that are not described (those with the first byte and length
// of one that is: ret for red); it reads one byte of the opcode.
func MayDescribe(opcode string) bool {
	return opcode != "" && opcodeShape[opcode[0]]&(1<<min(len(opcode), 31)) != 0
}

// Package strindex owns the open-addressed string sets of the ISA tables:
// qualifier spellings, opcodes, special registers and doc keys, each
// mapped to a small value. isagen builds them when it generates isa's
// tables and writes them out as Go composite literals (Literal), so that
// the linker lays them out and a process pays nothing to build them; isa
// looks strings up in them (Get).
//
// An index is at most a quarter full. Its slots hold a key's packed word,
// length and value side by side, so that a probe reads one slot and a
// lookup allocates nothing; unknown strings stop at the first empty slot.
package strindex

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/ptxkit/ptxkit/internal/word"
)

// Index maps each string of a fixed set to a small value.
//
// A slot holds only what a lookup of a key of up to 8 bytes (nearly all)
// reads, 16 bytes, so that an index of a few hundred keys stays within a
// few cache lines of the parser's and the validator's working set; the
// keys themselves, compared only for longer names, are kept beside the
// slots.
type Index struct {
	Slots []Slot
	Keys  []string // Keys[j] is the key of Slots[j], or ""
	Mask  uint32
}

// Slot is one key: for keys of up to 8 bytes, W (word.Pack) and N decide
// a match; longer keys are compared as strings (Index.Keys). N is zero in
// an empty slot.
type Slot struct {
	W   uint64
	Val uint16
	N   uint8 // len(key), at most 255 (a longer key is compared as a string)
}

// MaxProbes bounds the probe sequence of a key of an index Build returns
// (unless the index would have to be more than 64 times the keys).
const MaxProbes = 3

// Build returns the index of keys[i] -> vals[i] with at least four times
// as many slots as keys, and twice as many again until no key is more
// than MaxProbes slots from where its hash points. Keys must be distinct
// and not empty.
func Build(keys []string, vals []uint16) *Index {
	n := 16
	for n < 4*len(keys) {
		n *= 2
	}
	for {
		x := &Index{Slots: make([]Slot, n), Keys: make([]string, n), Mask: uint32(n - 1)}
		for i, k := range keys {
			j := Hash(k) & x.Mask
			for x.Keys[j] != "" && x.Keys[j] != k {
				j = (j + 1) & x.Mask
			}
			x.Keys[j] = k
			x.Slots[j] = Slot{W: word.Pack(k), N: uint8(min(len(k), 255)), Val: vals[i]}
		}
		if x.Probes() <= MaxProbes || n >= 64*len(keys) {
			return x
		}
		n *= 2
	}
}

// Hash hashes s: a name of up to 8 bytes (nearly all) by its packed word
// and length, mixed once (internal/word); a longer one by its first and
// last eight bytes, the middle eight too past 16 bytes, and its length, so
// that names that differ anywhere in those (the wgmma shapes .m64n8k16
// ... .m64n256k16, the collector buffers .collector::b0::lastuse ...
// ::b3::lastuse) spread.
func Hash(s string) uint32 {
	n := len(s)
	if n <= 8 {
		return shortHash(word.Pack(s), n)
	}
	w := word.Pack(s[:8]) ^ bits.RotateLeft64(word.Pack(s[n-8:]), 29)
	if n > 16 { // the first and last eight bytes leave some out
		w ^= bits.RotateLeft64(word.Pack(s[n/2-4:n/2+4]), 43)
	}
	return uint32(word.Mix(w+uint64(n)*0x9e3779b97f4a7c15) >> 32)
}

// shortHash is Hash of a name of n <= 8 bytes packed in w.
func shortHash(w uint64, n int) uint32 { return uint32(word.Mix(w+uint64(n)) >> 32) }

// Get returns the value of s, and false when s is not in the set.
// Strings of up to 8 bytes are compared as words.
func (x *Index) Get(s string) (uint16, bool) {
	if len(s) <= 8 {
		w := word.Pack(s)
		j := shortHash(w, len(s)) & x.Mask
		for {
			e := &x.Slots[j]
			if e.N == 0 {
				return 0, false
			}
			if e.W == w && int(e.N) == len(s) {
				return e.Val, true
			}
			j = (j + 1) & x.Mask
		}
	}
	j := Hash(s) & x.Mask
	for {
		e := &x.Slots[j]
		if e.N == 0 {
			return 0, false
		}
		if int(e.N) == min(len(s), 255) && x.Keys[j] == s {
			return e.Val, true
		}
		j = (j + 1) & x.Mask
	}
}

// Probes returns the longest probe sequence of a key.
func (x *Index) Probes() int {
	most := 0
	for j, k := range x.Keys {
		if k == "" {
			continue
		}
		n := int((uint32(j)-Hash(k))&x.Mask) + 1
		most = max(most, n)
	}
	return most
}

// Len returns the number of keys.
func (x *Index) Len() int {
	n := 0
	for _, s := range x.Slots {
		if s.N != 0 {
			n++
		}
	}
	return n
}

// Literal writes x as a Go expression of type strindex.Index whose values
// are the Go expressions val(key) (a constant such as "uint16(QGlobal)" or
// a number), for a generated file that imports this package. Empty slots
// are left out of the slot and key lists by index, so the literal is as
// long as the keys.
func (x *Index) Literal(w io.Writer, val func(key string) string) {
	fmt.Fprintf(w, "strindex.Index{Mask: %#x,\n\tSlots: []strindex.Slot{", x.Mask)
	for j, k := range x.Keys {
		if k != "" {
			s := x.Slots[j]
			fmt.Fprintf(w, "\n\t\t%d: {W: %#x, Val: %s, N: %d}, // %s", j, s.W, val(k), s.N, k)
		}
	}
	// The lists are as long as the index: their last slot is named even
	// when empty.
	last := len(x.Keys) - 1
	if x.Keys[last] == "" {
		fmt.Fprintf(w, "\n\t\t%d: {},", last)
	}
	fmt.Fprintf(w, "\n\t},\n\tKeys: []string{")
	for j, k := range x.Keys {
		if k != "" {
			fmt.Fprintf(w, "%d: %q, ", j, k)
		}
	}
	if x.Keys[last] == "" {
		fmt.Fprintf(w, "%d: \"\"", last)
	}
	fmt.Fprintf(w, "},\n}")
}

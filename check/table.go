package check

import (
	"hash/maphash"
	"math/bits"
)

// table is an open-addressed hash table from names to values, used for
// the scopes and the address origins of a function. Unlike a map, a
// lookup takes a hash the caller computed once for several tables, and
// reset costs the number of entries, not the capacity, so that a module
// of many small functions after one large one stays fast.
type table[V any] struct {
	slots []slot[V] // a power of two long; at most half full
	used  []int32   // the filled slots, in insertion order
}

type slot[V any] struct {
	key  string
	hash uint64
	w    uint64 // load(key) for keys of up to 8 bytes
	val  V
	full bool
}

// nameKey is a name with what the tables compare it by: its hash and, for
// names of up to 8 bytes, its bytes packed in a word (which then decide
// equality without comparing strings).
type nameKey struct {
	s string
	h uint64
	w uint64
}

// keyOf returns the key of name.
func keyOf(name string) nameKey {
	if len(name) <= 8 {
		w := load(name)
		return nameKey{name, mix(w, len(name)), w}
	}
	return nameKey{name, hashName(name), 0}
}

// shortKeyOf is keyOf for a name of up to 8 bytes packed in w.
func shortKeyOf(name string, w uint64) nameKey {
	return nameKey{name, mix(w, len(name)), w}
}

// matches reports whether slot s holds key k.
func (s *slot[V]) matches(k nameKey) bool {
	if s.hash != k.h || len(s.key) != len(k.s) {
		return false
	}
	if len(k.s) <= 8 {
		return s.w == k.w
	}
	return s.key == k.s
}

// Names are hashed with a random seed per process, so that no input can
// be made to collide; hashes decide only where entries are stored, never
// the order of any output.
var (
	seed   = maphash.MakeSeed()
	k0, k1 = maphash.String(seed, "k0"), maphash.String(seed, "k1")
)

// hashName is the hash of a name longer than 8 bytes; shorter ones (nearly
// all register names) are hashed as one word (keyOf).
func hashName(name string) uint64 { return maphash.String(seed, name) }

// load packs a string of up to 8 bytes into a word, little-endian,
// without a loop or a jump: two overlapping 4-byte halves or, below 4
// bytes, the first, middle and last byte, each at its own place.
func load(s string) uint64 {
	n := len(s)
	if n >= 4 {
		t := s[n-4:]
		lo := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		hi := uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
		return uint64(lo) | uint64(hi)<<(8*(n-4))
	}
	if n > 0 {
		return uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1))
	}
	return 0
}

// mix hashes a word and a length (the multiply-and-fold of wyhash).
func mix(w uint64, n int) uint64 {
	hi, lo := bits.Mul64(w^k0, uint64(n)^k1)
	return hi ^ lo
}

// len returns the number of entries.
func (t *table[V]) len() int { return len(t.used) }

// get returns the value of key k.
func (t *table[V]) get(k nameKey) (V, bool) {
	if p := t.ref(k); p != nil {
		return *p, true
	}
	var zero V
	return zero, false
}

// ref returns the value of key k for update, or nil.
func (t *table[V]) ref(k nameKey) *V {
	if len(t.used) > 0 {
		mask := uint64(len(t.slots) - 1)
		for i := k.h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if !s.full {
				break
			}
			if s.matches(k) {
				return &s.val
			}
		}
	}
	return nil
}

// put sets the value of key k.
func (t *table[V]) put(k nameKey, v V) {
	if p := t.ref(k); p != nil {
		*p = v
		return
	}
	if 2*(len(t.used)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := k.h & mask
	for t.slots[i].full {
		i = (i + 1) & mask
	}
	t.slots[i] = slot[V]{key: k.s, hash: k.h, w: k.w, val: v, full: true}
	t.used = append(t.used, int32(i))
}

// grow doubles the table (16 slots at first) and reinserts the entries in
// their insertion order.
func (t *table[V]) grow() {
	old := t.slots
	used := t.used
	t.slots = make([]slot[V], max(16, 2*len(old)))
	t.used = make([]int32, 0, cap(used))
	mask := uint64(len(t.slots) - 1)
	for _, j := range used {
		s := old[j]
		i := s.hash & mask
		for t.slots[i].full {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.used = append(t.used, int32(i))
	}
}

// reset removes every entry, keeping the storage; it drops the keys.
func (t *table[V]) reset() {
	for _, i := range t.used {
		t.slots[i] = slot[V]{}
	}
	t.used = t.used[:0]
}

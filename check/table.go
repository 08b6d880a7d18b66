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
	val  V
	full bool
}

// Names are hashed with a random seed per process, so that no input can
// be made to collide; hashes decide only where entries are stored, never
// the order of any output.
var (
	seed   = maphash.MakeSeed()
	k0, k1 = maphash.String(seed, "k0"), maphash.String(seed, "k1")
)

// hashName is the hash tables use for name. Names of up to 8 bytes
// (nearly all register names) are hashed as one word, which also gives
// the hash of a prefix cheaply (hashPrefix).
func hashName(name string) uint64 {
	if len(name) <= 8 {
		return mix(load(name), len(name))
	}
	return maphash.String(seed, name)
}

// hashPrefix returns hashName(name[:i]) given w == load(name), for a name
// of up to 8 bytes.
func hashPrefix(w uint64, i int) uint64 {
	return mix(w&(1<<(8*i)-1), i)
}

// load packs a string of up to 8 bytes into a word, without a loop.
func load(s string) uint64 {
	switch len(s) {
	case 0:
		return 0
	case 1:
		return uint64(s[0])
	case 2:
		return uint64(s[0]) | uint64(s[1])<<8
	case 3:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
	case 4:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
	case 5:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32
	case 6:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32 |
			uint64(s[5])<<40
	case 7:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32 |
			uint64(s[5])<<40 | uint64(s[6])<<48
	}
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32 |
		uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// mix hashes a word and a length (the multiply-and-fold of wyhash).
func mix(w uint64, n int) uint64 {
	hi, lo := bits.Mul64(w^k0, uint64(n)^k1)
	return hi ^ lo
}

// len returns the number of entries.
func (t *table[V]) len() int { return len(t.used) }

// get returns the value of key, whose hash is h.
func (t *table[V]) get(key string, h uint64) (V, bool) {
	if len(t.used) > 0 {
		mask := uint64(len(t.slots) - 1)
		for i := h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if !s.full {
				break
			}
			if s.hash == h && s.key == key {
				return s.val, true
			}
		}
	}
	var zero V
	return zero, false
}

// ref returns the value of key for update, or nil.
func (t *table[V]) ref(key string, h uint64) *V {
	if len(t.used) > 0 {
		mask := uint64(len(t.slots) - 1)
		for i := h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if !s.full {
				break
			}
			if s.hash == h && s.key == key {
				return &s.val
			}
		}
	}
	return nil
}

// put sets the value of key, whose hash is h.
func (t *table[V]) put(key string, h uint64, v V) {
	if p := t.ref(key, h); p != nil {
		*p = v
		return
	}
	if 2*(len(t.used)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].full {
		i = (i + 1) & mask
	}
	t.slots[i] = slot[V]{key: key, hash: h, val: v, full: true}
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

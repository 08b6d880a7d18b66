package resolve

import "github.com/ptxkit/ptxkit/internal/word"

// load32 and load64 read 4 and 8 bytes of s at i, little-endian (the
// compiler makes each one load).
func load32(s string, i int) uint32 {
	b := s[i : i+4]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// mix is word.Mix.
func mix(x uint64) uint64 { return word.Mix(x) }

// keyHash returns a word that identifies name among the names of its
// length when it has at most 8 bytes (the bytes themselves), and a hash of
// name. Names are short ("%rd12"), so both cost a few loads.
func keyHash(name string) (key uint64, h uint32) {
	n := len(name)
	if n > 8 {
		key = load64(name, 0)
		for i := 8; i < n-8; i += 8 {
			key = mix(key) ^ load64(name, i)
		}
		key = mix(key) ^ load64(name, n-8)
	} else {
		key = word.Pack(name)
	}
	return key, uint32(mix(key+uint64(n)) >> 32)
}

// hash returns the hash of name.
func hash(name string) uint32 {
	_, h := keyHash(name)
	return h
}

// cache remembers what names resolved to, one slot per hash value (modulo
// its size), so that the many uses of a register cost one hash of its few
// bytes and one comparison. A name that shares its slot with another one
// is simply looked up again.
//
// Declaring or dropping a name forgets that name. Declaring or dropping a
// "%r<N>", and each module-level statement, empties the cache. A function
// body declares its registers first and then names each of them many
// times, so most uses hit.
type cache struct {
	slots *[cacheSlots]cacheSlot
	used  []uint32 // slots filled since the cache was last emptied
}

type cacheSlot struct {
	key  uint64 // of name, see keyHash
	name string // "" when empty or forgotten
	sym  *Symbol
}

const cacheSlots = 1024 // a power of two

// invalidate empties the cache, which then keeps no reference to the
// symbols and names it held.
func (c *cache) invalidate() {
	for _, i := range c.used {
		c.slots[i] = cacheSlot{}
	}
	c.used = c.used[:0]
}

// forget invalidates what name, of hash h, resolved to.
func (c *cache) forget(name string, h uint32) {
	if c.slots == nil {
		return
	}
	if s := &c.slots[h&(cacheSlots-1)]; s.name == name {
		s.key, s.name = 0, "" // the slot stays in used
	}
}

// get returns the symbol cached for name, of key k and hash h, or nil. An
// empty name is never cached: it would match empty and forgotten slots.
func (c *cache) get(name string, k uint64, h uint32) *Symbol {
	s := &c.slots[h&(cacheSlots-1)]
	// The key is the name itself when it is short.
	if s.key == k && len(s.name) == len(name) && len(name) > 0 && (len(name) <= 8 || s.name == name) {
		return s.sym
	}
	return nil
}

// hit returns the symbol cached for name, or nil, and the key and hash of
// name. It is get with keyHash written out for short names, so that the
// common case calls nothing.
func (c *cache) hit(name string) (sym *Symbol, k uint64, h uint32) {
	n := len(name)
	switch {
	case n > 8:
		k, h = keyHash(name)
		return c.get(name, k, h), k, h
	case n >= 4:
		k = uint64(load32(name, 0)) | uint64(load32(name, n-4))<<32
	case n > 0:
		k = uint64(name[0]) | uint64(name[n>>1])<<8 | uint64(name[n-1])<<16
	default:
		return nil, 0, uint32(mix(0) >> 32) // never cached: it would match empty and forgotten slots
	}
	h = uint32(mix(k+uint64(n)) >> 32)
	if s := &c.slots[h&(cacheSlots-1)]; s.key == k && len(s.name) == n {
		return s.sym, k, h
	}
	return nil, k, h
}

// put caches sym for name, of key k and hash h.
func (c *cache) put(name string, k uint64, h uint32, sym *Symbol) {
	i := h & (cacheSlots - 1)
	s := &c.slots[i]
	if s.sym == nil {
		c.used = append(c.used, i)
	}
	*s = cacheSlot{key: k, name: name, sym: sym}
}

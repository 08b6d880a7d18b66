package resolve

import (
	"strings"
	"testing"
)

// TestCacheHit checks that the short-name path of hit finds what put
// stored, for names of every length, and nothing for other names.
func TestCacheHit(t *testing.T) {
	var c cache
	c.slots = new([cacheSlots]cacheSlot)
	syms := map[string]*Symbol{}
	for n := 1; n <= 24; n++ {
		for _, base := range []string{"%rd123456789abcdefghijklmn", "$L__BB0_1234567890123456789", "abcdefghijklmnopqrstuvwxyz"} {
			name := base[:n]
			sym := &Symbol{}
			k, h := keyHash(name)
			if c.get(name, k, h) != nil {
				continue // shares a slot with an earlier name
			}
			c.put(name, k, h, sym)
			syms[name] = sym
			got, gk, gh := c.hit(strings.Clone(name))
			if got != sym || gk != k || gh != h {
				t.Errorf("hit(%q) = %p, %#x, %#x, want %p, %#x, %#x", name, got, gk, gh, sym, k, h)
			}
		}
	}
	for name := range syms {
		other := name + "x"
		if _, ok := syms[other]; !ok && hitSym(&c, other) != nil {
			t.Errorf("hit(%q) found the symbol of another name", other)
		}
	}
	for name := range syms {
		_, fh := keyHash(name)
		c.forget(name, fh)
		if hitSym(&c, name) != nil || hitSym(&c, "") != nil {
			t.Errorf("hit(%q) or hit(\"\") after forgetting %q", name, name)
		}
		k, h := keyHash(name)
		c.put(name, k, h, syms[name])
	}
	c.invalidate()
	for name := range syms {
		if hitSym(&c, name) != nil {
			t.Errorf("hit(%q) after invalidate", name)
		}
	}
}

func hitSym(c *cache, name string) *Symbol {
	sym, _, _ := c.hit(name)
	return sym
}

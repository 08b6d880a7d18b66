package resolve

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
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

// TestCountedElement compares countedElement, wherever it answers, with
// the general lookup, over random nested scopes of counted and plain
// declarations (including prefixes that end in a digit and plain names
// that look like elements, which must turn the shortcut off).
func TestCountedElement(t *testing.T) {
	prefixes := []string{"%r", "%rd", "%f", "%p", "%r1", "%longprefix_name"}
	plains := []string{"%x", "%r5", "%rd12", "tile", "%y7", "%f"}
	answered := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tb table
		tb.init(true)
		tb.open()
		for step := range 300 {
			switch op := rng.IntN(10); {
			case op == 0 && tb.depth < 6:
				tb.open()
			case op == 1 && tb.depth > 1:
				tb.close()
			case op < 4:
				name := prefixes[rng.IntN(len(prefixes))]
				if rng.IntN(3) > 0 {
					name = prefixes[rng.IntN(4)] // mostly prefixes without a trailing digit
				}
				tb.declare(name, hash(name), int64(1+rng.IntN(30)), &Symbol{Decl: &ast.VarDecl{Name: &ast.Ident{Name: name}, Count: int64(1 + rng.IntN(30))}})
			case op < 5 && rng.IntN(4) == 0:
				name := plains[rng.IntN(len(plains))]
				tb.declare(name, hash(name), -1, &Symbol{Decl: &ast.VarDecl{Name: &ast.Ident{Name: name}, Count: -1}})
			default:
				name := fmt.Sprintf("%s%d", prefixes[rng.IntN(len(prefixes))], rng.IntN(40))
				if rng.IntN(10) == 0 {
					name = prefixes[rng.IntN(len(prefixes))] + "0" + fmt.Sprint(rng.IntN(9))
				}
				sym, ok := tb.countedElement(name)
				if !ok {
					continue
				}
				answered++
				want, in := tb.lookup(name, hash(name))
				if !in || want != sym {
					t.Fatalf("seed %d step %d: countedElement(%q) = %p, lookup = %p (in range %v)", seed, step, name, sym, want, in)
				}
			}
		}
	}
	if answered < 1000 {
		t.Errorf("countedElement answered only %d lookups", answered)
	}
}

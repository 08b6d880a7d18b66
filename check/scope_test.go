package check

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// mapScope is the plain-map scope the tables must agree with.
type mapScope struct {
	parent         *mapScope
	syms, prefixes map[string]symbol
}

func (s *mapScope) lookup(name string) (symbol, bool) {
	for ; s != nil; s = s.parent {
		if sym, ok := s.syms[name]; ok {
			return sym, true
		}
		i := len(name)
		for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
			i--
		}
		if i == len(name) || i == 0 {
			continue
		}
		if sym, ok := s.prefixes[name[:i]]; ok && validIndex(name[i:], sym.count) {
			return sym, true
		}
	}
	return symbol{}, false
}

func TestLoad(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "%\xe9\xff1"} {
		var want uint64
		for i := 0; i < len(s); i++ {
			want |= uint64(s[i]) << (8 * i)
		}
		if got := load(s); got != want {
			t.Errorf("load(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func TestDigitsFrom(t *testing.T) {
	for _, s := range []string{"", "1", "12345678", "%r", "%r1", "%rd12", "x9y", "abcdefg0", "%\xe91", "\xff\xfe99", "0a", "a0", "%r<1"} {
		if len(s) > 8 {
			continue
		}
		want := len(s)
		for want > 0 && s[want-1] >= '0' && s[want-1] <= '9' {
			want--
		}
		if got := digitsFrom(load(s), len(s)); got != want {
			t.Errorf("digitsFrom(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestScopeAgainstMaps declares random names, parameterized and not,
// short and long, in a module scope and a function scope, and compares
// every lookup with plain maps.
func TestScopeAgainstMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	stems := []string{"%r", "%rd", "%f", "%p", "x", "%longprefix", "%r_", "%\xe9", "a1b", "%", "%abcdefg", "%abcdef"}
	name := func() string {
		s := stems[r.IntN(len(stems))]
		switch r.IntN(3) {
		case 0:
			return s
		case 1:
			return s + strconv.Itoa(r.IntN(40))
		}
		return s + "0" + strconv.Itoa(r.IntN(5))
	}
	for round := 0; round < 200; round++ {
		global := newScope(nil)
		mg := &mapScope{syms: map[string]symbol{}, prefixes: map[string]symbol{}}
		mf := &mapScope{parent: mg, syms: map[string]symbol{}, prefixes: map[string]symbol{}}
		fn := newScope(global)
		// Many prefixes in some rounds, so that the short list overflows.
		decls := r.IntN(40)
		for i := 0; i < decls; i++ {
			s, m := fn, mf
			if r.IntN(4) == 0 {
				s, m = global, mg
			}
			d := &ast.VarDecl{Name: &ast.Ident{Name: name()}, Count: -1, Space: ".reg", Type: ".b32"}
			if r.IntN(2) == 0 {
				d.Count = int64(r.IntN(30))
				d.Type = []string{".b32", ".b64", ".f32", ".pred"}[r.IntN(4)]
			}
			s.declare(d, false)
			sym := symbol{reg: true, typ: isa.TypeByName(d.Type), vec: 1, count: -1}
			if d.Count >= 0 {
				sym.count = d.Count
				m.prefixes[d.Name.Name] = sym
			} else {
				m.syms[d.Name.Name] = sym
			}
			for j := 0; j < 20; j++ {
				n := name()
				want, ok := mf.lookup(n)
				got := fn.lookup(n)
				if ok != (got != nil) || ok && *got != want {
					t.Fatalf("round %d: lookup(%q) = %+v, want %+v, %v", round, n, got, want, ok)
				}
			}
		}
		fn.reset()
		if fn.syms.len()+fn.prefixes.len()+len(fn.shortKeys)+len(fn.shortNames) != 0 || fn.longList {
			t.Fatal("reset left entries")
		}
	}
}

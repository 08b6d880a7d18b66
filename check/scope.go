package check

import (
	"math/bits"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// paramKind tells what a .param variable is for (PTX ISA §5.1.6).
type paramKind uint8

const (
	paramNone    paramKind = iota
	paramInput             // a function's or kernel's input parameter: read-only
	paramReturn            // a .func return parameter: written with st.param
	paramCallArg           // a .param declared in a body block to pass call arguments
)

// symbol is what the checker needs to know about a declared name.
type symbol struct {
	vec   int      // vector length of a vector register or variable, 1 otherwise
	count int64    // N of a parameterized register declaration %r<N>; -1 otherwise
	reg   bool     // a register (.reg)
	space isa.Qual // state space of a variable: QGlobal, QSharedCta, QLocal, QConst, QParam...
	typ   isa.Qual // element type (QNone when unknown, e.g. .sreg)
	param paramKind
	entry bool // a kernel parameter
}

// scope maps names to symbols. Functions have one scope whose parent is
// the module's; nested blocks add to the function's scope (PTX names are
// unique within a function in practice, and shadowing only matters for
// call-argument blocks, whose names are distinct by convention).
//
// Register names are looked up for nearly every operand, so short names
// (up to 8 bytes: %r15, %rd3, %f2) take a path without hashing: the
// parameterized declarations of a function are few, and are kept in a
// short list of packed words beside their table.
type scope struct {
	parent   *scope
	syms     table[symbol]
	prefixes table[symbol] // parameterized registers by prefix ("%r" for %r<10>)

	// digitLens has bit min(n, 63) set when syms holds a name of n bytes
	// ending in a digit: a register name like %r15 need not be looked for
	// in syms otherwise.
	digitLens uint64

	// While longList is false, the prefixes are in shortKeys (packed,
	// see shortKey), shortNames and shortSyms instead of the prefixes
	// table: all of them are shorter than 8 bytes and there are at most
	// maxShort.
	shortKeys  []uint64
	shortNames []string
	shortSyms  []symbol
	longList   bool
}

const maxShort = 16

// shortKey packs a name of up to 7 bytes: its bytes and, in the top byte,
// its length.
func shortKey(w uint64, n int) uint64 { return w | uint64(n)<<56 }

func newScope(parent *scope) *scope {
	return &scope{parent: parent}
}

// spaceQual maps a declaration's state space to its Qual.
func spaceQual(s string) (isa.Qual, bool) {
	if s == ".reg" { // a declaration keyword, not a qualifier
		return isa.QNone, true
	}
	q := isa.LookupQual(s)
	if q == isa.QShared {
		q = isa.QSharedCta
	}
	return q, false
}

// reset empties s for reuse, keeping its tables' storage.
func (s *scope) reset() {
	s.syms.reset()
	s.prefixes.reset()
	s.digitLens = 0
	s.shortKeys = s.shortKeys[:0]
	clear(s.shortNames)
	s.shortNames = s.shortNames[:0]
	s.shortSyms = s.shortSyms[:0]
	s.longList = false
}

func (s *scope) declare(d *ast.VarDecl, inBlock bool) {
	sp, reg := spaceQual(d.Space)
	sym := symbol{reg: reg, space: sp, typ: isa.TypeByName(d.Type), vec: max(d.Vector, 1), count: -1}
	if d.Space == ".sreg" {
		sym.reg = true
	}
	if sp == isa.QParam && inBlock {
		sym.param = paramCallArg
	}
	s.add(d, sym)
}

func (s *scope) declareParam(d *ast.VarDecl, kind paramKind, entry bool) {
	sp, reg := spaceQual(d.Space)
	sym := symbol{reg: reg, space: sp, typ: isa.TypeByName(d.Type), vec: max(d.Vector, 1), count: -1, entry: entry}
	if !reg {
		sym.param = kind
	}
	s.add(d, sym)
}

func (s *scope) add(d *ast.VarDecl, sym symbol) {
	if d.Name != nil {
		name := d.Name.Name
		if d.Count >= 0 {
			p := sym
			p.count = d.Count
			s.addPrefix(name, p)
		} else {
			s.syms.put(keyOf(name), sym)
			if n := len(name); n > 0 && name[n-1] >= '0' && name[n-1] <= '9' {
				s.digitLens |= 1 << min(n, 63)
			}
		}
	}
	for _, x := range d.ExtraNames {
		s.add(x, sym)
	}
}

// addPrefix declares the parameterized registers name<N>: in the short
// list, or in the prefixes table once the short list no longer fits.
func (s *scope) addPrefix(name string, p symbol) {
	if !s.longList {
		if len(name) < 8 {
			k := shortKey(load(name), len(name))
			for i, x := range s.shortKeys {
				if x == k {
					s.shortSyms[i] = p
					return
				}
			}
			if len(s.shortKeys) < maxShort {
				s.shortKeys = append(s.shortKeys, k)
				s.shortNames = append(s.shortNames, name)
				s.shortSyms = append(s.shortSyms, p)
				return
			}
		}
		s.longList = true
		for i, n := range s.shortNames {
			s.prefixes.put(keyOf(n), s.shortSyms[i])
		}
	}
	s.prefixes.put(keyOf(name), p)
}

// prefix returns the declaration of the parameterized registers name<N>,
// or nil.
func (s *scope) prefix(name string) *symbol {
	if s.longList {
		return s.prefixes.ref(keyOf(name))
	}
	if len(name) >= 8 {
		return nil
	}
	k := shortKey(load(name), len(name))
	for i, x := range s.shortKeys {
		if x == k {
			return &s.shortSyms[i]
		}
	}
	return nil
}

// lookup finds name in s or its parents: first as written, then as a
// parameterized register ("%r15" from "%r<16>"). It returns nil when
// name is not declared; the result is valid until the next declaration.
func (s *scope) lookup(name string) *symbol {
	n := len(name)
	if n > 8 {
		return s.find(name)
	}
	w := load(name)
	i := digitsFrom(w, n)
	var k nameKey
	for ; s != nil; s = s.parent {
		if (i == n || s.digitLens&(1<<n) != 0) && s.syms.len() > 0 {
			if k.s == "" {
				k = shortKeyOf(name, w)
			}
			if sym := s.syms.ref(k); sym != nil {
				return sym
			}
		}
		if i == n || i == 0 {
			continue
		}
		if s.longList {
			if sym := s.prefixes.ref(shortKeyOf(name[:i], w&(1<<(8*i)-1))); sym != nil && validIndex(name[i:], sym.count) {
				return sym
			}
			continue
		}
		k := shortKey(w&(1<<(8*i)-1), i)
		for j, x := range s.shortKeys {
			if x == k {
				if p := &s.shortSyms[j]; validIndex(name[i:], p.count) {
					return p
				}
				break
			}
		}
	}
	return nil
}

// digitsFrom returns where the trailing decimal digits of the name of n
// bytes packed in w start (n when there are none).
func digitsFrom(w uint64, n int) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	if w&high != 0 {
		// Not ASCII: byte by byte.
		i := n
		for i > 0 && byte(w>>(8*(i-1)))-'0' <= 9 {
			i--
		}
		return i
	}
	// A byte b of w is a digit when (b^'0') < 10, that is when
	// (b^'0')+0x76 has its top bit clear; ASCII bytes never carry.
	nondigit := ((w ^ '0'*ones) + 0x76*ones) & high
	if n < 8 {
		nondigit &= 1<<(8*n) - 1
	}
	return (bits.Len64(nondigit) + 7) / 8
}

// find is lookup for names longer than 8 bytes.
func (s *scope) find(name string) *symbol {
	k := keyOf(name)
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	for ; s != nil; s = s.parent {
		if sym := s.syms.ref(k); sym != nil {
			return sym
		}
		if i == len(name) || i == 0 {
			continue
		}
		if sym := s.prefix(name[:i]); sym != nil && validIndex(name[i:], sym.count) {
			return sym
		}
	}
	return nil
}

// validIndex reports whether the decimal digits s name a register below
// count (no leading zeros, as in ptxas).
func validIndex(s string, count int64) bool {
	if len(s) > 1 && s[0] == '0' {
		return false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
		if n >= count {
			return false
		}
	}
	return true
}

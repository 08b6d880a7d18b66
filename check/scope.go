package check

import (
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
	reg   bool     // a register (.reg)
	space isa.Qual // state space of a variable: QGlobal, QSharedCta, QLocal, QConst, QParam...
	typ   isa.Qual // element type (QNone when unknown, e.g. .sreg)
	vec   int      // vector length of a vector register or variable, 1 otherwise
	count int      // N of a parameterized register declaration %r<N>; -1 otherwise
	param paramKind
	entry bool // a kernel parameter
}

// scope maps names to symbols. Functions have one scope whose parent is
// the module's; nested blocks add to the function's scope (PTX names are
// unique within a function in practice, and shadowing only matters for
// call-argument blocks, whose names are distinct by convention).
type scope struct {
	parent   *scope
	syms     map[string]symbol
	prefixes map[string]symbol // parameterized registers by prefix ("%r" for %r<10>)
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, syms: map[string]symbol{}}
}

// spaceQual maps a declaration's state space to its Qual.
func spaceQual(s string) (isa.Qual, bool) {
	switch s {
	case ".reg":
		return isa.QNone, true
	case ".shared", ".shared::cta":
		return isa.QSharedCta, false
	case ".param":
		return isa.QParam, false
	}
	return isa.LookupQual(s), false
}

// reset empties s for reuse, keeping its maps' storage.
func (s *scope) reset() {
	clear(s.syms)
	clear(s.prefixes)
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
		if d.Count >= 0 {
			if s.prefixes == nil {
				s.prefixes = map[string]symbol{}
			}
			p := sym
			p.count = int(d.Count)
			s.prefixes[d.Name.Name] = p
		} else {
			s.syms[d.Name.Name] = sym
		}
	}
	for _, x := range d.ExtraNames {
		s.add(x, sym)
	}
}

// lookup finds name in s or its parents: first as written, then as a
// parameterized register ("%r15" from "%r<16>").
func (s *scope) lookup(name string) (symbol, bool) {
	for ; s != nil; s = s.parent {
		if sym, ok := s.syms[name]; ok {
			return sym, true
		}
		if s.prefixes == nil {
			continue
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

// validIndex reports whether the decimal digits s name a register below
// count (no leading zeros, as in ptxas).
func validIndex(s string, count int) bool {
	if len(s) > 1 && s[0] == '0' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
		if n >= count {
			return false
		}
	}
	return true
}

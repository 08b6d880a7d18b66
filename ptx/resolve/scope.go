package resolve

// The symbol table is flat: one map per namespace from a name to the stack
// of its visible declarations, innermost last, and a log of declarations
// that closes a scope by popping what it pushed. A lookup is then one or
// two map accesses however deep the blocks nest.

type entry struct {
	sym   *Symbol
	depth int32
}

type namespace uint8

const (
	plainNames   namespace = iota // registers, variables, parameters
	countedNames                  // "%r<N>" declarations by prefix "%r"
	labelNames                    // labels and call prototypes
)

type logEntry struct {
	ns   namespace
	name string
}

type table struct {
	ns  [3]map[string][]entry
	log []logEntry

	// Lookups are cached by name. Every declaration and every closed
	// scope starts a new generation, which invalidates older entries; a
	// function body declares its registers first and then names each of
	// them many times, so most lookups take one map access instead of
	// one for plain names plus one per split of the trailing digits.
	cache      map[string]cachedLookup
	generation uint64
}

type cachedLookup struct {
	sym        *Symbol
	ok         bool
	generation uint64
}

// scope is one level of declarations: the module, a function's
// parameters, a block, or a call prototype's parameter list.
type scope struct {
	t      *table
	parent *scope
	depth  int32
	mark   int // length of t.log when the scope was opened
}

// newScope opens a scope inside parent (a new table when parent is nil).
// Scopes of one table must be closed innermost first.
func newScope(parent *scope) *scope {
	if parent == nil {
		t := &table{}
		for i := range t.ns {
			t.ns[i] = make(map[string][]entry)
		}
		t.cache = make(map[string]cachedLookup)
		return &scope{t: t}
	}
	return &scope{t: parent.t, parent: parent, depth: parent.depth + 1, mark: len(parent.t.log)}
}

// close removes the declarations of s.
func (s *scope) close() {
	t := s.t
	for i := len(t.log) - 1; i >= s.mark; i-- {
		l := t.log[i]
		m := t.ns[l.ns]
		if st := m[l.name]; len(st) > 1 {
			m[l.name] = st[:len(st)-1]
		} else {
			delete(m, l.name)
		}
	}
	if len(t.log) > s.mark {
		t.generation++
	}
	t.log = t.log[:s.mark]
}

func (s *scope) push(ns namespace, name string, sym *Symbol) {
	s.t.ns[ns][name] = append(s.t.ns[ns][name], entry{sym, s.depth})
	s.t.log = append(s.t.log, logEntry{ns, name})
	s.t.generation++
}

// local returns the declaration of name in namespace ns made in s itself.
func (s *scope) local(ns namespace, name string) *Symbol {
	if st := s.t.ns[ns][name]; len(st) > 0 && st[len(st)-1].depth == s.depth {
		return st[len(st)-1].sym
	}
	return nil
}

// declare adds name (a parameterized "%r<count>" declaration when count >=
// 0) and returns the clashing earlier symbol of this scope, if any: the
// same name, or for a plain name an element of a "%r<N>" of this scope
// ("%r1" after "%r<2>"; ptxas: "Duplicate definition").
func (s *scope) declare(name string, count int64, sym *Symbol) *Symbol {
	if count >= 0 {
		if prev := s.local(countedNames, name); prev != nil {
			return prev
		}
		s.push(countedNames, name, sym)
		return nil
	}
	if prev := s.local(plainNames, name); prev != nil {
		return prev
	}
	if prev, in, depth := s.lookupCounted(name); prev != nil && in && depth == s.depth {
		return prev
	}
	s.push(plainNames, name, sym)
	return nil
}

// declareLabel adds a label and returns the clashing label of this
// scope, if any.
func (s *scope) declareLabel(name string, sym *Symbol) *Symbol {
	if prev := s.local(labelNames, name); prev != nil {
		return prev
	}
	s.push(labelNames, name, sym)
	return nil
}

// lookupLabel finds the label name in s or its parents.
func (s *scope) lookupLabel(name string) *Symbol {
	if st := s.t.ns[labelNames][name]; len(st) > 0 {
		return st[len(st)-1].sym
	}
	return nil
}

// lookup finds name in s or its parents: the innermost plain declaration
// or "%r<N>" element in range. When there is none but name would be an
// element of a "%r<N>" beyond its range, it returns that declaration with
// ok false.
func (s *scope) lookup(name string) (sym *Symbol, ok bool) {
	t := s.t
	if c, hit := t.cache[name]; hit && c.generation == t.generation {
		return c.sym, c.ok
	}
	sym, ok = s.lookupUncached(name)
	t.cache[name] = cachedLookup{sym, ok, t.generation}
	return sym, ok
}

// lookupUncached is lookup without the cache.
func (s *scope) lookupUncached(name string) (sym *Symbol, ok bool) {
	depth := int32(-1)
	if st := s.t.ns[plainNames][name]; len(st) > 0 {
		e := st[len(st)-1]
		sym, ok, depth = e.sym, true, e.depth
	}
	c, in, cdepth := s.lookupCounted(name)
	switch {
	case in && cdepth > depth:
		return c, true
	case ok:
		return sym, true
	}
	return c, false
}

// lookupCounted matches name against the "%r<N>" declarations: "%r7" is
// element 7 of "%r". Indices are written without leading zeros. It returns
// the innermost declaration that has name in range (in true), or else one
// that would have it beyond its range.
func (s *scope) lookupCounted(name string) (sym *Symbol, in bool, depth int32) {
	counted := s.t.ns[countedNames]
	if len(counted) == 0 {
		return nil, false, -1
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	var outOfRange *Symbol
	best, bestDepth := (*Symbol)(nil), int32(-1)
	// Try every split of the trailing digits: "%p10" may be "%p"+10 or "%p1"+0.
	for j := i; j < len(name); j++ {
		digits := name[j:]
		if len(digits) > 1 && digits[0] == '0' {
			continue
		}
		st := counted[name[:j]]
		if len(st) == 0 {
			continue
		}
		idx, ok := parseIndex(digits)
		for k := len(st) - 1; k >= 0; k-- {
			if ok && idx < st[k].sym.Decl.Count {
				if st[k].depth > bestDepth {
					best, bestDepth = st[k].sym, st[k].depth
				}
				break
			}
			if outOfRange == nil {
				outOfRange = st[k].sym
			}
		}
	}
	if best != nil {
		return best, true, bestDepth
	}
	return outOfRange, false, -1
}

func parseIndex(s string) (int64, bool) {
	if len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}

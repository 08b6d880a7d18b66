package resolve

// scope is one level of declarations: the module, a function's
// parameters, or a block.
type scope struct {
	parent  *scope
	names   map[string]*Symbol
	counted map[string]*Symbol // "%r<N>" declarations by prefix "%r"
	labels  map[string]*Symbol // labels of a block
}

// lookupLabel finds the label name in s or its parents.
func (s *scope) lookupLabel(name string) *Symbol {
	for sc := s; sc != nil; sc = sc.parent {
		if l := sc.labels[name]; l != nil {
			return l
		}
	}
	return nil
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, names: make(map[string]*Symbol)}
}

// declare adds name (a parameterized "%r<count>" declaration when count >=
// 0) and returns the clashing earlier symbol of this scope, if any.
func (s *scope) declare(name string, count int64, sym *Symbol) *Symbol {
	if count >= 0 {
		if prev := s.counted[name]; prev != nil {
			return prev
		}
		if s.counted == nil {
			s.counted = make(map[string]*Symbol)
		}
		s.counted[name] = sym
		return nil
	}
	if prev := s.names[name]; prev != nil {
		return prev
	}
	if prev, _ := s.lookupCounted(name); prev != nil {
		return prev
	}
	s.names[name] = sym
	return nil
}

// lookupLocal finds name in this scope only. When name would be an element
// of a parameterized declaration but its index is too large, it returns
// that declaration with inRange false.
func (s *scope) lookupLocal(name string) (sym *Symbol, inRange bool) {
	if sym := s.names[name]; sym != nil {
		return sym, true
	}
	return s.lookupCounted(name)
}

// lookupCounted matches name against the "%r<N>" declarations: "%r7" is
// element 7 of "%r". Indices are written without leading zeros.
func (s *scope) lookupCounted(name string) (*Symbol, bool) {
	if len(s.counted) == 0 {
		return nil, false
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	var outOfRange *Symbol
	// Try every split of the trailing digits: "%p10" may be "%p"+10 or "%p1"+0.
	for j := i; j < len(name); j++ {
		digits := name[j:]
		if len(digits) > 1 && digits[0] == '0' {
			continue
		}
		sym := s.counted[name[:j]]
		if sym == nil {
			continue
		}
		if idx, ok := parseIndex(digits); ok && idx < sym.Decl.Count {
			return sym, true
		}
		if outOfRange == nil {
			outOfRange = sym
		}
	}
	return outOfRange, false
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

// lookup finds name in s or its parents.
func (s *scope) lookup(name string) (*Symbol, bool) {
	var outOfRange *Symbol
	for sc := s; sc != nil; sc = sc.parent {
		sym, ok := sc.lookupLocal(name)
		if ok {
			return sym, true
		}
		if sym != nil && outOfRange == nil {
			outOfRange = sym
		}
	}
	return outOfRange, false
}

package resolve

import "github.com/ptxkit/ptxkit/internal/word"

// The symbol table is flat: a stack of the visible declarations in the
// order they were made, which closes a scope by popping what it pushed,
// and per namespace a hash table whose buckets chain the declarations of
// the stack newest first. The innermost declaration of a name is the
// first one of its chain, however deep the blocks nest; declaring and
// dropping a name is a push and a pop; and a table reused for function
// after function allocates nothing once it has grown.
//
// In front of the table sits a cache of resolved names (see cache).

type namespace uint8

const (
	plainNames   namespace = iota // registers, variables, parameters
	countedNames                  // "%r<N>" declarations by prefix "%r"
	labelNames                    // labels and call prototypes
)

// entry is one declaration on the stack of a table.
type entry struct {
	name  string
	sym   *Symbol
	hash  uint32
	next  int32 // 1 + index of the next older declaration of the same bucket and namespace; 0 when none
	depth int32
	ns    namespace
}

type table struct {
	heads   [3][]int32 // per namespace and bucket: 1 + index of the newest declaration; 0 when none
	stack   []entry
	marks   []int32 // length of stack when each open scope was opened
	depth   int32   // depth of the innermost open scope; 0 for the outermost
	cache   cache
	counted int // number of counted declarations on the stack
	digital int // number of those whose prefix ends in a digit ("%r1" of "%r1<4>")

	// For countedElement: the stack indexes of the counted declarations,
	// oldest first, with their prefixes packed (internal/word), and the
	// number of plain declarations on the stack named like an element
	// ("%" ... digit).
	countedAt  []int32
	countedKey []uint64
	pctDigital int
}

const minBuckets = 256 // a power of two

// init prepares an empty table, with a cache when cached.
func (t *table) init(cached bool) {
	t.rehash(minBuckets)
	if cached {
		t.cache.slots = new([cacheSlots]cacheSlot)
	}
}

// rehash makes n buckets (a power of two) and chains the stack into them.
func (t *table) rehash(n int) {
	for ns := range t.heads {
		t.heads[ns] = make([]int32, n)
	}
	mask := uint32(n - 1)
	for i := range t.stack {
		e := &t.stack[i]
		head := &t.heads[e.ns][e.hash&mask]
		e.next, *head = *head, int32(i+1)
	}
}

// open opens a scope inside the innermost one.
func (t *table) open() {
	t.marks = append(t.marks, int32(len(t.stack)))
	t.depth++
}

// close removes the declarations of the innermost scope.
func (t *table) close() {
	mark := int(t.marks[len(t.marks)-1])
	t.marks = t.marks[:len(t.marks)-1]
	t.depth--
	mask := uint32(len(t.heads[0]) - 1)
	for i := len(t.stack) - 1; i >= mark; i-- {
		e := &t.stack[i]
		t.heads[e.ns][e.hash&mask] = e.next
		if e.ns == countedNames {
			t.counted--
			t.digital -= endsInDigit(e.name)
			t.countedAt, t.countedKey = t.countedAt[:len(t.countedAt)-1], t.countedKey[:len(t.countedKey)-1]
			t.cache.invalidate()
		} else {
			t.pctDigital -= elementLike(e.ns, e.name)
			t.cache.forget(e.name, e.hash)
		}
	}
	clear(t.stack[mark:]) // keep no reference to the closed declarations
	t.stack = t.stack[:mark]
}

func (t *table) push(ns namespace, name string, h uint32, sym *Symbol) {
	if len(t.stack) >= 2*len(t.heads[0]) {
		t.rehash(4 * len(t.heads[0]))
	}
	head := &t.heads[ns][h&uint32(len(t.heads[ns])-1)]
	t.stack = append(t.stack, entry{name: name, sym: sym, hash: h, next: *head, depth: t.depth, ns: ns})
	*head = int32(len(t.stack))
	if ns == countedNames {
		t.counted++
		t.digital += endsInDigit(name)
		t.countedAt = append(t.countedAt, int32(len(t.stack)-1))
		t.countedKey = append(t.countedKey, word.Pack(name))
		t.cache.invalidate() // "%r<N>" changes what "%r0", "%r1", ... resolve to
	} else {
		t.pctDigital += elementLike(ns, name)
		t.cache.forget(name, h)
	}
}

// elementLike returns 1 when a declaration of name in namespace ns could
// be taken for an element of a "%r<N>" ("%r5"), else 0.
func elementLike(ns namespace, name string) int {
	if ns == plainNames && len(name) > 1 && name[0] == '%' {
		return endsInDigit(name)
	}
	return 0
}

// countedElement resolves a name like "%r15" to the "%r<N>" it is an
// element of without hashing, when nothing else could be meant: no plain
// declaration is named like an element and no counted prefix ends in a
// digit (then the name splits one way). It returns false when name must
// be looked up the general way: not such a name, a leading zero, no
// declaration of its prefix, or an index out of every range (which lookup
// reports).
func (t *table) countedElement(name string) (*Symbol, bool) {
	n := len(name)
	if t.counted == 0 || t.digital != 0 || t.pctDigital != 0 || n < 2 || name[0] != '%' {
		return nil, false
	}
	i := n
	for i > 1 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == n || n-i > 18 || n-i > 1 && name[i] == '0' {
		return nil, false
	}
	idx, _ := parseIndex(name[i:])
	prefix := name[:i]
	k := word.Pack(prefix)
	for j := len(t.countedAt) - 1; j >= 0; j-- {
		if t.countedKey[j] != k {
			continue
		}
		e := &t.stack[t.countedAt[j]]
		if len(e.name) == len(prefix) && (len(prefix) <= 8 || e.name == prefix) && idx < e.sym.Decl.Count {
			return e.sym, true
		}
	}
	return nil, false
}

// endsInDigit returns 1 when name ends in a decimal digit, else 0.
func endsInDigit(name string) int {
	if n := len(name); n > 0 && name[n-1] >= '0' && name[n-1] <= '9' {
		return 1
	}
	return 0
}

// top returns the innermost declaration of name, of hash h, in namespace
// ns, or nil.
func (t *table) top(ns namespace, name string, h uint32) *entry {
	heads := t.heads[ns]
	return t.chain(heads[h&uint32(len(heads)-1)], name, h)
}

// chain returns the first declaration of name, of hash h, in the chain
// starting at link (1 + a stack index), or nil.
func (t *table) chain(link int32, name string, h uint32) *entry {
	for link != 0 {
		e := &t.stack[link-1]
		if e.hash == h && e.name == name {
			return e
		}
		link = e.next
	}
	return nil
}

// local returns the declaration of name in namespace ns made in the
// innermost scope itself.
func (t *table) local(ns namespace, name string, h uint32) *Symbol {
	if e := t.top(ns, name, h); e != nil && e.depth == t.depth {
		return e.sym
	}
	return nil
}

// declare adds name (a parameterized "%r<count>" declaration when count >=
// 0) to the innermost scope and returns the clashing earlier symbol of
// this scope, if any: the same name, or for a plain name an element of a
// "%r<N>" of this scope ("%r1" after "%r<2>"; ptxas: "Duplicate
// definition").
func (t *table) declare(name string, h uint32, count int64, sym *Symbol) *Symbol {
	if count >= 0 {
		if prev := t.local(countedNames, name, h); prev != nil {
			return prev
		}
		t.push(countedNames, name, h, sym)
		return nil
	}
	if prev := t.local(plainNames, name, h); prev != nil {
		return prev
	}
	if prev, in, depth := t.lookupCounted(name); prev != nil && in && depth == t.depth {
		return prev
	}
	t.push(plainNames, name, h, sym)
	return nil
}

// declareLabel adds a label to the innermost scope and returns the
// clashing label of this scope, if any.
func (t *table) declareLabel(name string, sym *Symbol) *Symbol {
	h := hash(name)
	if prev := t.local(labelNames, name, h); prev != nil {
		return prev
	}
	t.push(labelNames, name, h, sym)
	return nil
}

// lookupLabel finds the visible label name, of hash h.
func (t *table) lookupLabel(name string, h uint32) *Symbol {
	if e := t.top(labelNames, name, h); e != nil {
		return e.sym
	}
	return nil
}

// lookup finds the innermost visible plain declaration or "%r<N>" element
// in range called name, of hash h. When there is none but name would be
// an element of a "%r<N>" beyond its range, it returns that declaration
// with ok false.
func (t *table) lookup(name string, h uint32) (sym *Symbol, ok bool) {
	depth := int32(-1)
	if e := t.top(plainNames, name, h); e != nil {
		sym, ok, depth = e.sym, true, e.depth
	}
	c, in, cdepth := t.lookupCounted(name)
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
func (t *table) lookupCounted(name string) (sym *Symbol, in bool, depth int32) {
	if t.counted == 0 {
		return nil, false, -1
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	var outOfRange *Symbol
	best, bestDepth := (*Symbol)(nil), int32(-1)
	// Try every split of the trailing digits: "%p10" may be "%p"+10 or
	// "%p1"+0, but only the first when no prefix ends in a digit.
	end := len(name)
	if t.digital == 0 {
		end = min(end, i+1)
	}
	for j := i; j < end; j++ {
		digits := name[j:]
		if len(digits) > 1 && digits[0] == '0' {
			continue
		}
		prefix := name[:j]
		ph := hash(prefix)
		e := t.top(countedNames, prefix, ph)
		if e == nil {
			continue
		}
		idx, ok := parseIndex(digits)
		// The declarations of prefix, innermost first.
		for ; e != nil; e = t.chain(e.next, prefix, ph) {
			if ok && idx < e.sym.Decl.Count {
				if e.depth > bestDepth {
					best, bestDepth = e.sym, e.depth
				}
				break
			}
			if outOfRange == nil {
				outOfRange = e.sym
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

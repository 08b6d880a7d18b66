package resolve

// The symbol table is flat: one map per namespace from a name to its
// innermost visible declaration, each declaration linking to the one it
// shadows, and a stack of declarations in the order they were made that
// closes a scope by popping what it pushed. A lookup is then at most one
// map access per namespace however deep the blocks nest, and a table
// reused for function after function allocates nothing once its maps and
// stack have grown.
//
// Names are hashed into buckets. Each namespace counts its declarations
// per bucket, so that most lookups of names that are not declared
// (special registers, "%r7" tried as a plain name, "%r" tried as "%r7"'s
// prefix "%r7") skip the map; and a cache of resolved names, one slot per
// bucket, answers most uses with one hash and one string comparison.

type namespace uint8

const (
	plainNames   namespace = iota // registers, variables, parameters
	countedNames                  // "%r<N>" declarations by prefix "%r"
	labelNames                    // labels and call prototypes
)

// buckets is the number of hash buckets, a power of two.
const buckets = 1024

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// fnv extends the FNV-1a hash h with the bytes of s.
func fnv(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

// bucketOf folds the hash h, so that the low bits see the high ones, into a
// bucket.
func bucketOf(h uint32) uint32 { return (h ^ h>>16) & (buckets - 1) }

// bucket returns the bucket of name.
func bucket(name string) uint32 { return bucketOf(fnv(fnvOffset, name)) }

// entry is one declaration on the stack of a table.
type entry struct {
	name   string
	sym    *Symbol
	prev   int32 // index of the declaration of the same name that this one shadows; -1 when none
	depth  int32
	bucket uint32
	ns     namespace
}

type table struct {
	ns      [3]map[string]int32 // name -> index in stack of its innermost declaration
	count   [3][]int32          // declarations per bucket
	stack   []entry
	marks   []int32 // length of stack when each open scope was opened
	depth   int32   // depth of the innermost open scope; 0 for the outermost
	cache   cache
	counted int // number of counted declarations on the stack
}

func newTable() *table {
	t := &table{}
	for i := range t.ns {
		t.ns[i] = make(map[string]int32)
		t.count[i] = make([]int32, buckets)
	}
	return t
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
	for i := len(t.stack) - 1; i >= mark; i-- {
		e := &t.stack[i]
		if e.prev >= 0 {
			t.ns[e.ns][e.name] = e.prev
		} else {
			delete(t.ns[e.ns], e.name)
		}
		t.count[e.ns][e.bucket]--
		if e.ns == countedNames {
			t.counted--
			t.cache.invalidate()
		} else {
			t.cache.forget(e.name, e.bucket)
		}
	}
	clear(t.stack[mark:]) // keep no reference to the closed declarations
	t.stack = t.stack[:mark]
}

func (t *table) push(ns namespace, name string, b uint32, sym *Symbol) {
	prev, ok := t.ns[ns][name]
	if !ok {
		prev = -1
	}
	t.ns[ns][name] = int32(len(t.stack))
	t.stack = append(t.stack, entry{name: name, sym: sym, prev: prev, depth: t.depth, bucket: b, ns: ns})
	t.count[ns][b]++
	if ns == countedNames {
		t.counted++
		t.cache.invalidate() // "%r<N>" changes what "%r0", "%r1", ... resolve to
	} else {
		t.cache.forget(name, b)
	}
}

// top returns the innermost declaration of name, of bucket b, in
// namespace ns, or nil.
func (t *table) top(ns namespace, name string, b uint32) *entry {
	if t.count[ns][b] == 0 {
		return nil
	}
	if i, ok := t.ns[ns][name]; ok {
		return &t.stack[i]
	}
	return nil
}

// local returns the declaration of name in namespace ns made in the
// innermost scope itself.
func (t *table) local(ns namespace, name string, b uint32) *Symbol {
	if e := t.top(ns, name, b); e != nil && e.depth == t.depth {
		return e.sym
	}
	return nil
}

// declare adds name (a parameterized "%r<count>" declaration when count >=
// 0) to the innermost scope and returns the clashing earlier symbol of
// this scope, if any: the same name, or for a plain name an element of a
// "%r<N>" of this scope ("%r1" after "%r<2>"; ptxas: "Duplicate
// definition").
func (t *table) declare(name string, count int64, sym *Symbol) *Symbol {
	b := bucket(name)
	if count >= 0 {
		if prev := t.local(countedNames, name, b); prev != nil {
			return prev
		}
		t.push(countedNames, name, b, sym)
		return nil
	}
	if prev := t.local(plainNames, name, b); prev != nil {
		return prev
	}
	if prev, in, depth := t.lookupCounted(name); prev != nil && in && depth == t.depth {
		return prev
	}
	t.push(plainNames, name, b, sym)
	return nil
}

// declareLabel adds a label to the innermost scope and returns the
// clashing label of this scope, if any.
func (t *table) declareLabel(name string, sym *Symbol) *Symbol {
	b := bucket(name)
	if prev := t.local(labelNames, name, b); prev != nil {
		return prev
	}
	t.push(labelNames, name, b, sym)
	return nil
}

// lookupLabel finds the visible label name, of bucket b.
func (t *table) lookupLabel(name string, b uint32) *Symbol {
	if e := t.top(labelNames, name, b); e != nil {
		return e.sym
	}
	return nil
}

// lookup finds the innermost visible plain declaration or "%r<N>" element
// in range called name, of bucket b. When there is none but name would be
// an element of a "%r<N>" beyond its range, it returns that declaration
// with ok false.
func (t *table) lookup(name string, b uint32) (sym *Symbol, ok bool) {
	depth := int32(-1)
	if e := t.top(plainNames, name, b); e != nil {
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
	h := fnv(fnvOffset, name[:i]) // the hash of the prefix name[:j]
	// Try every split of the trailing digits: "%p10" may be "%p"+10 or "%p1"+0.
	for j := i; j < len(name); j++ {
		if j > i {
			h = (h ^ uint32(name[j-1])) * fnvPrime
		}
		digits := name[j:]
		if len(digits) > 1 && digits[0] == '0' {
			continue
		}
		e := t.top(countedNames, name[:j], bucketOf(h))
		if e == nil {
			continue
		}
		idx, ok := parseIndex(digits)
		for {
			if ok && idx < e.sym.Decl.Count {
				if e.depth > bestDepth {
					best, bestDepth = e.sym, e.depth
				}
				break
			}
			if outOfRange == nil {
				outOfRange = e.sym
			}
			if e.prev < 0 {
				break
			}
			e = &t.stack[e.prev]
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

// cache remembers what names resolved to, one slot per bucket, so that
// the many uses of a register cost one hash of its few bytes and one
// string comparison. A name that shares its bucket with another one is
// simply looked up again.
//
// Declaring or dropping a name forgets that name. Declaring or dropping a
// "%r<N>", and each module-level statement, starts a new generation, which
// invalidates all older slots. A function body declares its registers
// first and then names each of them many times, so most uses hit.
type cache struct {
	slots      []cacheSlot
	generation uint64
	dirty      []uint32 // slots filled since the last scrub
}

type cacheSlot struct {
	name       string
	sym        *Symbol
	generation uint64 // 0: forgotten
}

func (c *cache) invalidate() { c.generation++ }

// forget invalidates what name, of bucket b, resolved to.
func (c *cache) forget(name string, b uint32) {
	if c.slots == nil {
		return
	}
	if s := &c.slots[b]; s.name == name {
		s.generation = 0
	}
}

// get returns the symbol cached for name, of bucket b, or nil.
func (c *cache) get(name string, b uint32) *Symbol {
	if c.slots == nil {
		c.slots = make([]cacheSlot, buckets)
		c.generation++ // never 0
	}
	s := &c.slots[b]
	if s.generation == c.generation && s.name == name {
		return s.sym
	}
	return nil
}

// put caches sym for name, of bucket b; get has been called before.
func (c *cache) put(name string, b uint32, sym *Symbol) {
	s := &c.slots[b]
	if s.sym == nil {
		c.dirty = append(c.dirty, b)
	}
	*s = cacheSlot{name: name, sym: sym, generation: c.generation}
}

// scrub empties the slots filled since the last scrub, so that the cache
// keeps no reference to the symbols and names of a finished function.
func (c *cache) scrub() {
	for _, i := range c.dirty {
		c.slots[i] = cacheSlot{}
	}
	c.dirty = c.dirty[:0]
	c.generation++
}

package check

import (
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The same opcode and qualifiers ("st.global.v4.f32") recur thousands of
// times in a module, and what the tables make of them depends only on the
// spellings and on the module's version and target. decodeCache keeps the
// decoded form and its problems per spelling sequence, so that an
// instruction seen before costs one map lookup; positions are attached
// per instruction, from the problems' qualifier indexes.

// decoded is what the tables make of one opcode and qualifier sequence
// under the current version and target.
type decoded struct {
	desc  *isa.Instr    // the instruction's table, or nil
	form  isa.Form      // the decoded form when desc is set; form.Quals is owned
	probs []isa.Problem // decoding and gating problems, or the family gate's when desc is nil

	slots []isa.Operand // form.Operands()
	typed bool          // the value operand is checked against form.Type (see operands)
}

const (
	maxCached      = 1 << 12 // entries before the cache starts over
	maxCachedQuals = 16      // longer sequences are decoded every time
)

// decodeCache maps an opcode and its qualifier spellings to their
// decoding, in an open-addressed table of at most maxCached entries (then
// it starts over). Its keys are its own copies; it refers to no syntax
// node. The hash samples each spelling (length and three bytes) and
// entries are compared in full; probe sequences longer than maxProbe are
// not cached, so that no input makes a lookup slow.
type decodeCache struct {
	slots []cacheSlot // a power of two long; at most half full
	n     int
}

type cacheSlot struct {
	key  []string // opcode, then qualifiers
	hash uint64
	d    *decoded
}

const maxProbe = 8

func (dc *decodeCache) reset() {
	clear(dc.slots)
	dc.n = 0
}

// decode returns the decoding of in's opcode and qualifiers. The result
// is shared: callers must not modify it.
func (c *checker) decode(in *ast.Instruction) *decoded {
	if len(in.Quals) > maxCachedQuals {
		c.decodeInto(&c.scratch, in)
		return &c.scratch
	}
	dc := &c.cache
	h := (k0 ^ sample(in.Opcode)) * 0x9e3779b97f4a7c15
	for i := range in.Quals {
		h = (h ^ sample(in.Quals[i].Name)) * 0x9e3779b97f4a7c15
	}
	h = mix(h, len(in.Quals))
	d, ok := dc.get(in, h)
	if d != nil {
		return d
	}
	if !ok {
		c.decodeInto(&c.scratch, in)
		return &c.scratch
	}
	d = &decoded{}
	c.decodeInto(d, in)
	d.form.Quals = d.form.Quals[:len(d.form.Quals):len(d.form.Quals)]
	d.probs = d.probs[:len(d.probs):len(d.probs)]
	key := make([]string, 0, 1+len(in.Quals))
	key = append(key, strings.Clone(in.Opcode))
	for _, q := range in.Quals {
		key = append(key, strings.Clone(q.Name))
	}
	dc.put(cacheSlot{key: key, hash: h, d: d})
	return d
}

// sample packs the length and three bytes of a spelling.
func sample(s string) uint64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	return uint64(n) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16 | uint64(s[min(1, n-1)])<<24
}

// get returns the entry of in's spellings, or nil and whether in may be
// added.
func (dc *decodeCache) get(in *ast.Instruction, h uint64) (*decoded, bool) {
	if dc.n == 0 {
		return nil, true
	}
	mask := uint64(len(dc.slots) - 1)
	i := h & mask
	for probe := 0; dc.slots[i].d != nil; probe++ {
		if probe == maxProbe {
			return nil, false
		}
		if s := &dc.slots[i]; s.hash == h && sameSpelling(s.key, in) {
			return s.d, true
		}
		i = (i + 1) & mask
	}
	return nil, true
}

func sameSpelling(key []string, in *ast.Instruction) bool {
	if len(key) != 1+len(in.Quals) || key[0] != in.Opcode {
		return false
	}
	for i := range in.Quals {
		if key[1+i] != in.Quals[i].Name {
			return false
		}
	}
	return true
}

// put adds an entry that is not in the cache, growing it (from 32
// slots) or, at maxCached entries, emptying it first.
func (dc *decodeCache) put(e cacheSlot) {
	if dc.n >= maxCached {
		dc.reset()
	}
	if 2*(dc.n+1) > len(dc.slots) {
		old := dc.slots
		dc.slots = make([]cacheSlot, max(32, 2*len(old)))
		dc.n = 0
		for _, s := range old {
			if s.d != nil {
				dc.insert(s)
			}
		}
	}
	dc.insert(e)
}

func (dc *decodeCache) insert(e cacheSlot) {
	mask := uint64(len(dc.slots) - 1)
	i := e.hash & mask
	for dc.slots[i].d != nil {
		i = (i + 1) & mask
	}
	dc.slots[i] = e
	dc.n++
}

// decodeInto decodes in into d, reusing d's buffers: with a table, the
// qualifier slots, the table's rules and the version and target gates;
// without one, the family gate.
func (c *checker) decodeInto(d *decoded, in *ast.Instruction) {
	names := c.names[:0]
	for _, q := range in.Quals {
		names = append(names, q.Name)
	}
	c.names = names
	quals := isa.LookupQuals(names, d.form.Quals)
	desc := isa.SelectQuals(in.Opcode, quals)
	fam, parts := isa.FamilyOf(in.Opcode, names)
	if desc == nil || (fam != nil && parts > strings.Count(desc.Name, ".")+1) {
		d.desc, d.slots, d.typed = nil, nil, false
		d.form.Quals = quals
		d.probs = d.probs[:0]
		if fam != nil {
			d.probs = fam.Check(c.version, c.target, d.probs)
		}
		return
	}
	d.desc = desc
	f := &d.form
	probs := isa.DecodeQuals(f, desc, names, quals, d.probs[:0])
	d.probs = isa.Gate(f, c.version, c.target, probs)
	d.slots = f.Operands()
	d.typed = f.Type != isa.QNone && !f.Rejected(isa.GVec) && !f.Rejected(isa.GType)
}

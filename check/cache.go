package check

import (
	"math/bits"
	"strings"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/word"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The same opcode and qualifiers ("st.global.v4.f32") recur thousands of
// times in a module, and what the tables make of them depends only on the
// spellings and on the module's version and target. decodeCache keeps the
// decoded form and its problems per spelling sequence, so that an
// instruction seen before costs one table lookup; positions are attached
// per instruction, from the problems' qualifier indexes.

// decoded is what the tables make of one opcode and qualifier sequence
// under the current version and target.
//
// The fields every instruction reads come first, in the order the
// validator reads them, so that they share one or two cache lines: the
// records of a module's few dozen spellings are read in turn, between
// the parser's writes of fresh nodes, and a record spread over five lines
// missed the first-level cache on most of them.
type decoded struct {
	// op is the decoding against the forms of data/instructions.txt
	// when desc is nil.
	op    isa.OpDecode
	probs []isa.Problem // decoding and gating problems, or the family gate's when desc is nil

	desc  *isa.Instr      // the instruction's table, or nil
	video isa.VideoFamily // the video family of the opcode, or isa.NotVideo

	// opRejected reports a qualifier problem of op, so that operand
	// checks (which depend on the chosen form) stay quiet.
	opRejected bool

	// clean holds the last nclean (up to cleanSigs) operand signatures
	// found clean (formOperands); the next one goes to clean[cleanNext].
	nclean    uint8
	cleanNext uint8
	policy    bool     // op.Form's last operand is a cache policy (policyOperand)
	origin    originOp // what the instruction does to an address's space (trackOrigin)
	typed     bool     // the value operand is checked against form.Type (see operands)
	// cvtNarrowing: the decoding is one whose destination must be a
	// 32-bit register (cvtNarrowingDst).
	cvtNarrowing bool
	clean        [cleanSigs]regSig
	minOps       int      // op.Form.MinOperands()
	opTypes      []opType // the type of each operand of op.Form (wantType)
	vec          int      // the .v2/.v4 length of op, or 1

	name  string        // the dotted spelling it was cached by (decodeCache.byName), or ""
	form  isa.Form      // the decoded form when desc is set; form.Quals is owned
	slots []isa.Operand // form.Operands()

	// sourceOK[v] has bit t set when a register of type t may be stored
	// with form.Type, outside (v = 0) or inside (v = 1) a vector
	// (checkType).
	sourceOK [2][2]uint64
}

const (
	maxCached      = 1 << 12 // entries before the cache starts over
	maxCachedQuals = 16      // longer sequences are decoded every time
)

// decodeCache maps an opcode and its qualifier spellings to their
// decoding, in an open-addressed table of at most maxCached entries (then
// it starts over). Its keys are its own copies; it refers to no syntax
// node. A key is a word per spelling (pack) and a word per eight
// spellings holding their lengths: for spellings of up to 8 bytes this
// is exact, so that comparing keys compares integers; longer spellings
// are also compared as strings. Probe sequences longer than maxProbe are
// not cached, so that no input makes a lookup slow.
type decodeCache struct {
	slots []cacheSlot // a power of two long; at most half full
	n     int
	words []uint64 // the key being looked up

	// byName maps the dotted spelling ("add.s32") of instructions whose
	// opcode and qualifiers are written without blanks, as nearly all are
	// and as the source holds them in one piece, to the same decodings:
	// one string hash instead of a key per qualifier.
	byName map[string]*decoded

	// recent is a two-way set-associative cache in front of byName,
	// indexed by a few bytes and the length of the name, so that the
	// instructions a function repeats cost a comparison of two words.
	// Two ways: with one, two spellings of a module that met in a slot
	// (three pairs among the 38 of the benchmark module) evicted each
	// other at every use and went to the map.
	recent [recentSlots]recentSlot
}

const recentSlots = 256 // a power of two: 128 sets of two; a module repeats a few dozen spellings

type recentSlot struct {
	a, b uint64 // the packed first and last eight bytes of name (recentKey)
	name string
	d    *decoded
}

// recentKey returns the packed first and last eight bytes of a dotted
// name and the recent slot it goes to (a multiplicative hash of them and
// the length). With the length, the two words are the name itself up to
// 16 bytes, so that a hit on such a name compares two words, not strings.
func recentKey(s string) (a, b uint64, slot int) {
	n := len(s)
	a = word.Pack(s[:min(n, 8)])
	if n > 8 {
		b = word.Pack(s[max(n-8, 8):])
	}
	h := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ uint64(n)*0x165667b19e3779f9
	return a, b, int(h>>(64-7)) * 2 // the first way of one of recentSlots/2 = 2^7 sets
}

// holds reports whether slot r holds name, of key a, b.
func (r *recentSlot) holds(name string, a, b uint64) bool {
	return r.a == a && r.b == b && len(r.name) == len(name) && (len(name) <= 16 || r.name == name)
}

type cacheSlot struct {
	key  []uint64
	long []string // the spellings longer than 8 bytes, in order
	hash uint64
	d    *decoded
}

const maxProbe = 8

func (dc *decodeCache) reset() {
	clear(dc.slots)
	dc.n = 0
	clear(dc.byName)
	dc.recent = [recentSlots]recentSlot{}
}

// dottedName returns the opcode and qualifiers of in as one string when
// they lie next to each other in the source ("st.global.u32").
func dottedName(in *ast.Instruction) (string, bool) {
	if len(in.Opcode) == 0 {
		return "", false
	}
	p := unsafe.StringData(in.Opcode)
	n := len(in.Opcode)
	for i := range in.Quals {
		q := in.Quals[i].Name
		if len(q) == 0 || unsafe.StringData(q) != (*byte)(unsafe.Add(unsafe.Pointer(p), n)) {
			return "", false
		}
		n += len(q)
	}
	return unsafe.String(p, n), true
}

// decode returns the decoding of in's opcode and qualifiers. The result
// is shared: callers must not modify it.
func (c *checker) decode(in *ast.Instruction) *decoded {
	dc := &c.cache
	name, whole := dottedName(in)
	var r *recentSlot
	var ka, kb uint64
	if whole {
		var slot int
		ka, kb, slot = recentKey(name)
		r = &dc.recent[slot]
		if r.holds(name, ka, kb) {
			return r.d
		}
		if w := &dc.recent[slot+1]; w.holds(name, ka, kb) {
			return w.d
		}
		dc.recent[slot+1] = *r // the first way takes the newest
		if d := dc.byName[name]; d != nil {
			*r = recentSlot{ka, kb, d.name, d}
			return d
		}
	}
	d := c.decodeSlow(in)
	if whole && d != &c.scratch {
		if dc.byName == nil || len(dc.byName) >= maxCached {
			dc.byName = make(map[string]*decoded)
			dc.recent = [recentSlots]recentSlot{}
		}
		d.name = strings.Clone(name)
		dc.byName[d.name] = d
		*r = recentSlot{ka, kb, d.name, d}
	}
	return d
}

// decodeSlow is decode by the qualifier spellings one by one.
func (c *checker) decodeSlow(in *ast.Instruction) *decoded {
	dc := &c.cache
	ws, long, ok := dc.key(in)
	if !ok {
		c.decodeInto(&c.scratch, in)
		return &c.scratch
	}
	h := word.Mix(ws[0] + uint64(len(ws)))
	for _, w := range ws[1:] {
		h = bits.RotateLeft64(h, 23) ^ w
	}
	h = word.Mix(h + uint64(len(ws)))
	d, ok := dc.get(ws, long, in, h)
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
	e := cacheSlot{key: append([]uint64(nil), ws...), hash: h, d: d}
	if long {
		for _, s := range spellings(in) {
			if len(s) > 8 {
				e.long = append(e.long, strings.Clone(s))
			}
		}
	}
	dc.put(e)
	return d
}

// key builds the key of in's spellings in dc.words; long reports a
// spelling longer than 8 bytes. It fails for more than maxCachedQuals
// qualifiers or a spelling of 256 bytes or more.
func (dc *decodeCache) key(in *ast.Instruction) (ws []uint64, long, ok bool) {
	if len(in.Quals) > maxCachedQuals || len(in.Opcode) > 255 {
		return nil, false, false
	}
	if cap(dc.words) < 2*(maxCachedQuals+1) {
		dc.words = make([]uint64, 2*(maxCachedQuals+1))
	}
	ws = dc.words[:cap(dc.words)]
	ws[0] = word.Pack(in.Opcode)
	k := 1
	lens := uint64(len(in.Opcode))
	long = len(in.Opcode) > 8
	j := 1 // the byte of lens for the next spelling
	for i := range in.Quals {
		name := in.Quals[i].Name
		n := len(name)
		if n > 255 {
			return nil, false, false
		}
		long = long || n > 8
		ws[k] = word.Pack(name)
		k++
		if j == 8 {
			ws[k] = lens
			k++
			lens, j = 0, 0
		}
		lens |= uint64(n) << (8 * j)
		j++
	}
	ws[k] = lens
	return ws[:k+1], long, true
}

// spellings returns the opcode and qualifiers of in, in order.
func spellings(in *ast.Instruction) []string {
	l := make([]string, 0, 1+len(in.Quals))
	l = append(l, in.Opcode)
	for _, q := range in.Quals {
		l = append(l, q.Name)
	}
	return l
}

// get returns the entry of key (with spellings longer than 8 bytes when
// long), or nil and whether in may be added.
func (dc *decodeCache) get(key []uint64, long bool, in *ast.Instruction, h uint64) (*decoded, bool) {
	if dc.n == 0 {
		return nil, true
	}
	mask := uint64(len(dc.slots) - 1)
	i := slotOf(h, mask)
	for probe := 0; dc.slots[i].d != nil; probe++ {
		if probe == maxProbe {
			return nil, false
		}
		if s := &dc.slots[i]; s.hash == h && equalWords(s.key, key) && (!long || sameLong(s.long, in)) {
			return s.d, true
		}
		i = (i + 1) & mask
	}
	return nil, true
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameLong reports whether the spellings of in longer than 8 bytes are
// long, in order.
func sameLong(long []string, in *ast.Instruction) bool {
	j := 0
	if len(in.Opcode) > 8 {
		if j >= len(long) || long[j] != in.Opcode {
			return false
		}
		j++
	}
	for _, q := range in.Quals {
		if len(q.Name) > 8 {
			if j >= len(long) || long[j] != q.Name {
				return false
			}
			j++
		}
	}
	return j == len(long)
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

// slotOf returns the first slot to probe for hash h (of word.Mix, whose
// high half is the better mixed) in a table of mask+1 slots.
func slotOf(h, mask uint64) uint64 { return h >> 32 & mask }

func (dc *decodeCache) insert(e cacheSlot) {
	mask := uint64(len(dc.slots) - 1)
	i := slotOf(e.hash, mask)
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
	d.origin = originOpOf(in.Opcode)
	d.video = isa.VideoFamilyOf(in.Opcode)
	names := c.names[:0]
	for _, q := range in.Quals {
		names = append(names, q.Name)
	}
	c.names = names
	quals := isa.LookupQuals(names, d.form.Quals)
	desc, fam := isa.SelectInstr(in.Opcode, names, quals)
	if desc == nil {
		d.desc, d.slots, d.typed = nil, nil, false
		d.form.Quals = quals
		d.probs = d.probs[:0]
		if fam != nil {
			d.probs = fam.Check(c.version, c.target, d.probs)
		}
		c.decodeOp(d, in, names, quals, fam != nil)
		return
	}
	d.desc = desc
	f := &d.form
	probs := isa.DecodeQuals(f, desc, names, quals, d.probs[:0])
	d.probs = isa.Gate(f, c.version, c.target, probs)
	d.slots = f.Operands()
	d.typed = f.Type != isa.QNone && !f.Rejected(isa.GVec) && !f.Rejected(isa.GType)
	d.sourceOK = [2][2]uint64{}
	if f.Type != isa.QNone {
		for v := range 2 {
			for t := isa.Qual(1); t < 128 && t.String() != "?"; t++ {
				if sourceOK(f, t, v == 1) {
					d.sourceOK[v][t/64] |= 1 << (t % 64)
				}
			}
		}
	}
}

// dropRepeated removes from probs[m:] the problems at the opcode whose
// rule probs[n:m] already reports at the opcode.
func dropRepeated(probs []isa.Problem, n, m int) []isa.Problem {
	out := probs[:m]
	for _, p := range probs[m:] {
		dup := false
		for _, q := range probs[n:m] {
			dup = dup || p.Qual < 0 && q.Qual < 0 && p.Rule == q.Rule
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// decodeOp decodes an instruction outside the store tables against the
// forms of its opcode and gates the chosen form, unless a family gate
// already decided the version and target.
func (c *checker) decodeOp(d *decoded, in *ast.Instruction, names []string, quals []isa.Qual, gated bool) {
	n := len(d.probs)
	d.opRejected = false
	nops := -1
	if c.nops > 0 {
		nops = c.nops
	}
	d.probs = isa.DecodeOpFor(in.Opcode, names, quals, nops, c.version, c.target, &d.op, d.probs)
	for _, p := range d.probs[n:] {
		d.opRejected = d.opRejected || !p.Warning
	}
	if !d.opRejected {
		m := len(d.probs)
		d.probs = isa.GateOp(&d.op, c.version, c.target, d.probs)
		if gated { // the family gate reported the opcode's own version and target
			d.probs = dropRepeated(d.probs, 0, m)
		}
	}
	d.vec = vecLen(&d.op)
	d.minOps = 0
	if d.op.Form != nil {
		d.minOps = d.op.Form.MinOperands()
	}
	d.opTypes = d.opTypes[:0]
	d.nclean, d.cleanNext = 0, 0
	d.policy = false
	d.cvtNarrowing = cvtNarrowing(&d.op)
	if f := d.op.Form; f != nil {
		last := len(f.Operands) - 1
		d.policy = last >= 0 && f.Operands[last].Name == "pol"
		for i := range f.Operands {
			t, bits := wantType(&d.op, &f.Operands[i])
			d.opTypes = append(d.opTypes, opType{t, bits})
		}
	}
}

// operandsFit reports whether an instruction of n operands fits form f
// (or there is no form to fit).
func operandsFit(f *isa.OpForm, n int) bool {
	return f == nil || f.AnyOperands || n >= f.MinOperands() && n <= len(f.Operands)
}

// decodeCounted decodes in again choosing among the forms by its operand
// count too: the cached decoding is by the qualifiers alone, and an opcode
// may have forms that differ only in their operands (min.f32 with two or,
// from PTX ISA 8.8, three sources). Rare, so not cached.
func (c *checker) decodeCounted(in *ast.Instruction) *decoded {
	c.nops = len(in.Operands)
	c.decodeInto(&c.counted, in)
	c.nops = 0
	return &c.counted
}

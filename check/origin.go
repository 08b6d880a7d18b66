package check

import (
	"github.com/ptxkit/ptxkit/internal/word"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// This file tracks, within a function, which state space the address in a
// register belongs to, from the instructions that make addresses:
//
//	cvta.to.global.u64 %rd2, %rd1;       // %rd2 is a .global address
//	cvta.shared.u64    %rd3, %rd4;       // %rd3 is a generic address
//	mapa.shared::cluster.u32 %r2, %r1, 1 // %r2 is a .shared::cluster address
//	add.s64 %rd5, %rd2, %rd6;            // %rd5 keeps %rd2's space
//
// A store through such a register in another space is legal PTX but
// almost always a bug (PTX ISA §6.4.1.1, §9.7.9.20 cvta, §9.7.9.23 mapa),
// so it gets a warning. A register written by anything else loses its
// space. The tracking follows the text, not the control flow.

// originTable maps register names to the space of the address they
// hold; QNone means none (a register that lost its space keeps its entry
// with QNone, which costs less than removing it). Most instructions write
// a register that never held an address: lens (a bit per name length)
// and filter (a bit per length and last byte) turn them away without
// hashing, and mostly without reading the name. Register names are the
// key, not their symbols: the elements of a "%r<N>" share one symbol.
//
// A name of up to 8 bytes (nearly all: "%rd12") is kept in a small
// open-addressed table by its packed word (internal/word), which costs a
// multiplication where a map hashed the string; longer names, and names
// beyond the table's load, go to a map.
type originTable struct {
	slots  [originSlots]originSlot
	used   []uint8 // indexes of the filled slots, for reset
	m      map[string]isa.Qual
	lens   uint64
	filter uint64
}

type originSlot struct {
	w     uint64 // word.Pack of the name
	n     uint8  // its length; 0 in an empty slot
	space isa.Qual
}

const (
	originSlots   = 64 // a power of two
	originMaxUsed = 48 // filled slots beyond which names go to the map
)

// maxKeptOrigins is the size above which reset drops the map instead of
// emptying it, so that the functions after a large one do not pay for
// clearing its capacity.
const maxKeptOrigins = 64

func (o *originTable) reset() {
	for _, i := range o.used {
		o.slots[i] = originSlot{}
	}
	o.used = o.used[:0]
	if len(o.m) > maxKeptOrigins {
		o.m = nil
	} else if o.m != nil {
		clear(o.m)
	}
	o.lens, o.filter = 0, 0
}

func filterBit(name string) uint64 {
	n := len(name)
	if n == 0 {
		return 1
	}
	return 1 << ((uint(name[n-1])*7 + uint(n)) & 63)
}

// mayHold reports whether reg may have an entry.
func (o *originTable) mayHold(reg string) bool {
	return o.lens&(1<<min(len(reg), 63)) != 0 && o.filter&filterBit(reg) != 0
}

// holds reports whether s holds the name of packed word w and length n.
func (s *originSlot) holds(w uint64, n int) bool { return s.w == w && int(s.n) == n }

// slot returns the slot that holds reg, or the empty slot where it would
// go, and its index; ok is false for a name that is not of 1 to 8 bytes
// (kept in the map). The table is never full (originMaxUsed), so the
// probe ends.
func (o *originTable) slot(reg string) (s *originSlot, i int, ok bool) {
	n := len(reg)
	if n == 0 || n > 8 {
		return nil, 0, false
	}
	w := word.Pack(reg)
	i = int(word.Mix(w+uint64(n)) >> (64 - 6)) // originSlots is 2^6
	for {
		s = &o.slots[i]
		if s.n == 0 || s.holds(w, n) {
			return s, i, true
		}
		i = (i + 1) & (originSlots - 1)
	}
}

// get returns the space of the address in reg, if any.
func (o *originTable) get(reg string) (isa.Qual, bool) {
	if !o.mayHold(reg) {
		return isa.QNone, false
	}
	q := isa.QNone
	if s, _, ok := o.slot(reg); ok && s.n != 0 {
		q = s.space
	} else if o.m != nil {
		q = o.m[reg]
	}
	return q, q != isa.QNone
}

// set records space (QNone: none) for reg. The name's text stays valid
// while its function is checked, and the table is reset at its end. A
// short name goes to the table unless the map already has it (the table
// was full when it came) or the table is full now.
func (o *originTable) set(reg string, space isa.Qual) {
	if space == isa.QNone && !o.mayHold(reg) {
		return
	}
	if s, i, ok := o.slot(reg); ok {
		if s.n != 0 {
			s.space = space
			return
		}
		if space != isa.QNone && len(o.used) < originMaxUsed && !hasKey(o.m, reg) {
			*s = originSlot{w: word.Pack(reg), n: uint8(len(reg)), space: space}
			o.used = append(o.used, uint8(i))
			o.mark(reg)
			return
		}
	}
	if space == isa.QNone {
		if hasKey(o.m, reg) {
			o.m[reg] = isa.QNone
		}
		return
	}
	if o.m == nil {
		o.m = make(map[string]isa.Qual)
	}
	o.m[reg] = space
	o.mark(reg)
}

// mark lets mayHold pass reg.
func (o *originTable) mark(reg string) {
	o.lens |= 1 << min(len(reg), 63)
	o.filter |= filterBit(reg)
}

func hasKey(m map[string]isa.Qual, k string) bool {
	_, ok := m[k]
	return ok
}

// trackOrigin records or clears the address space of in's destination.
// d is in's decoding, which says what the opcode does (originOp).
func (c *checker) trackOrigin(in *ast.Instruction, d *decoded) {
	if len(in.Operands) == 0 {
		return
	}
	dst, ok := in.Operands[0].(*ast.Reg)
	if !ok {
		return
	}
	space := isa.QNone
	switch d.origin {
	case originCopy:
		if len(in.Operands) > 1 {
			if src, ok := in.Operands[1].(*ast.Reg); ok && c.origin.mayHold(src.Name) {
				space, _ = c.origin.get(src.Name)
			}
		}
	case originCvta:
		space = cvtaSpace(d.form.Quals)
	case originMapa:
		space = isa.QGeneric
		if qualIndex(d.form.Quals, isa.QSharedCluster) >= 0 {
			space = isa.QSharedCluster
		}
	}
	if space != isa.QNone || c.origin.mayHold(dst.Name) {
		c.origin.set(dst.Name, space)
	}
}

// originOp is what an instruction does to the space of the address it
// writes, by opcode (decided once per spelling, decodeInto).
type originOp uint8

const (
	originNone originOp = iota // the destination loses any space
	originCopy                 // add, sub, mov: the destination keeps the first source's
	originCvta                 // cvta: generic, or the named space with .to
	originMapa                 // mapa: a generic or .shared::cluster address
)

func originOpOf(opcode string) originOp {
	switch opcode {
	case "add", "sub", "mov":
		return originCopy
	case "cvta":
		return originCvta
	case "mapa":
		return originMapa
	}
	return originNone
}

// cvtaSpace returns the space of cvta's result: the named space for
// cvta.to.space, generic for cvta.space; qs are cvta's decoded
// qualifiers.
func cvtaSpace(qs []isa.Qual) isa.Qual {
	to := false
	space := isa.QNone
	for _, q := range qs {
		switch q {
		case isa.QTo:
			to = true
		case isa.QGlobal, isa.QLocal, isa.QSharedCta, isa.QSharedCluster:
			space = q
		case isa.QShared:
			space = isa.QSharedCta
		}
	}
	if space == isa.QNone {
		return isa.QNone
	}
	if !to {
		return isa.QGeneric
	}
	return space
}

// originWarning warns when a store's state space does not match the space
// of the address its register holds.
func (c *checker) originWarning(f *isa.Form, reg string, n ast.Node) {
	from, ok := c.origin.get(reg)
	if !ok || originMatches(from, f.Space) {
		return
	}
	space := spaceName(f)
	switch {
	case from == isa.QSharedCluster && f.Space == isa.QSharedCta:
		c.warnf(n.Pos(), n.End(), "st-shared-cta-mapa", "PTX ISA 9.7.9.23 (mapa); 5.1.7", "use st.shared::cluster",
			"%s holds an address produced by mapa (a .shared::cluster address); st%s accesses the executing CTA's window", reg, f.Written(isa.GSpace))
	case from == isa.QGeneric:
		c.warnf(n.Pos(), n.End(), "address-origin", "PTX ISA 6.4.1.1 (generic addressing); 9.7.9.20 (cvta)", "store with generic addressing (no state space), or convert with cvta.to"+space,
			"%s holds a generic address (from cvta or mapa) but the store uses %s addressing", reg, space)
	default:
		c.warnf(n.Pos(), n.End(), "address-origin", "PTX ISA 6.4.1.1 (generic addressing); 9.7.9.20 (cvta)", "",
			"%s holds a %s address (from cvta.to or mapa) but the store uses %s addressing", reg, from, space)
	}
}

// originMatches reports whether an address of space from suits a store to
// space to (QNone: generic).
func originMatches(from, to isa.Qual) bool {
	switch from {
	case isa.QGeneric:
		return to == isa.QNone
	case isa.QSharedCta:
		return to == isa.QSharedCta || to == isa.QSharedCluster
	}
	return from == to
}

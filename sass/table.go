package sass

import "sync"

// This file is the single description of the store encodings. Each format
// gives the opcode bits (mask/value) and the bit range of every field; the
// encoder (Encode) inserts the fields into the value and the decoder
// (Decode) matches the mask and extracts them, so one is the inverse of the
// other by construction. Bits not named by a format are reserved: the
// encoder writes 0 and the decoder ignores them, as nvdisasm does
// (ENCODING.md T5).

// Word is one instruction word. Maxwell uses Lo only; Turing+ words are
// 128 bits, Lo being the first 8 bytes in memory.
type Word struct {
	Lo, Hi uint64
}

// field names one instruction field. The accessors in fields.go map each to
// a member of Inst.
type field uint8

const (
	fPred field = iota
	fPredNeg
	fRa
	fRb
	fOff      // 24-bit offset
	fOff32    // 32-bit offset (generic ST)
	fSize     // .sz
	fCop      // Maxwell .cop / cache
	fE        // .E
	fPredC    // Maxwell ST third operand
	fURc      // uniform register
	fScale    // STS .X4/.X8/.X16
	fPolicy   // L1 policy
	fSem      // memory semantics/scope
	fDesc     // desc[URc] addressing
	fRa64     // 64-bit Ra
	fDescShow // SM80-SM89: nvdisasm prints desc[URc] only with this bit
	fPM       // ?PMn
	fStall    // Turing+ scheduling bits; Maxwell keeps them in the control word
	fYield
	fWr
	fRd
	fReq
	fReuse
	numFields
)

var fieldNames = [numFields]string{
	fPred: "predicate", fPredNeg: "predicate", fRa: "Ra", fRb: "Rb", fOff: "offset", fOff32: "offset",
	fSize: "size", fCop: "cache op", fE: ".E", fPredC: "predicate operand", fURc: "URc", fScale: "scale",
	fPolicy: "L1 policy", fSem: "semantics", fDesc: "desc", fRa64: "address width", fDescShow: "desc", fPM: "?PM",
	fStall: "stall", fYield: "yield", fWr: "write barrier", fRd: "read barrier", fReq: "wait mask", fReuse: "reuse",
}

func (f field) String() string { return fieldNames[f] }

// bitField places a field at bits [lo, lo+n) of the instruction word.
type bitField struct {
	f     field
	lo, n uint8
	minSM int // the field exists from this architecture on (0: always)
	maxSM int // ... up to this one (0: no limit)
}

// format is one encoding: the word matches it when w&mask == value.
type format struct {
	gen    Gen
	minSM  int // first architecture with this encoding (0: the whole generation)
	maxSM  int // last architecture with this encoding (0: no limit)
	op     Op
	ur     bool // the [Ra+URc+imm] (or desc) addressing form
	mask   Word
	value  Word
	fields []bitField
	// ignore holds the bits that nvdisasm was measured to ignore (a one-bit
	// flip leaves its text unchanged). The decoder accepts any value there;
	// a set bit that is neither matched, a field, nor ignored is an
	// encoding this table does not model, and Decode reports it.
	ignore Word

	// Derived by deriveFormats on first use: the bits of mask, ignore and
	// every field, and the fields present on each architecture.
	known Word
	bySM  map[int][]bitField
}

// derived makes sure the derived parts of every format are filled in: on
// the first use of the SASS tables, not at the start of every ptxkit
// command.
var derived = sync.OnceFunc(deriveFormats)

func deriveFormats() {
	for i := range formats {
		f := &formats[i]
		f.known = Word{f.mask.Lo | f.ignore.Lo, f.mask.Hi | f.ignore.Hi}
		for _, b := range f.fields {
			f.known.setBits(b.lo, b.n, ^uint64(0))
		}
		f.bySM = map[int][]bitField{}
		for _, a := range Archs {
			var l []bitField
			for _, b := range f.fields {
				if b.minSM <= a.SM && (b.maxSM == 0 || a.SM <= b.maxSM) {
					l = append(l, b)
				}
			}
			f.bySM[a.SM] = l
		}
	}
}

// Common field groups.
var (
	maxwellCommon = []bitField{{f: fRb, lo: 0, n: 8}, {f: fRa, lo: 8, n: 8}, {f: fPred, lo: 16, n: 3}, {f: fPredNeg, lo: 19, n: 1}}
	turingCommon  = []bitField{
		{f: fPred, lo: 12, n: 3}, {f: fPredNeg, lo: 15, n: 1}, {f: fRa, lo: 24, n: 8}, {f: fPM, lo: 102, n: 2, minSM: 86, maxSM: 90},
		{f: fStall, lo: 105, n: 4}, {f: fYield, lo: 109, n: 1}, {f: fWr, lo: 110, n: 3}, {f: fRd, lo: 113, n: 3}, {f: fReq, lo: 116, n: 6}, {f: fReuse, lo: 122, n: 3},
	}
	// uregField is the uniform register: UR0-UR62 and URZ=63 in 6 bits up
	// to SM90, 8 bits from SM100 (UR0-UR254, URZ=255; see urcField).
	uregField = []bitField{{f: fURc, lo: 64, n: 6, maxSM: 90}, {f: fURc, lo: 64, n: 8, minSM: 100}}
	turingMem = []bitField{{f: fE, lo: 72, n: 1}, {f: fSize, lo: 73, n: 3}, {f: fSem, lo: 77, n: 4}, {f: fPolicy, lo: 84, n: 3}}
)

func join(groups ...[]bitField) []bitField {
	var out []bitField
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Opcode masks. Maxwell: bits 63:51 (13-bit opcode), generic ST 63:61.
// Turing+: bits 11:0 plus bit 91, the uniform-register form bit.
const (
	maxwellOpMask = 0xfff8 << 48
	turingOpMask  = 0xfff
	bit91         = 1 << (91 - 64)
)

// formats lists every encoding (ENCODING.md T1, T3; STG/ST/STAS Turing+
// fields were located by the same bit-flip method with nvdisasm 12.5; STG
// and ST are modelled from SM80 on, where they share SM90's semantics table).
var formats = []format{
	// Maxwell/Pascal, 64-bit (T1).
	{gen: Maxwell, op: STS, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xef58 << 48},
		ignore: Word{Lo: 0xf << 44},
		fields: join(maxwellCommon, []bitField{{f: fOff, lo: 20, n: 24}, {f: fSize, lo: 48, n: 3}})},
	{gen: Maxwell, op: STL, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xef50 << 48},
		ignore: Word{Lo: 0x3 << 46},
		fields: join(maxwellCommon, []bitField{{f: fOff, lo: 20, n: 24}, {f: fCop, lo: 44, n: 2}, {f: fSize, lo: 48, n: 3}})},
	{gen: Maxwell, op: STG, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xeed8 << 48},
		ignore: Word{Lo: 1 << 44},
		fields: join(maxwellCommon, []bitField{{f: fOff, lo: 20, n: 24}, {f: fE, lo: 45, n: 1}, {f: fCop, lo: 46, n: 2}, {f: fSize, lo: 48, n: 3}})},
	{gen: Maxwell, op: ST, mask: Word{Lo: 0xe000 << 48}, value: Word{Lo: 0xa000 << 48},
		fields: join(maxwellCommon, []bitField{{f: fOff32, lo: 20, n: 32}, {f: fE, lo: 52, n: 1}, {f: fSize, lo: 53, n: 3}, {f: fCop, lo: 56, n: 2}, {f: fPredC, lo: 58, n: 3}})},
	{gen: Maxwell, op: NOP, mask: Word{Lo: ^uint64(0)}, value: Word{Lo: 0x50b0000000070f00}},

	// Turing..Hopper, 128-bit (T3).
	{gen: Turing, maxSM: 90, op: STS, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x388},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff7ff31ff},
		fields: join(turingCommon, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fSize, lo: 73, n: 3}, {f: fScale, lo: 78, n: 2}})},
	{gen: Turing, op: STS, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x988, Hi: bit91},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff7ff31c0},
		fields: join(turingCommon, uregField, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fSize, lo: 73, n: 3}, {f: fScale, lo: 78, n: 2}})},
	{gen: Turing, op: STL, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x387},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff78ff1ff},
		fields: join(turingCommon, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fSize, lo: 73, n: 3}, {f: fPolicy, lo: 84, n: 3}})},
	// STL [Ra+URc+imm], and from SM80 desc[URc][Ra+imm] (bit 76; before
	// SM90 nvdisasm prints desc[URc] only with bit 101).
	{gen: Turing, maxSM: 90, op: STL, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x987, Hi: bit91},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff78fe1c0},
		fields: join(turingCommon, uregField, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fSize, lo: 73, n: 3}, {f: fPolicy, lo: 84, n: 3},
			{f: fDesc, lo: 76, n: 1, minSM: 80}, {f: fDescShow, lo: 101, n: 1, minSM: 80, maxSM: 89}})},
	{gen: Turing, minSM: 80, op: STG, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x986, Hi: bit91},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff38e00c0},
		fields: join(turingCommon, turingMem, uregField, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fDesc, lo: 76, n: 1}, {f: fRa64, lo: 90, n: 1}, {f: fDescShow, lo: 101, n: 1, minSM: 80, maxSM: 89}})},
	// STG without a uniform register ([Ra+imm], 32-bit Ra printed bare):
	// ptxas's st.mmio form on SM80-SM90. Bits 76 and 90 are ignored.
	{gen: Turing, minSM: 80, maxSM: 90, op: STG, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x386},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff78e10ff},
		fields: join(turingCommon, turingMem, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}})},
	{gen: Turing, minSM: 80, maxSM: 90, op: ST, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x385},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff78e1000},
		fields: join(turingCommon, turingMem, []bitField{{f: fOff32, lo: 32, n: 32}, {f: fRb, lo: 64, n: 8}})},
	{gen: Turing, minSM: 80, maxSM: 90, op: ST, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x985, Hi: bit91},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff38e00c0},
		fields: join(turingCommon, turingMem, uregField, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fDesc, lo: 76, n: 1}, {f: fRa64, lo: 90, n: 1}, {f: fDescShow, lo: 101, n: 1, minSM: 80, maxSM: 89}})},
	{gen: Turing, minSM: 90, maxSM: 90, op: STAS, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0xdbd, Hi: bit91},
		ignore: Word{Lo: 0xff0000, Hi: 0xe00001fff3fe11c0},
		fields: join(turingCommon, uregField, []bitField{{f: fRb, lo: 32, n: 8}, {f: fOff, lo: 40, n: 24}, {f: fSize, lo: 73, n: 3}, {f: fSem, lo: 77, n: 4}, {f: fRa64, lo: 90, n: 1}})},
	{gen: Turing, maxSM: 90, op: NOP, mask: Word{Lo: ^uint64(0), Hi: 1<<41 - 1}, value: Word{Lo: 0x7918},
		fields: turingCommon[4:]},
}

// lookup returns the format for op on arch in the given form.
func lookup(arch Arch, op Op, ur bool) *format {
	for i := range formats {
		f := &formats[i]
		if f.on(arch) && f.op == op && f.ur == ur {
			return f
		}
	}
	return nil
}

// on reports whether arch has the encoding.
func (f *format) on(arch Arch) bool {
	return f.gen == arch.Gen() && arch.SM >= f.minSM && (f.maxSM == 0 || arch.SM <= f.maxSM)
}

// fieldsOn returns the fields of f that exist on arch.
func (f *format) fieldsOn(arch Arch) []bitField {
	derived()
	if l, ok := f.bySM[arch.SM]; ok {
		return l
	}
	return f.fields
}

func has(fields []bitField, id field) bool { return fieldSet(fields)&(1<<id) != 0 }

// fieldSet returns the set of fields as a bit mask.
func fieldSet(fields []bitField) uint32 {
	var s uint32
	for _, b := range fields {
		s |= 1 << b.f
	}
	return s
}

// bits returns the n-bit value at bit lo of w.
func (w Word) bits(lo, n uint8) uint64 {
	var v uint64
	if lo < 64 {
		v = w.Lo >> lo
		if lo+n > 64 {
			v |= w.Hi << (64 - lo)
		}
	} else {
		v = w.Hi >> (lo - 64)
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

// setBits stores the low n bits of v at bit lo of w.
func (w *Word) setBits(lo, n uint8, v uint64) {
	m := ^uint64(0)
	if n < 64 {
		m = 1<<n - 1
	}
	v &= m
	if lo < 64 {
		w.Lo = w.Lo&^(m<<lo) | v<<lo
		if lo+n > 64 {
			sh := 64 - lo
			w.Hi = w.Hi&^(m>>sh) | v>>sh
		}
		return
	}
	sh := lo - 64
	w.Hi = w.Hi&^(m<<sh) | v<<sh
}

func (w Word) and(m Word) Word { return Word{w.Lo & m.Lo, w.Hi & m.Hi} }

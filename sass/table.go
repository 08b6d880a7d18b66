package sass

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
	fOff    // 24-bit offset
	fOff32  // 32-bit offset (generic ST)
	fSize   // .sz
	fCop    // Maxwell .cop / cache
	fE      // .E
	fPredC  // Maxwell ST third operand
	fURc    // uniform register
	fScale  // STS .X4/.X8/.X16
	fPolicy // L1 policy
	fSem    // memory semantics/scope
	fDesc   // desc[URc] addressing
	fRa64   // 64-bit Ra
	fPM     // ?PMn
	fStall  // Turing+ scheduling bits; Maxwell keeps them in the control word
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
	fPolicy: "L1 policy", fSem: "semantics", fDesc: "desc", fRa64: "address width", fPM: "?PM",
	fStall: "stall", fYield: "yield", fWr: "write barrier", fRd: "read barrier", fReq: "wait mask", fReuse: "reuse",
}

func (f field) String() string { return fieldNames[f] }

// bitField places a field at bits [lo, lo+n) of the instruction word.
type bitField struct {
	f     field
	lo, n uint8
}

// format is one encoding: the word matches it when w&mask == value.
type format struct {
	gen    Gen
	op     Op
	ur     bool // the [Ra+URc+imm] (or desc) addressing form
	mask   Word
	value  Word
	fields []bitField
}

// Common field groups.
var (
	maxwellCommon = []bitField{{fRb, 0, 8}, {fRa, 8, 8}, {fPred, 16, 3}, {fPredNeg, 19, 1}}
	turingCommon  = []bitField{
		{fPred, 12, 3}, {fPredNeg, 15, 1}, {fRa, 24, 8}, {fPM, 102, 2},
		{fStall, 105, 4}, {fYield, 109, 1}, {fWr, 110, 3}, {fRd, 113, 3}, {fReq, 116, 6}, {fReuse, 122, 4},
	}
	turingMem = []bitField{{fE, 72, 1}, {fSize, 73, 3}, {fSem, 77, 4}, {fPolicy, 84, 3}}
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
// fields were located by the same bit-flip method with nvdisasm 12.5).
var formats = []format{
	// Maxwell/Pascal, 64-bit (T1).
	{gen: Maxwell, op: STS, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xef58 << 48},
		fields: join(maxwellCommon, []bitField{{fOff, 20, 24}, {fSize, 48, 3}})},
	{gen: Maxwell, op: STL, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xef50 << 48},
		fields: join(maxwellCommon, []bitField{{fOff, 20, 24}, {fCop, 44, 2}, {fSize, 48, 3}})},
	{gen: Maxwell, op: STG, mask: Word{Lo: maxwellOpMask}, value: Word{Lo: 0xeed8 << 48},
		fields: join(maxwellCommon, []bitField{{fOff, 20, 24}, {fE, 45, 1}, {fCop, 46, 2}, {fSize, 48, 3}})},
	{gen: Maxwell, op: ST, mask: Word{Lo: 0xe000 << 48}, value: Word{Lo: 0xa000 << 48},
		fields: join(maxwellCommon, []bitField{{fOff32, 20, 32}, {fE, 52, 1}, {fSize, 53, 3}, {fCop, 56, 2}, {fPredC, 58, 3}})},
	{gen: Maxwell, op: NOP, mask: Word{Lo: ^uint64(0)}, value: Word{Lo: 0x50b0000000070f00}},

	// Turing..Hopper, 128-bit (T3).
	{gen: Turing, op: STS, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x388},
		fields: join(turingCommon, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fSize, 73, 3}, {fScale, 78, 2}})},
	{gen: Turing, op: STS, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x988, Hi: bit91},
		fields: join(turingCommon, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fURc, 64, 6}, {fSize, 73, 3}, {fScale, 78, 2}})},
	{gen: Turing, op: STL, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x387},
		fields: join(turingCommon, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fSize, 73, 3}, {fPolicy, 84, 3}})},
	{gen: Turing, op: STL, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x987, Hi: bit91},
		fields: join(turingCommon, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fURc, 64, 6}, {fSize, 73, 3}, {fPolicy, 84, 3}})},
	{gen: Turing, op: STG, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x986, Hi: bit91},
		fields: join(turingCommon, turingMem, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fURc, 64, 6}, {fDesc, 76, 1}, {fRa64, 90, 1}})},
	{gen: Turing, op: ST, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x385},
		fields: join(turingCommon, turingMem, []bitField{{fOff32, 32, 32}, {fRb, 64, 8}})},
	{gen: Turing, op: ST, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0x985, Hi: bit91},
		fields: join(turingCommon, turingMem, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fURc, 64, 6}, {fDesc, 76, 1}, {fRa64, 90, 1}})},
	{gen: Turing, op: STAS, ur: true, mask: Word{Lo: turingOpMask, Hi: bit91}, value: Word{Lo: 0xdbd, Hi: bit91},
		fields: join(turingCommon, []bitField{{fRb, 32, 8}, {fOff, 40, 24}, {fURc, 64, 6}, {fSize, 73, 3}, {fRa64, 90, 1}})},
	{gen: Turing, op: NOP, mask: Word{Lo: ^uint64(0), Hi: 1<<41 - 1}, value: Word{Lo: 0x7918},
		fields: turingCommon[4:]},
}

// lookup returns the format for op in the given generation and form.
func lookup(g Gen, op Op, ur bool) *format {
	for i := range formats {
		f := &formats[i]
		if f.gen == g && f.op == op && f.ur == ur {
			return f
		}
	}
	return nil
}

func (f *format) has(id field) bool {
	for _, b := range f.fields {
		if b.f == id {
			return true
		}
	}
	return false
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
	for i := uint8(0); i < n; i++ {
		b := uint8(lo + i)
		bit := v >> i & 1
		if b < 64 {
			w.Lo = w.Lo&^(1<<b) | bit<<b
		} else {
			w.Hi = w.Hi&^(1<<(b-64)) | bit<<(b-64)
		}
	}
}

func (w Word) and(m Word) Word { return Word{w.Lo & m.Lo, w.Hi & m.Hi} }

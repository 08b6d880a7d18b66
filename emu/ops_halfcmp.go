package emu

import "math"

// This file holds what set and setp need beyond one scalar comparison:
// packed .f16x2/.bf16x2 sources compared half by half, the values set
// writes for each destination type, and .ftz on the compared inputs
// (PTX ISA 9.0 §9.7.6.1-2, §9.7.7.1-2).

// packedHalf returns the type of one half of a packed .f16x2/.bf16x2
// type, and false for any other type.
func packedHalf(t Type) (Type, bool) {
	switch t {
	case TF16x2:
		return TF16, true
	case TBF16x2:
		return TBF16, true
	}
	return TNone, false
}

// flushSubnormal returns v of float type t with a subnormal value replaced
// by a zero of the same sign, as .ftz treats comparison inputs (§9.7.3,
// §9.7.7.1-2: sign-preserving zero).
func flushSubnormal(t Type, v uint64) uint64 {
	var sign, exp uint64
	switch t {
	case TF16:
		sign, exp = 0x8000, 0x7c00
	case TBF16:
		sign, exp = 0x8000, 0x7f80
	case TF32:
		sign, exp = 0x80000000, 0x7f800000
	default:
		return v
	}
	if v&exp == 0 {
		return v & sign
	}
	return v
}

// compareIn is compare for instruction in: its comparison code, and with
// .ftz subnormal inputs flushed first.
func compareIn(in *Inst, t Type, a, b uint64) bool {
	if in.Flags&FlagFtz != 0 {
		a, b = flushSubnormal(t, a), flushSubnormal(t, b)
	}
	return compare(in.Cmp, t, a, b)
}

// comparePair returns the two results of setp's comparison before its
// BoolOp (§9.7.6.2, §9.7.7.2): for a packed source the comparisons of the
// low and the high halves; otherwise the comparison and its negation.
func comparePair(in *Inst, a, b uint64) (uint64, uint64) {
	if h, ok := packedHalf(in.Type); ok {
		return b2u(compareIn(in, h, a&0xffff, b&0xffff)), b2u(compareIn(in, h, a>>16&0xffff, b>>16&0xffff))
	}
	r := compareIn(in, in.Type, a, b)
	return b2u(r), b2u(!r)
}

// setTrue is the value set writes for a true result of type dt (§9.7.6.1,
// §9.7.7.1): 1.0 in .f32, .f16 or .bf16 (each half of a packed float
// type), 0xffff for .u16/.s16 and for each half of a .u32/.s32 result of a
// packed source, 0xffffffff for other .u32/.s32 results.
func setTrue(dt, st Type) uint64 {
	switch dt {
	case TF32:
		return uint64(math.Float32bits(1))
	case TF16, TF16x2:
		return 0x3c00
	case TBF16, TBF16x2:
		return 0x3f80
	case TU16, TS16:
		return 0xffff
	}
	if _, ok := packedHalf(st); ok {
		return 0xffff
	}
	return 0xffffffff
}

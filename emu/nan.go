package emu

import "math"

// The NaN bits a floating-point instruction writes (docs/emu.md, "NaN
// results"). The H100's binary32 units, MUFU included, and its half-
// precision units write one canonical NaN whatever the inputs: all
// mantissa bits set, sign clear (0x7fffffff, 0x7fff). Binary64 follows
// the IEEE 754 recommendation, which the recorded launches do not decide
// (an open case of docs/emu.md): a NaN operand passes through, quieted,
// and a NaN the operation creates (inf-inf, 0*inf, sqrt of a negative) is
// the default NaN 0xfff8000000000000 (CUDA's CUDART_NAN). abs, neg, mov,
// copysign and selection are bit operations and keep payloads.

// defaultNaN64 is the binary64 NaN an operation creates.
const defaultNaN64 = 0xfff8000000000000

// canonicalNaN returns the NaN float type t writes for a NaN result (for
// binary64, when no operand is a NaN).
func canonicalNaN(t Type) uint64 {
	switch t {
	case TF16, TBF16:
		return 0x7fff
	case TF16x2, TBF16x2:
		return 0x7fff7fff
	case TF32:
		return 0x7fffffff
	}
	return defaultNaN64
}

// isNaNBits reports whether bits v of float type t encode a NaN.
func isNaNBits(t Type, v uint64) bool {
	switch t {
	case TF16:
		return v&0x7c00 == 0x7c00 && v&0x3ff != 0
	case TBF16:
		return v&0x7f80 == 0x7f80 && v&0x7f != 0
	case TF32:
		return v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0
	case TF64:
		return v&0x7ff0000000000000 == 0x7ff0000000000000 && v&0xfffffffffffff != 0
	}
	return false
}

// nan64Result is the NaN a binary64 operation on operands a, b, c (the
// first n of them) writes: the first NaN operand, quieted, or the
// default NaN when the operation created it.
func nan64Result(n int, a, b, c uint64) uint64 {
	for i, v := range [3]uint64{a, b, c} {
		if i < n && isNaNBits(TF64, v) {
			return v | 1<<51
		}
	}
	return canonicalNaN(TF64)
}

// addF32Bits is the binary32 sum of bit patterns a and b as the hardware
// writes it (atomic and bulk reductions).
func addF32Bits(a, b uint64) uint64 {
	s := math.Float32frombits(uint32(a)) + math.Float32frombits(uint32(b))
	if s != s {
		return canonicalNaN(TF32)
	}
	return uint64(math.Float32bits(s))
}

// addF64Bits is the binary64 sum of bit patterns a and b as the hardware
// writes it.
func addF64Bits(a, b uint64) uint64 {
	s := math.Float64frombits(a) + math.Float64frombits(b)
	if s != s {
		return nan64Result(2, a, b, 0)
	}
	return math.Float64bits(s)
}

// widenNaN64 is the binary64 NaN a conversion of the NaN bits a of the
// narrower type st writes: the sign and payload kept, quieted.
func widenNaN64(st Type, a uint64) uint64 {
	mant, bits := 23, 32
	switch st {
	case TF16:
		mant, bits = 10, 16
	case TBF16:
		mant, bits = 7, 16
	}
	sign := a >> uint(bits-1) & 1
	payload := a & (1<<uint(mant) - 1)
	return sign<<63 | 0x7ff8000000000000 | payload<<uint(52-mant)
}

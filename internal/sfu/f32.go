package sfu

import (
	"math"
	"math/bits"
)

// IEEE 754 binary32 fields and the values the hardware produces for them.
const (
	signBit      = 0x80000000
	fracMask     = 0x007fffff
	infBits      = 0x7f800000
	canonicalNaN = 0x7fffffff // every NaN the SFU and FMUL produce
	bias         = 127
)

// fields splits x into its sign bit, biased exponent and fraction.
func fields(x uint32) (sign, exp, frac uint32) {
	return x & signBit, x >> 23 & 0xff, x & fracMask
}

func isNaN(x uint32) bool { return x&^signBit > infBits }

// flush returns x with a subnormal magnitude replaced by a zero of the same
// sign, as the SFU reads its operand (§9.7.3: the .ftz behaviour).
func flush(x uint32) uint32 {
	if x>>23&0xff == 0 {
		return x & signBit
	}
	return x
}

// pack returns sign | mag*2^exp as binary32, truncating mag to 24
// significant bits; results below the normal range flush to zero and those
// above it become infinity.
func pack(sign uint32, mag uint64, exp int) uint32 {
	if mag == 0 {
		return sign
	}
	n := bits.Len64(mag)
	if n > 24 {
		mag >>= uint(n - 24)
		exp += n - 24
	} else {
		mag <<= uint(24 - n)
		exp -= 24 - n
	}
	e := exp + 23 + bias // biased exponent of the leading bit
	switch {
	case e <= 0:
		return sign
	case e >= 0xff:
		return sign | infBits
	}
	return sign | uint32(e)<<23 | uint32(mag)&fracMask
}

func f32(x uint32) float32 { return math.Float32frombits(x) }

// fmul is FMUL (round to nearest even, subnormals kept).
func fmul(a, b uint32) uint32 { return canon(math.Float32bits(f32(a) * f32(b))) }

// fmulFTZ is FMUL.FTZ: subnormal operands and results are zeros.
func fmulFTZ(a, b uint32) uint32 { return flush(fmul(flush(a), flush(b))) }

// fadd is FADD (round to nearest even).
func fadd(a, b uint32) uint32 { return canon(math.Float32bits(f32(a) + f32(b))) }

// fmulRZ is FMUL.RZ: the exact product (48 bits fit a float64) truncated
// toward zero to binary32.
func fmulRZ(a, b uint32) uint32 {
	if isNaN(a) || isNaN(b) {
		return canonicalNaN
	}
	p := float64(f32(a)) * float64(f32(b))
	r := float32(p)
	if math.Abs(float64(r)) > math.Abs(p) {
		r = math.Nextafter32(r, 0)
	}
	return math.Float32bits(r)
}

func canon(x uint32) uint32 {
	if isNaN(x) {
		return canonicalNaN
	}
	return x
}

// absLess is the negation of FSETP.GEU |x|, limit: |x| < limit, false for
// NaN.
func absLess(x uint32, limit uint32) bool {
	return !isNaN(x) && x&^signBit < limit
}

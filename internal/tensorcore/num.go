package tensorcore

import "math/bits"

// class is the kind of a decoded value.
type class uint8

const (
	finite class = iota // zero included (m == 0)
	inf
	nan
)

// num is a decoded element: (-1)^neg · m · 2^e, or an infinity or NaN.
type num struct {
	m   uint64
	e   int32
	neg bool
	cls class
}

// layout is a binary floating-point encoding.
type layout struct {
	ebits, mbits, bias int
	ieee               bool // an all-ones exponent is inf/NaN (not E4M3)
}

// layouts is indexed by Format (an array: decode and encode run once per
// element and per block sum).
var layouts = [...]layout{
	F16:  {5, 10, 15, true},
	BF16: {8, 7, 127, true},
	TF32: {8, 23, 127, true},
	F32:  {8, 23, 127, true},
	F64:  {11, 52, 1023, true},
	E4M3: {4, 3, 7, false},
	E5M2: {5, 2, 15, true},
}

// decode reads the bit pattern x of format f. TF32 ignores the low 13 bits
// of its word, as the tensor cores do.
func decode(f Format, x uint64) num {
	if f == TF32 {
		x &^= 1<<13 - 1
	}
	l := layouts[f]
	mmask := uint64(1)<<l.mbits - 1
	emask := uint64(1)<<l.ebits - 1
	neg := x>>(l.ebits+l.mbits)&1 == 1
	ex := x >> l.mbits & emask
	m := x & mmask
	switch {
	case l.ieee && ex == emask:
		if m != 0 {
			return num{cls: nan}
		}
		return num{neg: neg, cls: inf}
	case !l.ieee && ex == emask && m == mmask: // E4M3's only NaN
		return num{cls: nan}
	case ex == 0:
		return num{m: m, e: int32(1 - l.bias - l.mbits), neg: neg}
	}
	return num{m: m | 1<<l.mbits, e: int32(int(ex) - l.bias - l.mbits), neg: neg}
}

// canonicalNaN is the NaN the tensor cores write in format f.
func canonicalNaN(f Format) uint64 {
	switch f {
	case F16:
		return 0x7fff
	case F64:
		return 0x7fffffffffffffff
	}
	return 0x7fffffff
}

// encode rounds (-1)^neg · m · 2^e into format f, toward zero (rz) or to
// nearest-even. An overflow gives the infinity of the sign.
func encode(f Format, neg bool, m uint64, e int, rz bool) uint64 {
	l := layouts[f]
	sign := uint64(0)
	if neg {
		sign = 1 << (l.ebits + l.mbits)
	}
	if m == 0 {
		return sign
	}
	prec := l.mbits + 1
	minLSB := 1 - l.bias - l.mbits
	lsb := max(e+bits.Len64(m)-prec, minLSB)
	switch sh := lsb - e; {
	case sh > 0:
		m = shiftRound(m, sh, rz)
	case sh < 0:
		m <<= -sh
	}
	e = lsb
	if bits.Len64(m) > prec { // rounding carried into a new bit
		m >>= 1
		e++
	}
	if m == 0 {
		return sign
	}
	// m · 2^e with m < 2^prec; e >= minLSB.
	lead := e + bits.Len64(m) - 1
	if lead > l.bias { // overflow
		return sign | (uint64(1)<<l.ebits-1)<<l.mbits
	}
	if bits.Len64(m) < prec { // subnormal (e == minLSB)
		return sign | m
	}
	biased := uint64(e + l.mbits + l.bias)
	return sign | biased<<l.mbits | m&(uint64(1)<<l.mbits-1)
}

// shiftRound shifts m right by sh, truncating (rz) or rounding to
// nearest-even.
func shiftRound(m uint64, sh int, rz bool) uint64 {
	if sh >= 64 {
		if rz || sh > 64 || m <= 1<<63 {
			return 0
		}
		return 1 // above half of 2^64: rounds up
	}
	q := m >> sh
	if rz {
		return q
	}
	rem := m & (uint64(1)<<sh - 1)
	half := uint64(1) << (sh - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}

package sfu

import "math"

// sinFrac is the number of fraction bits of MUFU.SIN's and MUFU.COS's
// fixed-point result.
const sinFrac = 37

// quarterTurn reduces r revolutions to the quarter turn the table
// interpolates sin(π/2 f) on: |r| becomes a fixed-point number of quarter
// turns with 23 fraction bits (truncated); its integer part q, plus one
// for the cosine, picks the quadrant, an odd quadrant mirrors f (one's
// complement), and the result is negative in quadrants 2 and 3 and, for the
// sine, for a negative r.
func quarterTurn(r uint32, cos bool) (neg bool, f uint32, ok bool) {
	s, e, m := fields(flush(r))
	if e == 0xff {
		return false, 0, false
	}
	var q uint64 // quarter turns, 23 fraction bits, modulo 4
	if e != 0 {
		sh := int(e) - bias + 2 // r*4*2^23 = mant*2^(e-bias+2)
		mant := uint64(m | 1<<23)
		switch {
		case sh >= 25:
			q = 0
		case sh >= 0:
			q = mant << uint(sh)
		case sh > -24:
			q = mant >> uint(-sh)
		}
	}
	q &= 1<<25 - 1
	if cos {
		q += 1 << 23
	}
	quadrant := q >> 23 & 3
	f = uint32(q) & fracMask
	if quadrant&1 != 0 {
		f = ^f & fracMask
	}
	neg = quadrant>>1 != 0
	if !cos && s != 0 {
		neg = !neg
	}
	return neg, f, true
}

// mufuSin is MUFU.SIN of r revolutions.
func mufuSin(r uint32) uint32 { return sinCos(r, false) }

// mufuCos is MUFU.COS of r revolutions.
func mufuCos(r uint32) uint32 { return sinCos(r, true) }

func sinCos(r uint32, cos bool) uint32 {
	neg, f, ok := quarterTurn(r, cos)
	if !ok {
		return canonicalNaN
	}
	var sign uint32
	if neg {
		sign = signBit
	}
	return pack(sign, uint64(sinTable.eval(f, 23)), -sinFrac)
}

// tanhFrac is the number of fraction bits of MUFU.TANH's fixed-point
// result on [0.5, 8).
const tanhFrac = 25

// mufuTanh is MUFU.TANH. Below 2^-8 it returns x (subnormals included),
// from 8 on ±1, and on [0.5, 8) it interpolates a table indexed by |x| in
// fixed point with 20 fraction bits in segments of 1/8. On [2^-8, 0.5) the
// unit's algorithm is not derived: the result there is tanh rounded to
// nearest, which the H100 differs from by a few units in the last place;
// the table's segments of [4, 5.5) are approximations too (docs/sfu.md).
func mufuTanh(x uint32) uint32 {
	s, e, _ := fields(x)
	switch {
	case isNaN(x):
		return canonicalNaN
	case e < bias-8:
		return x
	case e >= bias+3:
		return s | 0x3f800000
	}
	if u, ok := tanhArg(x); ok {
		return pack(s, uint64(tanhTable.eval(u, 23)), -tanhFrac)
	}
	return round32(math.Tanh(float64(f32(x))))
}

// tanhArg returns |x| in fixed point with 20 fraction bits (truncated) when
// 0.5 <= |x| < 8.
func tanhArg(x uint32) (uint32, bool) {
	_, e, f := fields(x)
	if e < bias-1 || e >= bias+3 {
		return 0, false
	}
	return (f | 1<<23) >> (bias + 3 - e), true
}

func round32(v float64) uint32 { return canon(math.Float32bits(float32(v))) }

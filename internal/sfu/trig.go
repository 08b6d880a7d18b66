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

// mufuTanh is MUFU.TANH.
func mufuTanh(x uint32) uint32 { return round32(math.Tanh(float64(f32(x)))) }

func round32(v float64) uint32 { return canon(math.Float32bits(float32(v))) }

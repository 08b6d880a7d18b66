package sfu

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

// tanhIndexBits is the number of mantissa bits that select MUFU.TANH's
// segment in each binade of |x| from 2^-8 to 8 (exponent field 119 to 129).
var tanhIndexBits = [11]uint{0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 3}

// tanhFirst is the table index of each binade's first segment.
var tanhFirst = func() (first [11]uint32) {
	for i := 1; i < len(first); i++ {
		first[i] = first[i-1] + 1<<tanhIndexBits[i-1]
	}
	return first
}()

// mufuTanh is MUFU.TANH. Below 2^-8 it returns x (subnormals included),
// from 8 on ±1. In between, the binade of |x| and its leading mantissa bits
// (tanhIndexBits) select a segment, the next 17 bits (truncated) are the
// interpolation's x, and the result is fixed point with 24 fraction bits
// below the binade's unit (below 0.5's unit from 0.5 on), truncated.
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
	u, scale := tanhArg(x)
	return pack(s, uint64(tanhTable.eval(u, 24)), -scale)
}

// tanhArg returns the table argument of 2^-8 <= |x| < 8 (segment index <<
// 17 | x) and the result's fraction bits.
func tanhArg(x uint32) (u uint32, scale int) {
	_, e, f := fields(x)
	b := e - (bias - 8)
	k := tanhIndexBits[b]
	u = (tanhFirst[b]+f>>(23-k))<<17 | f>>(6-k)&(1<<17-1)
	return u, 24 + bias - int(min(e, bias-1))
}

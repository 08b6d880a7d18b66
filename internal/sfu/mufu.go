package sfu

// The special function unit's operations (SASS MUFU.*) on binary32 bit
// patterns. The unit reads subnormal operands as zero and flushes subnormal
// results; NaN operands give the canonical NaN. Each interpolates a
// piecewise quadratic (quadTable) over a fixed-point argument.

// ex2Frac is the number of fraction bits of MUFU.EX2's fixed-point argument.
const ex2Frac = 23

// lg2Frac is the number of fraction bits of MUFU.LG2's fixed-point result.
const lg2Frac = 36

// mufuRcp is MUFU.RCP: 1/x.
func mufuRcp(x uint32) uint32 {
	s, e, f := fields(flush(x))
	switch {
	case isNaN(x):
		return canonicalNaN
	case e == 0xff:
		return s
	case e == 0:
		return s | infBits
	}
	v := rcpTable.eval(f, 23)
	return pack(s, uint64(v), -24-(int(e)-bias))
}

// mufuRsq is MUFU.RSQ: 1/sqrt(x), from one table per exponent parity.
func mufuRsq(x uint32) uint32 {
	s, e, f := fields(flush(x))
	switch {
	case isNaN(x) || s != 0 && e != 0:
		return canonicalNaN
	case e == 0:
		return s | infBits
	case e == 0xff:
		return 0
	}
	k := int(e) - bias
	if f == 0 && k&1 == 0 {
		return pack(0, 1, -k>>1) // powers of 4
	}
	v := rsqrtTables[k&1].eval(f, 23)
	return pack(0, uint64(v), -24-k>>1)
}

// mufuSqrt is MUFU.SQRT: sqrt(x), from one table per exponent parity.
func mufuSqrt(x uint32) uint32 {
	s, e, f := fields(flush(x))
	switch {
	case isNaN(x) || s != 0 && e != 0:
		return canonicalNaN
	case e == 0 || e == 0xff:
		return s | e<<23
	}
	k := int(e) - bias
	v := sqrtTables[k&1].eval(f, 23)
	return pack(0, uint64(v), -23+k>>1)
}

// mufuEx2 is MUFU.EX2: 2^x. |x| becomes a fixed-point number with ex2Frac
// fraction bits (rounded to nearest even); a negative x with a fraction f
// uses the one's complement of f below the next integer, so the table only
// interpolates 2^f on [0, 1).
func mufuEx2(x uint32) uint32 {
	s, e, _ := fields(flush(x))
	switch {
	case isNaN(x):
		return canonicalNaN
	case e == 0xff && s != 0:
		return 0
	case e == 0xff || s == 0 && e >= bias+7:
		return infBits
	case s != 0 && e >= bias+7:
		return 0
	}
	fx := fixedTrunc(x&^signBit, ex2Frac)
	i, f := int(fx>>ex2Frac), uint32(fx)&(1<<ex2Frac-1)
	if s != 0 {
		i = -i
		if f != 0 {
			i, f = i-1, ^f&(1<<ex2Frac-1)
		}
	}
	v := ex2Table.eval(f, ex2Frac)
	return pack(0, uint64(v), i-23)
}

// fixedTrunc returns the positive normal or zero x as a fixed-point number
// with n fraction bits, truncated; x < 2^7.
func fixedTrunc(x uint32, n uint) uint64 {
	_, e, f := fields(x)
	if e == 0 {
		return 0
	}
	m := uint64(f | 1<<23)
	sh := int(e) - bias - 23 + int(n)
	switch {
	case sh >= 0:
		return m << uint(sh)
	case sh < -24:
		return 0
	}
	return m >> uint(-sh)
}

// mufuLg2 is MUFU.LG2: log2(x) = exponent + log2(mantissa), formed in fixed
// point with lg2Frac fraction bits and truncated to binary32; a negative sum
// is negated by one's complement.
func mufuLg2(x uint32) uint32 {
	s, e, f := fields(flush(x))
	switch {
	case isNaN(x) || s != 0 && e != 0:
		return canonicalNaN
	case e == 0:
		return signBit | infBits
	case e == 0xff:
		return infBits
	case e == bias && f == 0:
		return 0
	}
	v := int64(int(e)-bias)<<lg2Frac + lg2Table.eval(f, 23)
	if v < 0 {
		return pack(signBit, uint64(^v), -lg2Frac)
	}
	return pack(0, uint64(v), -lg2Frac)
}

// The square root tables, indexed by the parity of the unbiased exponent;
// tables_gen.go fills them.
var rsqrtTables, sqrtTables [2]quadTable

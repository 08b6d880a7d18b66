// Package sfu computes PTX's approximate binary32 instructions bit for bit as
// an H100 does (PTX ISA §9.7.3, Floating-Point Instructions): the special function
// unit's table-driven quadratic interpolation (MUFU) and the instruction
// sequences ptxas 12.5 wraps around it for sm_90. Every function takes and
// returns bit patterns. How the tables were derived is in docs/sfu.md.
package sfu

// Bit patterns of the constants in ptxas's sequences.
const (
	minNormal = 0x00800000 // 2^-126
	bigOp     = 0x7e800000 // 2^126
	two24     = 0x4b800000 // 2^24
	quarter   = 0x3e800000
	half      = 0x3f000000
	two12     = 0x45800000 // 2^12
	twoM12    = 0x39800000 // 2^-12
	minus24   = 0xc1c00000
	minus126  = 0xc2fc0000
	invTwoPi  = 0x3e22f983 // 0.15915493667125701904, 1/(2π) as binary32
)

// Rcp is rcp.approx{.ftz}.f32 (§9.7.3). Without .ftz ptxas scales a
// subnormal x up by 2^24 and an x above 2^126 down by 4 around MUFU.RCP, and
// scales the result back by the same factor.
func Rcp(x uint32, ftz bool) uint32 {
	if ftz {
		return mufuRcp(x)
	}
	s := uint32(0x3f800000)
	if absLess(x, minNormal) {
		s = two24
	}
	if absGreater(x, bigOp) {
		s = quarter
	}
	return fmul(s, mufuRcp(fmul(x, s)))
}

// Rsqrt is rsqrt.approx{.ftz}.f32 (§9.7.3).
func Rsqrt(x uint32, ftz bool) uint32 {
	if ftz || !absLess(x, minNormal) {
		return mufuRsq(x)
	}
	return fmul(mufuRsq(fmul(x, two24)), two12)
}

// Sqrt is sqrt.approx{.ftz}.f32 (§9.7.3).
func Sqrt(x uint32, ftz bool) uint32 {
	if ftz || !absLess(x, minNormal) {
		return mufuSqrt(x)
	}
	return fmul(mufuSqrt(fmul(x, two24)), twoM12)
}

// Ex2 is ex2.approx{.ftz}.f32 (§9.7.3). Without .ftz ptxas halves an x
// below -126 and squares MUFU.EX2's result, which reaches the subnormals.
func Ex2(x uint32, ftz bool) uint32 {
	if ftz || isNaN(x) || !(f32(x) < f32(minus126)) {
		return mufuEx2(x)
	}
	r := mufuEx2(fmul(x, half))
	return fmul(r, r)
}

// Lg2 is lg2.approx{.ftz}.f32 (§9.7.3). Without .ftz ptxas scales a
// subnormal x by 2^24 and subtracts 24 from the logarithm.
func Lg2(x uint32, ftz bool) uint32 {
	if ftz || !absLess(x, minNormal) {
		return mufuLg2(x)
	}
	return fadd(mufuLg2(fmul(x, two24)), minus24)
}

// Sin is sin.approx{.ftz}.f32 (§9.7.3): MUFU.SIN of x/(2π), the product
// truncated toward zero. ptxas emits the same code with and without .ftz.
func Sin(x uint32, ftz bool) uint32 { return mufuSin(fmulRZ(x, invTwoPi)) }

// Cos is cos.approx{.ftz}.f32 (§9.7.3), like Sin.
func Cos(x uint32, ftz bool) uint32 { return mufuCos(fmulRZ(x, invTwoPi)) }

// Tanh is tanh.approx.f32 (§9.7.3): MUFU.TANH.
func Tanh(x uint32) uint32 { return mufuTanh(x) }

// DivApprox is div.approx{.ftz}.f32 (§9.7.3): x times MUFU.RCP(y); without
// .ftz a subnormal y scales both operands by 2^24 first.
func DivApprox(x, y uint32, ftz bool) uint32 {
	if ftz {
		return fmulFTZ(x, mufuRcp(y))
	}
	if absLess(y, minNormal) {
		x, y = fmul(x, two24), fmul(y, two24)
	}
	return fmul(mufuRcp(y), x)
}

// DivFull is div.full{.ftz}.f32 (§9.7.3) as ptxas 12.5 expands it for
// sm_90: a y above 2^126 scales both operands by 1/4 (and, without .ftz, a
// subnormal y by 2^24), then x times MUFU.RCP(y).
func DivFull(x, y uint32, ftz bool) uint32 {
	mul := fmul
	if ftz {
		mul = fmulFTZ
	}
	if absGreater(y, bigOp) {
		x, y = mul(x, quarter), mul(y, quarter)
	}
	if !ftz && absLess(y, minNormal) {
		x, y = fmul(x, two24), fmul(y, two24)
	}
	return mul(mufuRcp(y), x)
}

// absGreater is FSETP.GT |x| > limit (false for NaN).
func absGreater(x, limit uint32) bool { return !isNaN(x) && x&^signBit > limit }

package tensorcore

import "math/bits"

// Blackwell's narrow-precision MMAs (tcgen05.mma .kind::f8f6f4 and the
// block-scaled kinds .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4).
//
// Without scale factors (.kind::f8f6f4) the inputs (E4M3, E5M2, E2M3,
// E3M2, E2M1, A and B independently) follow the FP8 model of the package
// comment: blocks of FP8Block products aligned with the accumulator at
// FP8Frac fraction bits.
//
// With scale factors, k is cut into groups of Vec elements (32 for the MX
// formats, 16 for NVFP4) that share one scale factor of A's row and one of
// B's column. Following the published models (MMA-Sim; Khattak and
// Mikaitis), the products of a group are summed exactly, the exact group
// sum is multiplied by the two scale factors (exactly), and the scaled
// group sums of the instruction and the accumulator are then aligned to
// the largest exponent among them, truncated toward zero to FP8Frac
// fraction bits below it, added exactly and rounded toward zero to
// binary32 (the package comment's steps 2 to 5 with the scaled group sums
// as terms).

// ScaledProblem is one D = (A·SA) × (B·SB) + C of the f8f6f4 kinds. A is
// m×k row-major, B k×n stored by columns (as in Problem); SA holds the
// scale factors of A by row, k/Vec of them per row (SA[i*(k/Vec)+g] scales
// elements g*Vec..g*Vec+Vec-1 of row i), SB those of B by column. Scale is
// UE8M0 or UE4M3, or 0 for no scaling (.kind::f8f6f4, where Out may be F16).
type ScaledProblem struct {
	In, BIn Format // A's and B's element formats
	Out     Format // F32 (F16 only without scale factors)
	Scale   Format
	Vec     int
	M, N, K int
	A, B    []uint64
	SA, SB  []uint64
	C, D    []uint64
}

// ScaledMMA evaluates p with the architecture's arithmetic. D may alias C.
func (a *Arch) ScaledMMA(p *ScaledProblem) {
	A := decodeElems(p.In, p.A)
	B := decodeElems(p.BIn, p.B)
	if p.Scale == 0 {
		terms := make([]num, 0, a.FP8Block+1)
		for i := range p.M {
			for j := range p.N {
				p.D[i*p.N+j] = dot(A[i*p.K:(i+1)*p.K], B[j*p.K:(j+1)*p.K], decode(p.Out, p.C[i*p.N+j]), p.Out, a.FP8Frac, a.FP8Block, terms)
			}
		}
		return
	}
	groups := p.K / p.Vec
	terms := make([]num, 0, groups+1)
	for i := range p.M {
		for j := range p.N {
			terms = append(terms[:0], decode(F32, p.C[i*p.N+j]))
			for g := range groups {
				lo, hi := g*p.Vec, (g+1)*p.Vec
				sum := exactDot(A[i*p.K+lo:i*p.K+hi], B[j*p.K+lo:j*p.K+hi])
				terms = append(terms, scaleBy(sum, decodeScale(p.Scale, p.SA[i*groups+g]), decodeScale(p.Scale, p.SB[j*groups+g])))
			}
			p.D[i*p.N+j] = blockSum(terms, a.FP8Frac, F32, true)
		}
	}
}

func decodeElems(f Format, x []uint64) []num {
	out := make([]num, len(x))
	for i, v := range x {
		out[i] = decodeElem(f, v)
	}
	return out
}

// wide is the magnitude hi·2^64 + lo of an exact sum.
type wide struct{ hi, lo uint64 }

// exactDot is Σ a[k]·b[k] without rounding: NaN for a NaN or 0×inf or
// infinities of both signs, the infinity otherwise, else the exact sum
// (kept in 128 bits: narrow products span at most 2^-32..2^32). A sum of
// zeros is -0 only when every product is.
func exactDot(a, b []num) num {
	emin, pos, neg, allNegZero := int32(1<<30), false, false, true
	prods := make([]num, len(a))
	for k := range a {
		p := product(a[k], b[k])
		switch p.cls {
		case nan:
			return p
		case inf:
			pos, neg = pos || !p.neg, neg || p.neg
		}
		if p.cls == finite && p.m != 0 {
			p = normalize(p)
			emin = min(emin, p.e)
		}
		allNegZero = allNegZero && p.cls == finite && p.m == 0 && p.neg
		prods[k] = p
	}
	switch {
	case pos && neg:
		return num{cls: nan}
	case pos || neg:
		return num{cls: inf, neg: neg}
	case emin == 1<<30:
		return num{neg: allNegZero}
	}
	var shi, slo uint64 // two's complement 128-bit sum
	for _, p := range prods {
		if p.m == 0 {
			continue
		}
		sh := uint(p.e - emin)
		var hi, lo uint64
		if sh < 64 {
			lo = p.m << sh
			if sh > 0 {
				hi = p.m >> (64 - sh)
			}
		} else {
			hi = p.m << (sh - 64)
		}
		if p.neg {
			hi, lo = negate128(hi, lo)
		}
		var c uint64
		slo, c = bits.Add64(slo, lo, 0)
		shi, _ = bits.Add64(shi, hi, c)
	}
	sign := shi>>63 == 1
	if sign {
		shi, slo = negate128(shi, slo)
	}
	if shi == 0 && slo == 0 {
		return num{} // exact cancellation: +0
	}
	return narrow(wide{shi, slo}, emin, sign)
}

func negate128(hi, lo uint64) (uint64, uint64) {
	lo, c := bits.Add64(^lo, 1, 0)
	return ^hi + c, lo
}

// narrow is w·2^e truncated toward zero to 64 significant bits. Every
// later step truncates toward zero far above bit 64 below the leading bit
// (the alignment keeps FP8Frac+1 bits), and truncations toward zero of a
// magnitude compose, so the result is that of the exact value.
func narrow(w wide, e int32, neg bool) num {
	if w.hi == 0 {
		return num{m: w.lo, e: e, neg: neg}
	}
	s := uint(bits.Len64(w.hi))
	return num{m: w.lo>>s | w.hi<<(64-s), e: e + int32(s), neg: neg}
}

// scaleBy is x·sa·sb, exact up to narrow's truncation; a NaN scale makes
// the term NaN.
func scaleBy(x, sa, sb num) num {
	switch {
	case sa.cls == nan || sb.cls == nan || x.cls == nan:
		return num{cls: nan}
	case x.cls == inf:
		return x
	case x.m == 0:
		return x
	}
	c := sa.m * sb.m // at most 15·15 (UE4M3) or 1 (UE8M0)
	if c == 0 {      // a zero UE4M3 scale
		return num{neg: x.neg}
	}
	hi, lo := bits.Mul64(x.m, c)
	return narrow(wide{hi, lo}, x.e+sa.e+sb.e, x.neg)
}

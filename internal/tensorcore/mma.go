package tensorcore

import (
	"math"
	"math/bits"
)

// Kind says which instruction issues an MMA: the arithmetic of PTX
// mma.sync and wmma (Sync) differs from wgmma and tcgen05.mma (Async)
// where ptxas lowers a PTX mma.sync to more than one tensor-core operation.
type Kind uint8

const (
	Sync Kind = iota
	Async
)

// Problem is one D = A×B + C: A is m×k row-major (A[i*k+kk]), B is k×n
// stored by columns (B[j*k+kk], the k elements of column j together), C and
// D are m×n row-major. In is the format of A and B; Out that of C and D:
// F32 or F16 for floating-point inputs, F64 for F64. Elements are bit
// patterns in the low bits of each word. CIn is the format of C when it
// differs from Out (mma's .f32.f16.f16.f16 and .f16.f16.f16.f32). CShift
// scales C by 2^-CShift before the sum, exactly (tcgen05.mma's
// scale-input-d: D = A×B + C·2^-s).
type Problem struct {
	Kind    Kind
	In, Out Format
	BIn     Format // the format of B when it differs from In (e4m3 × e5m2)
	CIn     Format
	CShift  int
	M, N, K int
	A, B    []uint64
	C, D    []uint64
}

// MMA evaluates p with the architecture's arithmetic. D may alias C.
func (a *Arch) MMA(p *Problem) {
	switch {
	case p.In == F64:
		mmaF64(p)
	case (p.In == E4M3 || p.In == E5M2) && p.Kind == Sync && a.FP8ViaF16:
		a.mmaFP8ViaF16(p)
	default:
		a.mmaBlocks(p)
	}
}

// mmaBlocks is the block-summation model (package comment): A and B are
// decoded once, then every element of D is a dot product over k.
func (a *Arch) mmaBlocks(p *Problem) {
	A := decodeAll(p.In, p.A)
	B := decodeAll(p.bFormat(), p.B)
	frac, block := a.fracOf(p.In), a.blockOf(p.In)
	cin := p.Out
	if p.CIn != 0 {
		cin = p.CIn
	}
	terms := make([]num, 0, block+1)
	for i := range p.M {
		for j := range p.N {
			c := decode(cin, p.C[i*p.N+j])
			if c.cls == finite {
				c.e -= int32(p.CShift)
			}
			p.D[i*p.N+j] = dot(A[i*p.K:(i+1)*p.K], B[j*p.K:(j+1)*p.K], c, p.Out, frac, block, terms)
		}
	}
}

func (p *Problem) bFormat() Format {
	if p.BIn != 0 {
		return p.BIn
	}
	return p.In
}

func decodeAll(f Format, x []uint64) []num {
	out := make([]num, len(x))
	for i, v := range x {
		out[i] = decode(f, v)
	}
	return out
}

// dot is c + Σ a[kk]·b[kk] in blocks of block products; the result is a
// bit pattern of out. Every block but the last is rounded toward zero to
// binary32; the last is rounded into out (toward zero for F32, to
// nearest-even otherwise). terms is scratch space for blocks that hold an
// infinity or a NaN.
func dot(a, b []num, c num, out Format, frac, block int, terms []num) uint64 {
	acc := c
	for lo := 0; lo < len(a); lo += block {
		hi := min(lo+block, len(a))
		f, rz := F32, true
		if hi == len(a) && out != F32 {
			f, rz = out, false
		}
		v, ok := blockDotFinite(acc, a[lo:hi], b[lo:hi], frac, f, rz)
		if !ok {
			terms = append(terms[:0], acc)
			for kk := lo; kk < hi; kk++ {
				terms = append(terms, product(a[kk], b[kk]))
			}
			v = blockSum(terms, frac, f, rz)
		}
		if hi == len(a) {
			return v // an F32 result is the accumulator's bits as they are
		}
		acc = decode(F32, v)
	}
	return encodeNum(acc, out) // k == 0: C itself
}

// blockDotFinite is blockSum of acc and the products a[kk]·b[kk] in one
// pass, for the common block whose terms are all finite; ok is false
// when one is not (the caller takes the general path).
func blockDotFinite(acc num, a, b []num, frac int, out Format, rz bool) (v uint64, ok bool) {
	if acc.cls != finite || len(a) > maxBlock {
		return 0, false
	}
	var ms [maxBlock + 1]uint64
	var es [maxBlock + 1]int32
	var negs [maxBlock + 1]bool
	ms[0], es[0], negs[0] = acc.m, acc.e, acc.neg
	emax, allNeg := math.MinInt32, acc.neg
	if acc.m != 0 {
		emax = int(acc.e) + bits.Len64(acc.m) - 1
	}
	for kk := range a {
		x, y := a[kk], b[kk]
		if x.cls != finite || y.cls != finite {
			return 0, false
		}
		m, e, neg := x.m*y.m, x.e+y.e, x.neg != y.neg
		ms[kk+1], es[kk+1], negs[kk+1] = m, e, neg
		allNeg = allNeg && neg
		if m != 0 {
			emax = max(emax, int(e)+bits.Len64(m)-1)
		}
	}
	if emax == math.MinInt32 {
		return encode(out, allNeg, 0, 0, rz), true
	}
	q := emax - frac
	var sum int64
	for i := range len(a) + 1 {
		m := ms[i]
		if m == 0 {
			continue
		}
		var t uint64
		if sh := int(es[i]) - q; sh >= 0 {
			t = m << sh
		} else if -sh < 64 {
			t = m >> -sh
		}
		if negs[i] {
			sum -= int64(t)
		} else {
			sum += int64(t)
		}
	}
	if sum == 0 {
		return encode(out, false, 0, 0, rz), true // an exact cancellation is +0
	}
	neg := sum < 0
	if neg {
		sum = -sum
	}
	return encode(out, neg, uint64(sum), q, rz), true
}

// maxBlock bounds the products of one block (blockDotFinite's arrays): the
// largest Block or FP8Block of any architecture.
const maxBlock = 32

// product is x·y, exact.
func product(x, y num) num {
	switch {
	case x.cls == nan || y.cls == nan:
		return num{cls: nan}
	case x.cls == inf || y.cls == inf:
		if x.cls == finite && x.m == 0 || y.cls == finite && y.m == 0 {
			return num{cls: nan} // 0 × inf
		}
		return num{neg: x.neg != y.neg, cls: inf}
	}
	return num{m: x.m * y.m, e: x.e + y.e, neg: x.neg != y.neg}
}

// blockSum adds terms (the accumulator first): each is aligned to the
// largest exponent among them and truncated toward zero to frac fraction
// bits below it, the aligned terms are added exactly, and the sum is
// rounded into out (toward zero, or to nearest-even).
func blockSum(terms []num, frac int, out Format, rz bool) uint64 {
	if v, ok := special(terms, out); ok {
		return v
	}
	emax, any := math.MinInt32, false
	for _, t := range terms {
		if t.m != 0 {
			emax = max(emax, int(t.e)+bits.Len64(t.m)-1)
			any = true
		}
	}
	if !any {
		return encode(out, zeroSign(terms), 0, 0, rz)
	}
	q := emax - frac
	var sum int64
	for _, t := range terms {
		if t.m == 0 {
			continue
		}
		var v uint64
		if sh := int(t.e) - q; sh >= 0 {
			v = t.m << sh // below 2^(frac+1): the leading bit is at most emax
		} else if -sh < 64 {
			v = t.m >> -sh
		}
		if t.neg {
			sum -= int64(v)
		} else {
			sum += int64(v)
		}
	}
	if sum == 0 {
		return encode(out, false, 0, 0, rz) // an exact cancellation is +0
	}
	neg := sum < 0
	if neg {
		sum = -sum
	}
	return encode(out, neg, uint64(sum), q, rz)
}

// special is the result of a block holding a NaN or an infinity: NaN for
// a NaN, 0×inf or infinities of both signs, else the infinity.
func special(terms []num, out Format) (uint64, bool) {
	pos, neg := false, false
	for _, t := range terms {
		switch t.cls {
		case nan:
			return canonicalNaN(out), true
		case inf:
			if t.neg {
				neg = true
			} else {
				pos = true
			}
		}
	}
	switch {
	case pos && neg:
		return canonicalNaN(out), true
	case pos || neg:
		return encode(out, neg, 1, 100000, false), true // overflows to the infinity
	}
	return 0, false
}

// zeroSign is the sign of a sum of zeros: negative only if every term is.
func zeroSign(terms []num) bool {
	for _, t := range terms {
		if !t.neg {
			return false
		}
	}
	return true
}

// encodeNum writes a decoded value (exact in f) back as bits of f.
func encodeNum(x num, f Format) uint64 {
	switch x.cls {
	case nan:
		return canonicalNaN(f)
	case inf:
		return encode(f, x.neg, 1, 100000, false)
	}
	return encode(f, x.neg, x.m, int(x.e), true)
}

// mmaF64 is the f64 MMA: an IEEE fused multiply-add per product, in order
// of k, rounded to nearest-even.
func mmaF64(p *Problem) {
	for i := range p.M {
		for j := range p.N {
			d := math.Float64frombits(p.C[i*p.N+j])
			for kk := range p.K {
				d = math.FMA(math.Float64frombits(p.A[i*p.K+kk]), math.Float64frombits(p.B[j*p.K+kk]), d)
			}
			p.D[i*p.N+j] = math.Float64bits(d)
		}
	}
}

// mmaFP8ViaF16 is PTX mma.sync on FP8 where ptxas lowers it to f16: the
// inputs are converted to f16 (exactly, F2FP.F16.E4M3/E5M2.UNPACK_B), two
// f16 MMAs with a zero accumulator (HMMA.16816.F32 ..., RZ) take the
// interleaved halves of k (pairs 0-1, 4-5, ... and 2-3, 6-7, ..., the two
// f16x2 halves of each FP8x4 register), the two binary32 results are added
// together and their sum is added to C (two FADDs, nearest-even): D =
// C + (r0 + r1), the sequence ptxas 12.5 emits for sm_90.
func (a *Arch) mmaFP8ViaF16(p *Problem) {
	half := p.K / 2
	split := func(f Format, src []uint64, rows int, sel int) []uint64 {
		out := make([]uint64, 0, rows*half)
		for r := range rows {
			for kk := range p.K {
				if kk/2%2 == sel {
					out = append(out, encodeNum(decode(f, src[r*p.K+kk]), F16))
				}
			}
		}
		return out
	}
	zero := make([]uint64, p.M*p.N)
	var r [2][]uint64
	for s := range 2 {
		r[s] = make([]uint64, p.M*p.N)
		a.mmaBlocks(&Problem{Kind: Async, In: F16, Out: F32, M: p.M, N: p.N, K: half,
			A: split(p.In, p.A, p.M, s), B: split(p.bFormat(), p.B, p.N, s), C: zero, D: r[s]})
	}
	for i := range p.D {
		halves := addF32(math.Float32frombits(uint32(r[0][i])), math.Float32frombits(uint32(r[1][i])))
		d := addF32(math.Float32frombits(uint32(p.C[i])), halves) // FP8 mma.sync accumulates in f32
		p.D[i] = uint64(math.Float32bits(d))
	}
}

// addF32 is an IEEE binary32 addition with the canonical NaN.
func addF32(x, y float32) float32 {
	s := x + y
	if s != s {
		return math.Float32frombits(0x7fffffff)
	}
	return s
}

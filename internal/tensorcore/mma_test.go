package tensorcore

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The reference below computes the published model with exact rational
// arithmetic (math/big), from the formats' definitions, independently of
// the package's integer code: each block's terms are exact rationals, the
// largest binade is found by comparison, each term is truncated with a
// big.Int division, and the sum is rounded by big.Float and an explicit
// subnormal grid.

// refValue is the exact value of bit pattern x of format f, or ok=false
// for an infinity or NaN.
func refValue(f Format, x uint64) (*big.Rat, bool) {
	var ebits, mbits, bias int
	ieee := true
	switch f {
	case F16:
		ebits, mbits, bias = 5, 10, 15
	case BF16:
		ebits, mbits, bias = 8, 7, 127
	case TF32:
		ebits, mbits, bias = 8, 23, 127
		x &^= 0x1fff
	case F32:
		ebits, mbits, bias = 8, 23, 127
	case E4M3:
		ebits, mbits, bias, ieee = 4, 3, 7, false
	case E5M2:
		ebits, mbits, bias = 5, 2, 15
	}
	e := int(x >> mbits & (1<<ebits - 1))
	m := int64(x & (1<<mbits - 1))
	if ieee && e == 1<<ebits-1 || !ieee && e == 1<<ebits-1 && m == 1<<mbits-1 {
		return nil, false
	}
	sig := new(big.Rat).SetFrac64(m, 1<<mbits)
	if e == 0 {
		e = 1
	} else {
		sig.Add(sig, big.NewRat(1, 1))
	}
	v := new(big.Rat).Mul(sig, pow2(e-bias))
	if x>>(ebits+mbits)&1 == 1 {
		v.Neg(v)
	}
	return v, true
}

func pow2(e int) *big.Rat {
	r := new(big.Rat)
	if e >= 0 {
		return r.SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return r.SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

// binade is floor(log2 |v|) for v != 0.
func binade(v *big.Rat) int {
	a := new(big.Rat).Abs(v)
	e := a.Num().BitLen() - a.Denom().BitLen()
	for a.Cmp(pow2(e)) < 0 {
		e--
	}
	for a.Cmp(pow2(e+1)) >= 0 {
		e++
	}
	return e
}

// refRound rounds v into f32 toward zero or f16 to nearest-even, with
// subnormals and an overflow to infinity.
func refRound(v *big.Rat, out Format) uint64 {
	prec, minExp, maxExp := 24, -126, 127
	if out == F16 {
		prec, minExp, maxExp = 11, -14, 15
	}
	if v.Sign() == 0 {
		return 0
	}
	neg := v.Sign() < 0
	a := new(big.Rat).Abs(v)
	lsb := max(binade(a)-prec+1, minExp-prec+1)
	scaled := new(big.Rat).Mul(a, pow2(-lsb))
	q := new(big.Int).Quo(scaled.Num(), scaled.Denom())
	if out == F16 { // nearest-even
		rem := new(big.Rat).Sub(scaled, new(big.Rat).SetInt(q))
		if c := rem.Cmp(big.NewRat(1, 2)); c > 0 || c == 0 && q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	r := new(big.Rat).Mul(new(big.Rat).SetInt(q), pow2(lsb))
	var bitsOut uint64
	if out == F16 {
		if r.Cmp(big.NewRat(65504, 1)) > 0 {
			bitsOut = 0x7c00
		} else {
			f, _ := new(big.Float).SetRat(r).Float64()
			bitsOut = f16Bits(f)
		}
		if neg {
			bitsOut |= 0x8000
		}
		return bitsOut
	}
	if binade(r) > maxExp {
		bitsOut = 0x7f800000
	} else {
		f, _ := new(big.Float).SetRat(r).Float32()
		bitsOut = uint64(math.Float32bits(f))
	}
	if neg {
		bitsOut |= 0x80000000
	}
	return bitsOut
}

// f16Bits encodes a float64 that is exactly a finite binary16 value.
func f16Bits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	e := math.Ilogb(f)
	if e < -14 {
		return uint64(math.Round(f * math.Ldexp(1, 24)))
	}
	m := uint64(math.Round(math.Ldexp(f, 10-e))) - 1024
	return uint64(e+15)<<10 | m
}

// refDot is the model's c + Σ a·b on finite inputs.
func refDot(a, b []uint64, c uint64, in, out Format, frac, block int) uint64 {
	acc, _ := refValue(out, c)
	for lo := 0; lo < len(a); lo += block {
		terms := []*big.Rat{acc}
		for kk := lo; kk < min(lo+block, len(a)); kk++ {
			x, _ := refValue(in, a[kk])
			y, _ := refValue(in, b[kk])
			terms = append(terms, new(big.Rat).Mul(x, y))
		}
		emax := math.MinInt
		for _, t := range terms {
			if t.Sign() != 0 {
				emax = max(emax, binade(t))
			}
		}
		sum := new(big.Rat)
		if emax != math.MinInt {
			unit := pow2(emax - frac)
			for _, t := range terms {
				s := new(big.Rat).Quo(t, unit)
				n := new(big.Int).Quo(s.Num(), s.Denom()) // toward zero
				sum.Add(sum, new(big.Rat).Mul(new(big.Rat).SetInt(n), unit))
			}
		}
		if lo+block >= len(a) {
			return refRound(sum, out)
		}
		acc, _ = refValue(F32, refRound(sum, F32))
	}
	return c
}

// randFinite draws a finite bit pattern of f with a spread of exponents,
// subnormals and zeros included.
func randFinite(r *rand.Rand, f Format) uint64 {
	for {
		var x uint64
		switch f {
		case F16, BF16:
			x = uint64(r.Uint32() & 0xffff)
		case E4M3, E5M2:
			x = uint64(r.Uint32() & 0xff)
		default:
			x = uint64(r.Uint32())
		}
		// Keep the 8-bit-exponent formats inside the f32 range; now and
		// then a subnormal.
		e := uint64(r.IntN(60) + 97)
		if r.IntN(8) == 0 {
			e = 0
		}
		switch f {
		case F32, TF32:
			x = x&0x807fffff | e<<23
		case BF16:
			x = x&0x807f | e<<7
		}
		if _, ok := refValue(f, x); ok {
			return x
		}
	}
}

func TestMMAAgainstExactReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, arch := range []*Arch{Volta, Turing, Ampere, Ada, Hopper, Blackwell} {
		for _, in := range []Format{F16, BF16, TF32, E4M3, E5M2} {
			for _, out := range []Format{F32, F16} {
				if out == F16 && in != F16 {
					continue
				}
				for _, k := range []int{4, 8, 16, 32} {
					p := randProblem(r, in, out, 4, 3, k)
					arch.mmaBlocks(p)
					for i := range p.M {
						for j := range p.N {
							want := refDot(p.A[i*k:(i+1)*k], p.B[j*k:(j+1)*k], p.C[i*p.N+j], in, out, arch.fracOf(in), arch.blockOf(in))
							if got := p.D[i*p.N+j]; got != want {
								t.Fatalf("%s %s->%s k=%d (%d,%d): got %#x, want %#x\nA=%x\nB=%x\nC=%#x", arch.Name, in, out, k, i, j,
									got, want, p.A[i*k:(i+1)*k], p.B[j*k:(j+1)*k], p.C[i*p.N+j])
							}
						}
					}
				}
			}
		}
	}
}

func randProblem(r *rand.Rand, in, out Format, m, n, k int) *Problem {
	p := &Problem{Kind: Async, In: in, Out: out, M: m, N: n, K: k,
		A: make([]uint64, m*k), B: make([]uint64, n*k), C: make([]uint64, m*n), D: make([]uint64, m*n)}
	for i := range p.A {
		p.A[i] = randFinite(r, in)
	}
	for i := range p.B {
		p.B[i] = randFinite(r, in)
	}
	for i := range p.C {
		p.C[i] = randFinite(r, out)
	}
	return p
}

// dot1 runs a 1×1×k problem.
func dot1(arch *Arch, in, out Format, a, b []uint64, c uint64) uint64 {
	d := []uint64{0}
	arch.MMA(&Problem{Kind: Async, In: in, Out: out, M: 1, N: 1, K: len(a), A: a, B: b, C: []uint64{c}, D: d})
	return d[0]
}

const (
	h1    = 0x3c00 // f16 1.0
	hm1   = 0xbc00 // f16 -1.0
	hInf  = 0x7c00
	hNInf = 0xfc00
	hNaN  = 0x7e01
)

func negZeros(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = 0x8000
	}
	return s
}

func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }

// TestEdgeCases are cases whose results follow from the model by hand.
func TestEdgeCases(t *testing.T) {
	zeros := func(n int) []uint64 { return make([]uint64, n) }
	with := func(n int, v ...uint64) []uint64 { s := zeros(n); copy(s, v); return s }
	cases := []struct {
		name    string
		arch    *Arch
		in, out Format
		a, b    []uint64
		c, want uint64
	}{
		// 1 - 1 + 2^-28: the small product falls below the 2^-25 unit of
		// the block and is truncated away; IEEE arithmetic gives 2^-28.
		{"cancellation", Hopper, F16, F32, with(16, h1, h1, 0x0400), with(16, h1, hm1, 0x0400), 0, 0},
		// 1 + 1.5·2^-24: kept in the block (3 units of 2^-25), then
		// rounded toward zero to 1 (nearest would give 1+2^-23).
		{"round toward zero", Hopper, F16, F32, with(16, 0x0c00), with(16, 0x0e00), f32(1), f32(1)},
		// The same on Volta: F = 23 truncates 1.5·2^-24 to 0 first.
		{"volta truncation", Volta, F16, F32, with(4, 0x0c00), with(4, 0x0e00), f32(1), f32(1)},
		// 2^-70 · 2^-70 = 2^-140, a binary32 subnormal, exact.
		{"subnormal result", Hopper, BF16, F32, with(16, 0x1c80), with(16, 0x1c80), 0, 1 << 9},
		// f16 subnormal inputs multiply exactly: 2^-24 · 2^-24 = 2^-48.
		{"subnormal inputs", Ampere, F16, F32, with(8, 1), with(8, 1), 0, f32(float32(math.Ldexp(1, -48)))},
		{"inf", Hopper, F16, F32, with(16, hInf), with(16, h1), f32(2), 0x7f800000},
		{"-inf", Hopper, F16, F32, with(16, hNInf), with(16, h1), f32(2), 0xff800000},
		{"inf minus inf", Hopper, F16, F32, with(16, hInf, hNInf), with(16, h1, h1), 0, 0x7fffffff},
		{"inf times zero", Hopper, F16, F32, with(16, hInf), with(16, 0), 0, 0x7fffffff},
		{"nan input", Ampere, F16, F32, with(8, hNaN), with(8, h1), 0, 0x7fffffff},
		{"nan accumulator", Ampere, F16, F32, zeros(8), zeros(8), 0x7fc00001, 0x7fffffff},
		{"inf accumulator", Ampere, F16, F32, with(8, h1), with(8, h1), 0x7f800000, 0x7f800000},
		{"nan f16 output", Hopper, F16, F16, with(16, hNaN), with(16, h1), 0, 0x7fff},
		// FLT_MAX + 2^127·2: the sum overflows binary32: infinity.
		{"accumulator overflow", Hopper, BF16, F32, with(16, 0x7f00), with(16, 0x4000), 0x7f7fffff, 0x7f800000},
		// 65504 + 8 in f16 output: nearest-even stays at 65504; +16 is the
		// tie with 65536 and rounds to even: infinity.
		{"f16 output rounding", Hopper, F16, F16, with(16, 0x4800), with(16, h1), 0x7bff, 0x7bff},
		{"f16 output overflow", Hopper, F16, F16, with(16, 0x4c00), with(16, h1), 0x7bff, 0x7c00},
		// -0 + Σ(-0)·1: every term a negative zero: -0.
		{"negative zero", Hopper, F16, F32, negZeros(16), with(16, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1, h1), 0x80000000, 0x80000000},
		{"positive zero term", Hopper, F16, F32, with(16, 0x8000), with(16, h1), 0x80000000, 0},
		{"exact cancellation is +0", Hopper, F16, F32, with(16, h1, hm1), with(16, h1, h1), 0x80000000, 0},
		// E4M3 0x7f is NaN; 0x7e is 448.
		{"e4m3 nan", Hopper, E4M3, F32, with(32, 0x7f), with(32, 0x38), 0, 0x7fffffff},
		{"e4m3 max", Hopper, E4M3, F32, with(32, 0x7e), with(32, 0x38), 0, f32(448)},
	}
	for _, c := range cases {
		if got := dot1(c.arch, c.in, c.out, c.a, c.b, c.c); got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestBlocksSplitK checks that an architecture sums k in its blocks: on
// Ampere a k16 f16 product is two k8 halves, so a small term in the second
// half survives that the first half's large terms would truncate in one
// 16-term block.
func TestBlocksSplitK(t *testing.T) {
	a := make([]uint64, 16)
	b := make([]uint64, 16)
	a[0], b[0] = 0x6000, h1 // 512 in the first half
	a[8], b[8] = 0x0400, h1 // 2^-14 in the second half
	// Ampere: block 1 = 512 (fp32); block 2 = 512 + 2^-14, unit 2^(9-24):
	// 2^-14 survives; RZ to fp32 (ulp 2^-14 at 512): 512 + 2^-14.
	want := f32(512 + float32(math.Ldexp(1, -14)))
	if got := dot1(Ampere, F16, F32, a, b, 0); got != want {
		t.Errorf("ampere: got %#x, want %#x", got, want)
	}
	// Volta (blocks of 4, F = 23): the same sum, unit 2^-14 at 512: kept.
	if got := dot1(Volta, F16, F32, a, b, 0); got != want {
		t.Errorf("volta: got %#x, want %#x", got, want)
	}
	// A term below the unit of its own block is lost: with 2^-15 next to
	// 512 in one block (Hopper, F = 25, unit 2^-16) it survives, on
	// Ampere (F = 24, unit 2^-15) too, on Volta (unit 2^-14) it is lost.
	a[8], a[1], b[1] = 0, 0x0200, h1 // 2^-15 beside 512
	if got := dot1(Volta, F16, F32, a, b, 0); got != f32(512) {
		t.Errorf("volta truncation: got %#x", got)
	}
}

// TestFP8ViaF16 checks sm_90's lowering of mma.sync on FP8: the two
// halves are added to C in binary32 with nearest-even, so a half-ulp tie
// rounds to even, where wgmma's one 32-term block truncates.
func TestFP8ViaF16(t *testing.T) {
	a := make([]uint64, 32)
	b := make([]uint64, 32)
	// e4m3 0x38 = 1.0; 0x08 = 2^-6 · 1.0 = 2^-6 (normal, exponent 1).
	a[0], b[0] = 0x38, 0x38 // 1 in half 0 (k 0)
	a[2], b[2] = 0x08, 0x08 // 2^-12 in half 1 (k 2)
	c := f32(float32(math.Ldexp(1, 12)))
	// wgmma (Async, one block, F = 13 below 2^12): unit 2^-1, both small
	// terms truncated: 4096 + 1 = 4097.
	d := []uint64{0}
	Hopper.MMA(&Problem{Kind: Async, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{c}, D: d})
	if d[0] != f32(4097) {
		t.Errorf("wgmma fp8: got %v", math.Float32frombits(uint32(d[0])))
	}
	// mma.sync: (4096 + 1) + 2^-12 in binary32 RN: 4097.
	Hopper.MMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{c}, D: d})
	if d[0] != f32(4097) {
		t.Errorf("mma.sync fp8: got %v", math.Float32frombits(uint32(d[0])))
	}
	// With C = 0 the halves keep every bit: 1 + 2^-12.
	Hopper.MMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if want := f32(1 + float32(math.Ldexp(1, -12))); d[0] != want {
		t.Errorf("mma.sync fp8 exact: got %v", math.Float32frombits(uint32(d[0])))
	}
	// wgmma with C = 0: one block, unit 2^-13: 1 + 2^-12 kept too.
	Hopper.MMA(&Problem{Kind: Async, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if want := f32(1 + float32(math.Ldexp(1, -12))); d[0] != want {
		t.Errorf("wgmma fp8 exact: got %v", math.Float32frombits(uint32(d[0])))
	}
	// A term 2^-14 beside 1 is below wgmma's unit 2^-13 (lost) but kept
	// by the f16 path (F = 25).
	a[2], b[2] = 0x04, 0x08 // 2^-7 · 2^-6 = 2^-13? 0x04 = 2^-7 (subnormal 4·2^-9)
	Hopper.MMA(&Problem{Kind: Async, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	async := d[0]
	Hopper.MMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if want := f32(1 + float32(math.Ldexp(1, -13))); d[0] != want || async != want {
		t.Errorf("2^-13 beside 1: sync %v async %v", math.Float32frombits(uint32(d[0])), math.Float32frombits(uint32(async)))
	}
	a[2], b[2] = 0x02, 0x08 // 2^-8 · 2^-6 = 2^-14
	Hopper.MMA(&Problem{Kind: Async, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if d[0] != f32(1) {
		t.Errorf("wgmma: 2^-14 beside 1 should be truncated, got %v", math.Float32frombits(uint32(d[0])))
	}
	Hopper.MMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if want := f32(1 + float32(math.Ldexp(1, -14))); d[0] != want {
		t.Errorf("mma.sync: 2^-14 beside 1 should be kept, got %v", math.Float32frombits(uint32(d[0])))
	}
}

func TestF64IsFMAChain(t *testing.T) {
	a := []uint64{math.Float64bits(1 + math.Ldexp(1, -52)), math.Float64bits(1)}
	b := []uint64{math.Float64bits(1 - math.Ldexp(1, -52)), math.Float64bits(-1)}
	d := []uint64{0}
	Ampere.MMA(&Problem{In: F64, Out: F64, M: 1, N: 1, K: 2, A: a, B: b, C: []uint64{0}, D: d})
	// fma(1+u, 1-u, 0) = 1 - u² rounds to 1; then fma(1, -1, 1) = 0.
	if d[0] != 0 {
		t.Errorf("got %v", math.Float64frombits(d[0]))
	}
}

func TestForSM(t *testing.T) {
	for sm, want := range map[int]*Arch{70: Volta, 72: Volta, 75: Turing, 80: Ampere, 86: Ampere, 89: Ada, 90: Hopper, 100: Blackwell, 120: Blackwell} {
		if got := ForSM(sm); got != want {
			t.Errorf("sm_%d: got %s, want %s", sm, got.Name, want.Name)
		}
	}
}

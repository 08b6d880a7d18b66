package tensorcore

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refMini is the exact value of a narrow element, from the formats'
// definitions: E2M1 by its table of eight magnitudes, E2M3 and E3M2 by
// (-1)^s · 2^(e-bias) · (1 + m/2^mbits), or 2^(1-bias) · m/2^mbits for e = 0.
func refMini(f Format, x uint64) (*big.Rat, bool) {
	var ebits, mbits, bias int
	switch f {
	case E2M1:
		mags := []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 2), big.NewRat(1, 1), big.NewRat(3, 2),
			big.NewRat(2, 1), big.NewRat(3, 1), big.NewRat(4, 1), big.NewRat(6, 1)}
		v := new(big.Rat).Set(mags[x&7])
		if x&8 != 0 {
			v.Neg(v)
		}
		return v, true
	case E2M3:
		ebits, mbits, bias = 2, 3, 1
	case E3M2:
		ebits, mbits, bias = 3, 2, 3
	default:
		return refValue(f, x)
	}
	e := int(x >> mbits & (1<<ebits - 1))
	m := new(big.Rat).SetFrac64(int64(x&(1<<mbits-1)), 1<<mbits)
	if e == 0 {
		e = 1
	} else {
		m.Add(m, big.NewRat(1, 1))
	}
	v := m.Mul(m, pow2(e-bias))
	if x>>(ebits+mbits)&1 == 1 {
		v.Neg(v)
	}
	return v, true
}

// refScaleValue is a scale factor's value: 2^(x-127) or a non-negative E4M3.
func refScaleValue(f Format, x uint64) *big.Rat {
	if f == UE8M0 {
		return pow2(int(x) - 127)
	}
	v, _ := refValue(E4M3, x&0x7f)
	return v
}

// refScaledDot is the block-scaled model on finite inputs: each group's
// products summed exactly and scaled, then one alignment of C and the
// scaled sums at frac bits, truncation, exact sum, round toward zero.
func refScaledDot(p *ScaledProblem, i, j, frac int) uint64 {
	groups := p.K / p.Vec
	c, _ := refValue(F32, p.C[i*p.N+j])
	terms := []*big.Rat{c}
	for g := range groups {
		sum := new(big.Rat)
		for kk := g * p.Vec; kk < (g+1)*p.Vec; kk++ {
			x, _ := refMini(p.In, p.A[i*p.K+kk])
			y, _ := refMini(p.BIn, p.B[j*p.K+kk])
			sum.Add(sum, new(big.Rat).Mul(x, y))
		}
		sum.Mul(sum, refScaleValue(p.Scale, p.SA[i*groups+g]))
		sum.Mul(sum, refScaleValue(p.Scale, p.SB[j*groups+g]))
		terms = append(terms, sum)
	}
	emax := math.MinInt
	for _, t := range terms {
		if t.Sign() != 0 {
			emax = max(emax, binade(t))
		}
	}
	total := new(big.Rat)
	if emax != math.MinInt {
		unit := pow2(emax - frac)
		for _, t := range terms {
			s := new(big.Rat).Quo(t, unit)
			n := new(big.Int).Quo(s.Num(), s.Denom())
			total.Add(total, new(big.Rat).Mul(new(big.Rat).SetInt(n), unit))
		}
	}
	return refRound(total, F32)
}

func randElem(r *rand.Rand, f Format) uint64 {
	switch f {
	case E2M1:
		return uint64(r.IntN(16))
	case E2M3, E3M2:
		return uint64(r.IntN(64))
	}
	return randFinite(r, f)
}

func randScaled(r *rand.Rand, in, bin, scale Format, vec, m, n, k int) *ScaledProblem {
	p := &ScaledProblem{In: in, BIn: bin, Out: F32, Scale: scale, Vec: vec, M: m, N: n, K: k,
		A: make([]uint64, m*k), B: make([]uint64, n*k), C: make([]uint64, m*n), D: make([]uint64, m*n),
		SA: make([]uint64, m*k/vec), SB: make([]uint64, n*k/vec)}
	for i := range p.A {
		p.A[i] = randElem(r, in)
	}
	for i := range p.B {
		p.B[i] = randElem(r, bin)
	}
	for _, s := range [][]uint64{p.SA, p.SB} {
		for i := range s {
			if scale == UE8M0 {
				s[i] = uint64(127 - 24 + r.IntN(48))
			} else {
				s[i] = uint64(r.IntN(0x7f)) // every finite UE4M3, zero included
			}
		}
	}
	for i := range p.C {
		p.C[i] = randFinite(r, F32)
		if r.IntN(4) == 0 {
			p.C[i] = 0
		}
	}
	return p
}

// TestScaledMMAAgainstExactReference covers the three block-scaled kinds
// with every input pairing: .kind::mxf8f6f4 (k = 32, one UE8M0 per 32),
// .kind::mxf4 (E2M1, k = 64, UE8M0 per 32) and .kind::mxf4nvf4 (E2M1,
// k = 64, UE4M3 or UE8M0 per 16).
func TestScaledMMAAgainstExactReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	narrow := []Format{E4M3, E5M2, E2M3, E3M2, E2M1}
	type kind struct {
		ins   []Format
		scale Format
		vec   int
		k     int
	}
	kinds := []kind{{narrow, UE8M0, 32, 32}, {[]Format{E2M1}, UE8M0, 32, 64}, {[]Format{E2M1}, UE4M3, 16, 64}, {[]Format{E2M1}, UE8M0, 16, 64}}
	for _, kd := range kinds {
		for _, in := range kd.ins {
			for _, bin := range kd.ins {
				for range 3 {
					p := randScaled(r, in, bin, kd.scale, kd.vec, 4, 4, kd.k)
					Blackwell.ScaledMMA(p)
					for i := range p.M {
						for j := range p.N {
							if want := refScaledDot(p, i, j, Blackwell.FP8Frac); p.D[i*p.N+j] != want {
								t.Fatalf("%s×%s %s/%d (%d,%d): got %#x, want %#x\nA=%x\nB=%x\nSA=%x SB=%x C=%#x", Name(in), Name(bin), Name(kd.scale), kd.vec,
									i, j, p.D[i*p.N+j], want, p.A[i*p.K:(i+1)*p.K], p.B[j*p.K:(j+1)*p.K], p.SA, p.SB, p.C[i*p.N+j])
							}
						}
					}
				}
			}
		}
	}
}

// TestF8F6F4AgainstExactReference: without scale factors every narrow
// pairing follows the FP8 model (blocks of 32, F = 25 on Blackwell), with
// f32 and f16 accumulators.
func TestF8F6F4AgainstExactReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	narrow := []Format{E4M3, E5M2, E2M3, E3M2, E2M1}
	for _, in := range narrow {
		for _, bin := range narrow {
			for _, out := range []Format{F32, F16} {
				p := &ScaledProblem{In: in, BIn: bin, Out: out, M: 3, N: 3, K: 32,
					A: make([]uint64, 96), B: make([]uint64, 96), C: make([]uint64, 9), D: make([]uint64, 9)}
				for i := range p.A {
					p.A[i], p.B[i] = randElem(r, in), randElem(r, bin)
				}
				for i := range p.C {
					p.C[i] = randFinite(r, out)
				}
				Blackwell.ScaledMMA(p)
				for i := range 3 {
					for j := range 3 {
						want := refNarrowDot(p, i, j)
						if p.D[i*3+j] != want {
							t.Fatalf("%s×%s->%s (%d,%d): got %#x, want %#x", Name(in), Name(bin), out, i, j, p.D[i*3+j], want)
						}
					}
				}
			}
		}
	}
}

// refNarrowDot is the unscaled FP8 model of one element: one block of 32
// products and C aligned at F = 25.
func refNarrowDot(p *ScaledProblem, i, j int) uint64 {
	c, _ := refValue(p.Out, p.C[i*p.N+j])
	terms := []*big.Rat{c}
	for kk := range p.K {
		x, _ := refMini(p.In, p.A[i*p.K+kk])
		y, _ := refMini(p.BIn, p.B[j*p.K+kk])
		terms = append(terms, new(big.Rat).Mul(x, y))
	}
	emax := math.MinInt
	for _, t := range terms {
		if t.Sign() != 0 {
			emax = max(emax, binade(t))
		}
	}
	total := new(big.Rat)
	if emax != math.MinInt {
		unit := pow2(emax - 25)
		for _, t := range terms {
			s := new(big.Rat).Quo(t, unit)
			n := new(big.Int).Quo(s.Num(), s.Denom())
			total.Add(total, new(big.Rat).Mul(new(big.Rat).SetInt(n), unit))
		}
	}
	return refRound(total, p.Out)
}

// TestMinifloatValues checks the decoders against values written out.
func TestMinifloatValues(t *testing.T) {
	cases := []struct {
		f    Format
		x    uint64
		want float64
	}{
		{E2M1, 0x1, 0.5}, {E2M1, 0x7, 6}, {E2M1, 0xf, -6}, {E2M1, 0x8, 0}, {E2M1, 0x5, 3},
		{E2M3, 0x1f, 7.5}, {E2M3, 0x01, 0.125}, {E2M3, 0x08, 1}, {E2M3, 0x3f, -7.5}, {E2M3, 0x07, 0.875},
		{E3M2, 0x1f, 28}, {E3M2, 0x01, 0.0625}, {E3M2, 0x0c, 1}, {E3M2, 0x04, 0.25}, {E3M2, 0x23, -0.1875},
	}
	for _, c := range cases {
		n := decodeElem(c.f, c.x)
		v := math.Ldexp(float64(n.m), int(n.e))
		if n.neg {
			v = -v
		}
		if v != c.want || n.cls != finite {
			t.Errorf("%s %#x: got %v, want %v", Name(c.f), c.x, v, c.want)
		}
	}
	if s := decodeScale(UE8M0, 127); s.m != 1 || s.e != 0 {
		t.Errorf("ue8m0 127 is not 1: %+v", s)
	}
	if s := decodeScale(UE8M0, 0); s.m != 1 || s.e != -127 {
		t.Errorf("ue8m0 0 is not 2^-127: %+v", s)
	}
	if decodeScale(UE8M0, 0xff).cls != nan || decodeScale(UE4M3, 0x7f).cls != nan {
		t.Error("the NaN scales are not NaN")
	}
	if s := decodeScale(UE4M3, 0x7e); math.Ldexp(float64(s.m), int(s.e)) != 448 {
		t.Errorf("ue4m3 0x7e is not 448: %+v", s)
	}
}

func scaled1(in Format, a, b []uint64, scale Format, vec int, sa, sb []uint64, c uint64) uint64 {
	d := []uint64{0}
	Blackwell.ScaledMMA(&ScaledProblem{In: in, BIn: in, Out: F32, Scale: scale, Vec: vec, M: 1, N: 1, K: len(a),
		A: a, B: b, SA: sa, SB: sb, C: []uint64{c}, D: d})
	return d[0]
}

// TestScaledEdgeCases are results derived by hand.
func TestScaledEdgeCases(t *testing.T) {
	with := func(n int, v ...uint64) []uint64 { s := make([]uint64, n); copy(s, v); return s }
	const one8, e4m3_256, e4m3_tiny = 0x38, 0x78, 0x01 // e4m3 1.0, 256, 2^-9
	// 256·256 - 256·256 + 2^-9·2^-9: the group sum is exactly 2^-18. The
	// unscaled FP8 model aligns the products to 2^16 and truncates 2^-18
	// away (unit 2^-9); the block-scaled model sums the group first.
	a := with(32, e4m3_256, e4m3_256, e4m3_tiny)
	b := with(32, e4m3_256, 0xf8, e4m3_tiny) // 0xf8 = -256
	if got := scaled1(E4M3, a, b, UE8M0, 32, []uint64{127}, []uint64{127}, 0); got != f32(float32(math.Ldexp(1, -18))) {
		t.Errorf("exact group sum: got %#x", got)
	}
	d := []uint64{0}
	Blackwell.ScaledMMA(&ScaledProblem{In: E4M3, BIn: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{0}, D: d})
	if d[0] != 0 {
		t.Errorf("unscaled f8f6f4 keeps 2^-18 beside 2^16: got %#x", d[0])
	}
	// Scales multiply: 1·1 with 2^3 · 2^-5 = 0.25.
	if got := scaled1(E4M3, with(32, one8), with(32, one8), UE8M0, 32, []uint64{130}, []uint64{122}, 0); got != f32(0.25) {
		t.Errorf("ue8m0 scales: got %#x", got)
	}
	// NVFP4: 6·6 in group 0 scaled by 1.5 (ue4m3 0x3c) and 3 (0x44) = 162; 0.5·0.5
	// in group 3 scaled by 1·1; C = 1: 163.25.
	sa, sb := []uint64{0x3c, 0x38, 0x38, 0x38}, []uint64{0x44, 0x38, 0x38, 0x38}
	a4, b4 := with(64, 7), with(64, 7)
	a4[48], b4[48] = 1, 1
	if got := scaled1(E2M1, a4, b4, UE4M3, 16, sa, sb, f32(1)); got != f32(163.25) {
		t.Errorf("nvfp4: got %v", math.Float32frombits(uint32(got)))
	}
	// The scaled sums and C are aligned at F = 25: C = 2^26 and a group sum
	// of 1 (unit 2^1) loses the 1; rounding toward zero keeps 2^26.
	if got := scaled1(E4M3, with(32, one8), with(32, one8), UE8M0, 32, []uint64{127}, []uint64{127}, f32(1<<26)); got != f32(1<<26) {
		t.Errorf("alignment: got %#x", got)
	}
	// A NaN scale, a NaN element, an E5M2 infinity, inf - inf.
	if got := scaled1(E4M3, with(32, one8), with(32, one8), UE8M0, 32, []uint64{0xff}, []uint64{127}, 0); got != 0x7fffffff {
		t.Errorf("nan scale: got %#x", got)
	}
	if got := scaled1(E4M3, with(32, 0x7f), with(32, one8), UE8M0, 32, []uint64{127}, []uint64{127}, 0); got != 0x7fffffff {
		t.Errorf("nan element: got %#x", got)
	}
	if got := scaled1(E5M2, with(32, 0x7c), with(32, 0x3c), UE8M0, 32, []uint64{127}, []uint64{127}, 0); got != 0x7f800000 {
		t.Errorf("inf: got %#x", got)
	}
	if got := scaled1(E5M2, with(32, 0x7c, 0xfc), with(32, 0x3c, 0x3c), UE8M0, 32, []uint64{127}, []uint64{127}, 0); got != 0x7fffffff {
		t.Errorf("inf-inf: got %#x", got)
	}
	// A sum beyond binary32: 448·448·2^127·2^127.
	if got := scaled1(E4M3, with(32, 0x7e), with(32, 0x7e), UE8M0, 32, []uint64{254}, []uint64{254}, 0); got != 0x7f800000 {
		t.Errorf("overflow: got %#x", got)
	}
	// Negative zeros: every product -0 and C = -0 give -0; a +0 product gives +0.
	nz := with(32)
	for i := range nz {
		nz[i] = 0x80
	}
	if got := scaled1(E4M3, nz, with(32, one8), UE8M0, 32, []uint64{127}, []uint64{127}, 0x80000000); got != 0x80000000 {
		t.Errorf("-0: got %#x", got)
	}
	if got := scaled1(E4M3, with(32), with(32, one8), UE8M0, 32, []uint64{127}, []uint64{127}, 0x80000000); got != 0 {
		t.Errorf("+0: got %#x", got)
	}
	// A wide group: e5m2 57344·57344 and 2^-16·2^-16 in one group span 2^-32..2^31.6;
	// the sum is exact before the alignment truncates the small product.
	if got := scaled1(E5M2, with(32, 0x7b, 0x01), with(32, 0x7b, 0x01), UE8M0, 32, []uint64{127}, []uint64{127}, 0); got != f32(57344*57344) {
		t.Errorf("wide group: got %#x", got)
	}
}

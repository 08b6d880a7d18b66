package tensorcore

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ptxas 12.5 lowers PTX mma.sync.m16n8k32 on FP8 for sm_90 to: F2FP
// conversions of A and B to f16, HMMA.16816.F32 on the low f16x2 halves
// with a zero accumulator, another on the high halves, an FADD of the two
// results, and an FADD of that sum to C (emu's TestMmaFP8Sm90Lowering
// reads the SASS). So D = C + (r0 + r1), both additions nearest-even.

// TestFP8SyncAddOrder: C = 2^24 and one product 1 in each half. The two
// halves add to 2 first, and 2^24 + 2 is a binary32 number; adding them
// to C one at a time would round 2^24 + 1 (a tie) to 2^24 twice.
func TestFP8SyncAddOrder(t *testing.T) {
	a := make([]uint64, 32)
	b := make([]uint64, 32)
	a[0], b[0] = 0x38, 0x38 // k 0 (half 0): 1·1
	a[2], b[2] = 0x38, 0x38 // k 2 (half 1): 1·1
	d := []uint64{0}
	Hopper.MMA(&Problem{Kind: Sync, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{f32(0x1p24)}, D: d})
	if got := math.Float32frombits(uint32(d[0])); got != 0x1p24+2 {
		t.Errorf("mma.sync fp8 on sm_90: got %v, want 2^24 + 2", got)
	}
	// wgmma (one block, F = 13 below 2^24: unit 2^11) drops both products.
	Hopper.MMA(&Problem{Kind: Async, In: E4M3, Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{f32(0x1p24)}, D: d})
	if got := math.Float32frombits(uint32(d[0])); got != 0x1p24 {
		t.Errorf("wgmma fp8: got %v, want 2^24", got)
	}
}

// refRN32 rounds v to binary32, nearest-even (v well inside the normal range).
func refRN32(v *big.Rat) uint64 {
	f, _ := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).SetRat(v).Float32()
	return uint64(math.Float32bits(f))
}

// refFP8Sync is the sm_90 lowering computed with exact rationals: the
// products of k ≡ 0, 1 (mod 4) and of k ≡ 2, 3 form one Hopper f16
// block each (16 products, F = 25, zero accumulator, truncated and
// rounded toward zero to binary32), then (r0 + r1) and C + that sum are
// rounded to nearest-even.
func refFP8Sync(a, b []uint64, c uint64, af, bf Format) uint64 {
	var r [2]*big.Rat
	for s := range 2 {
		var terms []*big.Rat
		for k := range a {
			if k/2%2 != s {
				continue
			}
			x, _ := refValue(af, a[k])
			y, _ := refValue(bf, b[k])
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
			unit := pow2(emax - 25)
			for _, t := range terms {
				q := new(big.Rat).Quo(t, unit)
				sum.Add(sum, new(big.Rat).Mul(new(big.Rat).SetInt(new(big.Int).Quo(q.Num(), q.Denom())), unit))
			}
		}
		r[s], _ = refValue(F32, refRound(sum, F32))
	}
	halves, _ := refValue(F32, refRN32(new(big.Rat).Add(r[0], r[1])))
	cv, _ := refValue(F32, c)
	return refRN32(new(big.Rat).Add(cv, halves))
}

// TestFP8SyncAgainstExactReference: random e4m3/e5m2 dot products of 32
// on Hopper's mma.sync path against refFP8Sync.
func TestFP8SyncAgainstExactReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, fm := range [][2]Format{{E4M3, E4M3}, {E5M2, E5M2}, {E4M3, E5M2}, {E5M2, E4M3}} {
		for range 150 {
			a := make([]uint64, 32)
			b := make([]uint64, 32)
			for k := range a {
				a[k], b[k] = randFinite(r, fm[0]), randFinite(r, fm[1])
			}
			c := randFinite(r, F32)
			if r.IntN(4) == 0 {
				c = 0
			}
			d := []uint64{0}
			Hopper.MMA(&Problem{Kind: Sync, In: fm[0], BIn: fm[1], Out: F32, M: 1, N: 1, K: 32, A: a, B: b, C: []uint64{c}, D: d})
			if want := refFP8Sync(a, b, c, fm[0], fm[1]); d[0] != want {
				t.Fatalf("%v×%v: a %x b %x c %#x: got %#x, want %#x", fm[0], fm[1], a, b, c, d[0], want)
			}
		}
	}
}

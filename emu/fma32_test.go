package emu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactFMA32 is a*b+c rounded once to binary32 by math/big.
func exactFMA32(a, b, c float32) float32 {
	if a != a || b != b || c != c || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) || math.IsInf(float64(c), 0) {
		return float32(float64(a)*float64(b) + float64(c))
	}
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	r, _ := x.Float32()
	return r
}

// TestFmaF32RoundsOnce compares fma.rn.f32 with the exact sum rounded by
// math/big, on random values whose product and addend overlap (where a
// double rounding shows) and on a case where rounding through the
// nearest double gives the wrong binary32.
func TestFmaF32RoundsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	doubleWrong := 0
	for i := 0; i < 400000; i++ {
		a := math.Float32frombits(rng.Uint32()&0x807fffff | uint32(100+rng.IntN(56))<<23)
		b := math.Float32frombits(rng.Uint32()&0x807fffff | uint32(100+rng.IntN(56))<<23)
		pe := math.Float32bits(a)>>23&0xff + math.Float32bits(b)>>23&0xff - 127
		ce := int(pe) + rng.IntN(60) - 30
		if ce < 1 || ce > 254 {
			continue
		}
		c := math.Float32frombits(rng.Uint32()&0x807fffff | uint32(ce)<<23)
		want := exactFMA32(a, b, c)
		if got := fmaF32(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fmaF32(%x, %x, %x) = %x, want %x", math.Float32bits(a), math.Float32bits(b), math.Float32bits(c), math.Float32bits(got), math.Float32bits(want))
		}
		if math.Float32bits(float32(math.FMA(float64(a), float64(b), float64(c)))) != math.Float32bits(want) {
			doubleWrong++
		}
	}
	t.Logf("rounding through the nearest double was wrong %d times", doubleWrong)
	// 8390627 * 16773179 = 2^47 + 237905, so a*b+1 is 1 + 2^-24 +
	// 237905*2^-71: just above the binary32 tie between 1 and 1+2^-23.
	// The nearest double is the tie itself, which rounds to even (1).
	a := float32(8390627) * 0x1p-47
	b := float32(16773179) * 0x1p-24
	want := float32(1 + 0x1p-23)
	if exactFMA32(a, b, 1) != want {
		t.Fatalf("the crafted case is not what it says: %x", math.Float32bits(exactFMA32(a, b, 1)))
	}
	if float32(math.FMA(float64(a), float64(b), 1)) == want {
		t.Fatal("the crafted case does not show a double rounding")
	}
	if got := fmaF32(a, b, 1); got != want {
		t.Errorf("fmaF32 tie case: got %x want %x", math.Float32bits(got), math.Float32bits(want))
	}
	if got := fmaF32(-a, b, -1); got != -want {
		t.Errorf("fmaF32 negative tie case: got %x want %x", math.Float32bits(got), math.Float32bits(-want))
	}
}

// TestFmaF32ScalarPath: the general float path (divergent warps, other
// rounding modes) rounds fma.f32 once too.
func TestFmaF32ScalarPath(t *testing.T) {
	a := uint64(math.Float32bits(float32(8390627) * 0x1p-47))
	b := uint64(math.Float32bits(float32(16773179) * 0x1p-24))
	c := uint64(math.Float32bits(1))
	for _, tc := range []struct {
		round Round
		want  float32
	}{{RoundNearest, 1 + 0x1p-23}, {RoundZero, 1}, {RoundUp, 1 + 0x1p-23}, {RoundDown, 1}} {
		in := &Inst{Imm: opMad, Round: tc.round}
		if got := floatOpRounded(in, TF32, a, b, c); got != uint64(math.Float32bits(tc.want)) {
			t.Errorf("fma round %v = %x, want %x", tc.round, got, math.Float32bits(tc.want))
		}
	}
}

package emu

import "math"

// fmaOdd returns a*b+c for binary32 values a, b and c (as float64s),
// rounded to binary64 with round-to-odd: when the sum is inexact, the
// neighbour of the nearest double whose last significand bit is 1. A
// binary32 rounding of that result, in any rounding mode, is the correct
// rounding of the exact a*b+c, which rounding the nearest double is not
// (the double can land on a binary32 tie that the exact sum is not on).
// The product of two binary32 values is exact in binary64; the sum's
// error comes from TwoSum, which is exact.
func fmaOdd(a, b, c float64) float64 {
	p := a * b
	s := p + c
	if math.IsInf(s, 0) || s != s {
		return s
	}
	bv := s - p
	err := (p - (s - bv)) + (c - bv)
	bits := math.Float64bits(s)
	if err == 0 || bits&1 == 1 {
		return s
	}
	if (err > 0) == (s > 0) {
		return math.Float64frombits(bits + 1)
	}
	return math.Float64frombits(bits - 1)
}

// fmaF32 is fma.rn.f32: a*b+c rounded once to the nearest binary32.
func fmaF32(a, b, c float32) float32 {
	return float32(fmaOdd(float64(a), float64(b), float64(c)))
}

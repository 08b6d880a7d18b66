package tensorcore

import (
	"math"
	"testing"
)

// TestCShift: scale-input-d (Problem.CShift) scales C by 2^-s exactly
// before the aligned sum, so a C below the block's last fraction bit after
// scaling is truncated away: with products summing to 1, C = 2^-20 stays
// at s = 0 and 3 and vanishes at s = 10 (2^-30, below Blackwell's 25
// fraction bits); small integers give A·B + C/2^s exactly; infinities and
// NaN are not scaled.
func TestCShift(t *testing.T) {
	one := uint64(0x3c00) // f16 1.0
	cases := []struct {
		name  string
		a     []uint64 // f16, K = 16 (the rest zero)
		c     float32
		shift int
		want  float32
	}{
		{"unscaled", []uint64{one}, 0x1p-20, 0, 1 + 0x1p-20},
		{"s=3", []uint64{one}, 0x1p-20, 3, 1 + 0x1p-23},
		{"s=10 below the block", []uint64{one}, 0x1p-20, 10, 1},
		{"integers", []uint64{0x4200, 0x4400}, 96, 5, 3 + 4 + 3}, // 3·1 + 4·1 + 96/32
		{"s=15", nil, 3 * 32768, 15, 3},
		{"infinity", []uint64{one}, float32(math.Inf(-1)), 15, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		A, B := make([]uint64, 16), make([]uint64, 16)
		copy(A, c.a)
		for i := range B {
			B[i] = one
		}
		D := []uint64{0}
		Blackwell.MMA(&Problem{Kind: Async, In: F16, Out: F32, M: 1, N: 1, K: 16, A: A, B: B, C: []uint64{f32(c.c)}, D: D, CShift: c.shift})
		if got := math.Float32frombits(uint32(D[0])); got != c.want {
			t.Errorf("%s: D = %v, want %v", c.name, got, c.want)
		}
	}
}

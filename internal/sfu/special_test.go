package sfu

import "testing"

// TestSpecialValues checks the operands every implementation handles
// before interpolating (PTX ISA §9.7.3: NaN, infinities, zeros,
// subnormals with and without .ftz), independently of ../shared.
func TestSpecialValues(t *testing.T) {
	const (
		pinf, ninf, nzero = 0x7f800000, 0xff800000, 0x80000000
		one, two, four    = 0x3f800000, 0x40000000, 0x40800000
		sub               = 0x00000001 // the smallest subnormal
		snan              = 0x7f800001
	)
	for _, c := range []struct {
		name      string
		got, want uint32
	}{
		{"rcp(NaN)", Rcp(snan, true), canonicalNaN},
		{"rcp(+0)", Rcp(0, true), pinf},
		{"rcp(-0)", Rcp(nzero, false), ninf},
		{"rcp(-Inf)", Rcp(ninf, true), nzero},
		{"rcp.ftz(subnormal)", Rcp(sub, true), pinf},
		{"rcp(1)", Rcp(one, true), one},
		{"rcp(2^-149)", Rcp(sub, false), pinf}, // 2^149 overflows
		{"rsqrt(-1)", Rsqrt(0xbf800000, true), canonicalNaN},
		{"rsqrt(-0)", Rsqrt(nzero, true), ninf},
		{"rsqrt(+Inf)", Rsqrt(pinf, true), 0},
		{"rsqrt(4)", Rsqrt(four, true), 0x3f000000},
		{"sqrt(-0)", Sqrt(nzero, false), nzero},
		{"sqrt(+Inf)", Sqrt(pinf, true), pinf},
		{"sqrt(-2)", Sqrt(0xc0000000, true), canonicalNaN},
		{"ex2(-Inf)", Ex2(ninf, false), 0},
		{"ex2(+Inf)", Ex2(pinf, true), pinf},
		{"ex2(0)", Ex2(0, true), one},
		{"ex2(128)", Ex2(0x43000000, true), pinf},
		{"ex2.ftz(-127)", Ex2(0xc2fe0000, true), 0},
		{"lg2(1)", Lg2(one, true), 0},
		{"lg2(+0)", Lg2(0, true), ninf},
		{"lg2.ftz(subnormal)", Lg2(sub, true), ninf},
		{"lg2(-1)", Lg2(0xbf800000, false), canonicalNaN},
		{"lg2(+Inf)", Lg2(pinf, false), pinf},
		{"sin(+Inf)", Sin(pinf, false), canonicalNaN},
		{"sin(0)", Sin(0, false), 0},
		{"cos(0)", Cos(0, false), one},
		{"tanh(subnormal)", Tanh(sub), sub},
		{"tanh(-Inf)", Tanh(ninf), 0xbf800000},
		{"tanh(NaN)", Tanh(snan), canonicalNaN},
		{"div.approx(1, +0)", DivApprox(one, 0, false), pinf},
		{"div.full(0, 0)", DivFull(0, 0, false), canonicalNaN},
		{"div.full(2, 4)", DivFull(two, four, false), 0x3f000000},
	} {
		if c.got != c.want {
			t.Errorf("%s = %08x, want %08x", c.name, c.got, c.want)
		}
	}
}

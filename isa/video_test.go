package isa

import "testing"

// TestVideoSelFits checks which selectors each operand role takes (PTX
// ISA 9.7.19, 9.7.20, and ptxas 12.5 for the masks' lane order).
func TestVideoSelFits(t *testing.T) {
	cases := []struct {
		role VideoRole
		ok   []string
		bad  []string
	}{
		{VideoScalarSrc, []string{"b0", "b1", "b2", "b3", "h0", "h1"}, []string{"b4", "h2", "b01", "h10", "b3210", "b00"}},
		{VideoScalarDst, []string{"b0", "b3", "h1"}, []string{"b12", "b4", "h10"}},
		{VideoSIMD2Src, []string{"h10", "h32", "h00", "h33", "h03"}, []string{"h0", "h4", "h40", "h333", "b10"}},
		{VideoSIMD4Src, []string{"b3210", "b7654", "b0000", "b7777", "b5140"}, []string{"b210", "b8210", "b76543", "h3210"}},
		{VideoSIMD2Mask, []string{"h0", "h1", "h10"}, []string{"h01", "h11", "h2", "b0", "h32"}},
		{VideoSIMD4Mask, []string{"b0", "b10", "b20", "b321", "b3210", "b3"}, []string{"b01", "b33", "b4", "b0123", "h10", "b43"}},
		{VideoNoSel, nil, []string{"b0", "h10"}},
	}
	for _, c := range cases {
		for _, s := range c.ok {
			if v, ok := ParseVideoSel(s); !ok || !v.Fits(c.role) || v.String() != s {
				t.Errorf("role %d: .%s should fit (parsed %v, %+v)", c.role, s, ok, v)
			}
		}
		for _, s := range c.bad {
			if v, ok := ParseVideoSel(s); ok && v.Fits(c.role) {
				t.Errorf("role %d: .%s should not fit", c.role, s)
			}
		}
	}
	for _, s := range []string{"", "b", "x0", "b1x", "b12345"} {
		if _, ok := ParseVideoSel(s); ok {
			t.Errorf("ParseVideoSel(%q) succeeds", s)
		}
	}
}

// TestVideoSelMeaning checks the lanes, masks and parts selectors give.
func TestVideoSelMeaning(t *testing.T) {
	v, _ := ParseVideoSel("b7520")
	if got := [4]int{v.Lane(0), v.Lane(1), v.Lane(2), v.Lane(3)}; got != [4]int{0, 2, 5, 7} {
		t.Errorf(".b7520 lanes 0-3 read elements %v, want [0 2 5 7]", got)
	}
	if m, _ := ParseVideoSel("b31"); m.Mask() != 0b1010 {
		t.Errorf(".b31 mask %04b, want 1010", m.Mask())
	}
	for s, want := range map[string][2]uint{"b0": {0, 8}, "b2": {16, 8}, "h1": {16, 16}, "h0": {0, 16}} {
		p, _ := ParseVideoSel(s)
		if sh, n := p.Part(); sh != want[0] || n != want[1] {
			t.Errorf(".%s part (%d, %d), want %v", s, sh, n, want)
		}
	}
	if b, _ := ParseVideoSel("b12"); !b.BytePair() {
		t.Error(".b12 is a byte pair")
	}
	if VideoFamilyOf("vadd4") != VideoSIMD4 || VideoFamilyOf("vmad") != VideoMad || VideoFamilyOf("add") != NotVideo || VideoFamilyOf("vote") != NotVideo {
		t.Error("VideoFamilyOf")
	}
}

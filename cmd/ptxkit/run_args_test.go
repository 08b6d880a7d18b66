package main

import (
	"math"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu"
)

// TestParseScalar checks --arg numbers against bit patterns computed by
// hand (IEEE 754 binary16 1.0 = 0x3c00, bfloat16 1.5 = 0x3fc0).
func TestParseScalar(t *testing.T) {
	cases := []struct {
		s    string
		t    emu.Type
		want uint64
	}{
		{"1.0", emu.TF16, 0x3c00},
		{"1.5", emu.TBF16, 0x3fc0},
		{"0f3f800000", emu.TF64, math.Float64bits(1)},
		{"-2", emu.TF32, uint64(math.Float32bits(-2))},
		{"-1", emu.TS8, 0xff},
		{"0x7f", emu.TS8, 0x7f},
		{"255", emu.TU8, 0xff},
		{"1e3", emu.TU32, 1000},
		{"18446744073709551615", emu.TU64, math.MaxUint64},
	}
	for _, c := range cases {
		if got, err := parseScalar(c.s, c.t); err != nil || got != c.want {
			t.Errorf("parseScalar(%q, %v) = %#x, %v; want %#x", c.s, c.t, got, err, c.want)
		}
	}
	for _, c := range []struct {
		s    string
		t    emu.Type
		want string
	}{
		{"128", emu.TS8, "does not fit in .s8"},
		{"256", emu.TU8, "does not fit in .u8"},
		{"1e400", emu.TF32, "out of range"},
		{"x", emu.TU32, "is not an integer"},
	} {
		if _, err := parseScalar(c.s, c.t); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseScalar(%q, %v): err %v, want %q", c.s, c.t, err, c.want)
		}
	}
}

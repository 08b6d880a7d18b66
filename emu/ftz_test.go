package emu

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestFlushToZero: with .ftz, f32 (and f16) arithmetic, sqrt, abs, neg,
// min and cvt read subnormal operands and write subnormal results as
// zeros of their sign (PTX ISA §9.7.3); without it they are kept.
func TestFlushToZero(t *testing.T) {
	f32 := func(inst string, a, b, c, want uint64) nanCase { return nanCase{inst, ".f32", ".f32", a, b, c, want} }
	tiny64 := math.Float64bits(1e-40) // a binary32 subnormal
	cases := []nanCase{
		f32("add.ftz.f32 %d, %a1, %a2", 1, 0, 0, 0),
		f32("add.f32 %d, %a1, %a2", 1, 0, 0, 1),
		f32("add.rn.ftz.f32 %d, %a1, %a2", 0x80000001, 0x80000000, 0, 0x80000000),
		f32("mul.ftz.f32 %d, %a1, %a2", 0x00800000, 0x3f000000, 0, 0),
		f32("mul.f32 %d, %a1, %a2", 0x00800000, 0x3f000000, 0, 0x00400000),
		f32("fma.rn.ftz.f32 %d, %a1, %a2, %a3", 1, 0x4b000000, 0, 0),
		f32("fma.rn.f32 %d, %a1, %a2, %a3", 1, 0x4b000000, 0, 0x00800000),
		f32("sqrt.rn.ftz.f32 %d, %a1", 4, 0, 0, 0),
		f32("abs.ftz.f32 %d, %a1", 0x80000001, 0, 0, 0),
		f32("neg.ftz.f32 %d, %a1", 1, 0, 0, 0x80000000),
		f32("min.ftz.f32 %d, %a1, %a2", 0x00000001, 0x80000002, 0, 0x80000000),
		f32("max.ftz.NaN.f32 %d, %a1, %a2", 0x00000005, 0x80000000, 0, 0),
		f32("max.NaN.f32 %d, %a1, %a2", 0x00000005, 0x80000000, 0, 5),
		{"cvt.rn.ftz.f32.f64 %d, %a1", ".f64", ".f32", tiny64, 0, 0, 0},
		{"cvt.rn.f32.f64 %d, %a1", ".f64", ".f32", tiny64, 0, 0, uint64(math.Float32bits(float32(1e-40)))},
		{"cvt.rpi.ftz.s32.f32 %d, %a1", ".f32", ".b32", 1, 0, 0, 0},
		{"cvt.rpi.s32.f32 %d, %a1", ".f32", ".b32", 1, 0, 0, 1},
		{"add.ftz.f16 %d, %a1, %a2", ".b16", ".b16", 1, 0, 0, 0},
		{"add.rn.ftz.f16x2 %d, %a1, %a2", ".b32", ".b32", 0x3c000001, 0, 0, 0x3c000000},
	}
	for _, c := range cases {
		t.Run(c.inst, func(t *testing.T) {
			in := make([]byte, 24)
			for i, v := range []uint64{c.a, c.b, c.c} {
				binary.LittleEndian.PutUint64(in[8*i:], v)
			}
			res := launch(t, c.kernel(), Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(8))
			got := binary.LittleEndian.Uint64(res.Buffers[1].Data)
			if got != c.want {
				t.Errorf("%s on %#x, %#x, %#x: got %#x, want %#x", c.inst, c.a, c.b, c.c, got, c.want)
			}
		})
	}
}

package emu

import (
	"math"
	"testing"
)

// fp8Value is the OCP FP8 definition: e4m3 has bias 7 and no
// infinities (S.1111.111 is NaN), e5m2 has bias 15 and IEEE specials.
func fp8Value(code uint8, e5m2 bool) float64 {
	s := 1.0
	if code&0x80 != 0 {
		s = -1
	}
	if e5m2 {
		// e5m2 is the upper byte of an f16.
		return f16ToFloat(uint16(code) << 8)
	}
	e, m := int(code>>3&15), float64(code&7)
	switch {
	case e == 15 && code&7 == 7:
		return math.NaN()
	case e == 0:
		return s * m / 8 * math.Pow(2, -6)
	}
	return s * (1 + m/8) * math.Pow(2, float64(e-7))
}

// nearestFP8 searches every finite code for the nearest to x (ties to the
// even code), saturating beyond the largest.
func nearestFP8(x float64, e5m2, relu bool) uint8 {
	if math.IsNaN(x) {
		return 0x7f
	}
	if relu && (x < 0 || math.Signbit(x)) {
		x = 0
	}
	best, bestD := -1, math.Inf(1)
	for c := range 0x80 {
		v := fp8Value(uint8(c), e5m2)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		d := math.Abs(math.Abs(x) - v)
		if math.IsInf(x, 0) { // satfinite: the largest finite value
			d = -v
		}
		if d < bestD || d == bestD && c%2 == 0 {
			best, bestD = c, d
		}
	}
	if math.Signbit(x) {
		best |= 0x80
	}
	return uint8(best)
}

func TestCvtFP8(t *testing.T) {
	// Fixed points of the format definitions.
	for _, c := range []struct {
		x    float64
		e5m2 bool
		want uint8
	}{{1, false, 0x38}, {448, false, 0x7e}, {1e9, false, 0x7e}, {-0.5, false, 0xb0}, {1, true, 0x3c}, {57344, true, 0x7b}, {math.Inf(1), true, 0x7b}, {0x1p-9, false, 0x01}} {
		if got := nearestFP8(c.x, c.e5m2, false); got != c.want {
			t.Fatalf("definition: %v (e5m2 %v) = %#x, want %#x", c.x, c.e5m2, got, c.want)
		}
	}
	var in []uint64
	for _, f := range []float32{0, -0, 1, -1, 0.3, 448, 449, 464, 480, 1e6, -3.75, 0.001953125, 0.0009765625, 0.00146484375, 57344, 61440, 2.5e-5, 1.0 / 3} {
		in = append(in, uint64(math.Float32bits(f)))
	}
	in = append(in, 0x7fc00000, 0x7f800000, 0xff800000, 0x00000001)
	for _, e5 := range []bool{false, true} {
		for _, relu := range []bool{false, true} {
			name := map[bool]string{false: "e4m3x2", true: "e5m2x2"}[e5]
			op := "cvt.rn.satfinite." + name + ".f32"
			if relu {
				op = "cvt.rn.satfinite.relu." + name + ".f32"
			}
			t.Run(op, func(t *testing.T) {
				runALU(t, aluCase{op: op, srcT: ".f32", dstT: ".b16", ldT: ".u32", stT: ".u16", nsrc: 2,
					want: func(a, b, _ uint64) uint64 {
						hi := nearestFP8(float64(math.Float32frombits(uint32(a))), e5, relu)
						lo := nearestFP8(float64(math.Float32frombits(uint32(b))), e5, relu)
						return uint64(hi)<<8 | uint64(lo)
					}}, in)
			})
			back := "cvt.rn.f16x2." + name
			t.Run(back, func(t *testing.T) {
				var codes []uint64
				for c := range 256 {
					codes = append(codes, uint64(c|(255-c)<<8))
				}
				runALU(t, aluCase{op: back, srcT: ".b16", dstT: ".b32", ldT: ".u16", stT: ".u32", nsrc: 1,
					want: func(a, _, _ uint64) uint64 {
						h := func(c uint8) uint64 {
							v := fp8Value(c, e5)
							if math.IsNaN(v) {
								return 0x7fff
							}
							return uint64(floatToF16(v, RoundNearest))
						}
						return h(uint8(a>>8))<<16 | h(uint8(a))
					}}, codes[:256])
			})
		}
	}
}

func TestCvtTF32(t *testing.T) {
	in := []uint64{0, 0x80000000, 0x3f800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001, 0xbf802000, 0x7f7fffff,
		0x7f800000, 0x7fc00001, 0x00000fff, 0x00001000, 0x12345678, 0x92345678}
	// TF32 keeps the sign, the exponent and the top 10 fraction bits.
	ref := func(a uint32, mode string, sat bool) uint32 {
		if a&0x7fffffff > 0x7f800000 {
			return 0x7fffffff
		}
		keep := a &^ 0x1fff
		rest := a & 0x1fff
		if a&0x7fffffff != 0x7f800000 {
			switch {
			case mode == "rna" && rest >= 0x1000,
				mode == "rn" && (rest > 0x1000 || rest == 0x1000 && keep&0x2000 != 0):
				keep += 0x2000
			}
		}
		if sat && keep&0x7fffffff >= 0x7f800000 {
			keep = keep&0x80000000 | 0x7f7fe000
		}
		return keep
	}
	for _, c := range []struct {
		mode string
		sat  bool
	}{{"rna", false}, {"rna", true}, {"rn", false}, {"rz", true}} {
		op := "cvt." + c.mode
		if c.sat {
			op += ".satfinite"
		}
		op += ".tf32.f32"
		t.Run(op, func(t *testing.T) {
			runALU(t, aluCase{op: op, srcT: ".b32", dstT: ".b32", ldT: ".u32", stT: ".u32", nsrc: 1,
				want: func(a, _, _ uint64) uint64 { return uint64(ref(uint32(a), c.mode, c.sat)) }}, in)
		})
	}
}

// TestMovmatrix: element (r, c) of the 8x8 matrix ends at (c, r).
func TestMovmatrix(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %laneid;
	shr.u32 %r2, %r1, 2;
	and.b32 %r3, %r1, 3;
	shl.b32 %r3, %r3, 1;
	shl.b32 %r4, %r2, 8;
	or.b32 %r5, %r4, %r3;
	add.u32 %r6, %r5, 1;
	shl.b32 %r6, %r6, 16;
	or.b32 %r5, %r5, %r6;
	movmatrix.sync.aligned.m8n8.trans.b16 %r7, %r5;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r7;
	ret;
}
`
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(128))
	for l, v := range u32s(res.Buffers[0].Data) {
		r, c := l/4, 2*(l%4)
		// Element (row, col) was written as row<<8 | col.
		want := uint32(c<<8|r) | uint32((c+1)<<8|r)<<16
		if v != want {
			t.Fatalf("lane %d: %#08x, want %#08x", l, v, want)
		}
	}
}

// TestCvtFP8FromF16x2: each half goes to its byte (the upper half to the
// upper byte), rounded like the f32 form.
func TestCvtFP8FromF16x2(t *testing.T) {
	in := []uint64{0x3c00bc00, 0x5f005f80, 0x7c00fc00, 0x7e000000, 0x00011234, 0x7bff3555, 0x4b804b00}
	for _, e5 := range []bool{false, true} {
		name := map[bool]string{false: "e4m3x2", true: "e5m2x2"}[e5]
		op := "cvt.rn.satfinite." + name + ".f16x2"
		t.Run(op, func(t *testing.T) {
			runALU(t, aluCase{op: op, srcT: ".b32", dstT: ".b16", ldT: ".u32", stT: ".u16", nsrc: 1,
				want: func(a, _, _ uint64) uint64 {
					hi := nearestFP8(f16ToFloat(uint16(a>>16)), e5, false)
					lo := nearestFP8(f16ToFloat(uint16(a)), e5, false)
					return uint64(hi)<<8 | uint64(lo)
				}}, in)
		})
	}
}

package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// The expected values of these tests come from a reference written here
// independently of the emulator: IEEE half and bfloat16 decoded from
// their bit fields, comparisons stated through Go's float64 operators, and
// the result encodings of PTX ISA 9.0 §9.7.7.1-2 written as constants.

// refF16 decodes IEEE binary16 bits.
func refF16(h uint64) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// refBF16 decodes bfloat16 bits: the high half of a binary32.
func refBF16(h uint64) float64 { return float64(math.Float32frombits(uint32(h&0xffff) << 16)) }

// refF32 decodes binary32 bits.
func refF32(v uint64) float64 { return float64(math.Float32frombits(uint32(v))) }

// refCmp states each comparison operator with Go's float64 operators; the
// unordered ones as the negation of the opposite ordered comparison.
var refCmp = map[string]func(a, b float64) bool{
	"eq": func(a, b float64) bool { return a == b }, "ne": func(a, b float64) bool { return a < b || a > b },
	"lt": func(a, b float64) bool { return a < b }, "le": func(a, b float64) bool { return a <= b },
	"gt": func(a, b float64) bool { return a > b }, "ge": func(a, b float64) bool { return a >= b },
	"equ": func(a, b float64) bool { return !(a < b || a > b) }, "neu": func(a, b float64) bool { return !(a == b) },
	"ltu": func(a, b float64) bool { return !(a >= b) }, "leu": func(a, b float64) bool { return !(a > b) },
	"gtu": func(a, b float64) bool { return !(a <= b) }, "geu": func(a, b float64) bool { return !(a < b) },
	"num": func(a, b float64) bool { return a == a && b == b }, "nan": func(a, b float64) bool { return a != a || b != b },
}

// halfInputs are binary16 values: zeros, subnormals, normals, infinities
// and NaNs (quiet, signalling, negative).
var halfInputs = []uint64{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3e00, 0x3c01,
	0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00}

// bf16Inputs are bfloat16 values of the same kinds.
var bf16Inputs = []uint64{0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f80, 0xbf80, 0x3fc0, 0x3f81,
	0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc0}

// f32Inputs are binary32 values of the same kinds.
var f32Inputs = []uint64{0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x3f800000, 0xbf800000, 0x3fc00000,
	0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001}

// packedInputs pairs the values of l into 32-bit words, each value once
// in the low and once in the high half.
func packedInputs(l []uint64) []uint64 {
	out := make([]uint64, len(l))
	for i, x := range l {
		out[i] = x | l[(i*5+3)%len(l)]<<16
	}
	return out
}

// flushRef is .ftz on a reference value: subnormals become zero.
func flushRef(x float64, smallestNormal float64) float64 {
	if x != 0 && math.Abs(x) < smallestNormal {
		return 0
	}
	return x
}

// halfSetCase is one set or setp form: its source decoding, the value a
// true result has (per half for packed sources) and the registers used.
type halfSetCase struct {
	dtype, stype string
	ftz          bool
	dec          func(uint64) float64
	normal       float64 // the smallest normal value of stype, for .ftz
	packed       bool
	one          uint64
	reg, dreg    string // register types of the sources and the result
	inputs       []uint64
}

var halfSetCases = []halfSetCase{
	{dtype: "u32", stype: "f16", dec: refF16, one: 0xffffffff, reg: ".b16", dreg: ".b32", inputs: halfInputs},
	{dtype: "s16", stype: "f16", dec: refF16, one: 0xffff, reg: ".b16", dreg: ".b16", inputs: halfInputs},
	{dtype: "f16", stype: "f16", dec: refF16, one: 0x3c00, reg: ".b16", dreg: ".b16", inputs: halfInputs},
	{dtype: "f16", stype: "f16", ftz: true, dec: refF16, normal: 0x1p-14, one: 0x3c00, reg: ".b16", dreg: ".b16", inputs: halfInputs},
	{dtype: "u16", stype: "f16", ftz: true, dec: refF16, normal: 0x1p-14, one: 0xffff, reg: ".b16", dreg: ".b16", inputs: halfInputs},
	{dtype: "u32", stype: "f16x2", dec: refF16, packed: true, one: 0xffff, reg: ".b32", dreg: ".b32", inputs: packedInputs(halfInputs)},
	{dtype: "f16x2", stype: "f16x2", dec: refF16, packed: true, one: 0x3c00, reg: ".b32", dreg: ".b32", inputs: packedInputs(halfInputs)},
	{dtype: "f16x2", stype: "f16x2", ftz: true, dec: refF16, normal: 0x1p-14, packed: true, one: 0x3c00, reg: ".b32", dreg: ".b32", inputs: packedInputs(halfInputs)},
	{dtype: "bf16", stype: "bf16", dec: refBF16, one: 0x3f80, reg: ".b16", dreg: ".b16", inputs: bf16Inputs},
	{dtype: "u16", stype: "bf16", dec: refBF16, one: 0xffff, reg: ".b16", dreg: ".b16", inputs: bf16Inputs},
	{dtype: "s32", stype: "bf16", dec: refBF16, one: 0xffffffff, reg: ".b16", dreg: ".b32", inputs: bf16Inputs},
	{dtype: "bf16x2", stype: "bf16x2", dec: refBF16, packed: true, one: 0x3f80, reg: ".b32", dreg: ".b32", inputs: packedInputs(bf16Inputs)},
	{dtype: "s32", stype: "bf16x2", dec: refBF16, packed: true, one: 0xffff, reg: ".b32", dreg: ".b32", inputs: packedInputs(bf16Inputs)},
	{dtype: "bf16", stype: "f16", dec: refF16, one: 0x3f80, reg: ".b16", dreg: ".b16", inputs: halfInputs},
	{dtype: "f16", stype: "f32", dec: refF32, one: 0x3c00, reg: ".f32", dreg: ".b16", inputs: f32Inputs},
	{dtype: "f16", stype: "f32", ftz: true, dec: refF32, normal: 0x1p-126, one: 0x3c00, reg: ".f32", dreg: ".b16", inputs: f32Inputs},
	{dtype: "bf16", stype: "f32", dec: refF32, one: 0x3f80, reg: ".f32", dreg: ".b16", inputs: f32Inputs},
}

// op returns the instruction of c with comparison cmp.
func (c halfSetCase) op(cmp string) string {
	ftz := ""
	if c.ftz {
		ftz = ".ftz"
	}
	return fmt.Sprintf("set.%s%s.%s.%s", cmp, ftz, c.dtype, c.stype)
}

// want is the reference result of c's comparison cmp on a and b.
func (c halfSetCase) want(cmp string, a, b uint64) uint64 {
	one := func(x, y uint64) uint64 {
		fa, fb := c.dec(x), c.dec(y)
		if c.ftz {
			fa, fb = flushRef(fa, c.normal), flushRef(fb, c.normal)
		}
		if refCmp[cmp](fa, fb) {
			return c.one
		}
		return 0
	}
	if !c.packed {
		return one(a, b)
	}
	return one(a&0xffff, b&0xffff) | one(a>>16&0xffff, b>>16&0xffff)<<16
}

// TestHalfSet runs every comparison operator of the half-precision set
// forms (§9.7.7.1) and of set with .f16/.bf16 results (§9.7.6.1 sources)
// over zeros, subnormals, infinities and NaNs.
func TestHalfSet(t *testing.T) {
	for _, hc := range halfSetCases {
		for cmp := range refCmp {
			ldT := hc.reg
			if ldT == ".f32" {
				ldT = ".b32"
			}
			c := aluCase{op: hc.op(cmp), nsrc: 2, srcT: hc.reg, dstT: hc.dreg, ldT: ldT, stT: hc.dreg,
				want: func(a, b, _ uint64) uint64 { return hc.want(cmp, a, b) }}
			t.Run(c.op, func(t *testing.T) { runALU(t, c, hc.inputs) })
		}
	}
}

// TestHalfSetIntSource: .f16 and .bf16 results of integer comparisons
// (§9.7.7.1 with the integer source types of §9.7.6.1).
func TestHalfSetIntSource(t *testing.T) {
	cases := []struct {
		op   string
		ld   string
		want func(a, b uint64) bool
		one  uint64
	}{
		{"set.lo.f16.u32", ".u32", func(a, b uint64) bool { return uint32(a) < uint32(b) }, 0x3c00},
		{"set.lt.bf16.s32", ".s32", func(a, b uint64) bool { return int32(a) < int32(b) }, 0x3f80},
		{"set.ne.f16.b16", ".b16", func(a, b uint64) bool { return uint16(a) != uint16(b) }, 0x3c00},
		{"set.ge.bf16.s16", ".s16", func(a, b uint64) bool { return int16(a) >= int16(b) }, 0x3f80},
	}
	for _, tc := range cases {
		reg := ".b32"
		if tc.ld == ".b16" || tc.ld == ".s16" {
			reg = ".b16"
		}
		c := aluCase{op: tc.op, nsrc: 2, srcT: reg, dstT: ".b16", ldT: tc.ld, stT: ".b16",
			want: func(a, b, _ uint64) uint64 { return b2u(tc.want(a, b)) * tc.one }}
		t.Run(tc.op, func(t *testing.T) { runALU(t, c, intInputs) })
	}
}

const halfSetBoolOpBody = `
	.reg .b16 %h<8>;
	.reg .b32 %x<8>;
	mov.u32 %r1, 7;
	setp.ne.u32 %p1, %r1, %r1;                  // false
	setp.eq.u32 %p2, %r1, %r1;                  // true
	mov.b32 %x1, 0x7e003c00;                    // {lo 1.0, hi NaN}
	mov.b32 %x2, 0x3c004000;                    // {lo 2.0, hi 1.0}
	set.lt.and.f16x2.f16x2 %x3, %x1, %x2, %p2;  // {lo 1<2 and T, hi NaN<1 and T} = {1.0, 0}
	set.ltu.or.u32.f16x2 %x4, %x1, %x2, %p1;    // {lo T or F, hi NaN-unordered T or F} = {ffff, ffff}
	set.ge.xor.s32.f16x2 %x5, %x1, %x2, !%p1;   // {lo F xor T, hi F xor T} = {ffff, ffff}
	mov.b16 %h1, 0x3f80;                        // bf16 1.0
	mov.b16 %h2, 0x7fc0;                        // bf16 NaN
	set.num.xor.bf16.bf16 %h3, %h1, %h2, %p2;   // F xor T = 1.0
	set.nan.and.u16.bf16 %h4, %h1, %h2, !%p2;   // T and F = 0
	set.eq.or.bf16x2.bf16x2 %x6, %x2, %x2, %p1; // {T, T} = {bf16 1.0, bf16 1.0}
	set.ltu.u32.f16.pred %x7, %h1, %h2;         // .pred ignored; f16 1.875 <u NaN = ffffffff
	st.global.v4.b32 [%rd1], {%x3, %x4, %x5, %x6};
	st.global.v2.b16 [%rd1+16], {%h3, %h4};
	st.global.b32 [%rd1+20], %x7;`

// TestHalfSetBoolOp: the BoolOp combines each half's result with {!}c
// before the true value is written (§9.7.7.1); values hand-computed.
func TestHalfSetBoolOp(t *testing.T) {
	src := kernel1(halfSetBoolOpBody, "")
	res := launch(t, src, Config{}, buf(24))
	b := res.Buffers[0].Data
	want32 := []uint32{0x00003c00, 0xffffffff, 0xffffffff, 0x3f803f80, 0x00003f80, 0xffffffff}
	for i, w := range want32 {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != w {
			t.Errorf("result %d = %#08x, want %#08x", i, got, w)
		}
	}
}

const halfSetpPackedBody = `
	.reg .b32 %x<8>;
	.reg .pred %q<8>;
	mov.u32 %r1, 7;
	setp.ne.u32 %p0, %r1, %r1;                  // false
	mov.b32 %x1, 0x7e003c00;                    // f16 {lo 1.0, hi NaN}
	mov.b32 %x2, 0x3c004000;                    // f16 {lo 2.0, hi 1.0}
	setp.lt.f16x2 %q0|%q1, %x1, %x2;            // lo T, hi F
	setp.ltu.f16x2 %q2|%q3, %x1, %x2;           // lo T, hi T
	mov.b32 %x3, 0x3f807fc0;                    // bf16 {lo NaN, hi 1.0}
	mov.b32 %x4, 0x3f803f80;                    // bf16 {1.0, 1.0}
	setp.eq.xor.bf16x2 %q4|%q5, %x3, %x4, %p0;  // lo F xor F, hi T xor F (p0 false)
	mov.b32 %x5, 0x00010001;                    // f16 {subnormal, subnormal}
	mov.b32 %x6, 0x80000000;                    // f16 {+0, -0}
	setp.eq.ftz.f16x2 %q6|%q7, %x5, %x6;        // T, T
	setp.eq.f16x2 %p2|%p3, %x5, %x6;            // F, F
	selp.u32 %r1, 1, 0, %q0;
	selp.u32 %r2, 2, 0, %q1;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 4, 0, %q2;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 8, 0, %q3;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 16, 0, %q4;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 32, 0, %q5;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 64, 0, %q6;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 128, 0, %q7;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 256, 0, %p2;
	or.b32 %r1, %r1, %r2;
	selp.u32 %r2, 512, 0, %p3;
	or.b32 %r1, %r1, %r2;
	st.global.u32 [%rd1], %r1;`

// TestHalfSetpPacked: setp on .f16x2/.bf16x2 writes the low half's result
// to p and the high half's to q, each combined with c (§9.7.7.2); .ftz
// flushes subnormal inputs (0x0001 == 0 only with .ftz).
func TestHalfSetpPacked(t *testing.T) {
	src := kernel1(halfSetpPackedBody, "")
	res := launch(t, src, Config{}, buf(4))
	// q0 q2 q3 q5 q6 q7 set; q1 q4 p2 p3 clear
	const want = 1 | 4 | 8 | 32 | 64 | 128
	if got := binary.LittleEndian.Uint32(res.Buffers[0].Data); got != want {
		t.Errorf("predicates = %#b, want %#b", got, want)
	}
}

package emu

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// nanCase runs one instruction on the operands a, b, c (registers of type
// reg, loaded from 8-byte slots) into d (of type dreg) and wants bits.
type nanCase struct {
	inst      string // the instruction, operands %d, %a1, %a2, %a3
	reg, dreg string // register types: .b16, .b32, .b64, .f32, .f64
	a, b, c   uint64
	want      uint64
}

func (c nanCase) kernel() string {
	ld := func(reg string) string { return ".b" + reg[2:] }
	if c.reg[1] == 'f' {
		ld = func(reg string) string { return reg }
	}
	return fmt.Sprintf(`%s.visible .entry k(.param .u64 in, .param .u64 out) {
	.reg .b64 %%rd<3>;
	.reg %s %%a<4>;
	.reg %s %%d;
	ld.param.u64 %%rd1, [in];
	ld.param.u64 %%rd2, [out];
	ld.global%s %%a1, [%%rd1];
	ld.global%s %%a2, [%%rd1+8];
	ld.global%s %%a3, [%%rd1+16];
	%s;
	st.global%s [%%rd2], %%d;
	ret;
}
`, header, c.reg, c.dreg, ld(c.reg), ld(c.reg), ld(c.reg), c.inst, ".b"+c.dreg[2:])
}

// TestNaNResults checks the NaN bits each floating-point instruction
// writes: the canonical NaN for binary32 and the 16-bit types (the H100's
// fma.rn.f32 and every approximate instruction of the reference set write
// 0x7fffffff on a NaN operand), the quieted NaN operand or the default
// NaN for binary64, and the operand's own bits for the bit operations.
func TestNaNResults(t *testing.T) {
	const (
		qnan32  = 0x7fc01234 // a quiet NaN with a payload
		snan32  = 0xff800001 // a negative signalling NaN
		inf32   = 0x7f800000
		ninf32  = 0xff800000
		one32   = 0x3f800000
		canon32 = 0x7fffffff
		qnan64  = 0x7ff8000000001234
		snan64  = 0xfff0000000000001
		inf64   = 0x7ff0000000000000
		ninf64  = 0xfff0000000000000
		one64   = 0x3ff0000000000000
		dflt64  = 0xfff8000000000000
		nanF16  = 0x7d01 // f16 signalling NaN with a payload
		nanBF16 = 0xff81 // bf16 negative NaN with a payload
		oneF16  = 0x3c00
		oneBF16 = 0x3f80
	)
	f32 := func(inst string, a, b, c, want uint64) nanCase { return nanCase{inst, ".f32", ".f32", a, b, c, want} }
	f64 := func(inst string, a, b, c, want uint64) nanCase { return nanCase{inst, ".f64", ".f64", a, b, c, want} }
	h := func(inst string, a, b, c, want uint64) nanCase { return nanCase{inst, ".b16", ".b16", a, b, c, want} }
	h2 := func(inst string, a, b, c, want uint64) nanCase { return nanCase{inst, ".b32", ".b32", a, b, c, want} }
	cases := []nanCase{
		f32("fma.rn.f32 %d, %a1, %a2, %a3", qnan32, one32, one32, canon32),
		f32("fma.rn.f32 %d, %a1, %a2, %a3", one32, one32, snan32, canon32),
		f32("mad.rn.f32 %d, %a1, %a2, %a3", one32, qnan32, one32, canon32),
		f32("add.f32 %d, %a1, %a2", qnan32, one32, 0, canon32),
		f32("add.rz.f32 %d, %a1, %a2", one32, snan32, 0, canon32),
		f32("add.f32 %d, %a1, %a2", inf32, ninf32, 0, canon32),
		f32("sub.f32 %d, %a1, %a2", snan32, one32, 0, canon32),
		f32("mul.f32 %d, %a1, %a2", qnan32, one32, 0, canon32),
		f32("mul.rn.f32 %d, %a1, %a2", inf32, 0, 0, canon32),
		f32("div.rn.f32 %d, %a1, %a2", qnan32, one32, 0, canon32),
		f32("div.rn.f32 %d, %a1, %a2", 0, 0, 0, canon32),
		f32("div.full.f32 %d, %a1, %a2", qnan32, one32, 0, canon32),
		f32("sqrt.rn.f32 %d, %a1", qnan32, 0, 0, canon32),
		f32("sqrt.rn.f32 %d, %a1", ninf32, 0, 0, canon32),
		f32("sqrt.approx.f32 %d, %a1", snan32, 0, 0, canon32),
		f32("rcp.rn.f32 %d, %a1", snan32, 0, 0, canon32),
		f32("rsqrt.approx.f32 %d, %a1", qnan32, 0, 0, canon32),
		f32("min.f32 %d, %a1, %a2", qnan32, snan32, 0, canon32),
		f32("max.f32 %d, %a1, %a2", qnan32, one32, 0, one32),
		f32("cvt.rni.f32.f32 %d, %a1", qnan32, 0, 0, canon32),
		f32("abs.f32 %d, %a1", snan32, 0, 0, 0x7f800001),
		f32("neg.f32 %d, %a1", qnan32, 0, 0, 0xffc01234),
		f32("mov.f32 %d, %a1", snan32, 0, 0, snan32),
		f32("copysign.f32 %d, %a1, %a2", snan32, qnan32, 0, 0xffc01234),
		{"cvt.rn.f32.f64 %d, %a1", ".f64", ".f32", qnan64, 0, 0, canon32},
		{"cvt.f64.f32 %d, %a1", ".f32", ".f64", snan32, 0, 0, 0xfff8000020000000},
		{"cvt.f64.f16 %d, %a1", ".b16", ".f64", nanF16, 0, 0, 0x7ffc040000000000},
		{"cvt.rn.f16.f32 %d, %a1", ".f32", ".b16", qnan32, 0, 0, 0x7fff},
		{"cvt.rn.bf16.f32 %d, %a1", ".f32", ".b16", snan32, 0, 0, 0x7fff},
		{"cvt.f32.f16 %d, %a1", ".b16", ".f32", nanF16, 0, 0, canon32},
		{"cvt.rn.f16x2.f32 %d, %a1, %a2", ".f32", ".b32", qnan32, one32, 0, 0x7fff3c00},
		f64("add.f64 %d, %a1, %a2", one64, qnan64, 0, qnan64),
		f64("add.f64 %d, %a1, %a2", snan64, qnan64, 0, snan64|1<<51),
		f64("add.f64 %d, %a1, %a2", inf64, ninf64, 0, dflt64),
		f64("fma.rn.f64 %d, %a1, %a2, %a3", one64, one64, snan64, snan64|1<<51),
		f64("mul.rn.f64 %d, %a1, %a2", inf64, 0, 0, dflt64),
		f64("sqrt.rn.f64 %d, %a1", ninf64, 0, 0, dflt64),
		f64("min.f64 %d, %a1, %a2", snan64, qnan64, 0, snan64|1<<51),
		f64("max.f64 %d, %a1, %a2", qnan64, one64, 0, one64),
		f64("copysign.f64 %d, %a1, %a2", ninf64, qnan64, 0, qnan64|1<<63),
		h("add.f16 %d, %a1, %a2", nanF16, oneF16, 0, 0x7fff),
		h("fma.rn.f16 %d, %a1, %a2, %a3", oneF16, oneF16, nanF16, 0x7fff),
		h("mul.rn.bf16 %d, %a1, %a2", nanBF16, oneBF16, 0, 0x7fff),
		h("neg.f16 %d, %a1", nanF16, 0, 0, nanF16|0x8000),
		h("fma.rn.relu.f16 %d, %a1, %a2, %a3", nanF16, oneF16, 0, 0x7fff),
		h("fma.rn.relu.f16 %d, %a1, %a2, %a3", 0xbc00, oneF16, 0, 0),
		h("fma.rn.relu.bf16 %d, %a1, %a2, %a3", oneBF16, oneBF16, oneBF16, 0x4000),
		h("fma.rn.relu.bf16 %d, %a1, %a2, %a3", 0xbf80, oneBF16, 0, 0),
		h2("fma.rn.relu.f16x2 %d, %a1, %a2, %a3", 0xbc003c00, oneF16<<16|oneF16, 0, 0x3c00),
		h2("fma.rn.f16x2 %d, %a1, %a2, %a3", nanF16<<16|oneF16, oneF16<<16|oneF16, 0, 0x7fff3c00),
		h2("add.rn.bf16x2 %d, %a1, %a2", oneBF16<<16|nanBF16, 0, 0, oneBF16<<16|0x7fff),
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

package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math"
	"sort"
	"sync"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Conversions to the reduced-precision floating-point formats (PTX ISA
// §9.7.9.21): to and from the 8-bit pairs .e4m3x2 and .e5m2x2 (sm_89+:
// cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b with a in the upper byte,
// cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a, and cvt.rn{.relu}.f16x2.f8x2
// d, a), and to TensorFloat-32 (cvt.{rna,rn,rz}{.satfinite}.tf32.f32).

func init() {
	RegisterVariant("cvt", isa.QE4m3x2, decodeCvtFP8)
	RegisterVariant("cvt", isa.QE5m2x2, decodeCvtFP8)
}

// fp8Format is e4m3 (no infinities; S.1111.111 is NaN, 448 the largest
// value) or e5m2 (IEEE-like; 57344 the largest finite value).
type fp8Format struct {
	expBits, manBits, bias int
	ieee                   bool // exponent all ones is infinity/NaN
	// values lists every finite non-negative value, by code; built on the
	// first conversion, not at the start of every ptxkit command.
	values func() []float64
}

var (
	fmtE4M3 = newFP8(4, 3, false)
	fmtE5M2 = newFP8(5, 2, true)
)

func newFP8(e, m int, ieee bool) *fp8Format {
	f := &fp8Format{expBits: e, manBits: m, bias: 1<<(e-1) - 1, ieee: ieee}
	f.values = sync.OnceValue(func() []float64 {
		var l []float64
		for code := 0; code < 0x80; code++ {
			v := f.decode(uint8(code))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				break
			}
			l = append(l, v)
		}
		return l
	})
	return f
}

// decode returns the value of an 8-bit code.
func (f *fp8Format) decode(c uint8) float64 {
	sign := 1.0
	if c&0x80 != 0 {
		sign = -1
	}
	exp := int(c>>f.manBits) & (1<<f.expBits - 1)
	man := int(c) & (1<<f.manBits - 1)
	top := 1<<f.expBits - 1
	switch {
	case f.ieee && exp == top && man == 0:
		return math.Inf(int(sign))
	case f.ieee && exp == top, !f.ieee && exp == top && man == 1<<f.manBits-1:
		return math.NaN()
	case exp == 0:
		return sign * math.Ldexp(float64(man), 1-f.bias-f.manBits)
	}
	return sign * math.Ldexp(float64(man|1<<f.manBits), exp-f.bias-f.manBits)
}

// encodeSatfinite rounds x to the nearest code (ties to the even code),
// saturating to the largest finite value; NaN gives 0x7f. relu turns
// negative results into +0.
func (f *fp8Format) encodeSatfinite(x float64, relu bool) uint8 {
	if math.IsNaN(x) {
		return 0x7f
	}
	if relu && (x < 0 || x == 0 && math.Signbit(x)) {
		x = 0
	}
	var sign uint8
	if math.Signbit(x) {
		sign, x = 0x80, -x
	}
	vs := f.values()
	i := sort.SearchFloat64s(vs, x) // first value >= x
	switch {
	case i == len(vs):
		return sign | uint8(len(vs)-1)
	case vs[i] == x || i == 0:
		return sign | uint8(i)
	}
	lo, hi := x-vs[i-1], vs[i]-x
	if lo < hi || lo == hi && (i-1)%2 == 0 {
		return sign | uint8(i-1)
	}
	return sign | uint8(i)
}

// fp8ToF16 converts a code to f16 bits (exactly; NaN gives the canonical
// f16 NaN).
func (f *fp8Format) toF16(c uint8, relu bool) uint16 {
	v := f.decode(c)
	if math.IsNaN(v) {
		return 0x7fff
	}
	if relu && (v < 0 || math.Signbit(v)) {
		return 0
	}
	return floatToF16(v, RoundNearest)
}

// cvtFP8 is the Ext of an fp8 conversion.
type cvtFP8 struct {
	f       *fp8Format
	relu    bool
	to8     bool // to the fp8 pair; otherwise from it to .f16x2
	fromF32 bool // two .f32 sources
}

func decodeCvtFP8(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	c := &cvtFP8{f: fmtE4M3, relu: q.Has(isa.QRelu)}
	if q.Has(isa.QE5m2x2) {
		c.f = fmtE5M2
	}
	// The destination type is the first type-like qualifier.
	for _, n := range q.List {
		if n == isa.QE4m3x2 || n == isa.QE5m2x2 {
			c.to8 = true
			break
		}
		if n == isa.QF16x2 {
			break
		}
	}
	nsrc := 1
	switch {
	case c.to8 && q.Has(isa.QF32):
		c.fromF32, nsrc = true, 2
		if !q.Has(isa.QSatfinite) || !q.Has(isa.QRn) {
			return d.Errorf(in, "cvt to %s takes .rn.satfinite", in.FullOpcode())
		}
	case c.to8 && q.Has(isa.QF16x2):
		if !q.Has(isa.QSatfinite) || !q.Has(isa.QRn) {
			return d.Errorf(in, "cvt to %s takes .rn.satfinite", in.FullOpcode())
		}
	case !c.to8 && q.Has(isa.QF16x2):
	default:
		return d.Errorf(in, "the emulator converts .e4m3x2/.e5m2x2 from .f32 or .f16x2 and to .f16x2")
	}
	out.Ext = c
	return lanes3(d, in, out, nsrc, TB32, execCvtFP8)
}

func execCvtFP8(w *Warp, in *Inst) Status {
	c := in.Ext.(*cvtFP8)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a := w.R[in.A+l]
		var d uint64
		switch {
		case c.fromF32:
			hi := c.f.encodeSatfinite(float64(math.Float32frombits(uint32(a))), c.relu)
			lo := c.f.encodeSatfinite(float64(math.Float32frombits(uint32(w.R[in.B+l]))), c.relu)
			d = uint64(hi)<<8 | uint64(lo)
		case c.to8:
			hi := c.f.encodeSatfinite(f16ToFloat(uint16(a>>16)), c.relu)
			lo := c.f.encodeSatfinite(f16ToFloat(uint16(a)), c.relu)
			d = uint64(hi)<<8 | uint64(lo)
		default:
			d = uint64(c.f.toF16(uint8(a>>8), c.relu))<<16 | uint64(c.f.toF16(uint8(a), c.relu))
		}
		w.R[in.D+l] = d
	}
	return Continue
}

func init() {
	RegisterVariant("cvt", isa.QTf32, decodeCvtTF32)
}

// decodeCvtTF32 lowers cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32 d, a:
// a rounded to the 10-bit significand of TensorFloat-32, kept in an f32
// container whose 13 low bits are zero.
func decodeCvtTF32(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.Has(isa.QF32) {
		return d.Errorf(in, "cvt to .tf32 takes an .f32 source")
	}
	switch {
	case q.Has(isa.QRna):
		out.Imm = 0
	case q.Has(isa.QRn):
		out.Imm = 1
	case q.Has(isa.QRz):
		out.Imm = 2
	default:
		return d.Errorf(in, "cvt to .tf32 takes .rna, .rn or .rz")
	}
	if q.Has(isa.QSatfinite) {
		out.Flags |= FlagSat
	}
	if q.Has(isa.QRelu) {
		out.Flags |= FlagX
	}
	return lanes3(d, in, out, 1, TB32, execCvtTF32)
}

// tf32 rounds the f32 bits a: ties away from zero (mode 0), to even (1)
// or toward zero (2); satfinite turns infinities (and overflow) into the
// largest finite value and NaN into the canonical NaN.
func tf32(a uint32, mode uint64, satfinite, relu bool) uint32 {
	sign, mag := a&0x80000000, a&0x7fffffff
	if mag > 0x7f800000 {
		return 0x7fffffff
	}
	if relu && sign != 0 {
		return 0
	}
	if mag < 0x7f800000 {
		switch mode {
		case 0:
			mag += 0x1000
		case 1:
			mag += 0xfff + (mag >> 13 & 1)
		}
		mag &^= 0x1fff
	}
	if satfinite && mag >= 0x7f800000 {
		mag = 0x7f7fe000
	}
	return sign | mag
}

func execCvtTF32(w *Warp, in *Inst) Status {
	sat, relu := in.Flags&FlagSat != 0, in.Flags&FlagX != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(tf32(uint32(w.R[in.A+l]), in.Imm, sat, relu))
	}
	return Continue
}

package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math"
	"math/bits"
)

// Type is a PTX fundamental type as the emulator sees it (PTX ISA §5.2).
// A register slot always holds a value in its low Size() bytes.
type Type uint8

// The fundamental types. Packed half types (.f16x2, .bf16x2) travel as
// 32-bit values.
const (
	TNone Type = iota
	TPred
	TB8
	TB16
	TB32
	TB64
	TB128
	TU8
	TU16
	TU32
	TU64
	TS8
	TS16
	TS32
	TS64
	TF16
	TF16x2
	TBF16
	TBF16x2
	TF32
	TF64
)

// typeQuals is the qualifier of each type.
var typeQuals = [...]isa.Qual{
	TPred: isa.QPred, TB8: isa.QB8, TB16: isa.QB16, TB32: isa.QB32, TB64: isa.QB64, TB128: isa.QB128,
	TU8: isa.QU8, TU16: isa.QU16, TU32: isa.QU32, TU64: isa.QU64,
	TS8: isa.QS8, TS16: isa.QS16, TS32: isa.QS32, TS64: isa.QS64,
	TF16: isa.QF16, TF16x2: isa.QF16x2, TBF16: isa.QBF16, TBF16x2: isa.QBF16x2, TF32: isa.QF32, TF64: isa.QF64,
}

// ParseType returns the type a spelling such as ".u32" names, as isa
// reads it.
func ParseType(name string) (Type, bool) { return typeOf(isa.LookupQual(name)) }

// typeOf returns the emulator Type of a type qualifier (PTX ISA §5.2).
func typeOf(q isa.Qual) (Type, bool) {
	if q == isa.QNone {
		return TNone, false
	}
	for t, tq := range typeQuals {
		if tq == q {
			return Type(t), true
		}
	}
	return TNone, false
}

// Size returns the type's width in bytes (predicates count as 1).
func (t Type) Size() int {
	switch t {
	case TPred, TB8, TU8, TS8:
		return 1
	case TB16, TU16, TS16, TF16, TBF16:
		return 2
	case TB32, TU32, TS32, TF32, TF16x2, TBF16x2:
		return 4
	case TB64, TU64, TS64, TF64:
		return 8
	case TB128:
		return 16
	}
	return 0
}

// Bits returns the type's width in bits.
func (t Type) Bits() int { return t.Size() * 8 }

// Signed reports whether t is a signed integer type.
func (t Type) Signed() bool { return t >= TS8 && t <= TS64 }

// Float reports whether t is a floating-point type (scalar or packed).
func (t Type) Float() bool { return t >= TF16 }

func (t Type) String() string {
	if int(t) < len(typeQuals) && typeQuals[t] != isa.QNone {
		return typeQuals[t].String()
	}
	return ".none"
}

// mask returns a mask of the type's low bits (all ones for 64 and 128 bit).
func (t Type) mask() uint64 {
	n := t.Bits()
	if n >= 64 || n == 0 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// sext sign-extends the low n bits of v.
func sext(v uint64, n int) uint64 {
	if n >= 64 {
		return v
	}
	s := uint(64 - n)
	return uint64(int64(v<<s) >> s)
}

// Round is a rounding modifier of cvt and float arithmetic (§9.7.9.21).
type Round uint8

const (
	RoundDefault     Round = iota
	RoundNearest           // .rn / .rni
	RoundZero              // .rz / .rzi
	RoundDown              // .rm / .rmi
	RoundUp                // .rp / .rpi
	RoundNearestAway       // .rna
)

// roundInt rounds x to an integer-valued float64 in mode r.
func roundInt(x float64, r Round) float64 {
	switch r {
	case RoundZero:
		return math.Trunc(x)
	case RoundDown:
		return math.Floor(x)
	case RoundUp:
		return math.Ceil(x)
	case RoundNearestAway:
		return math.Round(x)
	}
	return math.RoundToEven(x)
}

// floatFormat describes a binary floating-point format.
type floatFormat struct {
	mant int // explicit mantissa bits
	exp  int // exponent bits
}

var (
	fmtF16  = floatFormat{10, 5}
	fmtBF16 = floatFormat{7, 8}
	fmtF32  = floatFormat{23, 8}
)

// encode rounds x to the format in mode r and returns its bit pattern.
func (f floatFormat) encode(x float64, r Round) uint64 {
	bias := 1<<uint(f.exp-1) - 1
	signBit := uint64(1) << uint(f.mant+f.exp)
	expAll := uint64(1<<uint(f.exp)-1) << uint(f.mant)
	if math.IsNaN(x) {
		return expAll | (1<<uint(f.mant) - 1) // the hardware's canonical NaN (nan.go)
	}
	var s uint64
	neg := math.Signbit(x)
	if neg {
		s = signBit
		x = -x
	}
	if math.IsInf(x, 0) {
		return s | expAll
	}
	if x == 0 {
		return s
	}
	// Round the magnitude: flip directed modes for negative values.
	mr := r
	if neg {
		switch r {
		case RoundDown:
			mr = RoundUp
		case RoundUp:
			mr = RoundDown
		}
	}
	_, e2 := math.Frexp(x)
	e := e2 - 1 // x = 1.m * 2^e
	emin := 1 - bias
	if e < emin {
		e = emin
	}
	q := math.Ldexp(1, e-f.mant)
	n := roundInt(x/q, mr)
	if n >= math.Ldexp(1, f.mant+1) { // rounded up into the next binade
		e++
		n /= 2
	}
	if e > bias { // overflow
		if mr == RoundZero || mr == RoundDown {
			return s | (expAll - 1<<uint(f.mant)) | (1<<uint(f.mant) - 1)
		}
		return s | expAll
	}
	m := uint64(n)
	if m < 1<<uint(f.mant) { // subnormal or zero
		return s | m
	}
	return s | uint64(e+bias)<<uint(f.mant) | (m - 1<<uint(f.mant))
}

// decode returns the value of bit pattern b in the format.
func (f floatFormat) decode(b uint64) float64 {
	bias := 1<<uint(f.exp-1) - 1
	m := b & (1<<uint(f.mant) - 1)
	e := int(b>>uint(f.mant)) & (1<<uint(f.exp) - 1)
	neg := b>>uint(f.mant+f.exp)&1 == 1
	var v float64
	switch {
	case e == 1<<uint(f.exp)-1:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(float64(m), 1-bias-f.mant)
	default:
		v = math.Ldexp(float64(m|1<<uint(f.mant)), e-bias-f.mant)
	}
	if neg {
		return -v
	}
	return v
}

// f16ToFloat returns the value of an IEEE binary16 bit pattern.
func f16ToFloat(h uint16) float64 { return fmtF16.decode(uint64(h)) }

// floatToF16 rounds x to binary16 in mode r.
func floatToF16(x float64, r Round) uint16 { return uint16(fmtF16.encode(x, r)) }

// bf16ToFloat returns the value of a bfloat16 bit pattern.
func bf16ToFloat(h uint16) float64 { return fmtBF16.decode(uint64(h)) }

// floatToBF16 rounds x to bfloat16 in mode r.
func floatToBF16(x float64, r Round) uint16 { return uint16(fmtBF16.encode(x, r)) }

// toF32 rounds x to binary32 in mode r.
func toF32(x float64, r Round) float32 {
	if r == RoundDefault || r == RoundNearest {
		return float32(x)
	}
	return math.Float32frombits(uint32(fmtF32.encode(x, r)))
}

// floatValue reads a register value of float type t as float64.
func floatValue(t Type, v uint64) float64 {
	switch t {
	case TF16:
		return f16ToFloat(uint16(v))
	case TBF16:
		return bf16ToFloat(uint16(v))
	case TF32:
		return float64(math.Float32frombits(uint32(v)))
	case TF64:
		return math.Float64frombits(v)
	}
	return 0
}

// floatBits rounds x to float type t and returns its bits.
// FromFloat returns the bits of x in floating-point type t, rounded to
// nearest even (the rounding of a PTX floating-point literal, §4.5.1);
// 0 when t is not a floating-point type.
func (t Type) FromFloat(x float64) uint64 { return floatBits(t, x, RoundNearest) }

func floatBits(t Type, x float64, r Round) uint64 {
	if x != x {
		return canonicalNaN(t)
	}
	switch t {
	case TF16:
		return uint64(floatToF16(x, r))
	case TBF16:
		return uint64(floatToBF16(x, r))
	case TF32:
		return uint64(math.Float32bits(toF32(x, r)))
	case TF64:
		return math.Float64bits(x)
	}
	return 0
}

// intValue reads a register value of integer type t as a signed or
// unsigned 64-bit quantity (sign-extended for signed types).
func intValue(t Type, v uint64) uint64 {
	v &= t.mask()
	if t.Signed() {
		return sext(v, t.Bits())
	}
	return v
}

// satInt converts float x to integer type t, rounding in mode r and
// saturating to the type's range; NaN converts to 0 (§9.7.9.21).
func satInt(t Type, x float64, r Round) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	x = roundInt(x, r)
	n := t.Bits()
	if t.Signed() {
		lo := -math.Ldexp(1, n-1)
		hi := math.Ldexp(1, n-1)
		switch {
		case x <= lo:
			return uint64(int64(-1) << uint(n-1))
		case x >= hi:
			return uint64(1)<<uint(n-1) - 1
		}
		return uint64(int64(x)) & t.mask()
	}
	hi := math.Ldexp(1, n)
	switch {
	case x <= 0:
		return 0
	case x >= hi:
		return t.mask()
	}
	return uint64(x)
}

// mulHi returns the high 64 bits of the 128-bit product of a and b.
func mulHi(a, b uint64, signed bool) uint64 {
	hi, _ := bits.Mul64(a, b)
	if signed {
		if int64(a) < 0 {
			hi -= b
		}
		if int64(b) < 0 {
			hi -= a
		}
	}
	return hi
}

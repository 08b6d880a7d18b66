package tensorcore

import "math/bits"

// The sub-byte element formats of Blackwell's .kind::f8f6f4 and block-scaled
// MMAs (OCP Microscaling formats) and the two scale-factor formats. Their
// values start at 32 so that they never collide with the formats declared
// in tensorcore.go.
const (
	E2M3  Format = iota + 32 // FP6: bias 1, no infinity or NaN, largest 7.5
	E3M2                     // FP6: bias 3, no infinity or NaN, largest 28
	E2M1                     // FP4: bias 1, no infinity or NaN, largest 6
	UE8M0                    // scale: 2^(x-127); 0xff is NaN
	UE4M3                    // scale: unsigned E4M3 (bias 7); 0x7f is NaN
)

// miniNames are the names of the formats above.
var miniNames = map[Format]string{E2M3: "e2m3", E3M2: "e3m2", E2M1: "e2m1", UE8M0: "ue8m0", UE4M3: "ue4m3"}

// Name is the format's name, for the formats of this file too.
func Name(f Format) string {
	if n, ok := miniNames[f]; ok {
		return n
	}
	return f.String()
}

// ElemBits is the number of significant bits of an element of f (4 for
// E2M1, 6 for E2M3 and E3M2, Bits otherwise).
func ElemBits(f Format) int {
	switch f {
	case E2M1:
		return 4
	case E2M3, E3M2:
		return 6
	case UE8M0, UE4M3:
		return 8
	}
	return f.Bits()
}

// miniLayouts are the sign/exponent/mantissa splits of the formats
// without infinities and NaNs.
var miniLayouts = map[Format]layout{
	E2M3: {2, 3, 1, false},
	E3M2: {3, 2, 3, false},
	E2M1: {2, 1, 1, false},
}

// decodeElem reads element x of any input format of the f8f6f4 kinds:
// E4M3 and E5M2 through decode, the FP6 and FP4 formats here (every bit
// pattern is a finite number; bits above the element are ignored).
func decodeElem(f Format, x uint64) num {
	l, ok := miniLayouts[f]
	if !ok {
		return decode(f, x)
	}
	x &= 1<<(1+l.ebits+l.mbits) - 1
	neg := x>>(l.ebits+l.mbits)&1 == 1
	ex := int(x >> l.mbits & (1<<l.ebits - 1))
	m := x & (1<<l.mbits - 1)
	if ex == 0 {
		return num{m: m, e: int32(1 - l.bias - l.mbits), neg: neg}
	}
	return num{m: m | 1<<l.mbits, e: int32(ex - l.bias - l.mbits), neg: neg}
}

// decodeScale reads a scale factor: UE8M0 is 2^(x-127) with 0xff NaN;
// UE4M3 is the low 7 bits of x read as a non-negative E4M3 (0x7f NaN).
func decodeScale(f Format, x uint64) num {
	switch f {
	case UE8M0:
		x &= 0xff
		if x == 0xff {
			return num{cls: nan}
		}
		return num{m: 1, e: int32(x) - 127}
	case UE4M3:
		return decode(E4M3, x&0x7f)
	}
	return num{cls: nan}
}

// IsScaleFormat reports whether f is a scale-factor format.
func IsScaleFormat(f Format) bool { return f == UE8M0 || f == UE4M3 }

// normalize drops trailing zero bits of x's significand (a value's
// representation is not unique; this keeps significands short).
func normalize(x num) num {
	if x.m == 0 {
		return x
	}
	tz := bits.TrailingZeros64(x.m)
	x.m >>= tz
	x.e += int32(tz)
	return x
}

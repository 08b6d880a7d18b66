package isa

import (
	"fmt"
	"strings"
)

// Video operand selectors: the ".b1" of "vadd.u32.u32.u32 d, a.b1, b;"
// (PTX ISA 9.7.19 "Scalar Video Instructions") and the ".h10" and
// ".b7654" of the SIMD forms (9.7.20 "SIMD Video Instructions"). They
// are parts of operands, not qualifiers: the tree keeps them in
// ast.Reg.Sel without the dot.

// VideoFamily tells how a video opcode treats its operands.
type VideoFamily uint8

const (
	NotVideo    VideoFamily = iota
	VideoScalar             // vadd vsub vabsdiff vmin vmax vshl vshr vset (9.7.19.1, .2, .4)
	VideoMad                // vmad (9.7.19.3): source selectors only
	VideoSIMD2              // vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 (9.7.20.1)
	VideoSIMD4              // the 4-way forms (9.7.20.2)
)

// videoFamily is VideoFamilyOf for an opcode starting with v.
func videoFamily(opcode string) VideoFamily {
	switch opcode {
	case "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset":
		return VideoScalar
	case "vmad":
		return VideoMad
	case "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2":
		return VideoSIMD2
	case "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4":
		return VideoSIMD4
	}
	return NotVideo
}

// VideoFamilyOf returns the video family of an opcode, NotVideo for the
// others.
func VideoFamilyOf(opcode string) VideoFamily {
	if len(opcode) < 4 || opcode[0] != 'v' { // most instructions: no map lookup
		return NotVideo
	}
	return videoFamily(opcode)
}

// SIMD reports whether the family is one of the SIMD forms.
func (f VideoFamily) SIMD() bool { return f == VideoSIMD2 || f == VideoSIMD4 }

// Lanes is the number of elements of a SIMD family, 1 otherwise.
func (f VideoFamily) Lanes() int {
	switch f {
	case VideoSIMD2:
		return 2
	case VideoSIMD4:
		return 4
	}
	return 1
}

// VideoRole is the place of an operand in a video instruction, which
// decides the selectors it takes.
type VideoRole uint8

const (
	VideoNoSel     VideoRole = iota // c, vmad's d, every operand of other instructions
	VideoScalarSrc                  // a, b of the scalar forms and vmad
	VideoScalarDst                  // d of the scalar merge form d.dsel, a, b, c
	VideoSIMD2Src                   // .hxy
	VideoSIMD2Mask                  // .h0 .h1 .h10
	VideoSIMD4Src                   // .bxyzw
	VideoSIMD4Mask                  // .b0 .b1 .b10 ... .b3210
)

// Role returns the role of operand i of an instruction of family f.
func (f VideoFamily) Role(i int) VideoRole {
	switch {
	case i == 1 || i == 2:
		switch f {
		case VideoScalar, VideoMad:
			return VideoScalarSrc
		case VideoSIMD2:
			return VideoSIMD2Src
		case VideoSIMD4:
			return VideoSIMD4Src
		}
	case i == 0:
		switch f {
		case VideoScalar:
			return VideoScalarDst
		case VideoSIMD2:
			return VideoSIMD2Mask
		case VideoSIMD4:
			return VideoSIMD4Mask
		}
	}
	return VideoNoSel
}

// VideoSel is a decoded selector.
type VideoSel struct {
	Half   bool     // an 'h' selector (half-words); otherwise bytes
	N      int      // number of digits, 1 to 4
	Digits [4]uint8 // as written: Digits[0] is for the most significant element
}

// ParseVideoSel decodes a selector written without its dot ("b1",
// "h10", "b7654"): 'b' or 'h' and one to four digits.
func ParseVideoSel(s string) (VideoSel, bool) {
	var v VideoSel
	if len(s) < 2 || len(s) > 5 || s[0] != 'b' && s[0] != 'h' {
		return v, false
	}
	v.Half, v.N = s[0] == 'h', len(s)-1
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return v, false
		}
		v.Digits[i-1] = s[i] - '0'
	}
	return v, true
}

// String returns the selector as written, without its dot.
func (v VideoSel) String() string {
	b := []byte{'b'}
	if v.Half {
		b[0] = 'h'
	}
	for _, d := range v.Digits[:v.N] {
		b = append(b, '0'+d)
	}
	return string(b)
}

// Fits reports whether selector v is allowed in role r: the scalar
// forms take .b0-.b3, .h0 and .h1 (9.7.19), the SIMD forms .hxy with x, y
// in 0-3 and .bxyzw with digits in 0-7 on sources, and on the
// destination a mask of distinct lanes in decreasing order (9.7.20).
// The byte pairs .b01, .b12 and .b23 that ptxas 12.5 takes on a scalar
// destination are not in the manual: see BytePair.
func (v VideoSel) Fits(r VideoRole) bool {
	switch r {
	case VideoScalarSrc, VideoScalarDst:
		return v.N == 1 && (v.Half && v.Digits[0] < 2 || !v.Half && v.Digits[0] < 4)
	case VideoSIMD2Src:
		return v.Half && v.N == 2 && v.maxDigit() < 4
	case VideoSIMD4Src:
		return !v.Half && v.N == 4 && v.maxDigit() < 8
	case VideoSIMD2Mask:
		return v.Half && v.decreasing(2)
	case VideoSIMD4Mask:
		return !v.Half && v.decreasing(4)
	}
	return false
}

// BytePair reports whether v is one of .b01, .b12 and .b23. The manual
// does not list them; ptxas 12.5 takes them on the destination of the
// scalar merge form for sm_70 and later, and stops with a fatal syntax
// error in its own built-in code on a source or for older targets
// (docs/ptxas-differences.md). Their meaning is not documented.
func (v VideoSel) BytePair() bool {
	return !v.Half && v.N == 2 && v.Digits[0] < 3 && v.Digits[1] == v.Digits[0]+1
}

func (v VideoSel) maxDigit() uint8 {
	m := uint8(0)
	for _, d := range v.Digits[:v.N] {
		m = max(m, d)
	}
	return m
}

// decreasing reports whether the digits are distinct lanes below n in
// decreasing order (a SIMD mask).
func (v VideoSel) decreasing(n uint8) bool {
	for i, d := range v.Digits[:v.N] {
		if d >= n || i > 0 && d >= v.Digits[i-1] {
			return false
		}
	}
	return true
}

// Part returns the bit offset and width a scalar selector picks out of a
// 32-bit word: .b2 is (16, 8), .h1 (16, 16).
func (v VideoSel) Part() (shift, bits uint) {
	if v.Half {
		return 16 * uint(v.Digits[0]), 16
	}
	return 8 * uint(v.Digits[0]), 8
}

// Mask returns the lanes a SIMD destination mask keeps, bit i for lane i.
func (v VideoSel) Mask() uint8 {
	var m uint8
	for _, d := range v.Digits[:v.N] {
		m |= 1 << d
	}
	return m
}

// Lane returns the element of the 64-bit pair {b, a} (a's elements
// first) that a SIMD source selector gives to lane i: .b3210 gives lane
// i element i; .h32 gives lane 0 element 2 of the half-words.
func (v VideoSel) Lane(i int) int { return int(v.Digits[v.N-1-i]) }

// Describe tells what the selector does in role r, for explain.
func (v VideoSel) Describe(r VideoRole) string {
	unit := "byte"
	if v.Half {
		unit = "half-word"
	}
	switch r {
	case VideoScalarSrc:
		sh, n := v.Part()
		return fmt.Sprintf("%s %d (bits %d-%d), sign- or zero-extended per the operand's type", unit, v.Digits[0], sh, sh+n-1)
	case VideoScalarDst:
		if v.BytePair() {
			return fmt.Sprintf("bytes %d-%d: a merge selector ptxas accepts for sm_70 and later; the manual does not define it", v.Digits[0], v.Digits[1])
		}
		sh, n := v.Part()
		return fmt.Sprintf("result saturated (with .sat) to a %s and merged into bits %d-%d of c; the other bits come from c", unit, sh, sh+n-1)
	case VideoSIMD2Src, VideoSIMD4Src:
		var l []string
		for i := v.N - 1; i >= 0; i-- {
			e := v.Lane(i)
			src, k := "a", e
			if e >= v.N {
				src, k = "b", e-v.N
			}
			l = append(l, fmt.Sprintf("lane %d = %s %d of %s", i, unit, k, src))
		}
		return strings.Join(l, ", ") + "; each sign- or zero-extended per the operand's type"
	case VideoSIMD2Mask, VideoSIMD4Mask:
		var l []string
		for _, d := range v.Digits[:v.N] {
			l = append(l, fmt.Sprint(d))
		}
		return fmt.Sprintf("results kept in %s lanes %s; the other lanes come from c (with .add: only these lanes are summed)", unit, strings.Join(l, ", "))
	}
	return "no selector allowed here"
}

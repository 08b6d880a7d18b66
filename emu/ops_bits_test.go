package emu

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"
)

// The expected values below follow the definitions of the PTX ISA manual,
// written out bit by bit or element by element, independently of the
// handlers' formulations.

// bitInputs are intInputs plus pseudo-random words, so that every byte and
// half of the operands takes varied values.
func bitInputs() []uint64 {
	in := append([]uint64(nil), intInputs...)
	x := uint64(0x243f6a8885a308d3)
	for range 24 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		in = append(in, x, x&0xffffffff, x>>40)
	}
	return in
}

func b32Case(op string, nsrc int, want func(a, b, c uint32) uint32) aluCase {
	return aluCase{op: op, srcT: ".b32", dstT: ".b32", ldT: ".u32", stT: ".u32", nsrc: nsrc,
		want: func(a, b, c uint64) uint64 { return uint64(want(uint32(a), uint32(b), uint32(c))) }}
}

// funnelShift is §9.7.3.8: shf.l shifts b:a left and keeps the upper
// word, shf.r shifts it right and keeps the lower word.
func funnelShift(left, clamp bool, a, b, c uint32) uint32 {
	n := c & 31
	if clamp {
		n = min(c, 32)
	}
	if left {
		if n == 32 {
			return a
		}
		return b<<n | a>>(32-n)
	}
	if n == 32 {
		return b
	}
	return a>>n | b<<(32-n)
}

// findMSB is §9.7.1.19's loop from the most significant bit down.
func findMSB(a uint64, width int, signed, shiftamt bool) uint32 {
	if signed && a>>(width-1)&1 == 1 {
		a = ^a
	}
	for i := width - 1; i >= 0; i-- {
		if a>>i&1 == 1 {
			if shiftamt {
				return uint32(width - 1 - i)
			}
			return uint32(i)
		}
	}
	return 0xffffffff
}

func TestBitManipulation(t *testing.T) {
	in := bitInputs()
	cases := []aluCase{
		b32Case("shf.l.wrap.b32", 3, func(a, b, c uint32) uint32 { return funnelShift(true, false, a, b, c) }),
		b32Case("shf.l.clamp.b32", 3, func(a, b, c uint32) uint32 { return funnelShift(true, true, a, b, c) }),
		b32Case("shf.r.wrap.b32", 3, func(a, b, c uint32) uint32 { return funnelShift(false, false, a, b, c) }),
		b32Case("shf.r.clamp.b32", 3, func(a, b, c uint32) uint32 { return funnelShift(false, true, a, b, c) }),
		b32Case("bfind.u32", 1, func(a, _, _ uint32) uint32 { return findMSB(uint64(a), 32, false, false) }),
		b32Case("bfind.s32", 1, func(a, _, _ uint32) uint32 { return findMSB(uint64(a), 32, true, false) }),
		b32Case("bfind.shiftamt.u32", 1, func(a, _, _ uint32) uint32 { return findMSB(uint64(a), 32, false, true) }),
		b32Case("bfind.shiftamt.s32", 1, func(a, _, _ uint32) uint32 { return findMSB(uint64(a), 32, true, true) }),
		{op: "bfind.u64", srcT: ".b64", dstT: ".b32", ldT: ".u64", stT: ".u32", nsrc: 1,
			want: func(a, _, _ uint64) uint64 { return uint64(findMSB(a, 64, false, false)) }},
		{op: "bfind.shiftamt.s64", srcT: ".b64", dstT: ".b32", ldT: ".u64", stT: ".u32", nsrc: 1,
			want: func(a, _, _ uint64) uint64 { return uint64(findMSB(a, 64, true, true)) }},
		b32Case("bmsk.wrap.b32", 2, func(a, b, _ uint32) uint32 { return bitMask(a, b, false) }),
		b32Case("bmsk.clamp.b32", 2, func(a, b, _ uint32) uint32 { return bitMask(a, b, true) }),
		b32Case("szext.wrap.u32", 2, func(a, b, _ uint32) uint32 { return extendLow(a, b, false, false) }),
		b32Case("szext.clamp.s32", 2, func(a, b, _ uint32) uint32 { return extendLow(a, b, true, true) }),
		b32Case("szext.wrap.s32", 2, func(a, b, _ uint32) uint32 { return extendLow(a, b, true, false) }),
		b32Case("sad.u32", 3, func(a, b, c uint32) uint32 {
			if a > b {
				return c + a - b
			}
			return c + b - a
		}),
		b32Case("sad.s32", 3, func(a, b, c uint32) uint32 {
			d := int64(int32(a)) - int64(int32(b))
			if d < 0 {
				d = -d
			}
			return c + uint32(d)
		}),
		b32Case("dp4a.u32.u32", 3, func(a, b, c uint32) uint32 { return dotBytes(a, b, c, false, false) }),
		b32Case("dp4a.s32.u32", 3, func(a, b, c uint32) uint32 { return dotBytes(a, b, c, true, false) }),
		b32Case("dp4a.u32.s32", 3, func(a, b, c uint32) uint32 { return dotBytes(a, b, c, false, true) }),
		b32Case("dp4a.s32.s32", 3, func(a, b, c uint32) uint32 { return dotBytes(a, b, c, true, true) }),
		b32Case("dp2a.lo.u32.s32", 3, func(a, b, c uint32) uint32 { return dotHalves(a, b, c, false, true, false) }),
		b32Case("dp2a.hi.s32.u32", 3, func(a, b, c uint32) uint32 { return dotHalves(a, b, c, true, false, true) }),
		b32Case("dp2a.hi.s32.s32", 3, func(a, b, c uint32) uint32 { return dotHalves(a, b, c, true, true, true) }),
		b32Case("max.u16x2", 2, func(a, b, _ uint32) uint32 { return halves(a, b, func(x, y int64) int64 { return max(x, y) }, false) }),
		b32Case("min.s16x2", 2, func(a, b, _ uint32) uint32 { return halves(a, b, func(x, y int64) int64 { return min(x, y) }, true) }),
		b32Case("max.relu.s16x2", 2, func(a, b, _ uint32) uint32 {
			return halves(a, b, func(x, y int64) int64 { return max(x, y, 0) }, true)
		}),
		b32Case("min.relu.s32", 2, func(a, b, _ uint32) uint32 { return uint32(max(min(int32(a), int32(b)), 0)) }),
		b32Case("max.relu.s32", 2, func(a, b, _ uint32) uint32 { return uint32(max(int32(a), int32(b), 0)) }),
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) { runALU(t, c, in) })
	}
	// fns: masks, every base 0-31 and offsets -33..33 (the inputs serve as
	// each operand).
	fnsIn := append([]uint64(nil), in[:40]...)
	for i := range 32 {
		fnsIn = append(fnsIn, uint64(i))
	}
	for o := -33; o <= 33; o += 3 {
		fnsIn = append(fnsIn, uint64(uint32(int32(o))))
	}
	fc := b32Case("fns.b32", 3, func(mask, base, off uint32) uint32 { return findNthSet(mask, base, int32(off)) })
	fc.skip = func(_, b, _ uint64) bool { return uint32(b) > 31 }
	runALU(t, fc, fnsIn)
}

// findNthSet follows §9.7.1.20: the positions of the set bits of mask at
// or above base (offset > 0) or at or below it (offset < 0), in order of
// distance from base; the |offset|-th of them.
func findNthSet(mask, base uint32, offset int32) uint32 {
	if base > 31 {
		return 0xffffffff
	}
	var order []uint32
	switch {
	case offset == 0:
		if mask&(1<<base) != 0 {
			return base
		}
		return 0xffffffff
	case offset > 0:
		for p := base; p < 32; p++ {
			if mask&(1<<p) != 0 {
				order = append(order, p)
			}
		}
	default:
		for p := int(base); p >= 0; p-- {
			if mask&(1<<p) != 0 {
				order = append(order, uint32(p))
			}
		}
	}
	n := max(int64(offset), -int64(offset))
	if n > int64(len(order)) {
		return 0xffffffff
	}
	return order[n-1]
}

// bitMask sets bits [start, start+width) clipped to 32 (§9.7.1.22).
func bitMask(a, b uint32, clamp bool) uint32 {
	start, width := a&31, b&31
	if clamp {
		if a >= 32 {
			return 0
		}
		start, width = a, min(b, 32)
	}
	var d uint32
	for i := start; i < min(start+width, 32); i++ {
		d |= 1 << i
	}
	return d
}

// extendLow keeps the low N bits of a and fills the rest with 0 or the
// bit N-1 (§9.7.1.23).
func extendLow(a, b uint32, signed, clamp bool) uint32 {
	n := b & 31
	if clamp {
		n = min(b, 32)
	}
	if n == 0 {
		return 0
	}
	if n >= 32 {
		return a
	}
	var d uint32
	for i := range uint32(32) {
		bit := a >> min(i, n-1) & 1
		if i >= n && !signed {
			bit = 0
		}
		d |= bit << i
	}
	return d
}

func byteOf(v uint32, i int, signed bool) int64 {
	if signed {
		return int64(int8(v >> (8 * i)))
	}
	return int64(uint8(v >> (8 * i)))
}

func dotBytes(a, b, c uint32, as, bs bool) uint32 {
	s := int64(c)
	for i := range 4 {
		s += byteOf(a, i, as) * byteOf(b, i, bs)
	}
	return uint32(s)
}

func dotHalves(a, b, c uint32, as, bs, hi bool) uint32 {
	half := func(i int) int64 {
		if as {
			return int64(int16(a >> (16 * i)))
		}
		return int64(uint16(a >> (16 * i)))
	}
	first := 0
	if hi {
		first = 2
	}
	return uint32(int64(c) + half(0)*byteOf(b, first, bs) + half(1)*byteOf(b, first+1, bs))
}

func halves(a, b uint32, f func(x, y int64) int64, signed bool) uint32 {
	var d uint32
	for i := range 2 {
		x, y := int64(uint16(a>>(16*i))), int64(uint16(b>>(16*i)))
		if signed {
			x, y = int64(int16(x)), int64(int16(y))
		}
		d |= uint32(uint16(f(x, y))) << (16 * i)
	}
	return d
}

// prmtTable is the manual's table of the source byte each result byte
// (b0..b3) takes in each mode, for selector values 0-3.
var prmtTable = map[string][4][4]int{
	"f4e":  {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
	"b4e":  {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
	"rc8":  {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
	"ecl":  {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
	"ecr":  {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
	"rc16": {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
}

func TestPrmtModes(t *testing.T) {
	in := bitInputs()
	for mode, table := range prmtTable {
		t.Run(mode, func(t *testing.T) {
			runALU(t, b32Case("prmt.b32."+mode, 3, func(a, b, c uint32) uint32 {
				src := [8]uint32{a & 0xff, a >> 8 & 0xff, a >> 16 & 0xff, a >> 24, b & 0xff, b >> 8 & 0xff, b >> 16 & 0xff, b >> 24}
				var d uint32
				for i, s := range table[c&3] {
					d |= src[s] << (8 * i)
				}
				return d
			}), in)
		})
	}
}

// simd applies f to each element (8 or 16 bits) of a and b, with
// optional saturation to the element range of the destination type.
func simd(width int, a, b uint32, as, bs bool, f func(x, y int64) int64) []int64 {
	var out []int64
	for i := 0; i < 32; i += width {
		x, y := int64(a>>i&(1<<width-1)), int64(b>>i&(1<<width-1))
		if as && x>>(width-1) == 1 {
			x -= 1 << width
		}
		if bs && y>>(width-1) == 1 {
			y -= 1 << width
		}
		out = append(out, f(x, y))
	}
	return out
}

func clampTo(v int64, width int, signed bool) int64 {
	lo, hi := int64(0), int64(1)<<width-1
	if signed {
		lo, hi = -(int64(1) << (width - 1)), int64(1)<<(width-1)-1
	}
	return min(max(v, lo), hi)
}

func mergeElems(width int, e []int64) uint32 {
	var d uint32
	for i, v := range e {
		d |= uint32(v) & (1<<width - 1) << (width * i)
	}
	return d
}

func TestVideoSIMD(t *testing.T) {
	in := bitInputs()
	avg := func(x, y int64) int64 { // §9.7.17.2: round half up when the sum is not negative, down otherwise
		if x+y >= 0 {
			return (x + y + 1) / 2
		}
		return int64(math.Floor(float64(x+y) / 2))
	}
	absdiff := func(x, y int64) int64 {
		if x > y {
			return x - y
		}
		return y - x
	}
	type vcase struct {
		op     string
		width  int
		as, bs bool
		sat    bool
		dS     bool
		add    bool
		f      func(x, y int64) int64
	}
	cases := []vcase{
		{op: "vabsdiff4.u32.u32.u32", width: 8, f: absdiff},
		{op: "vabsdiff4.s32.s32.s32.sat", width: 8, as: true, bs: true, sat: true, dS: true, f: absdiff},
		{op: "vadd4.u32.u32.u32.sat", width: 8, sat: true, f: func(x, y int64) int64 { return x + y }},
		{op: "vsub4.s32.s32.s32.sat", width: 8, as: true, bs: true, sat: true, dS: true, f: func(x, y int64) int64 { return x - y }},
		{op: "vavrg4.u32.u32.u32", width: 8, f: avg},
		{op: "vavrg2.s32.s32.s32", width: 16, as: true, bs: true, dS: true, f: avg},
		{op: "vmax4.s32.s32.s32", width: 8, as: true, bs: true, dS: true, f: func(x, y int64) int64 { return max(x, y) }},
		{op: "vmin2.u32.u32.u32", width: 16, f: func(x, y int64) int64 { return min(x, y) }},
		{op: "vmax2.u32.u32.u32", width: 16, f: func(x, y int64) int64 { return max(x, y) }},
		{op: "vadd2.s32.s32.u32.sat", width: 16, as: true, sat: true, dS: true, f: func(x, y int64) int64 { return x + y }},
		{op: "vabsdiff4.u32.u32.u32.add", width: 8, add: true, f: absdiff},
		{op: "vsub2.s32.s32.s32.add", width: 16, as: true, bs: true, dS: true, add: true, f: func(x, y int64) int64 { return x - y }},
		{op: "vset4.u32.u32.lt", width: 8, f: func(x, y int64) int64 { return b2i(x < y) }},
		{op: "vset2.s32.s32.ne.add", width: 16, as: true, bs: true, add: true, f: func(x, y int64) int64 { return b2i(x != y) }},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			runALU(t, b32Case(c.op, 3, func(a, b, cc uint32) uint32 {
				e := simd(c.width, a, b, c.as, c.bs, c.f)
				if c.sat {
					for i := range e {
						e[i] = clampTo(e[i], c.width, c.dS)
					}
				}
				if c.add {
					s := int64(cc)
					for _, v := range e {
						s += v
					}
					return uint32(s)
				}
				return mergeElems(c.width, e)
			}), in)
		})
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestVideoScalar(t *testing.T) {
	in := bitInputs()
	ext := func(v uint32, s bool) int64 {
		if s {
			return int64(int32(v))
		}
		return int64(v)
	}
	cases := []struct {
		op           string
		as, bs, ds   bool
		sat          bool
		op2          string
		f            func(x, y int64) int64
		twoOperandsB bool
	}{
		{op: "vadd.u32.u32.u32.sat", sat: true, f: func(x, y int64) int64 { return x + y }},
		{op: "vadd.s32.u32.s32.sat", bs: true, sat: true, ds: true, f: func(x, y int64) int64 { return x + y }},
		{op: "vsub.s32.s32.u32", as: true, ds: true, f: func(x, y int64) int64 { return x - y }},
		{op: "vabsdiff.u32.s32.s32.sat", as: true, bs: true, sat: true, f: func(x, y int64) int64 { return max(x-y, y-x) }},
		{op: "vmin.s32.s32.s32.add", as: true, bs: true, ds: true, op2: "add", f: func(x, y int64) int64 { return min(x, y) }},
		{op: "vmax.u32.u32.u32.min", op2: "min", f: func(x, y int64) int64 { return max(x, y) }},
		{op: "vadd.s32.s32.s32.sat.max", as: true, bs: true, ds: true, sat: true, op2: "max", f: func(x, y int64) int64 { return x + y }},
		{op: "vshl.u32.u32.u32.clamp", f: func(x, y int64) int64 {
			if y >= 32 {
				return 0
			}
			return x << y
		}},
		{op: "vshr.s32.s32.u32.wrap", as: true, ds: true, f: func(x, y int64) int64 { return x >> (y & 31) }},
		{op: "vshr.u32.u32.u32.clamp.sat", sat: true, f: func(x, y int64) int64 { return x >> min(y, 40) }},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			nsrc := 2
			if c.op2 != "" {
				nsrc = 3
			}
			runALU(t, b32Case(c.op, nsrc, func(a, b, cc uint32) uint32 {
				v := c.f(ext(a, c.as), ext(b, c.bs))
				if c.sat {
					v = clampTo(v, 32, c.ds)
				}
				r := uint32(v)
				switch c.op2 {
				case "add":
					r += cc
				case "min":
					r = uint32(min(ext(r, c.ds), ext(cc, c.ds)))
				case "max":
					r = uint32(max(ext(r, c.ds), ext(cc, c.ds)))
				}
				return r
			}), in)
		})
	}
}

func TestVmad(t *testing.T) {
	in := bitInputs()
	ext := func(v uint32, s bool) *big.Int {
		if s {
			return big.NewInt(int64(int32(v)))
		}
		return new(big.Int).SetUint64(uint64(v))
	}
	cases := []struct {
		op           string
		ds, as, bs   bool
		negA, negC   bool
		po, sat      bool
		shift        uint
		operandsText string
	}{
		{op: "vmad.u32.u32.u32"},
		{op: "vmad.s32.s32.u32.sat", ds: true, as: true, sat: true},
		{op: "vmad.s32.s32.s32.shr15", ds: true, as: true, bs: true, shift: 15},
		{op: "vmad.u32.u32.u32.po", po: true},
		{op: "vmad.s32.u32.u32.sat.shr7", ds: true, sat: true, shift: 7, negA: true},
		{op: "vmad.s32.u32.s32.sat", ds: true, bs: true, sat: true, negC: true}, // the product or c negated, not both (ptxas)
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			ac := b32Case(c.op, 3, func(a, b, cc uint32) uint32 {
				p := new(big.Int).Mul(ext(a, c.as), ext(b, c.bs))
				if c.negA {
					p.Neg(p)
				}
				cv := ext(cc, c.ds || c.as || c.bs)
				if c.negC {
					cv.Neg(cv)
				}
				p.Add(p, cv)
				if c.po {
					p.Add(p, big.NewInt(1))
				}
				p.Rsh(p, c.shift) // floor division, as an arithmetic shift
				if c.sat {
					lo, hi := big.NewInt(0), big.NewInt(1<<32-1)
					if c.ds {
						lo, hi = big.NewInt(-1<<31), big.NewInt(1<<31-1)
					}
					if p.Cmp(lo) < 0 {
						p = lo
					}
					if p.Cmp(hi) > 0 {
						p = hi
					}
				}
				m := new(big.Int).And(p, big.NewInt(1<<32-1))
				return uint32(m.Uint64())
			})
			if c.negA || c.negC {
				ac.negate = [3]bool{c.negA, false, c.negC}
			}
			runALU(t, ac, in)
		})
	}
}

// TestMinMaxFloatModifiers: .NaN (a NaN operand gives the canonical
// NaN), .xorsign.abs (the larger or smaller magnitude, with the xor of the
// signs) and .relu (negative results become +0) on f32 and f16x2.
func TestMinMaxFloatModifiers(t *testing.T) {
	f32s := []uint64{0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x00000001,
		0x80000001, 0x40490fdb, 0xc0490fdb, 0x7f7fffff, 0x12345678, 0x92345678}
	ref := func(isMax, nan, xs, relu bool) func(a, b uint32) uint32 {
		return func(a, b uint32) uint32 {
			x, y := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
			switch {
			case math.IsNaN(x) && math.IsNaN(y), nan && (math.IsNaN(x) || math.IsNaN(y)):
				return 0x7fffffff
			case math.IsNaN(x):
				x = y
			case math.IsNaN(y):
				y = x
			}
			if xs {
				x, y = math.Abs(x), math.Abs(y)
			}
			r := math.Min(x, y)
			if isMax {
				r = math.Max(x, y)
			}
			bits := math.Float32bits(float32(r))
			if xs {
				bits = bits&0x7fffffff | (a^b)&0x80000000
			}
			if relu && bits&0x80000000 != 0 {
				bits = 0
			}
			return bits
		}
	}
	for _, c := range []struct {
		op                   string
		isMax, nan, xs, relu bool
	}{
		{"max.NaN.f32", true, true, false, false},
		{"min.NaN.f32", false, true, false, false},
		{"max.xorsign.abs.f32", true, false, true, false},
		{"min.NaN.xorsign.abs.f32", false, true, true, false},
		{"max.relu.f32", true, false, false, true},
		{"min.NaN.relu.f32", false, true, false, true},
	} {
		f := ref(c.isMax, c.nan, c.xs, c.relu)
		t.Run(c.op, func(t *testing.T) {
			runALU(t, aluCase{op: c.op, srcT: ".f32", dstT: ".f32", ldT: ".u32", stT: ".u32", nsrc: 2,
				want: func(a, b, _ uint64) uint64 { return uint64(f(uint32(a), uint32(b))) }}, f32s)
		})
	}
	// f16x2: each half on its own, through the f32 definition (f16 values
	// are exact in f32).
	h := func(v uint16) uint32 { return math.Float32bits(float32(f16ToFloat(v))) }
	toH := func(b uint32) uint16 {
		if b == 0x7fffffff {
			return 0x7fff
		}
		return floatToF16(float64(math.Float32frombits(b)), RoundNearest) | uint16(b>>16)&0x8000
	}
	f := ref(true, true, true, false)
	halvesIn := []uint64{0x3c00bc00, 0x7e00fc00, 0x80000000, 0x7bffc000, 0x00015555}
	runALU(t, aluCase{op: "max.NaN.xorsign.abs.f16x2", srcT: ".b32", dstT: ".b32", ldT: ".u32", stT: ".u32", nsrc: 2,
		want: func(a, b, _ uint64) uint64 {
			lo := toH(f(h(uint16(a)), h(uint16(b))))
			hi := toH(f(h(uint16(a>>16)), h(uint16(b>>16))))
			return uint64(lo) | uint64(hi)<<16
		}}, halvesIn)
}

// TestVsetScalar: vset compares the (extended) operands and gives 1 or 0,
// optionally combined with c (§9.7.17.1).
func TestVsetScalar(t *testing.T) {
	in := bitInputs()
	runALU(t, b32Case("vset.s32.u32.lt", 2, func(a, b, _ uint32) uint32 { return uint32(b2i(int64(int32(a)) < int64(b))) }), in)
	runALU(t, b32Case("vset.u32.u32.ge.add", 3, func(a, b, c uint32) uint32 { return uint32(b2i(a >= b)) + c }), in)
	// vset has no destination type: its result (0 or 1) is unsigned.
	runALU(t, b32Case("vset.s32.s32.eq.max", 3, func(a, b, c uint32) uint32 { return max(uint32(b2i(a == b)), c) }), in)
}

// TestWarpSizeName: the predefined identifier WARP_SZ is 32 wherever an
// operand or an initializer may use it.
func TestWarpSizeName(t *testing.T) {
	src := header + `
.global .u32 table[2] = {WARP_SZ, 7};
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, WARP_SZ;
	ld.global.u32 %r2, [table];
	add.u32 %r3, %r1, %r2;
	st.global.u32 [%rd1], %r3;
	ret;
}
`
	res := launch(t, src, Config{Block: dims(1, 1, 1)}, buf(4))
	if v := u32s(res.Buffers[0].Data)[0]; v != 64 {
		t.Fatalf("WARP_SZ + table[0] = %d, want 64", v)
	}
}

// TestHintInstructions: setmaxnreg, pmevent, griddepcontrol and
// cp.async.bulk.prefetch run and change nothing the program can see.
func TestHintInstructions(t *testing.T) {
	src := `.version 8.5
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 41;
	setmaxnreg.inc.sync.aligned.u32 64;
	pmevent 3;
	griddepcontrol.wait;
	cp.async.bulk.prefetch.L2.global [%rd1], 256;
	griddepcontrol.launch_dependents;
	add.u32 %r1, %r1, 1;
	st.global.u32 [%rd1], %r1;
	ret;
}
`
	res := launch(t, src, Config{Block: dims(128, 1, 1)}, buf(256))
	if v := u32s(res.Buffers[0].Data)[0]; v != 42 {
		t.Fatalf("got %d, want 42", v)
	}
}

// TestCvtPackInt: a and b saturate to the target range and pack with b in
// the low bits; the rest comes from c (§9.7.9.22).
func TestCvtPackInt(t *testing.T) {
	in := bitInputs()
	sat := func(v int32, n int, signed bool) uint32 {
		lo, hi := int64(0), int64(1)<<n-1
		if signed {
			lo, hi = -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
		}
		return uint32(min(max(int64(v), lo), hi)) & (1<<n - 1)
	}
	for _, c := range []struct {
		typ    string
		n      int
		signed bool
	}{{"u16", 16, false}, {"s16", 16, true}, {"u8", 8, false}, {"s8", 8, true}, {"u4", 4, false}, {"s4", 4, true}, {"u2", 2, false}, {"s2", 2, true}} {
		op := "cvt.pack.sat." + c.typ + ".s32"
		nsrc := 2
		if c.n < 16 {
			op += ".b32"
			nsrc = 3
		}
		t.Run(op, func(t *testing.T) {
			runALU(t, b32Case(op, nsrc, func(a, b, cc uint32) uint32 {
				d := sat(int32(b), c.n, c.signed) + sat(int32(a), c.n, c.signed)<<c.n
				if c.n < 16 {
					d += cc << (2 * c.n)
				}
				return d
			}), in)
		})
	}
}

// TestAtomic16: atom/red add on .f16, .bf16 and the packed .f16x2 (each
// half a float add; it was an integer add before), and cas on .b16.
func TestAtomic16(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 p, .param .u64 q)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	.reg .b16 %h<8>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.b16 %h1, 0x3c00;
	atom.global.add.noftz.f16 %h2, [%rd1], %h1;
	mov.b16 %h3, 0x3f80;
	red.global.add.noftz.bf16 [%rd1+2], %h3;
	mov.b32 %r1, 0x40003c00;
	red.global.add.noftz.f16x2 [%rd1+4], %r1;
	mov.u32 %r2, %tid.x;
	cvt.u16.u32 %h4, %r2;
	add.u16 %h4, %h4, 1;
	mov.b16 %h5, 0;
	atom.global.cas.b16 %h6, [%rd1+8], %h5, %h4;
	mul.wide.u32 %rd3, %r2, 2;
	add.u64 %rd3, %rd2, %rd3;
	st.global.u16 [%rd3], %h6;
	ret;
}
`
	res := launch(t, src, Config{Block: dims(64, 1, 1)}, buf(16), buf(128))
	d := res.Buffers[0].Data
	h := func(i int) uint16 { return uint16(d[i]) | uint16(d[i+1])<<8 }
	if f16ToFloat(h(0)) != 64 || bf16ToFloat(h(2)) != 64 || f16ToFloat(h(4)) != 64 || f16ToFloat(h(6)) != 128 {
		t.Fatalf("sums: f16 %v, bf16 %v, f16x2 %v %v; want 64, 64, 64, 128", f16ToFloat(h(0)), bf16ToFloat(h(2)), f16ToFloat(h(4)), f16ToFloat(h(6)))
	}
	winner := h(8)
	zeros := 0
	for i := range 64 {
		old := uint16(res.Buffers[1].Data[2*i]) | uint16(res.Buffers[1].Data[2*i+1])<<8
		switch {
		case old == 0:
			zeros++
			if winner != uint16(i+1) {
				t.Fatalf("thread %d saw 0 but memory holds %d", i, winner)
			}
		case old != winner:
			t.Fatalf("thread %d saw %d, want the winner's %d", i, old, winner)
		}
	}
	if zeros != 1 {
		t.Fatalf("%d threads won the cas", zeros)
	}
}

// TestVectorAtomics: atom.global.v4.f32.add returns the old vector and
// adds element-wise; red.global.v8.f16.add and .v2.bf16x2 likewise.
func TestVectorAtomics(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<4>;
	.reg .f32 %f<9>;
	.reg .b16 %h<3>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.f32 %f1, 0f3F800000;
	mov.f32 %f2, 0f40000000;
	mov.f32 %f3, 0f40400000;
	mov.f32 %f4, 0f40800000;
	atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
	mov.b16 %h1, 0x3c00;
	red.global.v8.f16.add.noftz [%rd1+16], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
	mov.b32 %r1, 0x40003f80;
	red.global.v2.bf16x2.add.noftz [%rd1+32], {%r1, %r1};
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd3, %r2, 4;
	add.u64 %rd3, %rd2, %rd3;
	st.global.f32 [%rd3], %f8;
	ret;
}
`
	res := launch(t, src, Config{Block: dims(64, 1, 1)}, buf(48), buf(256))
	d := res.Buffers[0].Data
	f := func(i int) float32 { return math.Float32frombits(u32s(d[i : i+4])[0]) }
	h := func(i int) uint16 { return uint16(d[i]) | uint16(d[i+1])<<8 }
	if f(0) != 64 || f(4) != 128 || f(8) != 192 || f(12) != 256 {
		t.Fatalf("f32 sums %v %v %v %v", f(0), f(4), f(8), f(12))
	}
	for i := range 8 {
		if f16ToFloat(h(16+2*i)) != 64 {
			t.Fatalf("f16 element %d: %v", i, f16ToFloat(h(16+2*i)))
		}
	}
	if bf16ToFloat(h(32)) != 64 || bf16ToFloat(h(34)) != 128 || bf16ToFloat(h(36)) != 64 || bf16ToFloat(h(38)) != 128 {
		t.Fatalf("bf16x2 sums %v %v %v %v", bf16ToFloat(h(32)), bf16ToFloat(h(34)), bf16ToFloat(h(36)), bf16ToFloat(h(38)))
	}
	seen := map[float32]bool{}
	for _, v := range u32s(res.Buffers[1].Data) {
		old := math.Float32frombits(v)
		if seen[old] || old < 0 || old > 252 || int(old)%4 != 0 {
			t.Fatalf("the old values of element 3 are not 0, 4, ..., 252 once each: %v", old)
		}
		seen[old] = true
	}
}

// TestAtomic128: atom.cas.b128 swaps only when all 16 bytes match, and
// atom.exch.b128 returns the old 16 bytes.
func TestAtomic128(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
	.reg .b64 %rd<8>;
	.reg .b128 %rq<5>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.u32 %r1, %tid.x;
	cvt.u64.u32 %rd3, %r1;
	add.u64 %rd4, %rd3, 1;
	mov.b128 %rq1, {%rd3, %rd3};
	mov.b128 %rq2, {%rd4, %rd4};
	atom.global.cas.b128 %rq3, [%rd1], %rq1, %rq2;
	atom.global.exch.b128 %rq4, [%rd1+16], %rq2;
	mov.b128 {%rd5, %rd6}, %rq3;
	mul.wide.u32 %rd7, %r1, 16;
	add.u64 %rd7, %rd2, %rd7;
	st.global.v2.u64 [%rd7], {%rd5, %rd6};
	ret;
}
`
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(32), buf(16*32))
	d := res.Buffers[0].Data
	// Lanes run in order: lane i finds {i, i} and leaves {i+1, i+1}.
	lo, hi := binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:])
	if lo != 32 || hi != 32 {
		t.Fatalf("cas chain ended at {%d, %d}, want {32, 32}", lo, hi)
	}
	for i, v := range u32s(res.Buffers[1].Data) {
		want := uint32(i / 4) // the low words of lane i/4's old value {i/4, i/4}
		if i%2 == 1 {
			want = 0
		}
		if v != want {
			t.Fatalf("lane %d: word %d of the old value is %d, want %d", i/4, i%4, v, want)
		}
	}
	if x := binary.LittleEndian.Uint64(d[16:]); x < 1 || x > 32 || binary.LittleEndian.Uint64(d[24:]) != x {
		t.Fatalf("exch left {%d, %d}", x, binary.LittleEndian.Uint64(d[24:]))
	}
}

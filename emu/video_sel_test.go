package emu

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// The expected values in this file follow the pseudo-code of PTX ISA
// 9.7.19 (partSelectSignExtend, optSaturate, optSecondaryOp, optMerge)
// and 9.7.20 (extractAndSignExt_2/_4, extractMaskBits, the merge and the
// accumulation), written out here independently of the emulator.

// runVideo runs "op d{.dsel}, a{.asel}, b{.bsel}{, c}" once on a, b, c.
func runVideo(t *testing.T, op string, sel [4]string, nsrc int, a, b, c uint32) uint32 {
	t.Helper()
	ac := b32Case(op, nsrc, nil)
	ac.sel = sel
	in := make([]byte, 24*64)
	binary.LittleEndian.PutUint64(in[0:], uint64(a))
	binary.LittleEndian.PutUint64(in[8:], uint64(b))
	binary.LittleEndian.PutUint64(in[16:], uint64(c))
	res := launch(t, ac.kernel(), Config{Grid: dims(1, 1, 1), Block: dims(64, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(8*64))
	return binary.LittleEndian.Uint32(res.Buffers[1].Data)
}

// TestVideoSelectorExamples checks worked examples, each computed by hand
// from the manual's pseudo-code (the comment shows the steps).
func TestVideoSelectorExamples(t *testing.T) {
	cases := []struct {
		op      string
		sel     [4]string
		nsrc    int
		a, b, c uint32
		want    uint32
	}{
		// a.b0 = 0xff (u32: 255), b.h0 = 0x8000 (s32: -32768); 255-32768 = -32513
		{"vadd.s32.u32.s32.sat", [4]string{"", "b0", "h0"}, 2, 0x000012ff, 0xabcd8000, 0, 0xffff80ff},
		// 240+32 = 272, saturated to a byte: 255, merged into byte 1 of c
		{"vadd.u32.u32.u32.sat", [4]string{"b1", "b3", "b2"}, 3, 0xf0000000, 0x00200000, 0x11223344, 0x1122ff44},
		// without .sat the low byte of 272 (0x10) is merged
		{"vadd.u32.u32.u32", [4]string{"b1", "b3", "b2"}, 3, 0xf0000000, 0x00200000, 0x11223344, 0x11221044},
		// -32768-1 saturated to a signed half-word: -32768, into half 1
		{"vsub.s32.s32.s32.sat", [4]string{"h1", "h0", "b0"}, 3, 0x00008000, 0x00000001, 0xdeadbeef, 0x8000beef},
		// a.b1 = 0xff signed: -1 < b.h1 = 1 (unsigned): 1 into byte 3
		{"vset.s32.u32.lt", [4]string{"b3", "b1", "h1"}, 3, 0x0000ff00, 0x00010000, 0xaabbccdd, 0x01bbccdd},
		// a.h1 = -2, b.b2 = 3: -6 + 10
		{"vmad.s32.s32.u32", [4]string{"", "h1", "b2"}, 3, 0xfffe0000, 0x00030000, 10, 4},
		// a.h1 = 0x8001 (s32: -32767) shifted left by b.b0 = 4: -524272,
		// then .max with c = -524273
		{"vshl.s32.s32.u32.clamp.max", [4]string{"", "h1", "b0"}, 3, 0x80010000, 0x00000004, 0xfff8000f, 0xfff80010},
		// lanes 1, 0: a = h3, h2 of {b, a}; b = h0, h1: 0x40+1, 0x30+2; mask .h1
		{"vadd2.u32.u32.u32", [4]string{"h1", "h32", "h01"}, 3, 0x00020001, 0x00400030, 0x12345678, 0x00415678},
		// lanes 3..0: a bytes 7..4 = -128, -1, 127, 16; b bytes 0..3 = 1, 2, 3, 4;
		// sums -127, 1, 130 (saturated: 127), 20; mask .b20 keeps lanes 2, 0
		{"vadd4.s32.s32.s32.sat", [4]string{"b20", "b7654", "b0123"}, 3, 0x04030201, 0x80ff7f10, 0xaabbccdd, 0xaa01cc14},
		// |40-4|, |30-3|, |20-2|, |10-1| = 36, 27, 18, 9; lanes 3 and 1 summed into c: 100+9+27
		{"vabsdiff4.u32.u32.u32.add", [4]string{"b31", "", ""}, 3, 0x0a141e28, 0x01020304, 100, 136},
		// both lanes compare a.h1 = 5 with b's low half -5 (s32): 1; mask .h0
		{"vset2.u32.s32.gt", [4]string{"h0", "h11", "h22"}, 3, 0x00050000, 0x0000fffb, 0x77778888, 0x77770001},
	}
	for _, c := range cases {
		t.Run(c.op+"."+strings.Join(c.sel[:], "."), func(t *testing.T) {
			if got := runVideo(t, c.op, c.sel, c.nsrc, c.a, c.b, c.c); got != c.want {
				t.Errorf("a=%#x b=%#x c=%#x: got %#x, want %#x", c.a, c.b, c.c, got, c.want)
			}
		})
	}
}

// refPart is partSelectSignExtend: the byte, half-word or word a
// selector names, sign-extended when the operand's type is signed.
func refPart(x uint32, signed bool, sel string) int64 {
	v, bits := uint64(x), 32
	switch sel {
	case "b0", "b1", "b2", "b3":
		v, bits = uint64(x>>(8*(sel[1]-'0'))&0xff), 8
	case "h0", "h1":
		v, bits = uint64(x>>(16*(sel[1]-'0'))&0xffff), 16
	}
	if signed && v>>(bits-1)&1 == 1 {
		return int64(v) - 1<<bits
	}
	return int64(v)
}

// refSaturate is optSaturate: the range of the destination type, or of
// the byte or half-word a merge selector writes.
func refSaturate(tmp int64, signed bool, dsel string) int64 {
	bits := 32
	switch {
	case strings.HasPrefix(dsel, "b"):
		bits = 8
	case strings.HasPrefix(dsel, "h"):
		bits = 16
	}
	return clampTo(tmp, bits, signed)
}

// refMerge is optMerge.
func refMerge(dsel string, tmp int64, c uint32) uint32 {
	t := uint32(tmp)
	switch dsel {
	case "h0":
		return t&0xffff | 0xffff0000&c
	case "h1":
		return (t&0xffff)<<16 | 0x0000ffff&c
	case "b0":
		return t&0xff | 0xffffff00&c
	case "b1":
		return (t&0xff)<<8 | 0xffff00ff&c
	case "b2":
		return (t&0xff)<<16 | 0xff00ffff&c
	case "b3":
		return (t&0xff)<<24 | 0x00ffffff&c
	}
	return t
}

// TestVideoScalarSelectorSweep runs the scalar forms with source and
// destination selectors on many inputs against the pseudo-code above.
func TestVideoScalarSelectorSweep(t *testing.T) {
	in := bitInputs()
	ops := []struct {
		op         string
		ds, as, bs bool
		sat        bool
		f          func(x, y int64) int64
	}{
		{"vadd.s32.u32.s32", true, false, true, false, func(x, y int64) int64 { return x + y }},
		{"vadd.u32.s32.s32.sat", false, true, true, true, func(x, y int64) int64 { return x + y }},
		{"vsub.s32.s32.u32.sat", true, true, false, true, func(x, y int64) int64 { return x - y }},
		{"vabsdiff.u32.u32.s32.sat", false, false, true, true, func(x, y int64) int64 { return max(x-y, y-x) }},
		{"vmin.s32.s32.s32", true, true, true, false, func(x, y int64) int64 { return min(x, y) }},
		{"vmax.u32.s32.u32.sat", false, true, false, true, func(x, y int64) int64 { return max(x, y) }},
		{"vshr.s32.s32.u32.wrap.sat", true, true, false, true, func(x, y int64) int64 { return x >> (y & 31) }},
		{"vset.s32.u32.ge", false, true, false, false, func(x, y int64) int64 { return b2i(x >= y) }},
	}
	sels := [][3]string{{"", "b1", "h0"}, {"b2", "h1", ""}, {"h1", "b3", "b0"}, {"b0", "", "h1"}, {"h0", "b0", "b2"}}
	for _, o := range ops {
		for _, s := range sels {
			nsrc := 2
			if s[0] != "" {
				nsrc = 3
			}
			t.Run(fmt.Sprintf("%s.%s", o.op, strings.Join(s[:], ".")), func(t *testing.T) {
				ac := b32Case(o.op, nsrc, func(a, b, c uint32) uint32 {
					tmp := o.f(refPart(a, o.as, s[1]), refPart(b, o.bs, s[2]))
					if o.sat {
						tmp = refSaturate(tmp, o.ds, s[0])
					}
					return refMerge(s[0], tmp, c)
				})
				ac.sel = [4]string{s[0], s[1], s[2]}
				runALU(t, ac, in)
			})
		}
	}
}

// refExtract is extractAndSignExt_2/_4: lane i of a SIMD selector
// (written most significant lane first) reads element digit of the
// 64-bit pair {b, a}, extended per the operand's type.
func refExtract(a, b uint32, sel string, signed bool, w int) []int64 {
	pair := uint64(b)<<32 | uint64(a)
	n := 32 / w
	out := make([]int64, n)
	for i := range n {
		k := int(sel[len(sel)-1-i] - '0')
		v := pair >> (k * w) & (1<<w - 1)
		out[i] = int64(v)
		if signed && v>>(w-1) == 1 {
			out[i] -= 1 << w
		}
	}
	return out
}

// TestVideoSIMDSelectorSweep runs the SIMD forms with source selectors
// and destination masks against the pseudo-code of 9.7.20.
func TestVideoSIMDSelectorSweep(t *testing.T) {
	in := bitInputs()
	cases := []struct {
		op               string
		w                int
		ds, as, bs       bool
		sat, add         bool
		mask, asel, bsel string
		f                func(x, y int64) int64
	}{
		{"vadd2.s32.s32.u32.sat", 16, true, true, false, true, false, "h1", "h30", "h12", func(x, y int64) int64 { return x + y }},
		{"vsub2.u32.u32.s32", 16, false, false, true, false, false, "h0", "h23", "h00", func(x, y int64) int64 { return x - y }},
		{"vavrg2.s32.s32.s32.add", 16, true, true, true, false, true, "h1", "h33", "h10", func(x, y int64) int64 {
			if x+y >= 0 {
				return (x + y + 1) >> 1
			}
			return (x + y) >> 1
		}},
		{"vmax4.s32.s32.s32", 8, true, true, true, false, false, "b310", "b7531", "b0246", func(x, y int64) int64 { return max(x, y) }},
		{"vabsdiff4.u32.s32.u32.sat", 8, false, true, false, true, false, "b21", "b3333", "b7654", func(x, y int64) int64 { return max(x-y, y-x) }},
		{"vmin4.u32.u32.u32.add", 8, false, false, false, false, true, "b320", "b4567", "b0123", func(x, y int64) int64 { return min(x, y) }},
		{"vset4.s32.u32.lt", 8, false, true, false, false, false, "b2", "b1054", "b7632", func(x, y int64) int64 { return b2i(x < y) }},
	}
	for _, c := range cases {
		t.Run(c.op+"."+c.mask+"."+c.asel+"."+c.bsel, func(t *testing.T) {
			ac := b32Case(c.op, 3, func(a, b, cc uint32) uint32 {
				va := refExtract(a, b, c.asel[1:], c.as, c.w)
				vb := refExtract(a, b, c.bsel[1:], c.bs, c.w)
				vc := refExtract(cc, 0, "3210"[4-32/c.w:], false, c.w)
				d := cc
				if !c.add {
					d = 0
				}
				for i := range va {
					keep := strings.ContainsRune(c.mask[1:], rune('0'+i))
					tv := c.f(va[i], vb[i])
					if c.sat {
						tv = clampTo(tv, c.w, c.ds)
					}
					switch {
					case c.add && keep:
						d += uint32(tv)
					case !c.add && keep:
						d |= uint32(tv) & (1<<c.w - 1) << (i * c.w)
					case !c.add:
						d |= uint32(vc[i]) << (i * c.w)
					}
				}
				return d
			})
			ac.sel = [4]string{c.mask, c.asel, c.bsel}
			runALU(t, ac, in)
		})
	}
}

// TestVmadSelectors runs vmad with source selectors: the product of the
// selected, extended parts, negated as written, plus c.
func TestVmadSelectors(t *testing.T) {
	in := bitInputs()
	for _, s := range [][2]string{{"b3", "h0"}, {"h1", "b1"}, {"", "b2"}} {
		t.Run(s[0]+"."+s[1], func(t *testing.T) {
			ac := b32Case("vmad.s32.s32.u32", 3, func(a, b, c uint32) uint32 {
				p := -refPart(a, true, s[0]) * refPart(b, false, s[1]) // a's part is at most 2^31, b's 2^32
				return uint32(p + int64(int32(c)))
			})
			ac.sel = [4]string{"", s[0], s[1]}
			ac.negate = [3]bool{true, false, false}
			runALU(t, ac, in)
		})
	}
}

// TestVideoSelectorDecodeErrors: selectors the emulator refuses when
// nothing validated the module first (ptxkit run --no-check), at their
// line.
func TestVideoSelectorDecodeErrors(t *testing.T) {
	for _, c := range []struct{ op, want string }{
		{"add.u32 %d1, %a1.b0, %a2", "only the video instructions take operand selectors"},
		{"vadd.u32.u32.u32 %d1, %a1.h2, %a2", "takes no selector .h2"},
		{"vadd.u32.u32.u32 %d1.b0, %a1, %a2", "needs the merge form"},
		{"vadd.u32.u32.u32.add %d1.b0, %a1, %a2, %c1", "needs the merge form"},
		{"vadd.u32.u32.u32 %d1.b12, %a1, %a2, %c1", "no documented meaning"},
		{"vadd4.u32.u32.u32 %d1.b01, %a1, %a2, %c1", "takes no selector .b01"},
		{"vmad.u32.u32.u32 %d1.b0, %a1, %a2, %c1", "takes no selector .b0"},
		{"vadd2.u32.u32.u32 %d1, %a1, %a2, %c1.h10", "takes no selector .h10"},
		{"mov.b64 %e1, {%a1.b0, %a2}", "only the video instructions take operand selectors"},
	} {
		pre := header + ".visible .entry k() {\n\t.reg .b32 %a<3>;\n\t.reg .b32 %c<2>;\n\t.reg .b32 %d<2>;\n\t.reg .b64 %e<2>;\n\t"
		line := int32(strings.Count(pre, "\n") + 1)
		src := pre + c.op + ";\n\tret;\n}\n"
		m, perrs := parser.ParseString("test.ptx", src)
		if perrs.HasErrors() {
			t.Fatalf("%s: parse: %v", c.op, perrs.Err())
		}
		_, errs := Decode(m, "")
		if !errs.HasErrors() || !strings.Contains(errs.Err().Error(), c.want) || errs[0].Pos.Line != line {
			t.Errorf("%s: got %v, want an error at line %d containing %q", c.op, errs.Err(), line, c.want)
		}
	}
}

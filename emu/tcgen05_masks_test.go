package emu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// zcmFromRuns is a sub-mask of width bits built the way the manual's
// examples draw it: runs of use+1 zeros and skip+1 ones, alternating,
// the first run of ones when firstZero is set, with the first start bits
// dropped; bit p is column p.
func zcmFromRuns(width, start, use, skip int, firstZero bool) []bool {
	var bits []bool
	one := firstZero
	for len(bits) < width+start {
		n := use
		if one {
			n = skip
		}
		for range n {
			bits = append(bits, one)
		}
		one = !one
	}
	return bits[start : start+width]
}

// zcmDesc encodes a zero-column mask descriptor.
func zcmDesc(sc [4]int, fs [4]bool, nonZero bool, skip, use, shift int) uint64 {
	var d uint64
	for i := range 4 {
		d |= uint64(sc[i]) << (8 * i)
		if fs[i] {
			d |= 1 << (32 + i)
		}
	}
	if nonZero {
		d |= 1 << 39
	}
	return d | uint64(skip-1)<<40 | uint64(use-1)<<48 | uint64(shift)<<56
}

// TestZeroColumnMaskExamples: the manual's examples 1-4 of §9.7.16.4.3,
// their masks written as the manual prints them (most significant column
// left), and random descriptors against zcmFromRuns.
func TestZeroColumnMaskExamples(t *testing.T) {
	bitsOf := func(s string, n int) []bool { // "111 0000" → columns from the right
		s = strings.ReplaceAll(s, " ", "")
		out := make([]bool, n)
		for i := range n {
			out[i] = s[len(s)-1-i] == '1'
		}
		return out
	}
	check := func(name string, got []bool, want []bool) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: column %d is %v, want %v (mask %v)", name, i, got[i], want[i], got)
			}
		}
	}
	// Example 1: non-zero mask 0.
	for _, z := range zeroColumnMask(zcmDesc([4]int{}, [4]bool{}, false, 4, 3, 0), 128, 64) {
		if z {
			t.Fatal("example 1: non-zero mask 0 gives a set bit")
		}
	}
	// Example 2: M = 128, skip span 3 (field 2), use span 4 (field 3).
	check("example 2", zeroColumnMask(zcmDesc([4]int{}, [4]bool{}, true, 3, 4, 0), 128, 64), bitsOf("111 0000 111 0000", 14))
	// Example 3: M = 64, fs0 = 1.
	m := zeroColumnMask(zcmDesc([4]int{}, [4]bool{true}, true, 3, 4, 0), 64, 64)
	check("example 3 mask0", m[:32], bitsOf("111 0000 111 0000 111", 17))
	check("example 3 mask1", m[32:], bitsOf("0000 111 0000 111 0000", 18))
	// Example 4: M = 32, start counts {1, 2, 1, 0}, first spans {0, 0, 1, 1}.
	m = zeroColumnMask(zcmDesc([4]int{0, 1, 2, 1}, [4]bool{true, true}, true, 3, 4, 2), 32, 128)
	for i, want := range []string{"0000 111 0000 111", "0000 111 0000 11", "111 0000 111 00", "111 0000 111 000"} {
		check(fmt.Sprintf("example 4 mask%d", i), m[32*i:], bitsOf(want, len(strings.ReplaceAll(want, " ", ""))))
	}
	r := rand.New(rand.NewPCG(4, 5))
	for range 200 {
		mm := []int{32, 64, 128}[r.IntN(3)]
		n := []int{64, 128, 256}[r.IntN(3)]
		var sc [4]int
		var fs [4]bool
		for i := range 4 {
			sc[i], fs[i] = r.IntN(256), r.IntN(2) == 1
		}
		skip, use := 1+r.IntN(20), 1+r.IntN(20)
		got := zeroColumnMask(zcmDesc(sc, fs, true, skip, use, 0), mm, n)
		w := n / (128 / mm)
		for i := range 128 / mm {
			check(fmt.Sprintf("M=%d N=%d sc=%v fs=%v skip=%d use=%d mask%d", mm, n, sc, fs, skip, use, i),
				got[i*w:], zcmFromRuns(w, sc[i], use, skip, fs[i]))
		}
	}
}

// runTcKMajor runs src (a form of tcMajorKernel) with A (128 rows) and B
// (bRows rows) K-major with 128-byte swizzling and returns the 128 lanes
// × 64 columns of Tensor Memory the kernel stores.
func runTcKMajor(t *testing.T, src string, idesc uint32, eb, bRows int, A, B []uint64, cfg Config) []uint32 {
	t.Helper()
	img := make([]byte, 32768)
	kTot := 2 * tcKBytes / eb
	op := tcOperand{kw: 128}
	hia, kadva := op.stage(t, img, 0, 128, kTot, eb, A)
	hib, kadvb := op.stage(t, img, 16384, bRows, kTot, eb, B)
	cfg.Block = dims(128, 1, 1)
	res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: img}, buf(4*128*64),
		scalar(hia), scalar(kadva), scalar(uint64(idesc)), scalar(16384), scalar(hib), scalar(kadvb))
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	return u32s(res.Buffers[1].Data)
}

// TestTcgen05MMAZeroColumnMask: tcgen05.mma.ws with a zero-column-mask-desc
// on each of two chained MMAs (different masks and column shifts), M = 128,
// 64 and 32, the idesc's maximum shift 8 or 32: D, unfolded, is Σ over the
// two MMAs of A·B' where column j of B' is column j + shift of B or zero
// where the mask (built in the test from the manual's runs) is set.
func TestTcgen05MMAZeroColumnMask(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const n, k = 64, 32 // K over both MMAs
	for _, c := range []struct {
		m, maxCode int
		d          [2]uint64
		cfg        Config
	}{
		{128, 1, [2]uint64{zcmDesc([4]int{5}, [4]bool{true}, true, 3, 5, 8), zcmDesc([4]int{}, [4]bool{}, true, 2, 7, 3)}, Config{}},
		{64, 3, [2]uint64{zcmDesc([4]int{1, 9}, [4]bool{false, true}, true, 4, 2, 32), zcmDesc([4]int{}, [4]bool{}, false, 1, 1, 17)}, Config{Async: AsyncDelayed}},
		{32, 3, [2]uint64{zcmDesc([4]int{0, 1, 2, 3}, [4]bool{true, false, true, false}, true, 1, 2, 16), zcmDesc([4]int{7, 0, 0, 7}, [4]bool{}, true, 5, 1, 0)}, Config{}},
	} {
		t.Run(fmt.Sprintf("M%d", c.m), func(t *testing.T) {
			maxShift := 4 << c.maxCode
			bRows := n + maxShift
			A, Ab := smallF16(r, 128*k)
			B, Bb := smallF16(r, bRows*k)
			src := strings.ReplaceAll(tcMajorKernel("kind::f16"), "tcgen05.mma.cta_group::1.", "tcgen05.mma.ws.cta_group::1.")
			src = strings.Replace(src, "%r14, %p4;", "%r14, %p4, %rd30;", 1)
			src = strings.Replace(src, "%r14, %p5;", "%r14, %p5, %rd31;", 1)
			src = strings.Replace(src, "ld.param.u32 %r14, [idesc];", fmt.Sprintf("ld.param.u32 %%r14, [idesc];\n\tmov.b64 %%rd30, %d;\n\tmov.b64 %%rd31, %d;", c.d[0], c.d[1]), 1)
			idesc := tcIdescOf(1, 0, 0, c.m, n) | uint32(c.maxCode)<<30
			raw := runTcKMajor(t, src, idesc, 2, bRows, Ab, Bb, c.cfg)
			D := foldedD(c.m, n, func(lane, col int) uint32 { return raw[lane*64+col] })
			for i := range c.m {
				for j := range n {
					want := 0
					for h := range 2 {
						d := c.d[h]
						shift := int(d >> 56 & 63)
						w := n / (128 / c.m)
						bank := j / w
						if d>>39&1 == 1 && zcmFromRuns(w, int(d>>(8*bank)&255), int(d>>48&255)+1, int(d>>40&255)+1, d>>(32+bank)&1 == 1)[j%w] {
							continue
						}
						for kk := 16 * h; kk < 16*(h+1); kk++ {
							want += A[i*k+kk] * B[(j+shift)*k+kk]
						}
					}
					if got := math.Float32frombits(D[i][j]); got != float32(want) {
						t.Fatalf("D[%d][%d] = %v, want %d", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMALaneMaskScale: the second of two chained MMAs with a
// disable-output-lane mask and scale-input-d 2 (kind::f16, f32 and f16 D,
// and kind::tf32): the masked lanes keep the first MMA's A·B, the others
// hold A·B of the second K half + D/4.
func TestTcgen05MMALaneMaskScale(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	mask := [4]uint32{0x80000001, 0, 0xffff0000, 0x00f0f00f}
	for _, c := range []struct {
		kind, typ string
		dtype     int
		atype     int
		shift     int
		consts    bool // the mask as constants in the vector
	}{{"kind::f16", "f16", 1, 0, 2, false}, {"kind::f16", "f16", 0, 0, 3, false}, {"kind::tf32", "tf32", 1, 2, 15, false}, {"kind::f16", "bf16", 1, 1, 1, true}} {
		t.Run(fmt.Sprintf("%s.d%d.s%d.consts=%v", c.typ, c.dtype, c.shift, c.consts), func(t *testing.T) {
			const m, n = 128, 64
			eb := map[string]int{"f16": 2, "bf16": 2, "tf32": 4}[c.typ]
			k := 2 * tcKBytes / eb
			A, B := make([]int, m*k), make([]int, n*k)
			Ab, Bb := make([]uint64, m*k), make([]uint64, n*k)
			for i := range A {
				A[i] = r.IntN(9) - 4
				Ab[i] = fbits(c.typ, A[i])
			}
			for i := range B {
				B[i] = r.IntN(9) - 4
				Bb[i] = fbits(c.typ, B[i])
			}
			src := tcMajorKernel(c.kind)
			vec := "%r40, %r41, %r42, %r43"
			if c.consts {
				vec = fmt.Sprintf("%d, %d, %d, %d", mask[0], mask[1], mask[2], mask[3])
			}
			src = strings.Replace(src, "%r14, %p5;", fmt.Sprintf("%%r14, {%s}, %%p5, %d;", vec, c.shift), 1)
			src = strings.Replace(src, "ld.param.u32 %r14, [idesc];", fmt.Sprintf("ld.param.u32 %%r14, [idesc];\n\tmov.b32 %%r40, %d;\n\tmov.b32 %%r41, %d;\n\tmov.b32 %%r42, %d;\n\tmov.b32 %%r43, %d;", mask[0], mask[1], mask[2], mask[3]), 1)
			raw := runTcKMajor(t, src, tcIdescOf(c.dtype, c.atype, c.atype, m, n), eb, n, Ab, Bb, Config{})
			for i := range m {
				for j := range n {
					first, second := 0, 0
					for kk := range k / 2 {
						first += A[i*k+kk] * B[j*k+kk]
						second += A[i*k+k/2+kk] * B[j*k+k/2+kk]
					}
					want := float64(second) + math.Ldexp(float64(first), -c.shift)
					if mask[i/32]>>(i%32)&1 == 1 {
						want = float64(first)
					}
					got := float64(math.Float32frombits(raw[i*64+j]))
					if c.dtype == 0 {
						got = float64(tensorcoreF16(raw[i*64+j]))
						if math.Abs(want)*math.Ldexp(1, c.shift) >= 2048 {
							t.Fatalf("D[%d][%d] = %v is not exact in f16; choose other data", i, j, want)
						}
					}
					if got != want {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMAOperandForms: the operand forms decode errors name.
func TestTcgen05MMAOperandForms(t *testing.T) {
	for _, c := range []struct{ inst, msg string }{
		{"tcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd2, %r4, {%r5, %r6}, 1;", "disable-output-lane has 4 registers"},
		{"tcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd2, %r4, 1, 16;", "from 0 to 15"},
		{"tcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd2, %r4, {_, %r5, %r6, %r7}, 1;", "not _"},
		{"tcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd2, %r4, {%r5, %r6, %r7, %r8}, 1, %r9;", "integer constant"},
		{"tcgen05.mma.cta_group::1.kind::i8 [%r3], %rd1, %rd2, %r4, 1, 2;", "scale-input-d goes with .kind::f16 and .kind::tf32"},
		{"tcgen05.mma.ws.cta_group::1.kind::f16 [%r3], %rd1, %rd2, %r4, 1, %rd1, %rd2;", "optional zero-column-mask-desc"},
	} {
		src := fmt.Sprintf(tcKernel, 32, "\t"+c.inst+"\n")
		m, errs := parser.ParseString("u.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: parse: %v", c.inst, errs)
		}
		if _, errs := Decode(m, ""); !errs.HasErrors() || !strings.Contains(errs[0].Message, c.msg) {
			t.Errorf("%s: decode diagnostics %v, want %q", c.inst, errs, c.msg)
		}
	}
}

// TestTcgen05MMAPairLaneMask: .cta_group::2 (M = 256 over a CTA pair) with
// an 8-register disable-output-lane mask on the second MMA: bit 128v + L
// keeps lane L of CTA v (row 128v + L) at the first MMA's A·B.
func TestTcgen05MMAPairLaneMask(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	const m, n, k = 256, 64, 32
	A, Ab := smallF16(r, m*k)
	B, Bb := smallF16(r, n*k)
	mask := [8]uint32{0x1, 0, 0x80000000, 0xff, 0, 0x10000, 0xffffffff, 0x3}
	var movs strings.Builder
	for i, v := range mask {
		fmt.Fprintf(&movs, "\tmov.b32 %%r%d, %d;\n", 40+i, v)
	}
	src := tcPairKernel("kind::f16")
	src = strings.Replace(src, "%r14, %p5;", "%r14, {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, %p5;", 1)
	src = strings.Replace(src, "\tld.param.u32 %r14, [idesc];\n", "\tld.param.u32 %r14, [idesc];\n"+movs.String(), 1)
	res, out := runTcPairSource(t, src, tcIdescOf(1, 0, 0, m, n), 2, Ab, Bb, Config{})
	if res.Report != nil {
		t.Fatalf("report: %v", res.Report)
	}
	for i := range m {
		for j := range n {
			want := dotInt(A, B, i, j, k)
			if mask[i/32]>>(i%32)&1 == 1 {
				want = 0
				for kk := range k / 2 {
					want += A[i*k+kk] * B[j*k+kk]
				}
			}
			if got := math.Float32frombits(out[i*n+j]); got != float32(want) {
				t.Fatalf("D[%d][%d] = %v, want %d", i, j, got, want)
			}
		}
	}
}

package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// cuteSwizzle is CuTe's Swizzle<b,m,s> on a byte offset: the b bits from
// bit m+s are XORed into the b bits from bit m.
func cuteSwizzle(off, b, m, s int) int {
	mask := (1<<b - 1) << (m + s)
	return off ^ (off&mask)>>s
}

// cuteMode is the offset of index i along one mode of a CuTe layout with
// the given shape and strides (the last extent unbounded).
func cuteMode(i int, shape, stride []int) int {
	off := 0
	for j, s := range shape {
		if j == len(shape)-1 {
			return off + i*stride[j]
		}
		off += i % s * stride[j]
		i /= s
	}
	return off
}

// tcMNLayout is one operand layout of an MN-major test: the descriptor's
// swizzle mode (bits 61-63) and its LBO and SBO in bytes.
type tcMNLayout struct {
	mode     int
	lbo, sbo int
}

// offset is the byte offset of element (MN index r, K index kk) of eb
// bytes in the MN-major canonical layout of the manual's table, written
// as the CuTe layouts CUTLASS's make_umma_desc documents (T = 16/eb):
//
//	mode 0:        ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))
//	mode 6/4/2:    ((T,R,m),(8,k)) : ((1,T,LBO),(R·T,SBO)), R = 2/4/8, Swizzle<log2 R,4,3>
//	mode 1:        ((T,8,m),(4,k)) : ((1,T,LBO),(8T,SBO)), Swizzle<2,5,2>
//
// with LBO and SBO in elements.
func (l tcMNLayout) offset(r, kk, eb int) int {
	t := 16 / eb
	lbo, sbo := l.lbo/eb, l.sbo/eb
	switch l.mode {
	case 0:
		return eb * (cuteMode(r, []int{t, 1, 0}, []int{1, t, sbo}) + cuteMode(kk, []int{8, 0}, []int{t, lbo}))
	case 1:
		off := eb * (cuteMode(r, []int{t, 8, 0}, []int{1, t, lbo}) + cuteMode(kk, []int{4, 0}, []int{8 * t, sbo}))
		return cuteSwizzle(off, 2, 5, 2)
	}
	rr := map[int]int{6: 2, 4: 4, 2: 8}[l.mode]
	off := eb * (cuteMode(r, []int{t, rr, 0}, []int{1, t, lbo}) + cuteMode(kk, []int{8, 0}, []int{rr * t, sbo}))
	return cuteSwizzle(off, map[int]int{2: 1, 4: 2, 8: 3}[rr], 4, 3)
}

// kAdvance is the byte distance from K index 0 to K index k.
func (l tcMNLayout) kAdvance(k int) int {
	switch l.mode {
	case 0:
		return k / 8 * l.lbo
	case 1:
		return k / 4 * l.sbo
	}
	return k / 8 * l.sbo
}

// tcMNLayouts gives a dense MN-major layout of rows × kTot elements of eb
// bytes in swizzle mode: without swizzle T-row groups of 8 K values (128
// bytes) SBO apart and the next 8 K values after all of them (LBO); with a
// swizzle of W bytes atoms of W bytes × 8 K values (mode 1: 128 bytes × 4)
// LBO apart along M or N, the next atom along K SBO on.
func tcMNLayoutFor(mode, rows, eb int) tcMNLayout {
	switch mode {
	case 0:
		return tcMNLayout{mode: 0, sbo: 128, lbo: 128 * rows / (16 / eb)}
	case 1:
		runs := max(1, rows*eb/128)
		return tcMNLayout{mode: 1, lbo: 512, sbo: 512 * runs}
	}
	w := map[int]int{6: 32, 4: 64, 2: 128}[mode]
	runs := max(1, rows*eb/w)
	return tcMNLayout{mode: mode, lbo: 8 * w, sbo: 8 * w * runs}
}

// tcMajorKernel is tcMMAKernel with separate descriptor bits (hib) and K
// advance (kadvb) for B, so A and B may have different major-ness.
func tcMajorKernel(kind string) string {
	src := fmt.Sprintf(tcMMAKernel, kind, kind)
	for _, r := range [][2]string{
		{".param .u32 boff)", ".param .u32 boff, .param .u64 hib, .param .u64 kadvb)"},
		{"or.b64 %rd12, %rd7, %rd10;", "ld.param.u64 %rd20, [hib];\n\tor.b64 %rd12, %rd20, %rd10;"},
		{"add.u64 %rd15, %rd12, %rd13;", "ld.param.u64 %rd21, [kadvb];\n\tadd.u64 %rd15, %rd12, %rd21;"},
	} {
		if !strings.Contains(src, r[0]) {
			panic("tcMajorKernel: " + r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	return src
}

// tcOperand is how one operand of tcMajorKernel is staged: MN-major in
// layout mn, or K-major with swizzle width kw.
type tcOperand struct {
	mnMajor bool
	mn      tcMNLayout
	kw      int
}

// stage writes the rows × kTot elements v (by row) at base of img and
// returns the descriptor's high bits (LBO, SBO, version, mode) and the
// advance, in 16-byte units, from the first MMA's K to the second's.
func (o tcOperand) stage(t *testing.T, img []byte, base, rows, kTot, eb int, v []uint64) (hi, kadv uint64) {
	t.Helper()
	put := func(off int, x uint64) {
		if off < 0 || off+eb > 16384 {
			t.Fatalf("layout does not fit: offset %d", off)
		}
		switch eb {
		case 4:
			binary.LittleEndian.PutUint32(img[base+off:], uint32(x))
		case 2:
			binary.LittleEndian.PutUint16(img[base+off:], uint16(x))
		default:
			img[base+off] = byte(x)
		}
	}
	if o.mnMajor {
		for r := range rows {
			for kk := range kTot {
				put(o.mn.offset(r, kk, eb), v[r*kTot+kk])
			}
		}
		hi = uint64(o.mn.lbo>>4)<<16 | uint64(o.mn.sbo>>4)<<32 | 1<<46 | uint64(o.mn.mode)<<61
		return hi, uint64(o.mn.kAdvance(kTot/2) >> 4)
	}
	lbo, sbo, code := 128, 512, uint64(0) // as runTcMMASource stages K-major operands
	kadv = uint64(2 * lbo >> 4)
	if o.kw == 128 {
		lbo, sbo, code, kadv = 16, 1024, 2, tcKBytes>>4
	}
	for r := range rows {
		for kk := range kTot {
			put(kMajorByte(r, kk*eb, o.kw, lbo, sbo), v[r*kTot+kk])
		}
	}
	return uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46 | code<<61, kadv
}

// TestTcgen05MMAMNMajor: M-major A and N-major B (instruction descriptor
// bits 15 and 16) in every swizzle mode, mode 1 (128-byte swizzling with
// 32-byte atoms) included, for f16, bf16, tf32, e4m3 and s8 inputs, alone
// or next to a K-major operand. The operands are placed by the CuTe
// layouts written in the test (tcMNLayout.offset) and D is compared with
// A·B computed here on small integers (exact in any model).
func TestTcgen05MMAMNMajor(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	type tc struct {
		kind, typ   string
		dtype, code int // idesc dtype, atype = btype
		a, b        tcOperand
	}
	mn := func(mode, rows, eb int) tcOperand {
		return tcOperand{mnMajor: true, mn: tcMNLayoutFor(mode, rows, eb)}
	}
	var cases []tc
	for _, mode := range []int{0, 6, 4, 2, 1} {
		cases = append(cases,
			tc{"kind::f16", "f16", 1, 0, mn(mode, 128, 2), mn(mode, 64, 2)},
			tc{"kind::tf32", "tf32", 1, 2, mn(mode, 128, 4), mn(mode, 64, 4)},
			tc{"kind::i8", "s8", 2, 1, mn(mode, 128, 1), mn(mode, 64, 1)},
			tc{"kind::f8f6f4", "e4m3", 1, 0, mn(mode, 128, 1), mn(mode, 64, 1)})
	}
	cases = append(cases,
		tc{"kind::f16", "bf16", 1, 1, mn(2, 128, 2), tcOperand{kw: 128}},
		tc{"kind::f16", "f16", 0, 0, tcOperand{kw: 0}, mn(1, 64, 2)},
		tc{"kind::f8f6f4", "e4m3", 1, 0, tcOperand{kw: 128}, mn(4, 64, 1)},
		// no swizzle, the K groups of a T-row group together (LBO 128) and the T-row groups 512 bytes apart
		tc{"kind::f16", "f16", 1, 0, tcOperand{mnMajor: true, mn: tcMNLayout{mode: 0, lbo: 128, sbo: 512}}, mn(0, 64, 2)})
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s/A%s/B%s", c.kind, c.typ, c.a.describe(), c.b.describe())
		t.Run(name, func(t *testing.T) {
			const m, n = 128, 64
			eb := map[string]int{"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "e4m3": 1}[c.typ]
			kTot := 2 * tcKBytes / eb
			A, B := make([]int, m*kTot), make([]int, n*kTot)
			Ab, Bb := make([]uint64, len(A)), make([]uint64, len(B))
			enc := func(v int) uint64 {
				if c.typ == "s8" {
					return uint64(uint8(int8(v)))
				}
				return fbits(c.typ, v)
			}
			for i := range A {
				A[i] = r.IntN(9) - 4
				Ab[i] = enc(A[i])
			}
			for i := range B {
				B[i] = r.IntN(9) - 4
				Bb[i] = enc(B[i])
			}
			img := make([]byte, 32768)
			const boff = 16384
			hia, kadva := c.a.stage(t, img, 0, m, kTot, eb, Ab)
			hib, kadvb := c.b.stage(t, img, boff, n, kTot, eb, Bb)
			idesc := tcIdescOf(c.dtype, c.code, c.code, m, n)
			if c.a.mnMajor {
				idesc |= 1 << 15
			}
			if c.b.mnMajor {
				idesc |= 1 << 16
			}
			res := launchReport(t, tcMajorKernel(c.kind), Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
				scalar(hia), scalar(kadva), scalar(uint64(idesc)), scalar(boff), scalar(hib), scalar(kadvb))
			if res.Report != nil {
				t.Fatalf("unexpected report: %v", res.Report)
			}
			out := u32s(res.Buffers[1].Data)
			for i := range m {
				for j := range n {
					want := 0
					for kk := range kTot {
						want += A[i*kTot+kk] * B[j*kTot+kk]
					}
					var got float64
					switch {
					case c.typ == "s8":
						got = float64(int32(out[i*n+j]))
					case c.dtype == 0:
						got = float64(tensorcoreF16(out[i*n+j]))
					default:
						got = float64(math.Float32frombits(out[i*n+j]))
					}
					if got != float64(want) {
						t.Fatalf("D[%d][%d] = %v (%#x), want %d", i, j, got, out[i*n+j], want)
					}
				}
			}
		})
	}
}

func (o tcOperand) describe() string {
	if o.mnMajor {
		return fmt.Sprintf("MN-major.mode%d", o.mn.mode)
	}
	return fmt.Sprintf("K-major.W%d", o.kw)
}

// TestTcgen05MMAMNMajorReports: MN-major 6- and 4-bit inputs and the
// 32-byte-atom swizzle on a K-major operand are invalid.
func TestTcgen05MMAMNMajorReports(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		idesc      uint32
		hiOr       uint64
		rule, msg  string
	}{
		{"e2m1 N-major", "kind::f8f6f4", tcIdescOf(1, 0, 5, 128, 64) | 1<<16, 0, ruleTcgen05Idesc, "transposes B (bit 16) of e2m1"},
		{"e3m2 M-major", "kind::f8f6f4", tcIdescOf(1, 4, 0, 128, 64) | 1<<15, 0, ruleTcgen05Idesc, "transposes A (bit 15)"},
		{"32B atoms K-major", "kind::f16", tcIdescOf(1, 0, 0, 128, 64), 1 << 61, ruleTcgen05Idesc, "only MN-major operands take"},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := make([]byte, 32768)
			hi := uint64(8)<<16 | uint64(16)<<32 | 1<<46 | c.hiOr
			src := fmt.Sprintf(tcMMAKernel, c.kind, c.kind)
			res := launchReport(t, src, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*128*64),
				scalar(hi), scalar(2), scalar(uint64(c.idesc)), scalar(16384))
			if res.Report == nil || res.Report.Rule != c.rule || !strings.Contains(res.Report.Message, c.msg) {
				t.Fatalf("report %v, want rule %s with %q", res.Report, c.rule, c.msg)
			}
		})
	}
}

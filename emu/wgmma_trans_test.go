package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// wgmmaTile is a warpgroup kernel like wgmmaKernel for any N: it copies
// the shared-memory image, builds the A and B descriptors, sets the N/2
// f32 accumulators to 1.0 and runs instr ("{D}" stands for the
// accumulator vector, %rd8 and %rd12 are the descriptors) between fence,
// commit and wait, then stores D as a 64×N row-major f32 matrix.
func wgmmaTile(n int, instr string) string {
	regs := make([]string, n/2)
	var init, store strings.Builder
	for i := range regs {
		regs[i] = fmt.Sprintf("%%f%d", i)
		fmt.Fprintf(&init, "\tmov.f32 %%f%d, 0f3F800000;\n", i)
		off := 4 * (8*(i/2%2)*n + 8*(i/4) + i%2)
		fmt.Fprintf(&store, "\tst.global.f32 [%%rd14+%d], %%f%d;\n", off, i)
	}
	body := strings.Replace(instr, "{D}", "{"+strings.Join(regs, ", ")+"}", 1)
	src := wgmmaKernel
	head := src[:strings.Index(src, "\tmov.f32 %f0")]
	head = strings.Replace(head, ".reg .f32 %f<8>;", fmt.Sprintf(".reg .f32 %%f<%d>;", n/2), 1)
	return head + init.String() + "\twgmma.fence.sync.aligned;\n\t" + body + "\n" +
		"\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n" +
		"\tshr.u32 %r9, %r1, 5;\n\tand.b32 %r10, %r1, 31;\n\tshr.u32 %r11, %r10, 2;\n\tand.b32 %r12, %r10, 3;\n" +
		"\tshl.b32 %r13, %r9, 4;\n\tadd.u32 %r13, %r13, %r11;\n\tshl.b32 %r14, %r12, 1;\n" +
		fmt.Sprintf("\tmad.lo.u32 %%r15, %%r13, %d, %%r14;\n", n) +
		"\tmul.wide.u32 %rd13, %r15, 4;\n\tadd.u64 %rd14, %rd2, %rd13;\n" + store.String() + "\tret;\n}\n"
}

// mnMajorOffset is the byte offset of element (MN index r, k index kk) of
// a 16-bit operand in the MN-major canonical layouts of the manual's table
// (§9.7.15.5.1.2.1.3), evaluated as the CuTe layout it writes: shape
// ((T,R,m),(8,k)) with T = 8 elements per 16 bytes and R = W/16 (1
// without swizzle), strides ((1,T,X),(R·T,Y)) with (X,Y) = (SBO,LBO)
// without swizzle and (LBO,SBO) with one, then Swizzle<log2 R,4,3> on the
// byte offset.
func mnMajorOffset(r, kk, w, lbo, sbo int) int {
	const t = 8
	rr, bits := 1, 0
	if w != 0 {
		rr = w / 16
		bits = map[int]int{32: 1, 64: 2, 128: 3}[w]
	}
	x, y := sbo/2, lbo/2 // in elements
	if w != 0 {
		x, y = lbo/2, sbo/2
	}
	elems := r%t + (r/t%rr)*t + r/(t*rr)*x + (kk%8)*rr*t + kk/8*y
	off := 2 * elems
	return off ^ (off>>7&(1<<bits-1))<<4
}

// mnLayout is one MN-major test layout: the descriptor's mode code and
// swizzle width and the LBO and SBO of A (64 rows) and B (N rows).
type mnLayout struct {
	code, width    int
	aLBO, aSBO     int
	bLBO, bSBO     int
	n              int
	transA, transB bool
	typ            string
}

// TestWgmmaMNMajor: A (M-major) and B (N-major) from descriptors in every
// swizzle mode, f16 and bf16, with LBO and SBO both exercised: the
// operands are laid out in the test by mnMajorOffset (or
// canonicalKMajor for the untransposed one) and D is compared with
// A·B + 1 computed exactly in the test.
func TestWgmmaMNMajor(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	layouts := []mnLayout{
		// no swizzle: 16-byte runs of 8 rows (SBO apart), 8 k per core matrix (LBO to the next 8 k)
		{code: 0, width: 0, aLBO: 1024, aSBO: 128, bLBO: 256, bSBO: 128, n: 16, transA: true, transB: true, typ: "f16"},
		{code: 0, width: 0, aLBO: 128, aSBO: 256, bLBO: 128, bSBO: 256, n: 16, transA: true, transB: false, typ: "bf16"},
		// 32B: 16-row runs, atoms of 8 k (256 bytes) LBO apart along MN, SBO to the next 8 k
		{code: 3, width: 32, aLBO: 256, aSBO: 1024, bLBO: 256, bSBO: 512, n: 16, transA: true, transB: true, typ: "f16"},
		{code: 3, width: 32, aLBO: 512, aSBO: 256, bLBO: 512, bSBO: 256, n: 32, transA: false, transB: true, typ: "bf16"},
		// 64B: 32-row runs
		{code: 2, width: 64, aLBO: 512, aSBO: 1024, bLBO: 1024, bSBO: 512, n: 64, transA: true, transB: true, typ: "bf16"},
		// 128B: 64-row runs; B with N = 128 has two atoms along N (LBO)
		{code: 1, width: 128, aLBO: 2048, aSBO: 1024, bLBO: 2048, bSBO: 1024, n: 128, transA: true, transB: true, typ: "f16"},
		{code: 1, width: 128, aLBO: 2048, aSBO: 1024, bLBO: 1024, bSBO: 2048, n: 128, transA: false, transB: true, typ: "bf16"},
	}
	for _, lay := range layouts {
		name := fmt.Sprintf("%s/W%d/transA=%v/transB=%v/n%d", lay.typ, lay.width, lay.transA, lay.transB, lay.n)
		t.Run(name, func(t *testing.T) {
			const m, k = 64, 16
			n := lay.n
			A := make([]int, m*k)
			B := make([]int, n*k)
			for i := range A {
				A[i] = r.IntN(17) - 8
			}
			for i := range B {
				B[i] = r.IntN(17) - 8
			}
			img := make([]byte, 16384)
			const boff = 8192
			place := func(base, row, kk int, trans bool, lbo, sbo int, v int) {
				var off int
				if trans {
					off = mnMajorOffset(row, kk, lay.width, lbo, sbo)
				} else {
					off = canonicalKMajor(row, kk, lay.width, lbo, sbo)
				}
				if base+off+2 > len(img) || (base == 0 && off >= boff) {
					t.Fatalf("layout does not fit: offset %d", base+off)
				}
				binary.LittleEndian.PutUint16(img[base+off:], uint16(fbits(lay.typ, v)))
			}
			kLBO := func(lbo int) int { // a K-major operand of the same mode: LBO only without swizzle
				if lay.width != 0 {
					return 0
				}
				return lbo
			}
			aLBO, bLBO := lay.aLBO, lay.bLBO
			if !lay.transA {
				aLBO = kLBO(aLBO)
			}
			if !lay.transB {
				bLBO = kLBO(bLBO)
			}
			aSBO, bSBO := lay.aSBO, lay.bSBO
			if !lay.transA && lay.width != 0 {
				aSBO = 8 * lay.width
			}
			for row := range m {
				for kk := range k {
					place(0, row, kk, lay.transA, aLBO, aSBO, A[row*k+kk])
				}
			}
			for col := range n {
				for kk := range k {
					place(boff, col, kk, lay.transB, bLBO, bSBO, B[col*k+kk])
				}
			}
			hi := func(lbo, sbo int) uint64 { return uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | uint64(lay.code)<<62 }
			tr := func(b bool) int {
				if b {
					return 1
				}
				return 0
			}
			instr := fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {D}, %%rd8, %%rd12, 1, 1, 1, %d, %d;", n, lay.typ, lay.typ, tr(lay.transA), tr(lay.transB))
			res := launch(t, wgmmaTile(n, instr), Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
				scalar(hi(aLBO, aSBO)), scalar(hi(bLBO, bSBO)), scalar(boff))
			out := u32s(res.Buffers[1].Data)
			for i := range m {
				for j := range n {
					want := big.NewRat(1, 1)
					for kk := range k {
						want.Add(want, big.NewRat(int64(A[i*k+kk]*B[j*k+kk]), 1))
					}
					got := new(big.Rat)
					got.SetFloat64(float64(math.Float32frombits(out[i*n+j])))
					if got.Cmp(want) != 0 {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got.RatString(), want.RatString())
					}
				}
			}
		})
	}
}

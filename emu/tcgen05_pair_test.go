package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// tcPairKernel turns tcMMAKernel into the .cta_group::2 form a CUTLASS 2SM
// GEMM uses: a cluster of two CTAs, each copying its own image (A's rows
// 128v.., B's columns 32v..) into its shared memory and allocating with
// .cta_group::2; after a cluster barrier thread 0 of rank 0 issues both
// MMAs for the pair and commits them with .multicast::cluster to both
// CTAs' mbarriers (mask 0b11); each CTA stores its 128 rows of D.
func tcPairKernel(kind string) string {
	return tcToPair(fmt.Sprintf(tcMMAKernel, kind, kind), "%r60",
		[]tcPairBuffer{{"\tld.param.u64 %rd1, [img];", 32768}, {"\tld.param.u64 %rd2, [out];", 32768}})
}

// runTcPair stages A (256×2k f16/bf16 elements by row) and B (64×2k by
// column of D) over the pair with 128B swizzle and returns D (256×64).
func runTcPair(t *testing.T, kind string, idesc uint32, size int, A, B []uint64, cfg Config) (*Result, []uint32) {
	t.Helper()
	return runTcPairSource(t, tcPairKernel(kind), idesc, size, A, B, cfg)
}

// runTcPairSource is runTcPair with src, a form of tcPairKernel.
func runTcPairSource(t *testing.T, src string, idesc uint32, size int, A, B []uint64, cfg Config) (*Result, []uint32) {
	t.Helper()
	const w, boff = 128, 16384
	kb := 2 * tcKBytes
	ke := kb / size
	img := make([]byte, 2*32768)
	put := func(off int, v uint64) {
		switch size {
		case 2:
			binary.LittleEndian.PutUint16(img[off:], uint16(v))
		default:
			img[off] = byte(v)
		}
	}
	for v := range 2 {
		for r := range 128 {
			for kk := range ke {
				off := kMajorByte(r, kk*size, w, 16, 8*w)
				if strings.Contains(src, "tcgen05.st.sync.aligned.32x32b.x16.b32 [%r59]") { // tcStageA: A by rows, for Tensor Memory
					off = r*kb + kk*size
				}
				put(v*32768+off, A[(128*v+r)*ke+kk])
			}
		}
		for c := range 32 {
			for kk := range ke {
				put(v*32768+boff+kMajorByte(c, kk*size, w, 16, 8*w), B[(32*v+c)*ke+kk])
			}
		}
	}
	hi := uint64(1)<<16 | uint64(8*w>>4)<<32 | 1<<46 | 2<<61
	cfg.Block, cfg.Grid, cfg.Cluster = dims(128, 1, 1), dims(2, 1, 1), dims(2, 1, 1)
	p := compile(t, src)
	res, err := execute(p, cfg, []Arg{{IsBuffer: true, Buffer: img}, buf(2 * 4 * 128 * 64),
		scalar(hi), scalar(uint64(tcKBytes >> 4)), scalar(uint64(idesc)), scalar(boff)})
	if err != nil {
		t.Fatal(err)
	}
	return res, u32s(res.Buffers[1].Data)
}

// TestTcgen05MMAPair: M = 256 over a CTA pair, f16 and s8 inputs, eager
// and delayed, against A·B computed here (the halves of A, B and D must
// come from and go to the right CTA), and bf16 random data against the
// Blackwell model bit for bit.
func TestTcgen05MMAPair(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const m, n, k = 256, 64, 32
	for _, cfg := range []Config{{}, {Async: AsyncDelayed}} {
		A, B := make([]int, m*k), make([]int, n*k)
		Ab, Bb := make([]uint64, m*k), make([]uint64, n*k)
		for i := range A {
			A[i] = r.IntN(9) - 4
			Ab[i] = fbits("f16", A[i])
		}
		for i := range B {
			B[i] = r.IntN(9) - 4
			Bb[i] = fbits("f16", B[i])
		}
		res, out := runTcPair(t, "kind::f16", tcIdescOf(1, 0, 0, m, n), 2, Ab, Bb, cfg)
		if res.Report != nil {
			t.Fatalf("report: %v", res.Report)
		}
		for i := range m {
			for j := range n {
				want := 0
				for kk := range k {
					want += A[i*k+kk] * B[j*k+kk]
				}
				if got := math.Float32frombits(out[i*n+j]); got != float32(want) {
					t.Fatalf("async %d: D[%d][%d] = %v, want %d", cfg.Async, i, j, got, want)
				}
			}
		}
	}
	// s8 × s8, K = 64 over the two MMAs.
	A, B := make([]uint64, m*64), make([]uint64, n*64)
	for i := range A {
		A[i] = uint64(r.IntN(256))
	}
	for i := range B {
		B[i] = uint64(r.IntN(256))
	}
	res, out := runTcPair(t, "kind::i8", tcIdescOf(2, 1, 1, m, n), 1, A, B, Config{})
	if res.Report != nil {
		t.Fatalf("i8 report: %v", res.Report)
	}
	for i := range m {
		for j := range n {
			var want int32
			for kk := range 64 {
				want += int32(int8(A[i*64+kk])) * int32(int8(B[j*64+kk]))
			}
			if int32(out[i*n+j]) != want {
				t.Fatalf("i8: D[%d][%d] = %d, want %d", i, j, int32(out[i*n+j]), want)
			}
		}
	}
	// Random bf16: two chained Blackwell MMAs of K = 16.
	Ab, Bb := make([]uint64, m*k), make([]uint64, n*k)
	for i := range Ab {
		Ab[i] = uint64(r.Uint32() & 0x3fff)
	}
	for i := range Bb {
		Bb[i] = uint64(r.Uint32()&0x3fff | 0x8000*uint32(r.IntN(2)))
	}
	res, out = runTcPair(t, "kind::f16", tcIdescOf(1, 1, 1, m, n), 2, Ab, Bb, Config{})
	if res.Report != nil {
		t.Fatalf("bf16 report: %v", res.Report)
	}
	half := func(x []uint64, rows, h int) []uint64 {
		o := make([]uint64, rows*16)
		for i := range rows {
			copy(o[i*16:], x[i*k+16*h:i*k+16*h+16])
		}
		return o
	}
	D := make([]uint64, m*n)
	for h := range 2 {
		tensorcore.Blackwell.MMA(&tensorcore.Problem{Kind: tensorcore.Async, In: tensorcore.BF16, Out: tensorcore.F32,
			M: m, N: n, K: 16, A: half(Ab, m, h), B: half(Bb, n, h), C: append([]uint64(nil), D...), D: D})
	}
	for i := range D {
		if uint32(D[i]) != out[i] {
			t.Fatalf("bf16: D[%d][%d] = %#x, want %#x", i/n, i%n, out[i], D[i])
		}
	}
}

// TestTcgen05MMAPairReports: M = 64 with .cta_group::2 and an N that does
// not split into the pair's halves are invalid descriptors; a cluster of
// one CTA has no pair.
func TestTcgen05MMAPairReports(t *testing.T) {
	A, B := make([]uint64, 256*32), make([]uint64, 64*32)
	res, _ := runTcPair(t, "kind::f16", tcIdescOf(1, 0, 0, 64, 64), 2, A, B, Config{})
	if res.Report == nil || res.Report.Rule != ruleTcgen05Idesc || !strings.Contains(res.Report.Message, "allows 128 and 256") {
		t.Fatalf("M = 64: report %v", res.Report)
	}
	res, _ = runTcPair(t, "kind::f16", tcIdescOf(1, 0, 0, 256, 40), 2, A, B, Config{})
	if res.Report == nil || res.Report.Rule != ruleTcgen05Idesc || !strings.Contains(res.Report.Message, "N/2 columns") {
		t.Fatalf("N = 40: report %v", res.Report)
	}
}

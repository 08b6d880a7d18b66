package emu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// foldedD reads an M×N matrix in a folded data-path layout (B, E or G)
// out of the raw Tensor Memory cells cells(lane, column) of one CTA: row r
// of the CTA's R rows, column j, is in lane r + R·(j / (N/f)), column
// j mod (N/f), f = 128/R; written here from the layout's description.
func foldedD(rows, n int, cells func(lane, col int) uint32) [][]uint32 {
	f := 128 / rows
	cols := n / f
	d := make([][]uint32, rows)
	for r := range rows {
		d[r] = make([]uint32, n)
		for j := range n {
			d[r][j] = cells(r+rows*(j/cols), j%cols)
		}
	}
	return d
}

// smallF16 returns n random integers from -4 to 4 and their f16 bits.
func smallF16(r *rand.Rand, n int) ([]int, []uint64) {
	v, b := make([]int, n), make([]uint64, n)
	for i := range v {
		v[i] = r.IntN(9) - 4
		b[i] = fbits("f16", v[i])
	}
	return v, b
}

// dot is row i of A (k wide) times row j of B.
func dotInt(A, B []int, i, j, k int) int {
	s := 0
	for kk := range k {
		s += A[i*k+kk] * B[j*k+kk]
	}
	return s
}

// TestTcgen05MMAWeightStationary: tcgen05.mma.ws with M = 32 (Layout G)
// and M = 64 (Layout E), N = 64, two chained MMAs of K = 16, on small
// integers: every element of D, read back from the folded lanes, is A·B.
func TestTcgen05MMAWeightStationary(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 64))
	const n, k = 64, 32
	A, Ab := smallF16(r, 128*k)
	B, Bb := smallF16(r, n*k)
	for _, c := range []struct {
		m   int
		cfg Config
	}{{64, Config{}}, {32, Config{Async: AsyncDelayed}}, {64, Config{Race: true}}} {
		res := runTcMMASource(t, collectorKernel("kind::f16", "kind::f16", true), tcIdescOf(1, 0, 0, c.m, n), 128, 2, Ab, Bb, c.cfg, false)
		if res.Report != nil {
			t.Fatalf("M = %d: report %v", c.m, res.Report)
		}
		raw := u32s(res.Buffers[1].Data) // 128 lanes × 64 columns
		D := foldedD(c.m, n, func(lane, col int) uint32 { return raw[lane*64+col] })
		for i := range c.m {
			for j := range n {
				if got, want := math.Float32frombits(D[i][j]), dotInt(A, B, i, j, k); got != float32(want) {
					t.Fatalf("M = %d %v: D[%d][%d] = %v, want %d", c.m, c.cfg.Async, i, j, got, want)
				}
			}
		}
	}
}

// TestTcgen05MMAPairM128: .cta_group::2 with M = 128 (Layout B): CTA v of
// the pair holds rows 64v..64v+63 of A and columns 32v..32v+31 of B, and
// its 64 rows of D folded over its 128 lanes; on small integers against
// A·B, eager and delayed.
func TestTcgen05MMAPairM128(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 128))
	const m, n, k = 128, 64, 32
	A, Ab := smallF16(r, m*k)
	B, Bb := smallF16(r, n*k)
	// runTcPair stages rows 128v..128v+127 of its A in CTA v: put the
	// pair's 64 rows of CTA v first.
	staged := make([]uint64, 256*k)
	for v := range 2 {
		copy(staged[128*v*k:], Ab[64*v*k:64*(v+1)*k])
	}
	for _, cfg := range []Config{{}, {Async: AsyncDelayed}, {Race: true}} {
		res, out := runTcPair(t, "kind::f16", tcIdescOf(1, 0, 0, m, n), 2, staged, Bb, cfg)
		if res.Report != nil {
			t.Fatalf("report: %v", res.Report)
		}
		for v := range 2 {
			D := foldedD(64, n, func(lane, col int) uint32 { return out[(128*v+lane)*64+col] })
			for i := range 64 {
				for j := range n {
					if got, want := math.Float32frombits(D[i][j]), dotInt(A, B, 64*v+i, j, k); got != float32(want) {
						t.Fatalf("%v: D[%d][%d] (CTA %d) = %v, want %d", cfg.Async, 64*v+i, j, v, got, want)
					}
				}
			}
		}
	}
}

// TestTcgen05MMAFoldedATMEM: .ws with M = 64 and 32 (Layouts E and G) and
// A in Tensor Memory: fold group g (D's columns g·N/f..) takes row r of A
// from lane r + R·g. Each group's lanes hold a different matrix here, so
// D[r][j] is row r of group j/(N/f)'s copy times column j of B, on small
// integers; f16 and s8.
func TestTcgen05MMAFoldedATMEM(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 65))
	const n = 64
	for _, c := range []struct {
		kind  string
		size  int
		dtype int
		atype int
		m     int
		cfg   Config
	}{{"kind::f16", 2, 1, 0, 64, Config{}}, {"kind::f16", 2, 1, 0, 32, Config{Async: AsyncDelayed}}, {"kind::i8", 1, 2, 1, 32, Config{}}} {
		k := 2 * tcKBytes / c.size
		A, B := make([]int, 128*k), make([]int, n*k)
		Ab, Bb := make([]uint64, len(A)), make([]uint64, len(B))
		enc := func(v int) uint64 {
			if c.size == 1 {
				return uint64(uint8(int8(v)))
			}
			return fbits("f16", v)
		}
		for i := range A {
			A[i] = r.IntN(9) - 4
			Ab[i] = enc(A[i])
		}
		for i := range B {
			B[i] = r.IntN(9) - 4
			Bb[i] = enc(B[i])
		}
		src := tcStageA(collectorKernel(c.kind, c.kind, true))
		res := runTcMMASource(t, src, tcIdescOf(c.dtype, c.atype, c.atype, c.m, n), 0, c.size, Ab, Bb, c.cfg, true)
		if res.Report != nil {
			t.Fatalf("%s M = %d: report %v", c.kind, c.m, res.Report)
		}
		raw := u32s(res.Buffers[1].Data)
		cols := n / (128 / c.m)
		D := foldedD(c.m, n, func(lane, col int) uint32 { return raw[lane*64+col] })
		for i := range c.m {
			for j := range n {
				want := dotInt(A, B, i+c.m*(j/cols), j, k)
				got := int(int32(D[i][j]))
				if c.size == 2 {
					got = int(math.Float32frombits(D[i][j]))
				}
				if got != want {
					t.Fatalf("%s M = %d: D[%d][%d] = %d, want %d", c.kind, c.m, i, j, got, want)
				}
			}
		}
	}
}

// TestTcgen05MMAFoldedReports: .ws with M = 16 is an invalid descriptor.
func TestTcgen05MMAFoldedReports(t *testing.T) {
	A, B := make([]uint64, 128*32), make([]uint64, 64*32)
	res := runTcMMASource(t, collectorKernel("kind::f16", "kind::f16", true), tcIdescOf(1, 0, 0, 16, 64), 128, 2, A, B, Config{}, false)
	if res.Report == nil || res.Report.Rule != ruleTcgen05Idesc || !strings.Contains(res.Report.Message, ".ws allows 32, 64 and 128") {
		t.Fatalf("M = 16: report %v", res.Report)
	}
}

// TestTcgen05MMAPairM128ATMEM: .cta_group::2 at M = 128 with A in Tensor
// Memory: CTA v's fold group g (D's columns 32g..) takes row r of the
// CTA's 64 from lane r + 64g; each CTA stores a different matrix in each
// of its 128 lanes, so D's row 64v + r, column j is lane r + 64·(j/32) of
// CTA v times column j of B, on small integers.
func TestTcgen05MMAPairM128ATMEM(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 128))
	const m, n, k = 128, 64, 32
	A, Ab := smallF16(r, 256*k) // lane L of CTA v: row 128v + L
	B, Bb := smallF16(r, n*k)
	src := tcToPair(tcStageA(fmt.Sprintf(tcMMAKernel, "kind::f16", "kind::f16")), "%r60",
		[]tcPairBuffer{{"\tld.param.u64 %rd1, [img];", 32768}, {"\tld.param.u64 %rd2, [out];", 32768}})
	const staged = "\ttcgen05.wait::st.sync.aligned;\n\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	if !strings.Contains(src, staged) {
		t.Fatalf("kernel text changed: no %q", staged)
	}
	src = strings.Replace(src, staged, "\ttcgen05.wait::st.sync.aligned;\n\ttcgen05.fence::before_thread_sync;\n\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n", 1)
	for _, cfg := range []Config{{}, {Async: AsyncDelayed}} {
		res, out := runTcPairSource(t, src, tcIdescOf(1, 0, 0, m, n), 2, Ab, Bb, cfg)
		if res.Report != nil {
			t.Fatalf("report: %v", res.Report)
		}
		for v := range 2 {
			D := foldedD(64, n, func(lane, col int) uint32 { return out[(128*v+lane)*64+col] })
			for i := range 64 {
				for j := range n {
					if got, want := math.Float32frombits(D[i][j]), dotInt(A, B, 128*v+i+64*(j/32), j, k); got != float32(want) {
						t.Fatalf("%v: D[%d][%d] (CTA %d) = %v, want %d", cfg.Async, 64*v+i, j, v, got, want)
					}
				}
			}
		}
	}
}

package emu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// tcNarrowPairSource turns the block-scaled tcNarrowKernel into the
// .cta_group::2 form of a 2SM block-scaled GEMM: a cluster of two CTAs,
// each with its own image (A's rows 128v.., B's columns 32v..), C rows and
// scale factors (A's for its rows, its own copy of B's), stored in its
// Tensor Memory after a .cta_group::2 allocation; after a cluster barrier
// thread 0 of rank 0 issues the M = 256 MMA and commits it to both CTAs'
// mbarriers; each CTA stores its 128 rows of D.
func tcNarrowPairSource(quals string) string {
	src := tcToPair(tcNarrowSource(quals, true), "%r199", []tcPairBuffer{{"\tld.param.u64 %rd1, [img];", 8192},
		{"\tld.param.u64 %rd20, [cin];", 32768}, {"\tld.param.u64 %rd23, [sf];", 8192}, {"\tld.param.u64 %rd2, [out];", 32768}})
	// the C and scale-factor stores of both CTAs before the MMA
	const stored = "\ttcgen05.wait::st.sync.aligned;\n\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	if !strings.Contains(src, stored) {
		panic("tcNarrowPairSource: no " + stored)
	}
	return strings.Replace(src, stored, "\ttcgen05.wait::st.sync.aligned;\n\ttcgen05.fence::before_thread_sync;\n\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n", 1)
}

// runNarrowPair runs c (A 256×k, B 64×k, C 256×64, SA by row, SB by
// column) over a CTA pair and returns D (256×64).
func runNarrowPair(t *testing.T, c *narrowCase, cfg Config) []uint32 {
	t.Helper()
	img, cin, sf := make([]byte, 2*8192), make([]byte, 2*32768), make([]uint32, 2*128*16)
	lbo, sbo := 128, 256
	put := func(base, r int, row []byte) {
		for b, v := range row {
			img[base+kMajorByte(r, b, 0, lbo, sbo)] = v
		}
	}
	groups := c.k / c.vec
	for v := range 2 {
		for r := range 128 {
			i := 128*v + r
			put(8192*v, r, narrowBytes(c.A[i*c.k:(i+1)*c.k], tensorcore.ElemBits(c.a), c.packed))
			for g := range groups {
				sf[(128*v+r)*16+r/32] |= uint32(c.SA[i*groups+g]) << (8 * (c.sfid[0] + g))
			}
			for j := range 64 {
				binary.LittleEndian.PutUint32(cin[4*(i*64+j):], c.C[i*64+j])
			}
		}
		for j := range 32 {
			col := 32*v + j
			put(8192*v+4096, j, narrowBytes(c.B[col*c.k:(col+1)*c.k], tensorcore.ElemBits(c.b), c.packed))
		}
		// each CTA's copy of B's factors: column j in lane 32s + j%32 of every sub-partition s
		for s := range 4 {
			for j := range 64 {
				for g := range groups {
					sf[(128*v+32*s+j%32)*16+8+j/32] |= uint32(c.SB[j*groups+g]) << (8 * (c.sfid[1] + g))
				}
			}
		}
	}
	sfb := make([]byte, 4*len(sf))
	for i, v := range sf {
		binary.LittleEndian.PutUint32(sfb[4*i:], v)
	}
	hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46
	cfg.Block, cfg.Grid, cfg.Cluster = dims(128, 1, 1), dims(2, 1, 1), dims(2, 1, 1)
	res := launch(t, tcNarrowPairSource(c.kind), cfg, Arg{IsBuffer: true, Buffer: img},
		Arg{IsBuffer: true, Buffer: cin}, Arg{IsBuffer: true, Buffer: sfb}, buf(2*4*128*64), scalar(hi), scalar(uint64(c.idesc)))
	return u32s(res.Buffers[3].Data)
}

// TestTcgen05MMAScaledPair: block scaling with .cta_group::2 (M = 256):
// on values whose result is exact, D is A·B + C with each row's scale
// factors taken from its CTA (computed here from the formats'
// definitions); on full-range data the bits are those of tensorcore's
// block-scaled model over the whole 256 × 64 problem.
func TestTcgen05MMAScaledPair(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 256))
	for _, c := range []*narrowCase{
		{kind: "kind::mxf8f6f4.block_scale.scale_vec::1X", a: tensorcore.E4M3, b: tensorcore.E2M1, k: 32, vec: 32,
			scale: tensorcore.UE8M0, sfid: [2]int{2, 1}, idesc: tcScaledIdesc(0, 5, 256, 64, true, 2, 1)},
		{kind: "kind::mxf4nvf4.block_scale.scale_vec::4X", a: tensorcore.E2M1, b: tensorcore.E2M1, packed: true, k: 64, vec: 16,
			scale: tensorcore.UE4M3, idesc: tcScaledIdesc(1, 1, 256, 64, false, 0, 0)},
	} {
		t.Run(c.kind, func(t *testing.T) {
			exactNarrowCase(r, c)
			// exactNarrowCase makes 128 rows: draw the second CTA's
			more := *c
			exactNarrowCase(r, &more)
			c.A, c.C, c.SA = append(c.A, more.A...), append(c.C, more.C...), append(c.SA, more.SA...)
			c.av = nil
			out := runNarrowPair(t, c, Config{Async: AsyncDelayed})
			for i := range 256 {
				for j := range 64 {
					if got, want := math.Float32frombits(out[i*64+j]), expectNarrow(c, i, j); float64(got) != want {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
	t.Run("model", func(t *testing.T) {
		c := &narrowCase{kind: "kind::mxf8f6f4.block_scale.scale_vec::1X", a: tensorcore.E4M3, b: tensorcore.E2M1, k: 32, vec: 32,
			scale: tensorcore.UE8M0, idesc: tcScaledIdesc(0, 5, 256, 64, true, 0, 0)}
		c.A, c.B, c.C = make([]uint64, 256*32), make([]uint64, 64*32), make([]uint32, 256*64)
		for i := range c.A {
			c.A[i] = uint64(r.IntN(0x7f)) | uint64(r.IntN(2))<<7
		}
		for i := range c.B {
			c.B[i] = uint64(r.IntN(16))
		}
		C := make([]uint64, len(c.C))
		for i := range c.C {
			c.C[i] = math.Float32bits(float32(r.NormFloat64()))
			C[i] = uint64(c.C[i])
		}
		c.SA, c.SB = make([]uint64, 256), make([]uint64, 64)
		for i := range c.SA {
			c.SA[i] = uint64(100 + r.IntN(50))
		}
		for i := range c.SB {
			c.SB[i] = uint64(100 + r.IntN(50))
		}
		out := runNarrowPair(t, c, Config{})
		D := make([]uint64, len(C))
		tensorcore.Blackwell.ScaledMMA(&tensorcore.ScaledProblem{In: c.a, BIn: c.b, Out: tensorcore.F32, Scale: c.scale, Vec: 32,
			M: 256, N: 64, K: 32, A: c.A, B: c.B, SA: c.SA, SB: c.SB, C: C, D: D})
		for i := range D {
			if uint32(D[i]) != out[i] {
				t.Fatalf("D[%d][%d] = %#x, want %#x", i/64, i%64, out[i], D[i])
			}
		}
	})
}

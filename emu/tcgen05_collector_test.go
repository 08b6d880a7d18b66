package emu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// collectorKernel is tcMMAKernel with the qualifiers q1 and q2 after
// .cta_group::1 of its first and second MMA (the second MMA's descriptors
// point at the second K half of A and B); ws makes both MMAs .ws.
func collectorKernel(q1, q2 string, ws bool) string {
	src := fmt.Sprintf(tcMMAKernel, q1, q2)
	if ws {
		src = strings.ReplaceAll(src, "tcgen05.mma.cta_group::1.", "tcgen05.mma.ws.cta_group::1.")
	}
	return src
}

// TestTcgen05MMACollector: a ::fill keeps the operand, a later ::use or
// ::lastuse computes with it instead of the matrix its descriptor names:
// for A (.collector::a) and, with .ws, for B (.collector::b2); on small
// integers against sums computed here.
func TestTcgen05MMACollector(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const m, n, k = 128, 64, 32
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
	idesc := tcIdescOf(1, 0, 0, m, n)
	cases := []struct {
		name   string
		q1, q2 string
		ws     bool
		cfg    Config
		// the second MMA's operands: A's and B's K half (0 or 1)
		a2, b2 int
	}{
		{"a fill/use", "kind::f16.collector::a::fill", "kind::f16.collector::a::use", false, Config{}, 0, 1},
		{"a fill/lastuse delayed", "kind::f16.collector::a::fill", "kind::f16.collector::a::lastuse", false, Config{Async: AsyncDelayed}, 0, 1},
		{"a discard", "kind::f16.collector::a::discard", "kind::f16", false, Config{}, 1, 1},
		{"ws b2 fill/lastuse", "kind::f16.collector::b2::fill", "kind::f16.collector::b2::lastuse", true, Config{}, 1, 0},
		{"ws plain", "kind::f16", "kind::f16", true, Config{}, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runTcMMASource(t, collectorKernel(c.q1, c.q2, c.ws), idesc, 128, 2, Ab, Bb, c.cfg, false)
			if res.Report != nil {
				t.Fatalf("report: %v", res.Report)
			}
			out := u32s(res.Buffers[1].Data)
			for i := range m {
				for j := range n {
					want := 0
					for kk := range 16 {
						want += A[i*k+kk]*B[j*k+kk] + A[i*k+16*c.a2+kk]*B[j*k+16*c.b2+kk]
					}
					if got := math.Float32frombits(out[i*n+j]); got != float32(want) {
						t.Fatalf("D[%d][%d] = %v, want %d", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMACollectorReports: ::use of an empty buffer, ::use after
// ::lastuse emptied it, and a .ws N outside 64, 128 and 256 are reported.
func TestTcgen05MMACollectorReports(t *testing.T) {
	A, B := make([]uint64, 128*32), make([]uint64, 64*32)
	idesc := tcIdescOf(1, 0, 0, 128, 64)
	for _, c := range []struct {
		q1, q2 string
		ws     bool
		idesc  uint32
		rule   string
		msg    string
	}{
		{"kind::f16.collector::a::use", "kind::f16", false, idesc, ruleTcgen05Collector, "collector buffer a holds no matrix"},
		{"kind::f16.collector::b1::discard", "kind::f16.collector::b1::use", true, idesc, ruleTcgen05Collector, "collector buffer b1 holds no matrix"},
		{"kind::f16.collector::a::lastuse", "kind::f16", false, idesc, ruleTcgen05Collector, "holds no matrix"},
		{"kind::f16", "kind::f16", true, tcIdescOf(1, 0, 0, 128, 32), ruleTcgen05Idesc, ".ws allows 64, 128 and 256"},
	} {
		res := runTcMMASource(t, collectorKernel(c.q1, c.q2, c.ws), c.idesc, 128, 2, A, B, Config{}, false)
		if res.Report == nil || res.Report.Rule != c.rule || !strings.Contains(res.Report.Message, c.msg) {
			t.Errorf("%s / %s: report %v, want %s %q", c.q1, c.q2, res.Report, c.rule, c.msg)
		}
	}
}

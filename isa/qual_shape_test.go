package isa

import "testing"

func TestMatrixShape(t *testing.T) {
	for _, c := range []struct {
		q       string
		m, n, k int
		ok      bool
	}{
		{".m64n256k16", 64, 256, 16, true}, {".m16n8k16", 16, 8, 16, true}, {".m8n8k4", 8, 8, 4, true},
		{".m16n8k256", 16, 8, 256, true}, {".f32", 0, 0, 0, false}, {".m8n8", 0, 0, 0, false},
		{".m16n16k16", 16, 16, 16, true},
	} {
		q := LookupQual(c.q)
		if q == QNone {
			t.Fatalf("%s is not a known qualifier", c.q)
		}
		m, n, k, ok := q.MatrixShape()
		if ok != c.ok || m != c.m || n != c.n || k != c.k {
			t.Errorf("%s: got %d %d %d %v, want %d %d %d %v", c.q, m, n, k, ok, c.m, c.n, c.k, c.ok)
		}
	}
}

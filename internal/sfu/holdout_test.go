package sfu

import (
	"testing"
)

// TestTanhHoldOut fits the tanh table, the one table fitted partly to the
// random records, on each half of its points in turn and checks the other
// half of the records with it: the hold-out figure of docs/sfu.md, both
// ways round. tables_gen.go holds the fit to the even half.
func TestTanhHoldOut(t *testing.T) {
	needData(t)
	ts := tableSweeps[len(tableSweeps)-1]
	if ts.table != &tanhTable {
		t.Fatal("the last table is not tanh's")
	}
	const records = "tanh.approx.f32.bin"
	ps := points(t, records)
	for fit := 0; fit < 2; fit++ {
		table := quadTable{bits: ts.bits, sqShift: ts.sqShift, shift: ts.shift, coef: fitSweep(t, ts, fit)}
		ok, n := 0, 0
		for i, p := range ps {
			s, use := ts.sample(records, p[0], p[1])
			if !use || i%2 == fit {
				continue
			}
			n++
			if v := float64(table.eval(s.u, s.n)); v >= s.lo && v < s.hi {
				ok++
			}
		}
		t.Logf("fitted on the %s half, %d of %d held-out records in [2^-8, 8) reproduced (%.4f%%)", parityName(fit), ok, n, pct(ok, n))
		if ok != n {
			t.Errorf("tanh fitted on the %s half: %d of %d held-out records differ", parityName(fit), n-ok, n)
		}
	}
}

func parityName(parity int) string { return [2]string{"even", "odd"}[parity] }

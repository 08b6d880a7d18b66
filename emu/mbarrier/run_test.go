package mbarrier

import (
	"math/rand/v2"
	"testing"
)

// TestCompleteTxRunMatchesSteps compares CompleteTxRun with k calls of
// CompleteTx on seeded objects near the edges (nothing pending, tx-counts
// that reach zero mid-run, at the last member or never, near -MaxTx): it
// runs exactly when the calls all succeed with no phase completing before
// the last, and then leaves the same object and the same phase counter.
func TestCompleteTxRunMatchesSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ran, declined := 0, 0
	for i := 0; i < 20000; i++ {
		n := uint32(1) << rng.IntN(5)
		k := 1 + rng.IntN(40)
		o := Object{Expected: 1 + uint32(rng.IntN(3)), Phase: uint8(rng.IntN(PhaseModulus))}
		o.Pending = uint32(rng.IntN(int(o.Expected) + 1))
		switch rng.IntN(4) {
		case 0:
			o.Tx = int32(n) * int32(rng.IntN(45))
		case 1:
			o.Tx = -MaxTx + int32(rng.IntN(200))
		default:
			o.Tx = int32(rng.IntN(300)) - 100
		}
		if o.Pending == 0 && o.Tx == 0 {
			o.Pending = 1 // a live object has settled
		}
		// one by one
		step, phases, early, failed := o, 0, false, false
		for j := 0; j < k; j++ {
			done, err := step.CompleteTx(n)
			if err != nil {
				failed = true
				break
			}
			if done {
				phases++
				early = early || j < k-1
			}
		}
		run := o
		completed, ok := run.CompleteTxRun(n, k)
		if ok != (!failed && !early) {
			t.Fatalf("%+v n %d k %d: run ok %v, steps failed %v early %v", o, n, k, ok, failed, early)
		}
		if !ok {
			declined++
			if run != o {
				t.Fatalf("%+v: a declined run changed the object to %+v", o, run)
			}
			continue
		}
		ran++
		if run != step || completed != (phases == 1) {
			t.Fatalf("%+v n %d k %d: run %+v completed %v, steps %+v phases %d", o, n, k, run, completed, step, phases)
		}
	}
	if ran < 1000 || declined < 1000 {
		t.Fatalf("ran %d, declined %d: the cases miss an edge", ran, declined)
	}

	// The table: the phase counter and the epoch move, a clobbered or
	// missing object declines.
	tab := NewTable()
	r, _ := tab.Init(8, 1)
	r, _ = tab.ExpectArrive(8, r.Word, 128, false, false)
	e0 := tab.Epoch()
	if _, ok := tab.CompleteTxRun(8, r.Word^1, 4, 32); ok {
		t.Fatal("a clobbered object ran")
	}
	if _, ok := tab.CompleteTxRun(16, 0, 4, 32); ok {
		t.Fatal("a missing object ran")
	}
	res, ok := tab.CompleteTxRun(8, r.Word, 4, 32)
	if p, _ := tab.Phases(8); !ok || !res.Completed || p != 1 || tab.Epoch() == e0 {
		t.Fatalf("run ok %v completed %v phases %d epoch %d (was %d)", ok, res.Completed, p, tab.Epoch(), e0)
	}
}

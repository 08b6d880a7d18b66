package asyncgroup

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// batchTracker returns a Tracker that describes an operation by its
// SiteAt and counts, per byte, the guards Changed hears of.
func batchTracker() (*Tracker, map[uint64]int) {
	tr := &Tracker{}
	counts := map[uint64]int{}
	tr.Describe = func(op *Op) (string, string) { return "site", fmt.Sprintf("issuer %#x", op.SiteAt) }
	tr.Changed = func(r Range, dst bool, d int) {
		for a := r.Lo; a < r.Hi; a++ {
			counts[a] += d
		}
	}
	return tr, counts
}

// TestIssueBatchMatchesSingles issues seeded runs of adjacent stores as
// batches in one Tracker and one by one in another: the IDs, Len, the
// guarded bytes, every check's hazard (rule, message, member) and what a
// wait forgets are the same.
func TestIssueBatchMatchesSingles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	batched, bc := batchTracker()
	single, sc := batchTracker()
	bar := BarrierRef{CTA: 1, Addr: 8}
	for round := uint64(0); round < 200; round++ {
		for b := 0; b < 1+rng.IntN(3); b++ {
			n, each := 1+rng.IntN(32), uint64(1)<<rng.IntN(4)
			lo := uint64(0x1000 + 8*rng.IntN(64))
			site := uint64(rng.IntN(4))<<32 | round
			op := batched.IssueBatch("st.async", nil, site, 1<<32, lo, each, n)
			op.Landed = true
			batched.SignalOp(op, bar, round)
			for k := 0; k < n; k++ {
				a := lo + uint64(k)*each
				id := single.Issue(Op{Name: "st.async", SiteAt: site + uint64(k)<<32, Dst: Range{Lo: a, Hi: a + each}})
				if k == 0 && id != op.ID {
					t.Fatalf("round %d: batch ID %d, single ID %d", round, op.ID, id)
				}
				single.Land(id)
				single.Signal(id, bar, round)
			}
		}
		if batched.Len() != single.Len() {
			t.Fatalf("round %d: Len %d batched, %d single", round, batched.Len(), single.Len())
		}
		for probe := 0; probe < 20; probe++ {
			a := uint64(0x1000 + rng.IntN(600))
			r := Range{Lo: a, Hi: a + uint64(1+rng.IntN(16))}
			sameHazard(t, batched.CheckRead(r), single.CheckRead(r))
			sameHazard(t, batched.CheckWrite(r), single.CheckWrite(r))
		}
		if rng.IntN(3) == 0 {
			if b, s := batched.ObserveBarrier(bar, round+1), single.ObserveBarrier(bar, round+1); b != s {
				t.Fatalf("round %d: a wait forgets %d batched, %d single", round, b, s)
			}
		}
		for a, c := range sc {
			if bc[a] != c {
				t.Fatalf("round %d: byte %#x guarded %d times batched, %d single", round, a, bc[a], c)
			}
		}
	}
	batched.ObserveBarrier(bar, 1<<20)
	single.ObserveBarrier(bar, 1<<20)
	if batched.Len() != 0 || single.Len() != 0 {
		t.Fatalf("left: %d batched, %d single", batched.Len(), single.Len())
	}
}

func sameHazard(t *testing.T, b, s *Hazard) {
	t.Helper()
	if (b == nil) != (s == nil) {
		t.Fatalf("hazard %v batched, %v single", b, s)
	}
	if b == nil {
		return
	}
	if b.Rule != s.Rule || b.Message != s.Message || b.Op.ID != s.Op.ID || b.Op.Dst != s.Op.Dst || b.Op.SiteAt != s.Op.SiteAt {
		t.Fatalf("hazard batched %s %q (op %d %v), single %s %q (op %d %v)", b.Rule, b.Message, b.Op.ID, b.Op.Dst, s.Rule, s.Message, s.Op.ID, s.Op.Dst)
	}
}

// TestQueuedBatchMatchesSingles issues seeded queued batches in one
// Tracker and their members one by one in another, then lands and signals
// the members in a random order, toward phases that sometimes advance in
// the middle of a batch (which turns it into single operations), with
// waits in between: IDs, Len, the guarded bytes, every hazard and what
// each wait forgets are the same.
func TestQueuedBatchMatchesSingles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	batched, bc := batchTracker()
	single, sc := batchTracker()
	bar := BarrierRef{CTA: 0, Addr: 16}
	phase := uint64(0)
	type member struct {
		op *Op
		k  int
		id OpID
	}
	var pending []member
	for round := uint64(0); round < 300; round++ {
		for b := 0; b < rng.IntN(3); b++ {
			n, each := 2+rng.IntN(31), uint64(1)<<rng.IntN(4)
			lo := uint64(0x2000 + 8*rng.IntN(64))
			site := uint64(rng.IntN(4))<<32 | round
			op := batched.IssueQueuedBatch("st.async", nil, site, 1<<32, lo, each, n)
			for k := 0; k < n; k++ {
				a := lo + uint64(k)*each
				id := single.Issue(Op{Name: "st.async", SiteAt: site + uint64(k)<<32, Dst: Range{Lo: a, Hi: a + each}})
				if id != op.ID+OpID(k) {
					t.Fatalf("round %d: member %d has ID %d, single %d", round, k, op.ID+OpID(k), id)
				}
				pending = append(pending, member{op, k, id})
			}
		}
		for i := rng.IntN(len(pending) + 1); i > 0; i-- {
			j := rng.IntN(len(pending))
			m := pending[j]
			pending = append(pending[:j], pending[j+1:]...)
			if rng.IntN(8) == 0 {
				phase++
			}
			single.Land(m.id)
			single.Signal(m.id, bar, phase)
			if m.op.N < 0 { // became single operations
				batched.Land(m.id)
				batched.Signal(m.id, bar, phase)
				continue
			}
			batched.LandMember(m.op, m.k)
			batched.SignalMember(m.op, m.k, bar, phase)
		}
		if batched.Len() != single.Len() {
			t.Fatalf("round %d: Len %d batched, %d single", round, batched.Len(), single.Len())
		}
		for probe := 0; probe < 20; probe++ {
			a := uint64(0x2000 + rng.IntN(1100))
			r := Range{Lo: a, Hi: a + uint64(1+rng.IntN(16))}
			sameHazard(t, batched.CheckRead(r), single.CheckRead(r))
			sameHazard(t, batched.CheckWrite(r), single.CheckWrite(r))
		}
		if rng.IntN(3) == 0 {
			p := phase + uint64(rng.IntN(2))
			if b, s := batched.ObserveBarrier(bar, p), single.ObserveBarrier(bar, p); b != s {
				t.Fatalf("round %d: a wait forgets %d batched, %d single", round, b, s)
			}
		}
		for a, c := range sc {
			if bc[a] != c {
				t.Fatalf("round %d: byte %#x guarded %d times batched, %d single", round, a, bc[a], c)
			}
		}
	}
	for _, m := range pending {
		single.Signal(m.id, bar, phase)
		if m.op.N < 0 {
			batched.Signal(m.id, bar, phase)
		} else {
			batched.SignalMember(m.op, m.k, bar, phase)
		}
	}
	batched.ObserveBarrier(bar, phase+1)
	single.ObserveBarrier(bar, phase+1)
	if batched.Len() != 0 || single.Len() != 0 {
		t.Fatalf("left: %d batched, %d single", batched.Len(), single.Len())
	}
	for a, c := range bc {
		if c != 0 {
			t.Fatalf("byte %#x still guarded %d times", a, c)
		}
	}
}

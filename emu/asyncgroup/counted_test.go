package asyncgroup

import "testing"

func TestTrackerWatchedCountsSelectedRanges(t *testing.T) {
	high := func(r Range) bool { return r.Lo >= 1000 }
	tr := Tracker{Counted: high}
	a := tr.Issue(Op{Dst: Range{10, 20}, Src: Range{1000, 1010}}) // source selected
	b := tr.Issue(Op{Dst: Range{2000, 2016}, Src: Range{30, 46}}) // destination selected
	c := tr.Issue(Op{Dst: Range{2000, 2016}})                     // same range again
	if got := tr.Watched(); got != 3 {
		t.Fatalf("Watched = %d, want 3", got)
	}
	tr.FreeSource(a) // a .read wait: a's source is no longer guarded
	tr.FreeSource(a) // twice is a no-op
	if got := tr.Watched(); got != 2 {
		t.Fatalf("after FreeSource: Watched = %d, want 2", got)
	}
	tr.Observe(b)
	if got := tr.Watched(); got != 1 {
		t.Fatalf("after Observe: Watched = %d, want 1", got)
	}
	if h := tr.CheckRead(Range{2008, 2012}); h == nil || h.Op.ID != c {
		t.Fatalf("read of c's destination: %v", h)
	}
	tr.Signal(c, BarrierRef{CTA: 0, Addr: 8}, 0)
	tr.ObserveBarrier(BarrierRef{CTA: 0, Addr: 8}, 1)
	tr.Observe(a)
	if got := tr.Watched(); got != 0 || tr.Len() != 0 {
		t.Fatalf("all observed: Watched = %d, Len = %d", got, tr.Len())
	}
}

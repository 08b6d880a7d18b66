package asyncgroup

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommitOrderAndWaitGroup(t *testing.T) {
	var th Thread
	th.Add(NonBulk, 1)
	th.Add(NonBulk, 2)
	if n := th.Commit(NonBulk); n != 1 {
		t.Fatalf("Commit = %d", n)
	}
	th.Add(NonBulk, 3)
	th.Commit(NonBulk)
	th.Add(NonBulk, 4)
	th.Commit(NonBulk)

	if got := th.Due(NonBulk, 3); got != nil {
		t.Errorf("wait_group 3 with 3 groups: due %v", got)
	}
	if got, want := th.Due(NonBulk, 1), []OpID{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("wait_group 1: due %v, want %v", got, want)
	}
	if got, want := th.Due(NonBulk, 0), []OpID{1, 2, 3, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("wait_group 0: due %v, want %v", got, want)
	}
	if got, want := th.Retire(NonBulk, 2), []OpID{1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("Retire 2: %v, want %v", got, want)
	}
	if th.Pending(NonBulk) != 2 {
		t.Errorf("Pending = %d", th.Pending(NonBulk))
	}
	if got, want := th.Retire(NonBulk, 0), []OpID{3, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("Retire 0: %v, want %v", got, want)
	}
	if th.Pending(NonBulk) != 0 || th.Retire(NonBulk, 0) != nil {
		t.Error("groups left after wait_group 0")
	}
}

func TestKindsAreSeparate(t *testing.T) {
	var th Thread
	th.Add(NonBulk, 1)
	th.Add(Bulk, 2)
	th.Commit(Bulk)
	if got := th.Due(NonBulk, 0); got != nil {
		t.Errorf("non-bulk due %v: op 1 is uncommitted", got)
	}
	if got := th.Due(Bulk, 0); !reflect.DeepEqual(got, []OpID{2}) {
		t.Errorf("bulk due %v", got)
	}
	if got := th.Prior(NonBulk); !reflect.DeepEqual(got, []OpID{1}) {
		t.Errorf("Prior = %v", got)
	}
}

func TestEmptyGroupAndNegativeN(t *testing.T) {
	var th Thread
	if th.Commit(NonBulk) != 1 {
		t.Fatal("empty commit")
	}
	if got := th.Due(NonBulk, -1); len(got) != 0 {
		t.Errorf("empty group has due ops %v", got)
	}
	if _, ok := th.Unwaited(); !ok {
		t.Error("an empty committed group counts as unwaited")
	}
	th.Retire(NonBulk, -5)
	if th.Pending(NonBulk) != 0 {
		t.Error("negative n did not retire all")
	}
}

func TestPriorIncludesCommittedAndOpen(t *testing.T) {
	var th Thread
	th.Add(NonBulk, 1)
	th.Commit(NonBulk)
	th.Add(NonBulk, 2)
	if got := th.Prior(NonBulk); !reflect.DeepEqual(got, []OpID{1, 2}) {
		t.Errorf("Prior = %v", got)
	}
}

func TestUnwaited(t *testing.T) {
	var th Thread
	th.Add(NonBulk, 1)
	if msg, ok := th.Unwaited(); ok || !strings.Contains(msg, "1 uncommitted") {
		t.Errorf("uncommitted op: %q %v", msg, ok)
	}
	th.TrackUncommitted()
	if msg, ok := th.Unwaited(); !ok {
		t.Errorf("mbarrier-tracked op reported: %q", msg)
	}
	th.Add(Bulk, 2)
	th.Commit(Bulk)
	if msg, ok := th.Unwaited(); ok || !strings.Contains(msg, "1 cp.async.bulk group(s) not waited for") {
		t.Errorf("bulk group: %q %v", msg, ok)
	}
	th.Retire(Bulk, 0)
	if _, ok := th.Unwaited(); !ok {
		t.Error("reported after wait")
	}
}

func TestKindString(t *testing.T) {
	if NonBulk.String() != "cp.async" || Bulk.String() != "cp.async.bulk" || Kind(9).String() != "Kind(9)" {
		t.Error("Kind.String")
	}
}

func TestRangeOverlaps(t *testing.T) {
	cases := []struct {
		a, b Range
		want bool
	}{
		{Range{0, 4}, Range{3, 8}, true},
		{Range{0, 4}, Range{4, 8}, false},
		{Range{4, 8}, Range{0, 4}, false},
		{Range{0, 16}, Range{4, 8}, true},
		{Range{4, 4}, Range{0, 8}, false},
		{Range{0, 8}, Range{5, 5}, false},
	}
	for _, c := range cases {
		if got := c.a.Overlaps(c.b); got != c.want {
			t.Errorf("%v.Overlaps(%v) = %v", c.a, c.b, got)
		}
	}
}

func TestTrackerHazards(t *testing.T) {
	var tr Tracker
	cp := tr.Issue(Op{Name: "cp.async", Issuer: "thread 3", Where: "k.ptx:7:1", Dst: Range{0x100, 0x110}, Src: Range{0x9000, 0x9010}})
	st := tr.Issue(Op{Name: "st.async", Issuer: "thread 4", Dst: Range{0x200, 0x204}})
	if cp != 1 || st != 2 || tr.Len() != 2 {
		t.Fatalf("ids %d %d", cp, st)
	}
	h := tr.CheckRead(Range{0x10c, 0x110})
	if h == nil || h.Rule != "async-read-destination" || h.Op.ID != cp ||
		h.Message != "read of [0x10c, 0x110), the destination of cp.async at k.ptx:7:1 issued by thread 3, before its completion is observed" {
		t.Fatalf("read hazard: %+v", h)
	}
	if h := tr.CheckRead(Range{0x9000, 0x9004}); h != nil {
		t.Errorf("reading a source is fine: %+v", h)
	}
	if h := tr.CheckWrite(Range{0x9008, 0x9009}); h == nil || h.Rule != "async-write-source" {
		t.Errorf("write source: %+v", h)
	}
	if h := tr.CheckWrite(Range{0x200, 0x201}); h == nil || h.Rule != "async-write-destination" || h.Op.ID != st {
		t.Errorf("write destination: %+v", h)
	}
	tr.FreeSource(cp)
	if h := tr.CheckWrite(Range{0x9008, 0x9009}); h != nil {
		t.Errorf("source freed by .read wait still guarded: %+v", h)
	}
	tr.Land(cp)
	if op := tr.Get(cp); !op.Landed {
		t.Error("Land")
	}
	if h := tr.CheckRead(Range{0x100, 0x101}); h == nil {
		t.Error("landed but unobserved destination read not reported")
	}
	tr.Observe(cp)
	if tr.Get(cp) != nil || tr.CheckRead(Range{0x100, 0x101}) != nil {
		t.Error("observed op still guarded")
	}
	tr.Observe(cp) // idempotent
	if tr.Len() != 1 {
		t.Errorf("Len = %d", tr.Len())
	}
}

func TestObserveBarrier(t *testing.T) {
	var tr Tracker
	b0, b1 := BarrierRef{CTA: 0, Addr: 0x10}, BarrierRef{CTA: 1, Addr: 0x10}
	a := tr.Issue(Op{Name: "st.async", Dst: Range{0, 4}})
	b := tr.Issue(Op{Name: "st.async", Dst: Range{4, 8}})
	c := tr.Issue(Op{Name: "st.async", Dst: Range{8, 12}})
	d := tr.Issue(Op{Name: "st.async", Dst: Range{12, 16}})
	tr.Signal(a, b0, 0)
	tr.Signal(b, b0, 1) // counts toward the next phase
	tr.Signal(c, b1, 0) // other CTA's barrier
	// d never signalled
	if n := tr.ObserveBarrier(b0, 1); n != 1 {
		t.Fatalf("observed %d, want 1", n)
	}
	if tr.Get(a) != nil || tr.Get(b) == nil || tr.Get(c) == nil || tr.Get(d) == nil {
		t.Error("wrong operations observed")
	}
	if n := tr.ObserveBarrier(b0, 2); n != 1 || tr.Get(b) != nil {
		t.Error("second phase")
	}
	if got := len(tr.Ops()); got != 2 {
		t.Errorf("%d left", got)
	}
	tr.Describe = func(op *Op) (string, string) { return "site", "thread 9" }
	h := tr.CheckRead(Range{12, 13})
	if h == nil || !strings.Contains(h.Message, "at site issued by thread 9") {
		t.Errorf("Describe not used: %+v", h)
	}
	tr.Signal(99, b0, 0) // unknown id: no effect
	tr.FreeSource(99)
	tr.Land(99)
}

// TestTrackerIndexMatchesScan drives a tracker with a seeded sequence of
// issues, source releases and observations and compares every check with
// a scan of the outstanding operations.
func TestTrackerIndexMatchesScan(t *testing.T) {
	rng := uint64(12345)
	next := func(n uint64) uint64 {
		rng = rng*6364136223846793005 + 1442695040888963407
		return (rng >> 33) % n
	}
	var tr Tracker
	for step := 0; step < 20000; step++ {
		switch next(5) {
		case 0, 1:
			lo := next(64) * 4
			src := Range{}
			if next(2) == 0 {
				s := 1000 + next(64)*4
				src = Range{s, s + 4*(1+next(4))}
			}
			tr.Issue(Op{Name: "op", Dst: Range{lo, lo + 4*(1+next(4))}, Src: src})
		case 2:
			if tr.Len() > 0 {
				tr.FreeSource(tr.Ops()[next(uint64(tr.Len()))].ID)
			}
		case 3:
			if tr.Len() > 0 {
				tr.Observe(tr.Ops()[next(uint64(tr.Len()))].ID)
			}
		case 4:
			lo := next(1300)
			r := Range{lo, lo + 1 + next(8)}
			var wantRead, wantWrite bool
			for _, op := range tr.Ops() {
				wantRead = wantRead || op.Dst.Overlaps(r)
				wantWrite = wantWrite || op.Dst.Overlaps(r) || (!op.SourceFree && op.Src.Overlaps(r))
			}
			if got := tr.CheckRead(r) != nil; got != wantRead {
				t.Fatalf("step %d: CheckRead(%v) = %v, scan says %v", step, r, got, wantRead)
			}
			if got := tr.CheckWrite(r) != nil; got != wantWrite {
				t.Fatalf("step %d: CheckWrite(%v) = %v, scan says %v", step, r, got, wantWrite)
			}
		}
	}
}

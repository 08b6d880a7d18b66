package asyncgroup

import (
	"slices"
	"testing"
)

// lcg is a seeded generator for the randomized tests.
type lcg uint64

func (g *lcg) next(n uint64) uint64 {
	*g = *g*6364136223846793005 + 1442695040888963407
	return (uint64(*g) >> 33) % n
}

// scanIndex is the oracle of rangeIndex: the ranges in a list, each
// query a scan of all of them.
type scanIndex []Range

func (s *scanIndex) add(r Range, d int) {
	if r.Lo >= r.Hi {
		return
	}
	for ; d > 0; d-- {
		*s = append(*s, r)
	}
	for ; d < 0; d++ {
		if i := slices.Index(*s, r); i >= 0 {
			*s = slices.Delete(*s, i, i+1)
		}
	}
}

func (s scanIndex) overlaps(r Range) bool {
	for _, g := range s {
		if g.Overlaps(r) {
			return true
		}
	}
	return false
}

// TestRangeIndexMatchesScan adds and removes seeded ranges, small and
// large, nested and disjoint, and compares every overlap query of the
// interval index and of the guard set (per-byte counts for short ranges)
// with a scan.
func TestRangeIndexMatchesScan(t *testing.T) {
	for _, span := range []uint64{64, 4096, 1 << 20, 1 << 40, 1<<64 - 1<<12} {
		g := lcg(span)
		var x rangeIndex
		var gs guardSet
		var want scanIndex
		for step := 0; step < 30000; step++ {
			lo := g.next(span)
			size := 1 + g.next(16)
			if g.next(8) == 0 {
				size = 1 + g.next(span/2+1)
			}
			r := Range{lo, lo + size}
			switch g.next(4) {
			case 0:
				x.add(r, 1)
				gs.add(r, 1)
				want.add(r, 1)
			case 1:
				if len(want) > 0 { // remove a present range
					r = want[g.next(uint64(len(want)))]
					x.add(r, -1)
					gs.add(r, -1)
					want.add(r, -1)
				}
			default:
				if g.next(16) == 0 {
					r.Hi = r.Lo // empty queries overlap nothing
				}
				w := want.overlaps(r)
				if got := x.overlaps(r); got != w {
					t.Fatalf("span %d step %d: overlaps(%v) = %v, scan says %v (%d ranges)", span, step, r, got, w, len(want))
				}
				if got := gs.overlaps(r); got != w {
					t.Fatalf("span %d step %d: guard set overlaps(%v) = %v, scan says %v (%d ranges)", span, step, r, got, w, len(want))
				}
			}
			if step%1000 == 0 {
				checkIndexShape(t, &x)
			}
		}
		for len(want) > 0 {
			x.add(want[0], -1)
			gs.add(want[0], -1)
			want.add(want[0], -1)
		}
		if gs.short.live != 0 || len(gs.short.pages) > keptEmptyPages || gs.long.Len() != 0 {
			t.Fatalf("span %d: emptied guard set keeps %d pages, %d of them in use", span, len(gs.short.pages), gs.short.live)
		}
		if x.root != 0 || x.Len() != 0 {
			t.Fatalf("span %d: emptied index keeps %d ranges", span, x.Len())
		}
	}
}

// checkIndexShape checks the treap's invariants: keys in order, heap
// order of priorities, subtree maxima, and the count of distinct ranges.
func checkIndexShape(t *testing.T, x *rangeIndex) {
	t.Helper()
	var walk func(i int32, lo, hi *Range) (n int, maxHi uint64)
	walk = func(i int32, lo, hi *Range) (int, uint64) {
		if i == 0 {
			return 0, 0
		}
		nd := x.nodes[i]
		if (lo != nil && !lo.less(nd.r)) || (hi != nil && !nd.r.less(*hi)) || nd.count <= 0 {
			t.Fatalf("node %v out of order or with count %d", nd.r, nd.count)
		}
		for _, c := range []int32{nd.left, nd.right} {
			if c != 0 && x.nodes[c].prio > nd.prio {
				t.Fatalf("child of %v has a higher priority", nd.r)
			}
		}
		nl, ml := walk(nd.left, lo, &nd.r)
		nr, mr := walk(nd.right, &nd.r, hi)
		if m := max(nd.r.Hi, ml, mr); m != nd.maxHi {
			t.Fatalf("node %v: maxHi %#x, want %#x", nd.r, nd.maxHi, m)
		}
		return 1 + nl + nr, nd.maxHi
	}
	if n, _ := walk(x.root, nil, nil); n != x.Len() {
		t.Fatalf("%d nodes reachable, Len %d", n, x.Len())
	}
}

// scanHazard is the check the Tracker made before it had indexes: a scan
// of the operations in issue order for the oldest offender.
func scanHazard(ops []*Op, r Range, write bool) (rule string, id OpID) {
	for _, op := range ops {
		if write && !op.SourceFree && op.Src.Overlaps(r) {
			return "async-write-source", op.ID
		}
		if op.Dst.Overlaps(r) {
			if write {
				return "async-write-destination", op.ID
			}
			return "async-read-destination", op.ID
		}
	}
	return "", 0
}

// TestTrackerHazardsMatchScan drives a tracker with seeded issues, source
// releases, signals and observations (by ID and by barrier) and compares
// every hazard, rule and offending operation included, with the scan.
func TestTrackerHazardsMatchScan(t *testing.T) {
	g := lcg(99)
	var tr Tracker
	bars := []BarrierRef{{0, 8}, {0, 16}, {1, 8}}
	phases := make([]uint64, len(bars))
	for step := 0; step < 40000; step++ {
		switch g.next(7) {
		case 0, 1:
			lo := g.next(256) * 4
			src := Range{}
			if g.next(2) == 0 {
				s := 2000 + g.next(128)*4
				src = Range{s, s + 4*(1+g.next(8))}
			}
			tr.Issue(Op{Name: "op", Dst: Range{lo, lo + 4*(1+g.next(8))}, Src: src})
		case 2:
			if n := tr.Len(); n > 0 {
				tr.FreeSource(tr.Ops()[g.next(uint64(n))].ID)
			}
		case 3:
			if n := tr.Len(); n > 0 {
				i := g.next(uint64(len(bars)))
				tr.Signal(tr.Ops()[g.next(uint64(n))].ID, bars[i], phases[i])
			}
		case 4:
			if n := tr.Len(); n > 0 && g.next(2) == 0 {
				tr.Observe(tr.Ops()[g.next(uint64(n))].ID)
				break
			}
			i := g.next(uint64(len(bars)))
			phases[i]++
			want := 0
			for _, op := range tr.Ops() {
				if op.Signalled && op.Barrier == bars[i] && op.Phase < phases[i] {
					want++
				}
			}
			if got := tr.ObserveBarrier(bars[i], phases[i]); got != want {
				t.Fatalf("step %d: ObserveBarrier forgot %d, scan says %d", step, got, want)
			}
		default:
			lo := g.next(2600)
			r := Range{lo, lo + 1 + g.next(16)}
			for _, write := range []bool{false, true} {
				rule, id := scanHazard(tr.Ops(), r, write)
				var h *Hazard
				if write {
					h = tr.CheckWrite(r)
				} else {
					h = tr.CheckRead(r)
				}
				switch {
				case h == nil && rule != "":
					t.Fatalf("step %d: no hazard for %v (write %v); scan finds %s of op %d", step, r, write, rule, id)
				case h != nil && (h.Rule != rule || h.Op.ID != id):
					t.Fatalf("step %d: hazard %s of op %d for %v; scan finds %q of op %d", step, h.Rule, h.Op.ID, r, rule, id)
				}
			}
		}
	}
}

// TestTrackerSteadyStateAllocatesNothing: once a tracker has held its
// largest population, issuing, signalling, checking and observing
// operations allocates nothing.
func TestTrackerSteadyStateAllocatesNothing(t *testing.T) {
	var tr Tracker
	b := BarrierRef{CTA: 1, Addr: 8}
	phase := uint64(0)
	round := func() {
		for i := uint64(0); i < 64; i++ {
			id := tr.Issue(Op{Name: "st.async", Dst: Range{0x1000 + 4*i, 0x1004 + 4*i}})
			tr.Land(id)
			tr.Signal(id, b, phase)
		}
		if tr.CheckRead(Range{0x100, 0x200}) != nil {
			t.Fatal("false hazard")
		}
		phase++
		if n := tr.ObserveBarrier(b, phase); n != 64 {
			t.Fatalf("observed %d", n)
		}
	}
	round()
	if a := testing.AllocsPerRun(100, round); a != 0 {
		t.Errorf("%v allocations per round of 64 operations", a)
	}
}

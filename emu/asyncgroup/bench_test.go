package asyncgroup

import "testing"

// BenchmarkStreamRound measures one round of the st.async stream: a warp
// issues 32 four-byte stores to adjacent words, each lands and signals
// one mbarrier, and a wait observes them all. ns/op is per operation.
func BenchmarkStreamRound(b *testing.B) {
	var tr Tracker
	guards := 0
	tr.Counted = func(r Range) bool { return r.Lo < 1<<40 }
	tr.Changed = func(r Range, dst bool, d int) { guards += d }
	bar := BarrierRef{CTA: 1, Addr: 8}
	var ids [32]OpID
	b.ReportAllocs()
	for i := 0; i < b.N; i += 32 {
		for l := range ids {
			lo := uint64(1<<44 + 0x100 + 4*l)
			ids[l] = tr.Issue(Op{Name: "st.async", SiteAt: uint64(l), Dst: Range{Lo: lo, Hi: lo + 4}})
			tr.Land(ids[l])
			tr.Signal(ids[l], bar, uint64(i/32))
		}
		if n := tr.ObserveBarrier(bar, uint64(i/32)+1); n != 32 {
			b.Fatalf("observed %d, want 32", n)
		}
	}
	if guards != 0 || tr.Len() != 0 {
		b.Fatalf("%d guards, %d operations left", guards, tr.Len())
	}
}

// TestHoldGathersSameBytes issues and observes runs of adjacent and
// scattered ranges with and without Hold: Changed must hear the same
// per-byte counts, and the checks must answer the same, at every step.
func TestHoldGathersSameBytes(t *testing.T) {
	var tr [2]Tracker
	var counts [2]map[uint64]int
	for i := range tr {
		counts[i] = map[uint64]int{}
		c := counts[i]
		tr[i].Changed = func(r Range, dst bool, d int) {
			for a := r.Lo; a < r.Hi; a++ {
				c[a] += d
			}
		}
	}
	seed := uint64(1)
	next := func(n int) uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % uint64(n)
	}
	bar := BarrierRef{CTA: 0, Addr: 8}
	for round := 0; round < 200; round++ {
		base := 4096 + 4*next(64)
		n := 1 + int(next(40))
		tr[0].Hold()
		for l := 0; l < n; l++ {
			lo := base + 4*uint64(l)
			if next(5) == 0 {
				lo += 4 * next(100) // a gap, or an overlap with a pending range
			}
			size := 4 * (1 + next(2))
			if next(9) == 0 {
				size = 100 // a long range
			}
			for i := range tr {
				id := tr[i].Issue(Op{Name: "st.async", Dst: Range{Lo: lo, Hi: lo + size}})
				tr[i].Signal(id, bar, uint64(round))
			}
		}
		// tr[0] has not released yet: its own answers must be exact.
		probe := Range{Lo: base, Hi: base + 4}
		if (tr[0].CheckRead(probe) == nil) != (tr[1].CheckRead(probe) == nil) {
			t.Fatalf("round %d: CheckRead differs while held", round)
		}
		tr[0].Release()
		for a, v := range counts[1] {
			if counts[0][a] != v {
				t.Fatalf("round %d: byte %#x counted %d with Hold, %d without", round, a, counts[0][a], v)
			}
		}
		for i := range tr {
			tr[i].ObserveBarrier(bar, uint64(round)+1)
		}
		for i := range counts {
			for a, v := range counts[i] {
				if v != 0 {
					t.Fatalf("round %d: byte %#x still counted %d by tracker %d", round, a, v, i)
				}
			}
		}
	}
}

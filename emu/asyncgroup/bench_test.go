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

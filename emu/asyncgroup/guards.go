package asyncgroup

import "sync"

// guardSet is the multiset of byte ranges that outstanding operations
// guard. Most operations guard a few bytes (cp.async copies 4 to 16,
// st.async stores at most 16, red.async 8) and plain accesses read or
// write at most 32, so short ranges are kept as a count per byte in pages
// of counts, and the rare long ranges (bulk copies) in an interval index:
//
//   - adding or removing a range costs O(its length) for a short range and
//     O(log n) for a long one;
//   - a check of an access of k bytes costs O(k) for the counts plus
//     O(log m) for the m long ranges.
//
// A page whose counts all return to zero stays in place while it is one
// of the last few pages to empty (a stream of operations that fills and
// drains one buffer keeps its page instead of dropping and making it
// again); older empty pages go back to a pool shared by every Tracker,
// so a steady stream of operations allocates nothing and the empty pages
// kept are bounded.
type guardSet struct {
	short byteCounts
	long  rangeIndex
}

// shortRange is the longest range kept as per-byte counts.
const shortRange = 64

func (g *guardSet) add(r Range, d int) {
	switch {
	case r.Lo >= r.Hi:
	case r.Hi-r.Lo <= shortRange:
		g.short.add(r, d)
	default:
		g.long.add(r, d)
	}
}

func (g *guardSet) overlaps(r Range) bool {
	return r.Lo < r.Hi && (g.long.overlaps(r) || g.short.overlaps(r))
}

// Pages cover 256 addresses: a page of counts takes 1 KiB, so however
// scattered the short ranges are, each costs at most two pages (the
// emulator allows 32,769 outstanding operations per cluster, so at most
// 64 MiB per set), while a loop over a tile still finds most accesses in
// the page cache.
const (
	countPageShift = 8
	countPageBytes = 1 << countPageShift
)

// countPage holds, for each byte of one aligned page of addresses, the
// number of short guarded ranges that contain it, and their sum.
type countPage struct {
	n     [countPageBytes]uint32
	sum   int
	key   uint64
	empty bool // listed in byteCounts.empty
}

// keptEmptyPages bounds the empty pages a byteCounts keeps.
const keptEmptyPages = 8

var countPages = sync.Pool{New: func() any { return new(countPage) }}

// byteCounts is a sparse array of per-byte counts, by page.
type byteCounts struct {
	pages map[uint64]*countPage
	live  int          // pages with a non-zero count
	empty []*countPage // pages that emptied, oldest first; some may be in use again

	// Pages looked up recently, present or not, direct-mapped by key: a
	// loop's accesses visit a few pages over and over. Making or dropping
	// a page clears it.
	recent [16]struct {
		key   uint64
		p     *countPage
		valid bool
	}
}

func (b *byteCounts) page(key uint64) *countPage {
	c := &b.recent[key%uint64(len(b.recent))]
	if c.valid && c.key == key {
		return c.p
	}
	p := b.pages[key]
	c.key, c.p, c.valid = key, p, true
	return p
}

// pageEnd returns the end of the part of [lo, hi) in lo's page.
func pageEnd(lo, hi uint64) uint64 {
	next := (lo>>countPageShift + 1) << countPageShift
	if next == 0 || next > hi { // the last page of the address space, or r ends in this page
		return hi
	}
	return next
}

// add changes the count of every byte of r by d.
func (b *byteCounts) add(r Range, d int) {
	for lo := r.Lo; lo < r.Hi; {
		end := pageEnd(lo, r.Hi)
		key := lo >> countPageShift
		p := b.page(key)
		if p == nil {
			if d < 0 {
				return // never added
			}
			if b.pages == nil {
				b.pages = map[uint64]*countPage{}
			}
			p = countPages.Get().(*countPage)
			p.key = key
			b.pages[key] = p
			clear(b.recent[:])
		}
		was := p.sum
		n := p.n[lo&(countPageBytes-1):][:end-lo]
		for i := range n {
			n[i] += uint32(d)
		}
		switch p.sum += d * int(end-lo); {
		case p.sum == 0:
			b.live--
			b.emptied(p)
		case was == 0:
			b.live++
		}
		lo = end
	}
}

// emptied keeps page p, whose counts are all zero again, among the
// recently emptied pages, and drops the oldest of those past
// keptEmptyPages.
func (b *byteCounts) emptied(p *countPage) {
	if !p.empty {
		p.empty = true
		b.empty = append(b.empty, p)
	}
	if len(b.empty) <= keptEmptyPages {
		return
	}
	old := b.empty[0]
	b.empty = append(b.empty[:0], b.empty[1:]...)
	old.empty = false
	if old.sum == 0 {
		delete(b.pages, old.key)
		clear(b.recent[:])
		countPages.Put(old) // every count is zero again
	}
}

// overlaps reports whether some byte of r has a non-zero count.
func (b *byteCounts) overlaps(r Range) bool {
	if b.live == 0 {
		return false
	}
	if (r.Hi-r.Lo)/countPageBytes > uint64(len(b.pages)) {
		return b.overlapsPages(r) // a long range: look at the pages there are
	}
	for lo := r.Lo; lo < r.Hi; {
		end := pageEnd(lo, r.Hi)
		if p := b.page(lo >> countPageShift); p != nil {
			for a := lo; a < end; a++ {
				if p.n[a&(countPageBytes-1)] != 0 {
					return true
				}
			}
		}
		lo = end
	}
	return false
}

func (b *byteCounts) overlapsPages(r Range) bool {
	for key, p := range b.pages {
		first := key << countPageShift
		// [lo, hi] inclusive, so that a page at the top of the address
		// space needs no end past it; a >= lo stops the wrap after it.
		lo, hi := max(r.Lo, first), min(r.Hi-1, first|(countPageBytes-1))
		for a := lo; a <= hi && a >= lo; a++ {
			if p.n[a&(countPageBytes-1)] != 0 {
				return true
			}
		}
	}
	return false
}

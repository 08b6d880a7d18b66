package emu

import "github.com/ptxkit/ptxkit/emu/asyncgroup"

// The granules of a CTA's shared memory its watch must see (CTA.WatchRead,
// CTA.WatchWrite). Reads matter only where an outstanding operation writes
// (its destination); writes also where one reads (its source) and where a
// live mbarrier object lies. Every other access takes the fast load and
// store paths, so a kernel that reads one stage of a buffer while copies
// fill the others pays for the watch only on the accesses the watch could
// report.

// granuleShift is log2 of the bytes per bit of the watch masks.
const granuleShift = 4

// sharedGuards counts, per 16-byte granule of a CTA's shared memory, the
// bytes of it that guarded ranges and live mbarriers cover (with
// multiplicity), and keeps the masks. Counting bytes rather than ranges
// lets the tracker report adjacent ranges as one (asyncgroup.Tracker.Hold).
type sharedGuards struct {
	reads, writes []uint32 // counts per granule
	readMask      []uint64
	writeMask     []uint64
}

func newSharedGuards(c *CTA) *sharedGuards {
	n := (len(c.Shared) + 1<<granuleShift - 1) >> granuleShift
	g := &sharedGuards{reads: make([]uint32, n), writes: make([]uint32, n),
		readMask: make([]uint64, (n+63)/64), writeMask: make([]uint64, (n+63)/64)}
	c.WatchRead, c.WatchWrite = g.readMask, g.writeMask
	return g
}

// add changes by d the count of the granules of [off, off+n) for writes,
// and for reads too when reads is set.
func (g *sharedGuards) add(off, n uint32, reads bool, d int) {
	if n == 0 {
		return
	}
	end := off + n
	lo, hi := off>>granuleShift, (end-1)>>granuleShift
	if int(hi) >= len(g.writes) {
		hi = uint32(len(g.writes)) - 1
		if lo > hi {
			return
		}
	}
	part := func(i uint32) uint32 { // d times the bytes of granule i in the range
		return uint32(d * int(min(end, (i+1)<<granuleShift)-max(off, i<<granuleShift)))
	}
	g.bumpRange(lo, hi, part(lo), uint32(d)<<granuleShift, part(hi), reads)
}

// bumpRange changes the counts of granules lo to hi by first, whole (each
// granule between them) and last (hi, when not lo).
func (g *sharedGuards) bumpRange(lo, hi, first, whole, last uint32, reads bool) {
	bumpCounts(g.writes[lo:hi+1], first, whole, last)
	setMask(g.writeMask, g.writes, lo, hi)
	if reads {
		bumpCounts(g.reads[lo:hi+1], first, whole, last)
		setMask(g.readMask, g.reads, lo, hi)
	}
}

// bumpCounts adds first to c[0], last to the last of c (when not c[0])
// and whole to every count between.
func bumpCounts(c []uint32, first, whole, last uint32) {
	c[0] += first
	if len(c) == 1 {
		return
	}
	mid := c[1 : len(c)-1]
	for i := range mid {
		mid[i] += whole
	}
	c[len(c)-1] += last
}

// setMask sets the mask bits of granules lo to hi to whether their counts
// are non-zero, a mask word at a time.
func setMask(mask []uint64, counts []uint32, lo, hi uint32) {
	for lo <= hi {
		end := min(hi, lo|63) // the last granule of lo's mask word
		var set uint64
		for i, c := range counts[lo : end+1] {
			if c != 0 {
				set |= 1 << ((lo + uint32(i)) % 64)
			}
		}
		span := ^uint64(0) >> (63 - (end - lo)) << (lo % 64)
		mask[lo/64] = mask[lo/64]&^span | set
		lo = end + 1
	}
}

// guardChanged is the tracker's Changed hook: a destination (dst) or
// source range r is guarded (d = 1) or no longer (d = -1). Ranges in
// shared memory update the masks of the CTA they lie in.
func (cs *clusterAsync) guardChanged(r asyncgroup.Range, dst bool, d int) {
	for lo := r.Lo; lo < r.Hi; {
		if genericSpace(lo) != SpaceSharedCluster {
			return
		}
		a := lo - sharedWindow
		hi := min(r.Hi, lo+(1<<sharedRankShift-a&sharedOffMask)) // the part in this CTA's window
		rank := int(a>>sharedRankShift) - 1
		if rank >= 0 && rank < len(cs.cl.CTAs) {
			cs.guardsOf(rank).add(uint32(a&sharedOffMask), uint32(hi-lo), dst, d)
		}
		lo = hi
	}
}

// guardsOf returns the watch granules of the CTA of the given rank.
func (cs *clusterAsync) guardsOf(rank int) *sharedGuards {
	if cs.guards == nil {
		cs.guards = make([]*sharedGuards, len(cs.cl.CTAs))
	}
	g := cs.guards[rank]
	if g == nil {
		g = asyncCTA(cs.cl.CTAs[rank]).guards
		cs.guards[rank] = g
	}
	return g
}

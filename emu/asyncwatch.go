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
	for i := lo; i <= hi; i++ {
		k := uint32(d) << granuleShift // a whole granule
		if i == lo || i == hi {
			k = uint32(d * int(min(end, (i+1)<<granuleShift)-max(off, i<<granuleShift)))
		}
		bump(g.writes, g.writeMask, i, k)
		if reads {
			bump(g.reads, g.readMask, i, k)
		}
	}
}

func bump(counts []uint32, mask []uint64, i uint32, d uint32) {
	c := counts[i] + d
	counts[i] = c
	bit := uint64(1) << (i % 64)
	if c != 0 {
		mask[i/64] |= bit
	} else {
		mask[i/64] &^= bit
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

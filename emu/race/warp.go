package race

import "math/bits"

// Warp-level checks: the accesses of one warp-instruction's lanes, checked
// in one call. They make exactly the checks and records of one
// CheckShared or CheckGlobal per lane, lane by lane in increasing order
// (the same instance, the same records, the same first race), with the
// actor set up once instead of once per lane. Only weak accesses come
// this way: a strong access's release or acquire (Strong) runs between
// its lanes' checks and changes what the next lane knows.

// WarpShared checks the n-byte accesses of the lanes in exec (not empty)
// of warp wi of CTA rank to that CTA's shared memory (size bytes), lane
// l at offset addr[l]-rel. It returns the first lane whose access races
// and the race (the lanes before it are checked and recorded, that lane
// and the ones after it are not), or -1 and nil.
func (c *Cluster) WarpShared(rank, wi int, exec uint32, addr *[32]uint64, rel uint64, n, size int, k *Kind) (int, *Race) {
	a := &c.act
	first := bits.TrailingZeros32(exec)
	c.threadActor(a, Thread{Rank: rank, Warp: wi, Lane: first}, k)
	ps := c.sharedPages(rank, size)
	base := a.self - uint32(first)
	prev := first
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if l != first {
			c.nextLane(a, base, l)
		}
		off := addr[l] - rel
		var r *Race
		// One page holds the whole access (the fast handlers' accesses
		// are aligned and at most 16 bytes): sharedActor's loop once.
		if pn := off >> 2 >> pageBits; pn < uint64(len(ps)) && (off+uint64(n)-1)>>2>>pageBits == pn {
			if l != first && off == addr[prev]-rel && c.sameRead(&ps[pn], pn<<pageBits<<2, off, n, a, base) {
				prev = l
				continue
			}
			r = c.run(&ps[pn], pn<<pageBits<<2, off, n, a)
		} else {
			r = c.sharedActor(a, rank, uint32(off), n, size)
		}
		if r != nil {
			return l, r
		}
		prev = l
	}
	c.G.warpChecks++
	return -1, nil
}

// WarpGlobal is WarpShared for global memory, lane l at address
// addr[l]+disp. It also stops after the first lane whose access fills
// the shadow of global memory (Full), returning that lane and no race:
// the per-lane path reports it there.
func (c *Cluster) WarpGlobal(rank, wi int, exec uint32, addr *[32]uint64, disp uint64, n int, k *Kind) (int, *Race) {
	a := &c.act
	first := bits.TrailingZeros32(exec)
	c.threadActor(a, Thread{Rank: rank, Warp: wi, Lane: first}, k)
	base := a.self - uint32(first)
	g := c.G
	prev := first
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if l != first {
			c.nextLane(a, base, l)
		}
		at := addr[l] + disp
		var r *Race
		if pn := at >> 2 >> pageBits; (at+uint64(n)-1)>>2>>pageBits == pn {
			p := g.page(pn)
			if l != first && at == addr[prev]+disp && c.sameRead(p, pn<<pageBits<<2, at, n, a, base) {
				prev = l
				continue
			}
			r = c.run(p, pn<<pageBits<<2, at, n, a)
		} else {
			r = c.globalActor(a, at, n)
		}
		if r != nil {
			return l, r
		}
		if g.Full() {
			return l, nil
		}
		prev = l
	}
	g.warpChecks++
	return -1, nil
}

// nextLane moves actor a, set up by threadActor for an earlier lane of
// the same warp-instruction, to lane l (thread slot base+l): what
// threadActor would set for that lane. The warp, its knowledge, the kind
// and the instance stay (begin numbers the lanes of one instruction as
// one instance, so the instance's record stays too).
func (c *Cluster) nextLane(a *actor, base uint32, l int) {
	a.self, a.clk, a.lane = base+uint32(l), a.w.clk[l], uint32(l)
	if a.async {
		a.extra, a.xclk = a.self, a.clk
	}
	c.lastLane = int32(l)
}

// sameRead reports whether a read by actor a of the n bytes at off (page p
// starting at byte base) would leave the shadow as it is and find no race,
// when the lane before it in the same warp-instruction read the same bytes
// and found none: each word's read handle is that lane's, of the
// instance's record (so record keeps it), and its write handle is no
// split and names no thread of the warp (slots [warp, warp+32)), whose
// knowledge of it the lanes share (knowsH differs between lanes only for a
// lane's own slot). check and record then do for this lane exactly what
// they did for the one before. A broadcast read (every lane one word)
// costs one check.
func (c *Cluster) sameRead(p *page, base, off uint64, n int, a *actor, warp uint32) bool {
	if a.write || a.async || a.rec == 0 || p.r == nil || off&3 != 0 || n&3 != 0 {
		return false
	}
	g := c.G
	for b := off; b < off+uint64(n); b += 4 {
		i := (b - base) >> 2
		r := p.r[i]
		if r&tag != 0 || r>>laneBits != a.rec {
			return false
		}
		if p.w == nil {
			continue
		}
		w := p.w[i]
		if w == 0 {
			continue
		}
		if w&tag != 0 {
			return false
		}
		rec := &g.recs.items[w>>laneBits]
		if s := rec.slot + w&(1<<laneBits-1); rec.cl == a.cl && s >= warp && s < warp+32 {
			return false
		}
	}
	return true
}

package race

// Synchronisation: what each ordering construct releases and acquires.

// BarArrive records that the lanes in mask of warp (rank, wi) arrived at
// named barrier b of their CTA (bar.sync, bar.arrive, bar.red): what they
// know is released to the barrier's current instance.
func (c *Cluster) BarArrive(rank, wi, b int, mask uint32) {
	key := rank*16 + b
	acc := c.bars[key]
	if acc == nil {
		acc = newKnow(2 * c.T)
		c.bars[key] = acc
	}
	c.joinLanes(acc, rank, wi, mask)
}

// joinLanes releases what the lanes in mask of a warp know into acc.
func (c *Cluster) joinLanes(acc *Know, rank, wi int, mask uint32) {
	w := &c.warps[rank*c.perCTAW+wi]
	acc.join(w.k)
	for m := mask; m != 0; m &= m - 1 {
		l := lowBit(m)
		acc.point(c.slot(Thread{rank, wi, l}), w.clk[l])
		w.tick(l)
	}
}

// BarWaiter is the completion of a named barrier's instance for warp wi
// of CTA rank, which waited at it: it acquires acc, what every arriving
// thread released (BarTake), and what its relaxed strong reads read.
func (c *Cluster) BarWaiter(rank, b, wi int, acc *Know) {
	w := &c.warps[rank*c.perCTAW+wi]
	w.acquire(acc)
	c.acquirePending(w, int32(rank), ScopeSys)
}

// BarTake removes and returns the accumulated knowledge of barrier b's
// instance that completes now.
func (c *Cluster) BarTake(rank, b int) *Know {
	key := rank*16 + b
	acc := c.bars[key]
	delete(c.bars, key)
	return acc
}

// WarpSync is bar.warp.sync by the lanes in mask of warp (rank, wi): they
// exchange what they know (§9.7.13.3: memory ordering among the
// participating threads).
func (c *Cluster) WarpSync(rank, wi int, mask uint32) {
	if mask&(mask-1) == 0 {
		return
	}
	w := &c.warps[rank*c.perCTAW+wi]
	k := w.own()
	for m := mask; m != 0; m &= m - 1 {
		l := lowBit(m)
		k.point(c.slot(Thread{rank, wi, l}), w.clk[l])
		w.tick(l)
	}
}

// ClusterArrive is barrier.cluster.arrive (release unless relaxed). A
// relaxed arrive after a release fence (fence.mbarrier_init.release.cluster,
// fence.acq_rel) releases what the fence released.
func (c *Cluster) ClusterArrive(rank, wi int, mask uint32, release bool) {
	if c.cbAcc == nil {
		c.cbAcc = newKnow(2 * c.T)
	}
	if release {
		c.joinLanes(c.cbAcc, rank, wi, mask)
		return
	}
	w := &c.warps[rank*c.perCTAW+wi]
	for m := mask; m != 0; m &= m - 1 {
		if f := w.fence[lowBit(m)]; f.s.K != nil && f.scope >= ScopeCluster {
			joinSnap(c.cbAcc, f.s)
		}
	}
}

// ClusterPhaseDone completes a phase of the cluster barrier.
func (c *Cluster) ClusterPhaseDone() {
	if c.cbAcc == nil {
		return
	}
	if c.cbDone == nil {
		c.cbDone = c.cbAcc
	} else {
		c.cbDone.join(c.cbAcc)
	}
	c.cbAcc = nil
}

// ClusterWait is barrier.cluster.wait returning for warp (rank, wi)
// (acquire unless relaxed).
func (c *Cluster) ClusterWait(rank, wi int, acquire bool) {
	if !acquire {
		return
	}
	w := &c.warps[rank*c.perCTAW+wi]
	w.acquire(c.cbDone)
	c.acquirePending(w, int32(rank), ScopeSys)
}

func lowBit(m uint32) int {
	n := 0
	for m&1 == 0 {
		m >>= 1
		n++
	}
	return n
}

// mbar is the clock of one mbarrier object: the knowledge released into
// its current phase and into the phases completed so far.
type mbar struct {
	acc, done *Know
}

func (c *Cluster) mbarAt(key uint64) *mbar {
	m := c.mbars[key]
	if m == nil {
		m = &mbar{}
		c.mbars[key] = m
	}
	return m
}

// MbarKey names the mbarrier at offset off of CTA rank.
func MbarKey(rank int, off uint32) uint64 { return uint64(rank)<<32 | uint64(off) }

// MbarInit forgets the clocks of a (re)initialised mbarrier.
func (c *Cluster) MbarInit(key uint64) { delete(c.mbars, key) }

// MbarArrive releases what thread t knows into the current phase of the
// mbarrier key; completed says the arrival completed the phase.
func (c *Cluster) MbarArrive(t Thread, key uint64, release, completed bool) {
	m := c.mbarAt(key)
	f := c.warpOf(t).fence[t.Lane]
	if release || f.s.K != nil {
		if m.acc == nil {
			m.acc = newKnow(2 * c.T)
		}
		if release {
			joinSnap(m.acc, c.snap(t))
		} else {
			joinSnap(m.acc, f.s) // a relaxed arrive after a release fence
		}
	}
	if completed {
		m.complete()
	}
}

// MbarSignal releases an asynchronous operation's knowledge (its issue
// snapshot and its agent's epoch) into the mbarrier's current phase:
// complete-tx by the async proxy.
func (c *Cluster) MbarSignal(op uint64, key uint64, completed bool) {
	m := c.mbarAt(key)
	if o, ok := c.ops[op]; ok {
		if m.acc == nil {
			m.acc = newKnow(2 * c.T)
		}
		joinSnap(m.acc, o.issuer)
		m.acc.point(o.agent, o.clk)
	}
	if completed {
		m.complete()
	}
}

func (m *mbar) complete() {
	if m.acc == nil {
		return
	}
	if m.done == nil {
		m.done = m.acc
	} else {
		m.done.join(m.acc)
	}
	m.acc = nil
}

// MbarWait is a wait on the mbarrier that observed a completed phase:
// the waiting lanes' warp acquires what the completed phases released.
func (c *Cluster) MbarWait(t Thread, key uint64, acquire bool) {
	m := c.mbars[key]
	if m == nil || m.done == nil {
		return
	}
	w := c.warpOf(t)
	if acquire {
		w.acquire(m.done)
		return
	}
	// A relaxed wait: a later acquire fence takes what it observed.
	w.keep([]locEntry{{cl: c.Index, rank: int32(key >> 32), scope: ScopeCluster, k: m.done}})
}

// keep adds releases a relaxed read observed to the warp's pending ones
// (once each: a polling loop reads the same release again and again).
func (w *warp) keep(ents []locEntry) {
next:
	for _, e := range ents {
		for _, p := range w.pending {
			if p.k == e.k && p.cl == e.cl && p.rank == e.rank && p.scope == e.scope {
				continue next
			}
		}
		w.pending = append(w.pending, e)
	}
}

// loc is the clock of a location written by release stores or
// read-modify-writes: per releasing cluster, CTA and scope, what was
// released there.
type loc struct {
	ents []locEntry
}

type locEntry struct {
	cl    int32
	rank  int32
	scope Scope
	k     *Know
}

func (c *Cluster) locAt(global bool, key uint64, create bool) *loc {
	m := c.locs
	if global {
		m = c.G.locs
	}
	l := m[key]
	if l == nil && create {
		l = &loc{}
		m[key] = l
	}
	return l
}

// publish releases snapshot s of cluster c (CTA rank) at scope into l.
func (l *loc) publish(c *Cluster, rank int32, scope Scope, s Snap) {
	if scope >= ScopeGPU {
		c.G.setState(c.Index, clExposed)
	}
	for i := range l.ents {
		e := &l.ents[i]
		if e.cl == c.Index && e.rank == rank && e.scope == scope {
			joinSnap(e.k, s)
			return
		}
	}
	k := newKnow(len(s.K.V))
	joinSnap(k, s)
	l.ents = append(l.ents, locEntry{cl: c.Index, rank: rank, scope: scope, k: k})
}

// visible returns the knowledge of l that an acquire at scope by a thread
// of CTA rank of cluster c synchronises with: entries whose scope and the
// acquire's scope both include the other side.
func (l *loc) visible(c *Cluster, rank int32, scope Scope) []locEntry {
	var out []locEntry
	for _, e := range l.ents {
		if scopeIncludes(e.scope, e.cl, e.rank, c.Index, rank) && scopeIncludes(scope, c.Index, rank, e.cl, e.rank) {
			out = append(out, e)
		}
	}
	return out
}

func scopeIncludes(s Scope, cl, rank, ocl, orank int32) bool {
	switch s {
	case ScopeCTA:
		return cl == ocl && rank == orank
	case ScopeCluster:
		return cl == ocl
	case ScopeNone:
		return false
	}
	return true
}

// take adds the entries to k: knowledge of the acquirer's own cluster
// joins V, that of other clusters joins Foreign.
func (c *Cluster) take(w *warp, ents []locEntry) {
	for _, e := range ents {
		if e.cl == c.Index {
			w.acquire(e.k)
			continue
		}
		probe := &Know{V: w.k.V, Foreign: map[int32][]uint32{e.cl: e.k.V}}
		if w.k.covers(probe) && w.k.covers(&Know{V: w.k.V, Foreign: e.k.Foreign}) {
			continue
		}
		k := w.own()
		k.joinForeign(e.cl, e.k.V)
		for cl, v := range e.k.Foreign {
			if cl == c.Index {
				joinVec(k.V, v)
			} else {
				k.joinForeign(cl, v)
			}
		}
	}
}

// Sem is the memory-ordering semantics of a strong operation.
type Sem uint8

const (
	SemRelaxed Sem = iota
	SemAcquire
	SemRelease
	SemAcqRel
)

// Strong records the synchronising effect of a strong (non-weak) access
// by thread t to a location (global address, or rank<<32|offset of shared
// memory): a release publishes what t knows (or, for a relaxed write after
// a release fence, what the fence released); an acquire takes what was
// released there; a relaxed read keeps it for the thread's next acquire
// fence.
func (c *Cluster) Strong(t Thread, global bool, key uint64, read, write bool, sem Sem, scope Scope) {
	w := c.warpOf(t)
	rank := int32(t.Rank)
	if read {
		if l := c.locAt(global, key, false); l != nil {
			if ents := l.visible(c, rank, scope); len(ents) > 0 {
				if sem == SemAcquire || sem == SemAcqRel {
					c.take(w, ents)
				} else {
					w.keep(ents)
				}
			}
		}
	}
	if !write {
		return
	}
	switch {
	case sem == SemRelease || sem == SemAcqRel:
		c.locAt(global, key, true).publish(c, rank, scope, c.snap(t))
	case w.fence[t.Lane].s.K != nil:
		f := w.fence[t.Lane]
		c.locAt(global, key, true).publish(c, rank, min(f.scope, scope), f.s)
	}
}

// Fence is fence{.sem}.scope / membar by thread t: a release fence makes
// the thread's later strong writes release what it knows now; an acquire
// fence takes what its earlier relaxed strong reads read.
func (c *Cluster) Fence(t Thread, sem Sem, scope Scope) {
	w := c.warpOf(t)
	if sem == SemAcquire || sem == SemAcqRel {
		c.acquirePending(w, int32(t.Rank), scope)
	}
	if sem == SemRelease || sem == SemAcqRel {
		w.fence[t.Lane] = fenceSnap{s: c.snap(t), scope: scope}
	}
}

// acquirePending takes, for warp w of CTA rank, the releases its relaxed
// strong reads read whose releasing thread an acquire at scope reaches
// (a fence; barriers pass ScopeSys), and forgets the others.
func (c *Cluster) acquirePending(w *warp, rank int32, scope Scope) {
	if len(w.pending) == 0 {
		return
	}
	take := w.pending[:0]
	for _, e := range w.pending {
		if scopeIncludes(scope, c.Index, rank, e.cl, e.rank) {
			take = append(take, e)
		}
	}
	c.take(w, take)
	w.pending = w.pending[:0]
}

// ProxyFence is fence.proxy.async by thread t: the generic-proxy writes
// it made or knows of become visible to the async proxy.
func (c *Cluster) ProxyFence(t Thread) {
	w := c.warpOf(t)
	s := c.snap(t)
	p := &w.proxy[t.Lane]
	copy(p[1:], p[:3])
	p[0] = s.Clk + 1
}

package race

// Tensor Memory (tcgen05). A warp's tcgen05.st and tcgen05.ld are
// asynchronous operations of its agent (the agent of its lane 0: the
// instructions are warp-collective and waited for by the whole warp):
//
//   - tcgen05.wait::st / wait::ld make the warp's earlier stores (loads)
//     complete for the warp itself;
//   - tcgen05.fence::before_thread_sync makes what the warp waited for part
//     of what its next thread synchronisation (bar.sync, an mbarrier
//     arrive, ...) releases; tcgen05.commit implies it, and its arrive-on
//     releases the warp's tcgen05 operations into the mbarrier;
//   - tcgen05.fence::after_thread_sync makes what the warp has acquired by
//     thread synchronisation visible to its later tcgen05 operations, which
//     otherwise know only what they knew at the warp's previous such fence.

// tmemPages returns the shadow of CTA rank's Tensor Memory: 128 lanes of
// 512 32-bit columns, word lane*512 + column.
func (c *Cluster) tmemPages(rank int) []page {
	if c.tmem == nil {
		c.tmem = make([][]page, len(c.shared))
	}
	if c.tmem[rank] == nil {
		c.tmem[rank] = make([]page, 128*512/pageWords)
	}
	return c.tmem[rank]
}

// TmemAccess checks and records a warp-collective tcgen05.st (write) or
// tcgen05.ld of warp (rank, wi) to the lanes [lane0, lane0+lanes) and
// columns [col0, col0+cols) of its CTA's Tensor Memory, issued at pc.
func (c *Cluster) TmemAccess(rank, wi, lane0, lanes, col0, cols int, write bool, pc int32) *Race {
	t := Thread{Rank: rank, Warp: wi}
	w := c.warpOf(t)
	s := c.slot(t)
	c.agentClk[s]++
	a := actor{cl: c.Index, k: w.tcView, self: uint32(c.T) + s, clk: c.agentClk[s], extra: s, xclk: w.clk[0],
		rank: int32(rank), pc: pc, write: write, inst: c.begin(t, pc)}
	if write {
		w.tcSt = a.clk
	} else {
		w.tcLd = a.clk
	}
	return c.tmemRange(&a, rank, lane0, lanes, col0, cols)
}

// tmemRange applies a to the cells [lane0, lane0+lanes) x [col0,
// col0+cols) of rank's Tensor Memory; a race's Offset is lane<<16|column.
func (c *Cluster) tmemRange(a *actor, rank, lane0, lanes, col0, cols int) *Race {
	ps := c.tmemPages(rank)
	for l := lane0; l < lane0+lanes && l < 128; l++ {
		for col := col0; col < col0+cols && col < 512; col++ {
			i := l*512 + col
			p := &ps[i>>pageBits]
			if p.w == nil {
				p.w = c.G.newArray(p)
			}
			if p.r == nil {
				p.r = c.G.newArray(p)
			}
			if r := c.word(&p.w[i&(pageWords-1)], &p.r[i&(pageWords-1)], a, 0, 0); r != nil {
				r.Offset = l<<16 | col
				return r
			}
		}
	}
	return nil
}

// TmemWait is tcgen05.wait::st (ld false) or wait::ld by warp (rank, wi).
func (c *Cluster) TmemWait(rank, wi int, ld bool) {
	t := Thread{Rank: rank, Warp: wi}
	w := c.warpOf(t)
	clk := w.tcSt
	if ld {
		clk = w.tcLd
	}
	if clk == 0 {
		return
	}
	a := uint32(c.T) + c.slot(t)
	w.tcDone = max(w.tcDone, clk)
	if w.tcView.V[a] < clk {
		v := w.tcView.clone()
		v.point(a, clk)
		w.tcView = v
	}
}

// TmemFence is tcgen05.fence::before_thread_sync (before true) or
// ::after_thread_sync by warp (rank, wi).
func (c *Cluster) TmemFence(rank, wi int, before bool) {
	t := Thread{Rank: rank, Warp: wi}
	w := c.warpOf(t)
	if before {
		if a := uint32(c.T) + c.slot(t); w.tcDone > w.k.V[a] {
			w.own().point(a, w.tcDone)
		}
		return
	}
	w.shared = true
	w.tcView = w.k
}

// TmemCommit is tcgen05.commit by lane l of warp (rank, wi): it implies
// fence::before_thread_sync, and its arrive-on, once the warp's earlier
// tcgen05 operations complete, releases them and what the thread knows
// into the mbarrier key; completed says the arrive-on completed a phase.
func (c *Cluster) TmemCommit(t Thread, key uint64, s Snap, agentClk, mmaClk uint32, completed bool) {
	m := c.mbarAt(key)
	if m.acc == nil {
		m.acc = newKnow(2 * c.T)
	}
	joinSnap(m.acc, s)
	m.acc.point(uint32(c.T)+c.slot(Thread{Rank: t.Rank, Warp: t.Warp}), agentClk)
	m.acc.point(uint32(c.T)+c.mmaSlot(t.Rank, t.Warp), mmaClk)
	if completed {
		m.complete()
	}
}

// TmemCommitIssue returns what a tcgen05.commit by thread t releases when
// its arrive-on lands: the thread's knowledge and its warp's tcgen05 agent
// clock, and the clock of its MMAs' agent.
func (c *Cluster) TmemCommitIssue(t Thread) (s Snap, agent, mma uint32) {
	w := c.warpOf(t)
	agent = c.agentClk[c.slot(Thread{Rank: t.Rank, Warp: t.Warp})]
	mma = c.agentClk[c.mmaSlot(t.Rank, t.Warp)]
	w.tcDone = max(w.tcDone, agent)
	c.TmemFence(t.Rank, t.Warp, true)
	return c.snap(t), agent, mma
}

// TmemOp is an asynchronous tcgen05 operation that writes Tensor Memory
// when it lands (tcgen05.mma): its agent epoch and what it knew at issue.
// A warp's tcgen05.mma run on the agent of its last lane (its
// tcgen05.st/ld on that of lane 0), so that the warp's own tcgen05.ld of
// an MMA's D is ordered only by waiting on the MMA's tcgen05.commit. Its
// records keep the issuing lane (recMeta.issuer): reports name the thread
// that issued the MMA, not the agent's lane.
type TmemOp struct {
	a  actor
	rd uint32 // the record of its operand reads, once made
}

// mmaSlot is the thread slot whose agent runs warp (rank, wi)'s MMAs.
func (c *Cluster) mmaSlot(rank, wi int) uint32 {
	return c.slot(Thread{Rank: rank, Warp: wi, Lane: min(31, c.PerCTA-wi*32-1)})
}

// TmemIssue is the issue of a tcgen05.mma by thread t at pc.
func (c *Cluster) TmemIssue(t Thread, pc int32) *TmemOp {
	w := c.warpOf(t)
	s := c.mmaSlot(t.Rank, t.Warp)
	c.agentClk[s]++
	return &TmemOp{a: actor{cl: c.Index, k: w.tcView, self: uint32(c.T) + s, clk: c.agentClk[s], extra: c.slot(t), xclk: w.clk[t.Lane],
		rank: int32(t.Rank), pc: pc, write: true}}
}

// TmemOpOperand checks and records op's read of n bytes of rank's shared
// memory at off (an operand that a descriptor names): a read of the
// async proxy, made with what the issuing thread knew, so generic-proxy
// writes to it need fence.proxy.async.
func (c *Cluster) TmemOpOperand(op *TmemOp, rank int, off uint32, n, size int) *Race {
	a := op.a
	it, _ := c.SlotThread(a.extra)
	a.k, a.write, a.async, a.rec = c.warpOf(it).k, false, true, op.rd
	r := c.sharedActor(&a, rank, off, n, size)
	op.rd = a.rec
	return r
}

// TmemOpWrite checks and records op's write of the lanes [lane0,
// lane0+lanes) and columns [col0, col0+cols) of CTA rank's Tensor Memory
// as it lands.
func (c *Cluster) TmemOpWrite(op *TmemOp, rank, lane0, lanes, col0, cols int) *Race {
	return c.tmemRange(&op.a, rank, lane0, lanes, col0, cols)
}

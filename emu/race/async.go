package race

// Asynchronous operations: each runs on its issuing thread's agent. Its
// accesses happen after the issue (they know what the issuer knew) and
// before the completion that a wait observes (the observer learns the
// agent's clock).

type opEpoch struct {
	issuer Snap
	agent  uint32
	clk    uint32
	pc     int32
	inst   uint32 // the issuing warp-instruction's instance
}

// Issue records that thread t issued asynchronous operation op at pc.
func (c *Cluster) Issue(t Thread, op uint64, pc int32) {
	inst := c.begin(t, pc)
	s := c.snap(t)
	a := s.Slot
	c.agentClk[a]++
	c.ops[op] = opEpoch{issuer: s, agent: uint32(c.T) + a, clk: c.agentClk[a], pc: pc, inst: inst}
}

// opRec caches the record of the operations one warp-instruction issued
// (their lanes' agents share it when their clocks agree), per kind of
// access.
type opRec struct {
	inst, clk uint32
	flags     uint8
	rec       uint32
}

const opRecs = 64

// opRecord sets a.rec to a record shared with the other operations of
// the same warp-instruction when one fits.
func (c *Cluster) opRecord(a *actor, o *opEpoch) {
	var f uint8
	if a.write {
		f |= fWrite
	}
	if a.rmw {
		f |= fRMW
	}
	if a.async {
		f |= fAsync
	}
	f |= uint8(a.scope) << 4
	e := &c.opRecs[(o.inst*4+uint32(f))%opRecs]
	if e.rec != 0 && e.inst == o.inst && e.clk == o.clk && e.flags == f {
		a.rec = e.rec
		return
	}
	a.rec = c.newRecord(a)
	*e = opRec{inst: o.inst, clk: o.clk, flags: f, rec: a.rec}
}

// opActor is operation op's agent making an access of kind k (its PC is
// the issuing instruction's). Reductions (red.async, cp.reduce.async.bulk)
// are atomic per element: k.RMW with their scope.
func (c *Cluster) opActor(op uint64, k Kind) (actor, bool) {
	o, ok := c.ops[op]
	if !ok {
		return actor{}, false
	}
	a := actor{cl: c.Index, k: o.issuer.K, self: o.agent, clk: o.clk, extra: o.issuer.Slot, xclk: o.issuer.Clk,
		rank: c.rankOf(o.issuer.Slot), async: k.Async, pc: o.pc, write: k.Write, rmw: k.RMW, scope: k.Scope,
	}
	it, _ := c.SlotThread(o.issuer.Slot)
	a.lane = uint32(it.Lane)
	c.opRecord(&a, &o)
	return a, true
}

// OpShared checks and records operation op's access to n bytes of rank's
// shared memory at off.
func (c *Cluster) OpShared(op uint64, rank int, off uint32, n, size int, k Kind) *Race {
	a, ok := c.opActor(op, k)
	if !ok {
		return nil
	}
	return c.sharedActor(&a, rank, off, n, size)
}

// OpGlobal checks and records operation op's access to n bytes of global
// memory at addr.
func (c *Cluster) OpGlobal(op uint64, addr uint64, n int, k Kind) *Race {
	a, ok := c.opActor(op, k)
	if !ok {
		return nil
	}
	return c.globalActor(&a, addr, n)
}

// Observed is a wait by thread t that observed operation op complete:
// the thread's warp learns the agent's clock.
func (c *Cluster) Observed(t Thread, op uint64) {
	o, ok := c.ops[op]
	if !ok {
		return
	}
	w := c.warpOf(t)
	if w.k.V[o.agent] >= o.clk {
		return
	}
	w.own().point(o.agent, o.clk)
}

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
}

// Issue records that thread t issued asynchronous operation op at pc.
func (c *Cluster) Issue(t Thread, op uint64, pc int32) {
	s := c.snap(t)
	a := s.Slot
	c.agentClk[a]++
	c.ops[op] = opEpoch{issuer: s, agent: uint32(c.T) + a, clk: c.agentClk[a], pc: pc}
}

// opActor is operation op's agent making an access of kind k (its PC is
// the issuing instruction's). Reductions (red.async, cp.reduce.async.bulk)
// are atomic per element: k.RMW with their scope.
func (c *Cluster) opActor(op uint64, k Kind) (actor, bool) {
	o, ok := c.ops[op]
	if !ok {
		return actor{}, false
	}
	return actor{cl: c.Index, k: o.issuer.K, self: o.agent, clk: o.clk, extra: o.issuer.Slot, xclk: o.issuer.Clk,
		rank: c.rankOf(o.issuer.Slot), async: k.Async, pc: o.pc, write: k.Write, rmw: k.RMW, scope: k.Scope}, true
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

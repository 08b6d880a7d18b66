package emu

import "github.com/ptxkit/ptxkit/ptx/token"

// AsyncPolicy chooses when issued asynchronous operations land (DIGEST §4:
// an async operation may take effect at any point between its issue and
// the completion signal a thread waits for).
type AsyncPolicy uint8

const (
	// AsyncEager lands every operation inside Issue, before the issuing
	// instruction completes.
	AsyncEager AsyncPolicy = iota
	// AsyncDelayed lands operations as late as possible: only when no warp
	// of the cluster can make progress (every warp waits), oldest first,
	// and when the cluster ends.
	AsyncDelayed
	// AsyncRandom gives each operation a seeded random delay in
	// warp-instructions; stalls land a random pending operation early.
	AsyncRandom
)

func (p AsyncPolicy) String() string {
	return [...]string{"eager", "delayed", "random"}[p]
}

// maxAsyncDelay bounds the random delay of AsyncRandom, in warp-instructions.
const maxAsyncDelay = 4096

// AsyncOp is an operation whose effects land after the instruction that
// issued it has completed: st.async, red.async, cp.async, bulk copies,
// tcgen05 operations, cp.async.mbarrier.arrive.
//
// Land performs the memory effects and then the completion mechanism
// (complete-tx on an mbarrier, marking an async-group done, ...). It runs on
// the cluster's goroutine between two instructions, at a point the policy
// chooses; a non-nil report stops the run. Waits that depend on the
// operation return Retry until it has landed; when every warp waits, the
// scheduler lands a pending operation before declaring a deadlock.
type AsyncOp struct {
	Kind   string    // "st.async", "cp.async.bulk", ... for reports
	Pos    token.Pos // of the issuing instruction
	Issuer ThreadID
	Land   func(c *Cluster) *Report

	Issued uint64 // cluster step at issue
	Due    uint64 // step at which AsyncRandom lands it
	seq    uint64
	q      *queuedOp // the operation of the async state that issued it
}

// Issue queues op (or, under AsyncEager, lands it at once).
func (c *Cluster) Issue(op *AsyncOp) *Report {
	op.Issued = c.steps
	op.seq = c.issueSeq
	c.issueSeq++
	switch c.cfg.Async {
	case AsyncEager:
		return c.land(op)
	case AsyncRandom:
		op.Due = c.steps + uint64(c.choose(ChoiceDelay, maxAsyncDelay, 0))
		if len(c.async) == 0 || op.Due < c.nextDue {
			c.nextDue = op.Due
		}
	}
	if len(c.async) >= maxQueuedAsync {
		// Landing early is always allowed; it keeps a kernel that never
		// waits from queueing without bound.
		oldest := c.async[0]
		c.async = append(c.async[:0], c.async[1:]...)
		if r := c.land(oldest); r != nil {
			return r
		}
	}
	c.async = append(c.async, op)
	return nil
}

// IssueFrom queues op issued by lane l of w, filling its position and
// issuer; a report from an eager landing becomes the run's report and the
// handler should return Fault.
func (w *Warp) IssueFrom(l int, op *AsyncOp) Status {
	in := &w.prog.Insts[w.pc]
	op.Pos = in.Pos
	op.Issuer = *w.threadID(l)
	if r := w.CTA.cluster.Issue(op); r != nil {
		w.CTA.cluster.fail(r)
		return Fault
	}
	return Continue
}

// PendingAsync returns the number of operations issued but not landed.
func (c *Cluster) PendingAsync() int { return len(c.async) }

// LandWhere lands, in issue order, every pending operation for which keep
// returns true. Waits that must force completion (cp.async.wait_group under
// any policy) use it instead of Retry.
func (c *Cluster) LandWhere(match func(*AsyncOp) bool) *Report {
	for i := 0; i < len(c.async); {
		op := c.async[i]
		if !match(op) {
			i++
			continue
		}
		c.async = append(c.async[:i], c.async[i+1:]...)
		if r := c.land(op); r != nil {
			return r
		}
	}
	return nil
}

func (c *Cluster) landAll() *Report {
	for len(c.async) > 0 {
		if r := c.landOne(); r != nil {
			return r
		}
	}
	return nil
}

// landOne lands the oldest pending operation (a random one under AsyncRandom).
func (c *Cluster) landOne() *Report {
	i := 0
	if c.cfg.Async == AsyncRandom {
		i = c.choose(ChoiceLand, len(c.async), 0)
	}
	op := c.async[i]
	c.async = append(c.async[:i], c.async[i+1:]...)
	return c.land(op)
}

// landDue lands the operations whose random delay has passed. Until the
// earliest is due it returns at once: the scheduler calls it after every
// run of a warp.
func (c *Cluster) landDue() *Report {
	if c.steps < c.nextDue {
		return nil
	}
	if r := c.LandWhere(func(op *AsyncOp) bool { return op.Due <= c.steps }); r != nil {
		return r
	}
	c.nextDue = ^uint64(0)
	for _, op := range c.async {
		c.nextDue = min(c.nextDue, op.Due)
	}
	return nil
}

// land lands op; a report a keep-going run goes on after is kept, and the
// operation's remaining effects do not happen.
func (c *Cluster) land(op *AsyncOp) *Report {
	r := op.Land(c)
	if r != nil && c.report == nil && c.keep(r) {
		return nil
	}
	return r
}

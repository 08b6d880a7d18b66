package emu

import (
	"math/bits"

	"github.com/ptxkit/ptxkit/ptx/token"
)

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
	q      *queuedOp    // the operation of the async state that issued it
	batch  *queuedBatch // the lanes of one st.async queued together (stasyncqueue.go), or nil
}

// size returns the number of operations the queue entry op stands for.
func (op *AsyncOp) size() int {
	if op.batch != nil {
		return op.batch.size()
	}
	return 1
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
		if c.queued == 0 || op.Due < c.nextDue {
			c.nextDue = op.Due
		}
	}
	if c.queued >= maxQueuedAsync {
		// Landing early is always allowed; it keeps a kernel that never
		// waits from queueing without bound.
		if r := c.landFirst(); r != nil {
			return r
		}
	}
	c.async = append(c.async, op)
	c.queued++
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
func (c *Cluster) PendingAsync() int { return c.queued }

// The queue holds the pending operations in issue order. An entry is one
// operation, or a batch: the lanes of one st.async, queued together and
// landed one at a time (stasyncqueue.go). Every choice and order below
// counts the members of a batch as the operations they are, in lane
// order, so a batch lands as its lanes queued one by one would.

// LandWhere lands, in issue order, every pending operation for which match
// returns true. Waits that must force completion (cp.async.wait_group under
// any policy) use it instead of Retry. match sees each member of a batch
// as an operation of its own (queuedBatch.view).
func (c *Cluster) LandWhere(match func(*AsyncOp) bool) *Report {
	return c.landMatching(match, nil)
}

// landMatching is LandWhere; member, when not nil, decides for the members
// of batches instead of match.
func (c *Cluster) landMatching(match func(*AsyncOp) bool, member func(b *queuedBatch, k int) bool) *Report {
	for i := 0; i < len(c.async); {
		op := c.async[i]
		if b := op.batch; b != nil {
			removed, r := c.landBatchWhere(i, b, match, member)
			if r != nil {
				return r
			}
			if !removed {
				i++
			}
			continue
		}
		if !match(op) {
			i++
			continue
		}
		c.async = append(c.async[:i], c.async[i+1:]...)
		c.queued--
		if r := c.land(op); r != nil {
			return r
		}
	}
	return nil
}

// landBatchWhere lands, in lane order, the members of batch b (entry i of
// the queue) that match, and reports whether the entry left the queue.
func (c *Cluster) landBatchWhere(i int, b *queuedBatch, match func(*AsyncOp) bool, member func(b *queuedBatch, k int) bool) (bool, *Report) {
	for m := b.left; m != 0; m &= m - 1 {
		k := bits.TrailingZeros32(m)
		if member != nil && !member(b, k) || member == nil && !match(b.view(k)) {
			continue
		}
		removed := c.takeMember(i, b, k)
		r := c.landMember(b, k, removed)
		if r != nil || removed {
			return removed, r
		}
	}
	return false, nil
}

// takeMember removes member k of batch b, entry i of the queue, from the
// queue, and the entry with its last member (reported).
func (c *Cluster) takeMember(i int, b *queuedBatch, k int) bool {
	b.left &^= 1 << k
	c.queued--
	if b.left != 0 {
		return false
	}
	c.async = append(c.async[:i], c.async[i+1:]...)
	return true
}

// landMember lands member k of batch b, taken from the queue, as land
// does; recycle returns b to its pool once it has landed.
func (c *Cluster) landMember(b *queuedBatch, k int, recycle bool) *Report {
	r := b.land(c, k)
	if recycle {
		b.recycle()
	}
	if r != nil && c.report == nil && c.keep(r) {
		return nil
	}
	return r
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
		i = c.choose(ChoiceLand, c.queued, 0)
	}
	return c.landNth(i)
}

// landFirst lands the oldest pending operation.
func (c *Cluster) landFirst() *Report { return c.landNth(0) }

// landNth lands the pending operation at position i of the issue order.
func (c *Cluster) landNth(i int) *Report {
	j := 0
	for ; ; j++ {
		n := c.async[j].size()
		if i < n {
			break
		}
		i -= n
	}
	op := c.async[j]
	if b := op.batch; b != nil {
		k := b.nth(i)
		return c.landMember(b, k, c.takeMember(j, b, k))
	}
	c.async = append(c.async[:j], c.async[j+1:]...)
	c.queued--
	return c.land(op)
}

// landDue lands the operations whose random delay has passed. Until the
// earliest is due it returns at once: the scheduler calls it after every
// run of a warp.
func (c *Cluster) landDue() *Report {
	if c.steps < c.nextDue {
		return nil
	}
	if r := c.landMatching(func(op *AsyncOp) bool { return op.Due <= c.steps },
		func(b *queuedBatch, k int) bool { return b.due[k] <= c.steps }); r != nil {
		return r
	}
	c.nextDue = ^uint64(0)
	for _, op := range c.async {
		if b := op.batch; b != nil {
			for m := b.left; m != 0; m &= m - 1 {
				c.nextDue = min(c.nextDue, b.due[bits.TrailingZeros32(m)])
			}
			continue
		}
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

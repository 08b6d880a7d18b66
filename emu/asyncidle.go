package emu

import (
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/mbarrier"
)

// Idle rounds of the delayed policy. Under --async=delayed an operation
// lands only when no warp of the cluster can make progress: the scheduler
// lands the oldest one and gives every warp another round. A consumer
// waiting for a mailbox of 32 words therefore costs 32 rounds in which
// each warp retries its mbarrier wait and suspends again. landIdle lands
// the oldest operation and then, while every warp would suspend at once
// in the next round, performs that round's scheduling choices (the same
// draws from the seeded generator, the same order of the run queue)
// without running the warps, and lands the next one. Runs, landing order
// and every seeded choice are those of running the rounds.

// landIdle lands the oldest pending operation of c, every warp waiting,
// and the next ones while the rounds between them would be idle.
//
// When the oldest entry is a batch (a warp's st.async, stasyncqueue.go)
// whose members land without completing a phase before the last, on bytes
// that are no waiting warp's mbarrier, the rounds between its members
// would be idle too: a wait that found its phase incomplete finds the same
// while no phase completes and its mbarrier's word is written only by
// complete-tx. The members then land as one run after the rounds' choices
// are drawn, and the next round is known idle without testing the waits
// again unless the run completed a phase.
func (c *Cluster) landIdle() *Report {
	if r := c.landOne(); r != nil {
		return r
	}
	quick := false // the landings since idleRoundAhead changed nothing it looks at
	for {
		if quick && len(c.async) > 0 {
			c.drawIdleRound()
		} else if c.idleRoundAhead() {
			c.skipIdleRound()
		} else {
			return nil
		}
		if b := c.async[0].batch; b != nil {
			if ok, completed := c.landIdleRun(b); ok {
				quick = !completed
				continue
			}
		}
		if r := c.landOne(); r != nil {
			return r
		}
		quick = false
	}
}

// landIdleRun lands the members of batch b, the oldest entry of the queue,
// when they can land as one run: in member order, adjacent, none failing
// and none but the last completing a phase, none writing a waiting warp's
// mbarrier, and no observer of mbarrier words. The rounds between them are
// drawn (drawIdleRound) first. It reports whether it landed them, and
// whether the last completed a phase.
func (c *Cluster) landIdleRun(b *queuedBatch) (ok, completed bool) {
	lo := bits.TrailingZeros32(b.left)
	k := bits.OnesCount32(b.left)
	if b.op == nil || b.dst.exited || c.cfg.obs.barrier != nil || b.left>>lo&(b.left>>lo+1) != 0 {
		return false, false
	}
	off := b.off + uint32(lo*b.n)
	end := off + uint32(k*b.n)
	if off < b.barOff+mbarrier.Size && b.barOff < end {
		return false, false // a member's data lands on the mbarrier before the complete-tx of the next
	}
	for _, w := range c.runq {
		m := &asyncCTA(w.CTA).waits[w.Index]
		if m.bar == b.dst && off < m.off+mbarrier.Size && m.off < end {
			return false, false
		}
	}
	bars := b.bars
	phase, _ := bars.Phases(uint64(b.barOff))
	res, ok := bars.CompleteTxRun(uint64(b.barOff), loadWord(b.dst, b.barOff), uint32(b.n), k)
	if !ok {
		return false, false
	}
	c.drawIdleRounds(k - 1)
	copy(b.dst.Shared[off:end], b.data[lo*b.n:(lo+k)*b.n])
	mask := b.left
	b.cs.tracker.LandMembers(b.op, mask)
	storeWord(b.dst, b.barOff, res.Word)
	b.cs.tracker.SignalMembers(b.op, mask, b.ref, phase)
	b.left = 0
	c.queued -= k
	c.async = append(c.async[:0], c.async[1:]...)
	b.recycle()
	return true, res.Completed
}

// idleRoundAhead reports whether the next round of c would run no
// instruction and change nothing but the scheduling choices: operations
// wait to land under the delayed policy, no observer or limit could act
// in the round, and every warp would suspend again in its mbarrier wait.
// It leaves in each warp's wait memo the argument its wait would note.
func (c *Cluster) idleRoundAhead() bool {
	if !asyncShortcuts || c.cfg.Async != AsyncDelayed || len(c.async) == 0 || c.report != nil ||
		c.race != nil || c.mon != nil || c.cfg.obs.wait != nil || c.steps >= c.cfg.MaxSteps || len(c.runq) == 0 {
		return false
	}
	for _, w := range c.runq {
		if w.live == 0 || !w.waitWouldSuspend() {
			return false
		}
	}
	return true
}

// waitWouldSuspend reports whether w, run now, would suspend in the
// mbarrier.try_wait at its pc before executing anything: its first lane
// names the barrier it last suspended on there, and that barrier's phase
// is still incomplete (execMbWait under the delayed policy decides on the
// first lane: an incomplete phase suspends the warp). It then records in
// w's wait memo what that suspension notes.
func (w *Warp) waitWouldSuspend() bool {
	s := asyncCTA(w.CTA)
	if w.resched || w.active == 0 || w.Index >= len(s.waits) {
		return false
	}
	in := &w.prog.Insts[w.pc]
	m := &s.waits[w.Index]
	if m.in != in {
		return false
	}
	exec := w.runMask(in)
	if exec == 0 {
		return false
	}
	l := int32(lane(exec))
	arg := w.R[in.B+l]
	if w.R[in.A+l] != m.addr { // resolved to m.bar, m.off when it last suspended
		return false
	}
	word := loadWord(m.bar, m.off)
	if arg == m.arg && m.tab.Unchanged(uint64(m.off), word, m.phases) {
		// no phase completed since the same wait found its phase
		// incomplete: it finds the same
		m.epoch, m.word = m.tab.Epoch(), word
		w.Exec = exec
		return true
	}
	var ready bool
	var err error
	if in.Imm&mbParity != 0 {
		ready, err = m.tab.TestWaitParity(mbName(in), uint64(m.off), word, uint32(arg))
	} else {
		ready, err = m.tab.TestWait(mbName(in), uint64(m.off), word, mbarrier.Token(arg))
	}
	if err != nil || ready {
		return false
	}
	m.arg, m.epoch, m.word = arg, m.tab.Epoch(), word // as noteWait records it
	m.phases, _ = m.tab.Phases(uint64(m.off))
	w.Exec = exec // as run sets it
	return true
}

// skipIdleRound does what round does for a round in which every warp
// suspends at once (idleRoundAhead, which noted each warp's wait): the
// run queue is shuffled and each warp's quantum drawn as round draws
// them.
func (c *Cluster) skipIdleRound() {
	warps := c.runq
	drawn := c.cfg.Seed != 0 || c.cfg.Schedule != nil
	if drawn {
		for i := len(warps) - 1; i > 0; i-- {
			j := c.choose(ChoiceWarpOrder, i+1, i)
			warps[i], warps[j] = warps[j], warps[i]
		}
	}
	for _, w := range warps {
		if drawn {
			c.choose(ChoiceSlice, 64, 63) // the quantum, unused
		}
		w.WaitPC, w.Next = w.pc, w.pc
		w.WaitWhat, w.WaitWhy = "", describeMbWait
	}
	c.running = warps[len(warps)-1]
}

// drawIdleRounds draws n rounds as drawIdleRound does.
func (c *Cluster) drawIdleRounds(n int) {
	warps := c.runq
	if n <= 0 {
		return
	}
	if c.cfg.Schedule != nil || c.cfg.Seed == 0 {
		for range n {
			c.drawIdleRound()
		}
		return
	}
	// choose without a Schedule: the generator's draws, of which a
	// quantum's only advances it
	r := c.rng
	slices := uint64(len(warps)) * rngStep
	if len(warps) == 2 { // a producer and a consumer: one draw orders them
		w0, w1 := warps[0], warps[1]
		for range n {
			if r.next()&1 == 0 { // intn(2) == 0: the second swaps with the first
				w0, w1 = w1, w0
			}
			r.s += slices
		}
		warps[0], warps[1] = w0, w1
		c.rng = r
		c.running = w1
		return
	}
	for range n {
		for i := len(warps) - 1; i > 0; i-- {
			j := r.intn(i + 1)
			warps[i], warps[j] = warps[j], warps[i]
		}
		r.s += slices
	}
	c.rng = r
	c.running = warps[len(warps)-1]
}

// drawIdleRound is skipIdleRound for a round after an idle round that
// skipIdleRound skipped: the waits are noted as they were.
func (c *Cluster) drawIdleRound() {
	warps := c.runq
	if c.cfg.Schedule == nil && c.cfg.Seed != 0 {
		c.drawIdleRounds(1)
		return
	}
	if c.cfg.Seed != 0 || c.cfg.Schedule != nil {
		for i := len(warps) - 1; i > 0; i-- {
			j := c.choose(ChoiceWarpOrder, i+1, i)
			warps[i], warps[j] = warps[j], warps[i]
		}
		for range warps {
			c.choose(ChoiceSlice, 64, 63) // the quantum, unused
		}
	}
	c.running = warps[len(warps)-1]
}

// runMask returns the lanes that would execute in, at w's pc: the active
// lanes its guard predicate selects (as Warp.run computes them).
func (w *Warp) runMask(in *Inst) uint32 {
	exec := w.active
	if in.Guard >= 0 {
		g := predMask(lanes(w.R, in.Guard))
		if in.GuardNeg {
			g = ^g
		}
		exec &= g
	}
	return exec
}

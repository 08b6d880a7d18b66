package emu

import (
	"strings"

	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// WaitEvent is a span of the cluster clock during which a whole warp could
// not move: every live lane waited at a barrier (bar.sync,
// barrier.cluster.wait) or the warp's instruction was a suspended wait
// (mbarrier.try_wait, tcgen05.alloc, ...). Launch.Waits receives one per
// wait, when it ends (or, for a wait still open when the cluster stops,
// with Open set).
type WaitEvent struct {
	Cluster    int
	Rank       int    // the CTA's rank in its cluster
	CTA        [3]int // the CTA's %ctaid
	Warp       int
	Start, End uint64 // cluster clock: the step the warp stopped at and the one it moved again at
	Pos        token.Pos
	Opcode     string
	What       string // what it waited for, as the deadlock report would say
	Open       bool   // the cluster stopped while the warp still waited
}

// openWait is a wait that has begun and not ended.
type openWait struct {
	on bool
	ev WaitEvent
}

// noteWait updates the wait state of w after it ran n instructions from
// cluster step before, stopping with st; it reports each wait that ended.
// It runs only when Launch.Waits is set.
func (c *Cluster) noteWait(w *Warp, before uint64, n int, st Status) {
	if c.waiting == nil {
		c.waiting = map[*Warp]*openWait{}
	}
	ow := c.waiting[w]
	if ow == nil {
		ow = new(openWait)
		c.waiting[w] = ow
	}
	if ow.on && n > 0 {
		ow.on = false
		ow.ev.End = before
		c.cfg.obs.wait(ow.ev)
	}
	stuck := w.live != 0 && (st == Retry || w.active == 0)
	if !stuck || ow.on {
		return
	}
	ow.on = true
	ow.ev = WaitEvent{Cluster: c.Index, Rank: w.CTA.Rank, CTA: w.CTA.ID, Warp: w.Index, Start: c.steps}
	if pc := int(w.WaitPC); pc < len(c.prog.Insts) {
		ow.ev.Pos, ow.ev.Opcode = c.prog.Insts[pc].Pos, c.prog.Insts[pc].Opcode
	}
	ow.ev.What = w.waitState(st)
}

// waitState describes what w waits for now: the deadlock report's words
// without its hints at what went wrong (the wait may well complete).
func (w *Warp) waitState(st Status) string {
	if st == Retry && w.WaitWhat == "" && w.blocked == 0 && w.cbWait == 0 && strings.HasPrefix(w.prog.Insts[w.WaitPC].Opcode, "mbarrier.") {
		text, _ := mbWaitState(w)
		return text
	}
	return w.waitDescription()
}

// closeWaits reports the waits still open when the cluster stops, in the
// order of the cluster's warps.
func (c *Cluster) closeWaits() {
	for _, w := range c.warps {
		if ow := c.waiting[w]; ow != nil && ow.on {
			ow.on = false
			ow.ev.End, ow.ev.Open = c.steps, true
			c.cfg.obs.wait(ow.ev)
		}
	}
	c.waiting = nil
}

// BarrierEvent is the state of an mbarrier object after an operation
// changed it (init, arrive, expect-tx, complete-tx, ...), for timelines.
type BarrierEvent struct {
	Cluster  int
	Rank     int    // rank of the CTA whose shared memory holds the object
	CTA      [3]int // its %ctaid
	Addr     uint32 // the object's offset in that shared memory
	Step     uint64 // cluster clock
	Phases   uint64 // phases completed so far
	Pending  uint32 // arrivals missing in the current phase
	Expected uint32
	Tx       int32 // tx-count: bytes expected and not yet completed
}

// noteBarrier reports the mbarrier object at off of c, whose memory word
// is now w (nothing for a word that holds no live object, as after
// mbarrier.inval).
func (c *CTA) noteBarrier(off uint32, w uint64) {
	o, ok := mbarrier.Decode(w)
	if !ok {
		return
	}
	cl := c.cluster
	phases, _ := asyncCTA(c).bars.Phases(uint64(off))
	cl.cfg.obs.barrier(BarrierEvent{Cluster: cl.Index, Rank: c.Rank, CTA: c.ID, Addr: off, Step: cl.steps,
		Phases: phases, Pending: o.Pending, Expected: o.Expected, Tx: o.Tx})
}

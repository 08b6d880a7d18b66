package emu

import (
	"math"
	"math/bits"
)

// maxCallDepth bounds .func call nesting per thread.
const maxCallDepth = 64

// Warp is 32 threads executing in SIMT fashion. Divergence uses per-thread
// program counters with min-PC scheduling: the group of runnable threads
// with the smallest pc runs; threads that wait at a larger pc join it when
// it gets there, so branches reconverge at the first common instruction.
type Warp struct {
	// R is the register file: slot s, lane l lives at R[s*32+l]
	// (instruction operands already hold s*32).
	R []uint64
	// init is the worker's start-up register slab (startRegisters).
	init *regTemplate

	CTA   *CTA
	Index int    // warp index in the CTA (%warpid)
	Lanes uint32 // lanes that exist (the last warp of a CTA may be partial)

	// Exec is the set of lanes the current instruction executes for
	// (active lanes whose guard holds). Handlers iterate over it.
	Exec uint32
	// Next is the pc the active group continues at; handlers that branch
	// uniformly set it.
	Next int32
	// WaitWhat describes why the warp is waiting (set by handlers that
	// block or return Retry); it appears in deadlock reports.
	WaitWhat string
	// WaitWhy, when WaitWhat is empty, builds the description when a
	// deadlock report needs it, so that a wait retried often formats
	// nothing.
	WaitWhy func(w *Warp) string
	WaitPC  int32

	pc       int32
	active   uint32 // lanes at pc
	live     uint32 // lanes that have not exited
	blocked  uint32 // lanes waiting at a barrier
	minOther int32  // smallest pc of runnable lanes outside active
	resched  bool
	tpc      [32]int32
	allPC    int32 // pc of every live lane when allValid (a converged warp moved as one)
	allValid bool
	depth    [32]uint8
	retpc    []int32      // [depth*32+lane]
	callee   []int32      // [depth*32+lane]: function table index of an indirect call
	sp       [32]int32    // stack pointer per lane (0: the stack is empty); recursion.go, stack.go
	retsp    []int32      // [depth*32+lane]: the stack pointer at the call
	saved    [32][]uint64 // registers of the activations below, per lane (recursion.go)

	barWait   [16]uint32 // lanes waiting at each named barrier
	barArr    [16]uint32 // lanes that executed each barrier since the warp last arrived
	barRed    [16]barRed // bar.red destinations of the waiting lanes
	cbWait    uint32     // lanes waiting in barrier.cluster.wait
	cbArrived uint32     // lanes that arrived at the cluster barrier and have not waited
	cbPhase   [32]uint32 // cluster-barrier phase each lane arrived in
	carry     uint32     // carry flag per lane (add.cc, addc)
	ticks     uint64     // clock reads by this warp (execReadClock)
	pollPC    int32      // the last polling load (execPollLoad) and the value it read
	pollVal   uint64

	prog  *Program
	stats *Stats
	cache *Region // last global region hit
	// prevCache is the global region the warp's per-warp checks used
	// before cache (ops_fast.go: prevSpan); nil at the warp's start.
	prevCache *Region
	scratch   []byte      // a keep-going run's suppressed accesses (keptNil)
	probe     *StoreProbe // the launch's store probe, or nil (storeprobe.go)

	// watchGlobal is set while the cluster has asynchronous operations
	// whose global ranges are guarded (asyncglobal.go); global accesses
	// then skip cache and take the checked path.
	watchGlobal bool
}

// Lane iteration helper: for m := w.Exec; m != 0; m &= m - 1 { l := lane(m) }.
func lane(m uint32) int { return bits.TrailingZeros32(m) }

// PC returns the pc of the instruction being executed.
func (w *Warp) PC() int32 { return w.pc }

// Prog returns the program the warp runs.
func (w *Warp) Prog() *Program { return w.prog }

// Stats returns the counters the warp adds to.
func (w *Warp) Stats() *Stats { return w.stats }

// Done reports whether every lane has exited.
func (w *Warp) Done() bool { return w.live == 0 }

// MoveLanes sends the lanes in mask to pc (they leave the active group and
// rejoin the schedule there).
func (w *Warp) MoveLanes(mask uint32, pc int32) {
	if mask == w.live && w.active == w.live && !w.allValid {
		// The whole converged warp moves (a barrier, a call): keep one pc.
		w.allPC, w.allValid = pc, true
		w.active = 0
		w.resched = true
		return
	}
	w.materialize()
	for m := mask; m != 0; m &= m - 1 {
		w.tpc[lane(m)] = pc
	}
	w.active &^= mask
	w.resched = true
}

// Block parks the lanes in mask (already moved to their resume pc) until
// Unblock releases them; the warp runs its other lanes meanwhile.
func (w *Warp) Block(mask uint32) {
	w.blocked |= mask
	w.active &^= mask
	w.resched = true
}

// Unblock releases lanes parked by Block.
func (w *Warp) Unblock(mask uint32) {
	w.blocked &^= mask
	w.resched = true
}

// materialize writes the shared pc of a wholly moved warp into every
// live lane's pc.
func (w *Warp) materialize() {
	if !w.allValid {
		return
	}
	for m := w.live; m != 0; m &= m - 1 {
		w.tpc[lane(m)] = w.allPC
	}
	w.allValid = false
}

// exitLanes retires the lanes in mask.
func (w *Warp) exitLanes(mask uint32) {
	mask &= w.live
	w.live &^= mask
	w.active &^= mask
	w.blocked &^= mask
	w.resched = true
	w.CTA.threadsExited(w, bits.OnesCount32(mask))
}

// reschedule picks the next group to run: the runnable lanes with the
// smallest pc.
func (w *Warp) reschedule() {
	w.resched = false
	if w.allValid {
		switch run := w.live &^ w.blocked; run {
		case w.live:
			w.allValid = false
			w.active = run
			w.pc, w.Next = w.allPC, w.allPC
			w.minOther = math.MaxInt32
			return
		case 0:
			w.active = 0
			w.minOther = math.MaxInt32
			return
		}
		w.materialize()
	}
	if w.active == allLanes {
		for l := range w.tpc {
			w.tpc[l] = w.Next
		}
	} else {
		for m := w.active; m != 0; m &= m - 1 {
			w.tpc[lane(m)] = w.Next
		}
	}
	run := w.live &^ w.blocked
	w.active = 0
	w.minOther = math.MaxInt32
	if run == 0 {
		return
	}
	if run == allLanes {
		w.pickAll()
		return
	}
	min, max := int32(math.MaxInt32), int32(-1)
	for m := run; m != 0; m &= m - 1 {
		p := w.tpc[lane(m)]
		if p < min {
			min = p
		}
		if p > max {
			max = p
		}
	}
	if min == max { // converged
		w.active = run
		w.pc, w.Next = min, min
		return
	}
	for m := run; m != 0; m &= m - 1 {
		l := lane(m)
		switch p := w.tpc[l]; {
		case p == min:
			w.active |= 1 << uint(l)
		case p < w.minOther:
			w.minOther = p
		}
	}
	w.pc = min
	w.Next = min
}

// pickAll is reschedule's choice when all 32 lanes are runnable: the same
// group, pc and minOther, from straight loops over the lanes' pcs.
func (w *Warp) pickAll() {
	lo, hi := w.tpc[0], w.tpc[0]
	for _, p := range w.tpc {
		lo, hi = min(lo, p), max(hi, p)
	}
	w.pc, w.Next = lo, lo
	if lo == hi { // converged
		w.active = allLanes
		return
	}
	var act uint32
	other := int32(math.MaxInt32)
	for l, p := range w.tpc {
		if p == lo {
			act |= 1 << uint(l)
		} else {
			other = min(other, p)
		}
	}
	w.active, w.minOther = act, other
}

// run executes up to budget warp-instructions. It returns how many
// instructions completed and the status that stopped it (Continue when the
// budget ran out or the warp has nothing runnable).
func (w *Warp) run(budget int) (int, Status) {
	if w.resched || w.active == 0 {
		w.reschedule()
	}
	insts := w.prog.Insts
	n := 0
	var threads uint64
	defer func() {
		w.stats.WarpInsts += uint64(n)
		w.stats.ThreadInsts += threads
	}()
	for n < budget && w.active != 0 {
		in := &insts[w.pc]
		exec := w.active
		if in.Guard >= 0 {
			m := predMask(lanes(w.R, in.Guard))
			if in.GuardNeg {
				m = ^m
			}
			exec &= m
		}
		w.Next = w.pc + 1
		if exec != 0 {
			w.Exec = exec
			switch in.Exec(w, in) {
			case Retry:
				w.WaitPC = w.pc
				if !w.resched {
					w.Next = w.pc
					return n, Retry
				}
				// the handler parked some lanes; others may go on
				w.Next = w.pc
				w.reschedule()
				continue
			case Fault:
				if c := w.CTA.cluster; c.report != nil || c.kept == nil {
					return n, Fault
				}
				// a keep-going run kept the report: the instruction
				// counts as executed and the warp goes on
			case Yield:
				budget = n + 1
			}
			threads += uint64(bits.OnesCount32(exec))
		}
		n++
		if w.resched || w.Next >= w.minOther {
			w.reschedule()
		} else {
			w.pc = w.Next
		}
	}
	return n, Continue
}

// threadID returns the coordinates of lane l.
func (w *Warp) threadID(l int) *ThreadID {
	c := w.CTA
	t := w.Index*32 + l
	bx, by := c.cluster.cfg.Block[0], c.cluster.cfg.Block[1]
	return &ThreadID{
		Cluster: c.cluster.ID, CTA: c.ID, Rank: c.Rank, Warp: w.Index, Lane: l,
		Thread: [3]int{t % bx, t / bx % by, t / (bx * by)},
	}
}

// Fault records a sanitizer report for lane l at the current instruction
// and returns Fault.
func (w *Warp) Fault(l int, rule, spec, format string, args ...any) Status {
	in := &w.prog.Insts[w.pc]
	r := &Report{Rule: rule, Message: sprintf(format, args...), File: w.prog.File, Pos: in.Pos,
		Opcode: in.Opcode, Thread: w.threadID(l), Spec: spec}
	w.CTA.cluster.fail(r)
	return Fault
}

// regTemplate is a register slab as every warp of a worker starts it,
// less the special slots that differ between warps or CTAs (warpSpecial):
// built by the first start, shared by the worker's warps.
type regTemplate struct{ r []uint64 }

// startRegisters sets the register slab as a warp's start leaves it: every
// slot zero, the constant slots holding their values and the special slots
// filled. Once the worker's template exists, a start copies it and fills
// only the specials that depend on the warp or the CTA, which gives the
// slab a full fill would have made.
func (w *Warp) startRegisters() {
	p := w.prog
	t := w.init
	if t == nil || t.r == nil {
		clear(w.R)
		for _, k := range p.consts {
			s := lanes(w.R, k.slot)
			for l := range s {
				s[l] = k.val
			}
		}
		for _, s := range p.specials {
			if !warpSpecial(s.kind) {
				w.fillSpecial(s, lanes(w.R, int32(s.slot)))
			}
		}
		if t != nil {
			t.r = append([]uint64(nil), w.R...)
		}
	} else {
		copy(w.R, t.r)
	}
	for _, s := range p.specials {
		if warpSpecial(s.kind) {
			w.fillSpecial(s, lanes(w.R, int32(s.slot)))
		}
	}
}

// warpSpecial reports whether a special register's value can differ
// between two warps of one worker, or between two CTAs it runs in a
// launch: all but the block's and grid's sizes, the lane number and the
// lane masks, which depend only on the launch and the lane.
func warpSpecial(k specialKind) bool {
	switch k {
	case spNtid, spNctaid, spLaneid, spNwarpid,
		spLanemaskEq, spLanemaskLt, spLanemaskLe, spLanemaskGt, spLanemaskGe:
		return false
	}
	return true
}

package emu

import (
	"errors"
	"fmt"
	"github.com/ptxkit/ptxkit/isa"
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// mbarrier instructions (PTX ISA §9.7.13.15): the objects live in the
// bytes of shared memory in package mbarrier's encoding; each CTA's
// mbarrier.Table decides liveness and catches plain stores over them.
// Memory ordering qualifiers (.release, .acquire, .relaxed and scopes) need
// no action: the emulator executes every instruction atomically on one
// memory (DIGEST §4).

func init() { RegisterOpcode("mbarrier", decodeMbarrier) }

// mbarrier operation kinds, kept in Inst.Imm (low byte) with flag bits.
const (
	mbInit uint64 = iota
	mbInval
	mbArrive
	mbArriveDrop
	mbExpectTx
	mbCompleteTx
	mbTestWait
	mbTryWait
	mbPendingCount

	mbNoComplete = 1 << 8  // .noComplete
	mbExpect     = 1 << 9  // arrive{_drop}.expect_tx
	mbParity     = 1 << 10 // .parity
)

var mbOps = map[isa.Qual]uint64{
	isa.QInit: mbInit, isa.QInval: mbInval, isa.QArrive: mbArrive, isa.QArrive_Drop: mbArriveDrop,
	isa.QExpect_Tx: mbExpectTx, isa.QComplete_Tx: mbCompleteTx, isa.QTest_Wait: mbTestWait,
	isa.QTry_Wait: mbTryWait, isa.QPending_Count: mbPendingCount,
}

func decodeMbarrier(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.List) == 0 {
		return d.Errorf(in, "mbarrier needs an operation (.init, .arrive, .try_wait, ...)")
	}
	op, ok := mbOps[q.List[0]]
	if !ok {
		return d.Errorf(in, "the emulator does not implement mbarrier%s", q.List[0])
	}
	if q.Has(isa.QNoComplete) {
		op |= mbNoComplete
	}
	if (op == mbArrive || op == mbArriveDrop) && q.Has(isa.QExpect_Tx) {
		op |= mbExpect
	}
	if q.Has(isa.QParity) {
		op |= mbParity
	}
	out.Imm = op
	ops := in.Operands
	want := map[uint64][2]int{ // operand count range per operation
		mbInit: {2, 2}, mbInval: {1, 1}, mbArrive: {2, 3}, mbArriveDrop: {2, 3},
		mbExpectTx: {2, 2}, mbCompleteTx: {2, 2}, mbTestWait: {3, 3}, mbTryWait: {3, 4}, mbPendingCount: {2, 2},
	}[op&0xff]
	if len(ops) < want[0] || len(ops) > want[1] {
		return d.Errorf(in, "%s takes %d to %d operands, not %d", in.FullOpcode(), want[0], want[1], len(ops))
	}
	if op&0xff == mbPendingCount {
		var err error
		if out.D, err = d.Dst(ops[0]); err != nil {
			return err
		}
		if out.D < 0 {
			return d.Errorf(ops[0], "mbarrier.pending_count needs a destination register")
		}
		out.B, err = d.Src(ops[1], TB64)
		out.Exec = execMbPendingCount
		return err
	}
	// Position of the address operand: after the result for arrivals and waits.
	ai := 0
	switch op & 0xff {
	case mbArrive, mbArriveDrop, mbTestWait, mbTryWait:
		ai = 1
		var err error
		if out.D, err = d.Dst(ops[0]); err != nil {
			return err
		}
		if out.D < 0 && (op&0xff == mbTestWait || op&0xff == mbTryWait) {
			return d.Errorf(ops[0], "%s needs a destination predicate", in.FullOpcode())
		}
	}
	base, off, sp, err := d.Addr(ops[ai])
	if err != nil {
		return err
	}
	out.A, out.Off = base, off
	out.Space = sp
	if q.HasSpace {
		out.Space = q.Space
	}
	switch out.Space {
	case SpaceGeneric, SpaceShared, SpaceSharedCluster:
	default:
		return d.Errorf(in, "mbarrier objects live in shared memory, not %s", out.Space)
	}
	out.B = d.Const(1)
	if len(ops) > ai+1 {
		if out.B, err = d.Src(ops[ai+1], TB64); err != nil {
			return err
		}
	} else if op&mbExpect != 0 {
		return d.Errorf(in, "%s needs a tx-count operand", in.FullOpcode())
	}
	switch op & 0xff {
	case mbInit:
		out.Exec = execMbInit
	case mbInval:
		out.Exec = execMbInval
	case mbArrive, mbArriveDrop:
		out.Exec = execMbArrive
	case mbExpectTx, mbCompleteTx:
		out.Exec = execMbTx
	default:
		out.Exec = execMbWait // the suspend-time hint (4th operand) is only a hint
	}
	return nil
}

// mbName is the operation's name for reports.
func mbName(in *Inst) string { return in.Opcode }

// barrierAt resolves the mbarrier operand of lane l to its CTA and offset.
// own requires the executing CTA's shared memory (init, inval, waits,
// arrivals that return a state).
func (w *Warp) barrierAt(l int, in *Inst, own bool) (*CTA, uint32, bool) {
	a := w.R[in.A+int32(l)] + uint64(in.Off)
	switch in.Space {
	case SpaceGeneric:
		if genericSpace(a) != SpaceSharedCluster {
			w.Fault(l, ruleWrongWindow, specMbarrierAddr, "mbarrier address %#x is a generic address outside the shared window", a)
			return nil, 0, false
		}
		a -= sharedWindow
	case SpaceShared:
		own = true
	}
	c, off, ok := w.SharedTarget(l, a, mbarrier.Size, false, true)
	if !ok {
		return nil, 0, false
	}
	if own && c != w.CTA {
		w.Fault(l, ruleMbarrierRemote, specMbarrierAddr,
			"%s names the mbarrier at offset %#x of CTA rank %d; only arrive/arrive_drop without a state result, expect_tx and complete_tx may use another CTA's mbarrier",
			mbName(in), off, c.Rank)
		return nil, 0, false
	}
	if int(off)+mbarrier.Size > len(c.Shared) {
		w.Fault(l, ruleOutOfBounds, specMbarrierAddr, "mbarrier at offset %#x of CTA rank %d is past its shared memory", off, c.Rank)
		return nil, 0, false
	}
	return c, off, true
}

// mbFault turns an mbarrier error into a sanitizer report for lane l.
func (w *Warp) mbFault(l int, in *Inst, c *CTA, err error) Status {
	var e *mbarrier.Error
	if !errors.As(err, &e) {
		return w.Fault(l, RuleUnsupported, "", "%v", err)
	}
	return w.Fault(l, e.Kind.Rule(), e.Kind.Spec(), "%s on the mbarrier at offset %#x of CTA rank %d: %s", mbName(in), e.Addr, c.Rank, mbDetail(e))
}

// mbDetail describes an mbarrier error without its operation and address.
func mbDetail(e *mbarrier.Error) string {
	if e.Detail != "" {
		return e.Kind.String() + " (" + e.Detail + ")"
	}
	return e.Kind.String()
}

func execMbInit(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c, off, ok := w.barrierAt(l, in, true)
		if !ok {
			return Fault
		}
		s := asyncCTA(c)
		r, err := s.bars.Init(uint64(off), count32(w.R[in.B+int32(l)]))
		if err != nil {
			return w.mbFault(l, in, c, err)
		}
		storeWord(c, off, r.Word)
		s.guards.add(off, mbarrier.Size, false, 1) // plain stores to it are watched
		if w.CTA.cluster.race != nil && !w.raceMbInit(l, c, off) {
			return Fault
		}
	}
	return Continue
}

func execMbInval(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c, off, ok := w.barrierAt(l, in, true)
		if !ok {
			return Fault
		}
		s := asyncCTA(c)
		r, err := s.bars.Inval(uint64(off), loadWord(c, off))
		if err != nil {
			return w.mbFault(l, in, c, err)
		}
		storeWord(c, off, r.Word)
		s.guards.add(off, mbarrier.Size, false, -1)
	}
	return Continue
}

// count32 reads a count operand, saturating values that do not fit so that
// the range checks see them as out of range.
func count32(v uint64) uint32 {
	if v > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(v)
}

func execMbArrive(w *Warp, in *Inst) Status {
	kind := in.Imm & 0xff
	noComplete := in.Imm&mbNoComplete != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c, off, ok := w.barrierAt(l, in, in.D >= 0)
		if !ok {
			return Fault
		}
		tab := asyncCTA(c).bars
		word, arg := loadWord(c, off), count32(w.R[in.B+int32(l)])
		p0 := racePhases(w, c, off)
		var r mbarrier.Result
		var err error
		switch {
		case in.Imm&mbExpect != 0:
			r, err = tab.ExpectArrive(uint64(off), word, arg, kind == mbArriveDrop, noComplete)
		case kind == mbArriveDrop:
			r, err = tab.ArriveDrop(uint64(off), word, arg, noComplete)
		default:
			r, err = tab.Arrive(uint64(off), word, arg, noComplete)
		}
		if err != nil {
			return w.mbFault(l, in, c, err)
		}
		storeWord(c, off, r.Word)
		if w.CTA.cluster.race != nil && !w.raceMbarrier(l, c, off, p0, true) {
			return Fault
		}
		if in.D >= 0 {
			w.R[in.D+int32(l)] = uint64(r.Token)
		}
	}
	return Continue
}

func execMbTx(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c, off, ok := w.barrierAt(l, in, false)
		if !ok {
			return Fault
		}
		tab := asyncCTA(c).bars
		word, n := loadWord(c, off), count32(w.R[in.B+int32(l)])
		p0 := racePhases(w, c, off)
		var r mbarrier.Result
		var err error
		if in.Imm&0xff == mbExpectTx {
			r, err = tab.ExpectTx(uint64(off), word, n)
		} else {
			r, err = tab.CompleteTx(mbName(in), uint64(off), word, n)
		}
		if err != nil {
			return w.mbFault(l, in, c, err)
		}
		storeWord(c, off, r.Word)
		if w.CTA.cluster.race != nil && !w.raceMbarrier(l, c, off, p0, false) {
			return Fault
		}
	}
	return Continue
}

// execMbWait runs test_wait and try_wait. A true result observes the
// completion of every asynchronous operation signalled in a completed
// phase of the barrier. try_wait suspends (Retry) while the phase is
// incomplete, so a kernel whose waits can never succeed ends in a deadlock
// report that names the barrier's state; under --async=random it may also
// return false spuriously, as the manual allows.
func execMbWait(w *Warp, in *Inst) Status {
	try := in.Imm&0xff == mbTryWait
	cl := w.CTA.cluster
	if try && cl.cfg.Async == AsyncRandom && cl.spurious() {
		d := lanes(w.R, in.D)
		if w.Exec == 1<<32-1 {
			*d = [32]uint64{}
			return Continue
		}
		for m := w.Exec; m != 0; m &= m - 1 {
			d[lane(m)&31] = 0
		}
		return Continue
	}
	if try && asyncShortcuts && asyncCTA(w.CTA).stillWaiting(w, in) {
		w.WaitWhat, w.WaitWhy = "", describeMbWait
		return Retry
	}
	return w.mbWaitLanes(in, try)
}

// spurious draws whether a try_wait fails spuriously under the random
// policy (choose without a Schedule draws from the generator directly).
func (c *Cluster) spurious() bool {
	if c.cfg.Schedule == nil {
		return c.rng.intn(4) == 0
	}
	return c.choose(ChoiceSpurious, 4, 1) == 0
}

// mbWaitLanes runs test_wait or try_wait (try) lane by lane, once neither
// a spurious failure nor an unchanged suspended wait decided it (the
// retries of a waiting warp, which stay in the small execMbWait).
func (w *Warp) mbWaitLanes(in *Inst, try bool) Status {
	cl := w.CTA.cluster
	seen, seenPhases := asyncgroup.BarrierRef{CTA: -1}, uint64(0)
	// Lanes usually wait on one barrier with one argument. A lane whose
	// address and argument equal the last lane's that completed its wait
	// gets that lane's result: nothing between them changes the barrier,
	// and the observation was made once. The race detector records every
	// lane.
	var memo memoWait
	for m := w.Exec; m != 0; m &= m - 1 {
		if memo.ok {
			if m = w.memoRun(in, m, &memo); m == 0 {
				break
			}
		}
		l := lane(m)
		addr, arg := w.R[in.A+int32(l)], w.R[in.B+int32(l)]
		c, off, ok := w.barrierAt(l, in, true)
		if !ok {
			return Fault
		}
		ready, err := w.testBarrier(in, c, off, w.R[in.B+int32(l)])
		if err != nil {
			return w.mbFault(l, in, c, err)
		}
		if !ready && !try && cl.cfg.Async == AsyncDelayed {
			// A polling loop would spin forever on operations that the
			// delayed policy lands only when every warp waits: land the
			// ones this barrier waits for now.
			if r := cl.landOps(asyncCluster(cl).signalling(c, off)); r != nil {
				cl.fail(r)
				return Fault
			}
			if ready, err = w.testBarrier(in, c, off, w.R[in.B+int32(l)]); err != nil {
				return w.mbFault(l, in, c, err)
			}
		}
		if !ready && try {
			asyncCTA(w.CTA).noteWait(w, in, c, off, addr, w.R[in.B+int32(l)])
			return Retry
		}
		w.R[in.D+int32(l)] = 0
		if ready {
			w.R[in.D+int32(l)] = 1
			if cl.race != nil && !w.raceMbWait(l, c, off) {
				return Fault
			}
			phases, _ := asyncCTA(c).bars.Phases(uint64(off))
			ref := asyncgroup.BarrierRef{CTA: c.Rank, Addr: uint64(off)}
			if ref != seen || phases != seenPhases { // lanes usually share one barrier
				asyncCluster(cl).observeBarrier(cl, ref, phases)
				seen, seenPhases = ref, phases
			}
		}
		// A false test_wait under the delayed policy landed operations,
		// and the next lane's forced landing may land more.
		reuse := asyncShortcuts && cl.race == nil && (ready || try || cl.cfg.Async != AsyncDelayed)
		memo = memoWait{ok: reuse, addr: addr, arg: arg, result: w.R[in.D+int32(l)]}
	}
	return Continue
}

// memoRun gives the lanes of m, from the first, that name memo's address
// and argument memo's result, and returns the lanes left from the first
// that does not.
func (w *Warp) memoRun(in *Inst, m uint32, memo *memoWait) uint32 {
	a, b, d := lanes(w.R, in.A), lanes(w.R, in.B), lanes(w.R, in.D)
	addr, arg, res := memo.addr, memo.arg, memo.result
	if lo := bits.TrailingZeros32(m); m>>lo == 1<<(32-lo)-1 {
		// lanes lo to 31, the common case: no mask to walk
		for l := lo & 31; l < 32; l++ {
			if a[l]^addr|b[l]^arg != 0 {
				return m >> l << l
			}
			d[l] = res
		}
		return 0
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		if a[l] != addr || b[l] != arg {
			return m
		}
		d[l] = res
	}
	return 0
}

// memoWait is the outcome of the last lane of a wait that completed it:
// its operands and the predicate it wrote.
type memoWait struct {
	ok                bool
	addr, arg, result uint64
}

// waitMemo is what a suspended try_wait of a warp waits for: the barrier,
// the first lane's operands, and the barrier's table epoch and memory word
// when that lane saw the phase incomplete.
type waitMemo struct {
	in     *Inst
	bar    *CTA
	off    uint32
	arg    uint64
	addr   uint64
	tab    *mbarrier.Table
	epoch  uint64
	word   uint64
	phases uint64 // the barrier's completed phases
}

// noteWait records what a suspended try_wait of w waits for; a deadlock
// report describes it (describeMbWait). Waits retry often, so nothing is
// formatted here: with nothing able to move, the barrier is in the state
// the last retry saw when the report is built.
func (s *ctaAsync) noteWait(w *Warp, in *Inst, c *CTA, off uint32, addr, arg uint64) {
	i := w.Index
	if i >= len(s.waits) {
		s.waits = append(s.waits, make([]waitMemo, i+1-len(s.waits))...)
	}
	tab := asyncCTA(c).bars
	phases, _ := tab.Phases(uint64(off))
	s.waits[i] = waitMemo{in: in, bar: c, off: off, arg: arg, addr: addr, tab: tab, epoch: tab.Epoch(), word: loadWord(c, off), phases: phases}
	w.WaitWhat, w.WaitWhy = "", describeMbWait
}

// stillWaiting reports whether try_wait in of w would suspend again as it
// last did: its first lane names the same barrier with the same argument,
// and neither the barrier's table nor its memory word changed since, or
// the barrier has completed no phase since and its word is the table's.
// Resolving the address and testing the phase would give the same answer.
func (s *ctaAsync) stillWaiting(w *Warp, in *Inst) bool {
	if w.Index >= len(s.waits) || w.Exec == 0 {
		return false
	}
	m := &s.waits[w.Index]
	l := int32(lane(w.Exec))
	if m.in != in || m.addr != w.R[in.A+l] || m.arg != w.R[in.B+l] {
		return false
	}
	word := loadWord(m.bar, m.off)
	if m.tab.Epoch() == m.epoch && word == m.word {
		return true
	}
	// The barrier changed, but if no phase completed and its word is the
	// one the table wrote (a complete-tx of a landing store, an arrival
	// that left the phase incomplete), the first lane's test finds the
	// phase incomplete again: the outcome depends on the phase alone.
	if !m.tab.Unchanged(uint64(m.off), word, m.phases) {
		return false
	}
	m.epoch, m.word = m.tab.Epoch(), word
	return true
}

// describeMbWait describes the try_wait w is suspended in (Warp.WaitWhy),
// with a hint at what keeps the phase from completing.
func describeMbWait(w *Warp) string {
	text, o := mbWaitState(w)
	return text + txHint(o)
}

// mbWaitState describes the try_wait w is suspended in and the barrier's
// state.
func mbWaitState(w *Warp) (string, mbarrier.Object) {
	m := asyncCTA(w.CTA).waits[w.Index]
	in, c, off := m.in, m.bar, m.off
	o, _, _ := asyncCTA(c).bars.Get(uint64(off))
	text := fmt.Sprintf("%s on the mbarrier at offset %#x of CTA rank %d (%s)", in.Opcode, off, c.Rank, o)
	if in.Imm&mbParity != 0 {
		text += fmt.Sprintf(", waiting for the phase of parity %d to complete", m.arg&1)
	}
	return text, o
}

// txHint explains a tx-count that keeps a phase from completing.
func txHint(o mbarrier.Object) string {
	switch {
	case o.Tx > 0:
		return fmt.Sprintf("; %d expected bytes never arrived: does the expect_tx byte count match the data sent?", o.Tx)
	case o.Tx < 0 && o.Pending == 0:
		return fmt.Sprintf("; %d more bytes arrived than were expected: is an expect_tx missing or too small?", -o.Tx)
	}
	return ""
}

func (w *Warp) testBarrier(in *Inst, c *CTA, off uint32, arg uint64) (bool, error) {
	tab := asyncCTA(c).bars
	if in.Imm&mbParity != 0 {
		return tab.TestWaitParity(mbName(in), uint64(off), loadWord(c, off), uint32(arg))
	}
	return tab.TestWait(mbName(in), uint64(off), loadWord(c, off), mbarrier.Token(arg))
}

func execMbPendingCount(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		n, err := mbarrier.PendingCount(mbarrier.Token(w.R[in.B+int32(l)]))
		if err != nil {
			return w.mbFault(l, in, w.CTA, err)
		}
		w.R[in.D+int32(l)] = uint64(n)
	}
	return Continue
}

package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/mbarrier"
)

// A warp's st.async as one queue entry. Under the delayed and random
// policies every lane's store used to be its own queued operation, tracker
// record and landing closure. When the active lanes of a st.async are one
// run of adjacent lanes storing to adjacent destinations with one mbarrier
// (a producer filling a mailbox), the lanes are queued as one entry, a
// queuedBatch, and tracked as one batch (Tracker.IssueQueuedBatch). The
// queue still counts, orders and lands the members one at a time (async.go):
// each member has the ID, the random delay (drawn in lane order, as the
// lanes' issues draw them), the landing position and the landing effects
// (data, complete-tx, signal) that its lane's operation had, so landing
// order, scheduling choices, memory and reports do not change. Not with the
// race detector or a trace, which record each operation's events.

// queuedBatch is the queue entry of the k lanes of one st.async.
type queuedBatch struct {
	AsyncOp // the entry in the cluster's queue: batch is the queuedBatch itself

	cs     *clusterAsync
	in     *Inst
	w      *Warp // the issuing warp
	first  int   // its first lane: member j was issued by lane first+j
	id     asyncgroup.OpID
	op     *asyncgroup.Op // the tracker's batch (until it becomes single operations)
	dst    *CTA
	off    uint32 // member j writes n bytes at off+j*n
	n      int
	barOff uint32
	bars   *mbarrier.Table       // the destination CTA's
	ref    asyncgroup.BarrierRef // the mbarrier, for signalling
	left   uint32                // members not yet landed (bit j: member j)
	due    [32]uint64            // AsyncRandom: the step each member is due
	data   [32 * 32]byte         // the values, member after member

	viewQ queuedOp // a member seen as one operation (view)
}

// size returns the number of members still queued.
func (b *queuedBatch) size() int { return bits.OnesCount32(b.left) }

// nth returns the member at position i among those still queued.
func (b *queuedBatch) nth(i int) int {
	m := b.left
	for ; i > 0; i-- {
		m &= m - 1
	}
	return bits.TrailingZeros32(m)
}

// view returns member j as the single operation its lane would have queued,
// for a LandWhere match: kind, position, issuer, issue step, delay and
// (through queuedOf) its ID and mbarrier.
func (b *queuedBatch) view(j int) *AsyncOp {
	q := &b.viewQ
	q.AsyncOp = AsyncOp{Kind: b.Kind, Pos: b.Pos, Issuer: *b.w.threadID(b.first + j), Issued: b.Issued,
		Due: b.due[j], seq: b.seq + uint64(j), q: q}
	q.cs, q.id, q.signals, q.target = b.cs, b.id+asyncgroup.OpID(j), true, b.ref
	return &q.AsyncOp
}

func (cs *clusterAsync) newBatch() *queuedBatch {
	if n := len(cs.spareBatch); n > 0 {
		b := cs.spareBatch[n-1]
		cs.spareBatch = cs.spareBatch[:n-1]
		return b
	}
	return &queuedBatch{cs: cs}
}

func (b *queuedBatch) recycle() {
	b.op, b.in, b.w, b.dst, b.bars = nil, nil, nil, nil, nil
	b.AsyncOp = AsyncOp{}
	b.cs.spareBatch = append(b.cs.spareBatch, b)
}

// stAsyncQueued issues st.async for a warp whose active lanes are one run
// of adjacent lanes storing to adjacent destinations in one CTA with one
// mbarrier, as one queue entry, and reports whether it did. It declines,
// changing nothing, when any lane would fault at issue or a limit would
// be reached; the lane-by-lane path then runs and reports what it finds.
func (w *Warp) stAsyncQueued(cs *clusterAsync, in *Inst) bool {
	cl := cs.cl
	m := w.Exec
	first := bits.TrailingZeros32(m)
	k := bits.OnesCount32(m)
	if k < 2 || m>>first&(m>>first+1) != 0 {
		return false // a single lane, or lanes with gaps between them
	}
	n := in.Type.Size() * int(in.Vec)
	if n > 32 || !w.lanesAdjacent(in, first, k, uint64(n)) {
		return false
	}
	if cs.tracker.Len()+k > maxOutstandingAsync || cl.queued+k > maxQueuedAsync {
		return false
	}
	st, ok := w.asyncTargetQuiet(first, in, n)
	if !ok {
		return false
	}
	last := uint64(st.off) + uint64((k-1)*n)
	if last>>sharedRankShift != 0 || last+uint64(n) > uint64(len(st.dst.Shared)) {
		return false
	}
	s := asyncCTA(st.dst) // watch the destination CTA's shared memory from now on
	b := cs.newBatch()
	b.bars = s.bars
	b.in, b.w, b.first, b.dst, b.off, b.n, b.barOff = in, w, first, st.dst, st.off, n, st.barOff
	b.ref = asyncBarrierRef(st.dst, st.barOff)
	w.storeLanes(in, first, k, b.data[:k*n])
	b.op = cs.tracker.IssueQueuedBatch(in.Opcode, w, w.siteAt(first), 1<<32, st.generic, uint64(n), k)
	b.id = b.op.ID
	cs.armGlobalWatch(cl, b.id)
	b.AsyncOp = AsyncOp{Kind: "st.async", Pos: w.prog.Insts[w.pc].Pos, Issuer: *w.threadID(first), batch: b}
	cl.queueBatch(b, k)
	return true
}

// queueBatch appends batch b of k members to the queue as Issue appends
// k operations in turn: issue numbers, and under AsyncRandom each
// member's delay, drawn in member order.
func (c *Cluster) queueBatch(b *queuedBatch, k int) {
	b.Issued = c.steps
	b.seq = c.issueSeq
	c.issueSeq += uint64(k)
	if c.cfg.Async == AsyncRandom {
		for j := 0; j < k; j++ {
			d := c.steps + uint64(c.choose(ChoiceDelay, maxAsyncDelay, 0))
			if c.queued+j == 0 || d < c.nextDue {
				c.nextDue = d
			}
			b.due[j] = d
		}
	}
	b.left = uint32(uint64(1)<<k - 1)
	c.async = append(c.async, &b.AsyncOp)
	c.queued += k
}

// land lands member j of b, as asyncStoreOp.land lands a lane's store:
// the data, then complete-tx on the mbarrier and the signal.
func (b *queuedBatch) land(c *Cluster, j int) *Report {
	cs := b.cs
	if b.dst.exited {
		return b.landReport(c, j, ruleRemoteExited, specDSMEM, fmt.Sprintf("%s lands in the shared memory of CTA rank %d, which has exited", b.in.Opcode, b.dst.Rank))
	}
	off := b.off + uint32(j*b.n)
	copy(b.dst.Shared[off:off+uint32(b.n)], b.data[j*b.n:(j+1)*b.n])
	op, single := b.tracked(j)
	if op != nil {
		if single {
			op.Landed = true
		} else {
			cs.tracker.LandMember(op, j)
		}
	}
	bars := b.bars
	phase, _ := bars.Phases(uint64(b.barOff))
	word := loadWord(b.dst, b.barOff)
	res, ok := bars.CompleteTxRun(uint64(b.barOff), word, uint32(b.n), 1) // CompleteTx without the error
	if !ok {
		var err error
		if res, err = bars.CompleteTx(b.in.Opcode, uint64(b.barOff), word, uint32(b.n)); err != nil {
			return b.txReport(c, j, err)
		}
	}
	storeWord(b.dst, b.barOff, res.Word)
	switch {
	case op == nil:
	case single:
		cs.tracker.SignalOp(op, b.ref, phase)
	default:
		cs.tracker.SignalMember(op, j, b.ref, phase)
		if b.op.N < 0 {
			b.op = nil // the batch became single operations
		}
	}
	return nil
}

// tracked returns the tracker's record of member j: the batch, or the
// member's own once the batch became single operations (single), or nil.
func (b *queuedBatch) tracked(j int) (op *asyncgroup.Op, single bool) {
	if b.op != nil {
		return b.op, false
	}
	if op := b.cs.tracker.Get(b.id + asyncgroup.OpID(j)); op != nil {
		return op, true
	}
	return nil, false
}

// txReport is completeTxOf's report for a complete-tx of member j that
// failed.
func (b *queuedBatch) txReport(c *Cluster, j int, err error) *Report {
	return b.cs.txReport(c, b.id+asyncgroup.OpID(j), b.memberOp(j), err, b.dst, b.barOff, uint32(b.n))
}

// landReport is the report of member j failing as it lands (as
// clusterAsync.landReport builds it for a single operation).
func (b *queuedBatch) landReport(c *Cluster, j int, rule, spec, msg string) *Report {
	return b.cs.landReportOf(c, b.memberOp(j), rule, spec, msg)
}

// memberOp returns member j as a single tracker operation, for a report,
// or nil once observed.
func (b *queuedBatch) memberOp(j int) *asyncgroup.Op {
	op, single := b.tracked(j)
	if op == nil || single {
		return op
	}
	return op.Member(j)
}

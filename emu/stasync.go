package emu

import (
	"errors"
	"fmt"
	"github.com/ptxkit/ptxkit/isa"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// st.async (PTX ISA §9.7.9.12) and red.async (§9.7.13.7): asynchronous
// stores and reductions into the shared memory of a CTA of the cluster
// that signal complete-tx on an mbarrier of that CTA when they land, and
// their .release global forms. The value is taken from the registers at
// issue; the store lands at a point the async policy chooses, never later
// than its complete-tx, which it performs itself.

func init() {
	RegisterVariant("st", isa.QAsync, decodeStAsync)
	RegisterVariant("red", isa.QAsync, decodeRedAsync)
}

// asyncStoreFlags in Inst.Imm.
const (
	asRelease = 1 << iota // .release.{gpu,sys}.global form: no mbarrier
)

// decodeAsyncTarget decodes what st.async and red.async share: the
// .release global form (two operands, no mbarrier) or the mbarrier form
// (three operands), and the destination address [a] with its space.
func decodeAsyncTarget(d *Decoder, in *ast.Instruction, out *Inst, q *Quals) (release bool, err error) {
	release = q.Has(isa.QRelease)
	nops := 3
	if release {
		out.Imm |= asRelease
		nops = 2
	}
	if len(in.Operands) != nops {
		return release, d.Errorf(in, "%s takes %d operands", in.FullOpcode(), nops)
	}
	var sp Space
	if out.A, out.Off, sp, err = d.Addr(in.Operands[0]); err != nil {
		return release, err
	}
	out.Space = memSpace(q, sp)
	return release, nil
}

// decodeStAsync lowers
//
//	st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar]
//	st.async{.mmio}.release.{gpu,sys}{.global}.type [a], b
func decodeStAsync(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type, out.Vec = q.Type(), uint8(q.Vec)
	if out.Type == TNone || out.Type == TPred {
		return d.Errorf(in, "st.async needs a data type")
	}
	release, err := decodeAsyncTarget(d, in, out, &q)
	if err != nil {
		return err
	}
	if out.Vec == 1 {
		out.B, err = d.Src(in.Operands[1], out.Type)
	} else {
		var v []int32
		v, err = d.Vector(in.Operands[1], out.Type, false)
		if err == nil && len(v) != int(out.Vec) {
			err = d.Errorf(in.Operands[1], "%s needs %d vector elements, got %d", in.FullOpcode(), out.Vec, len(v))
		}
		for _, e := range v {
			if e < 0 && err == nil {
				err = d.Errorf(in.Operands[1], "%s cannot store the sink _", in.FullOpcode())
			}
		}
		copy(out.V[:], v)
	}
	if err != nil {
		return err
	}
	if release {
		out.Exec = execStAsyncRelease
		return nil
	}
	if out.C, out.Imm, err = decodeMbarOperand(d, in.Operands[2], out.Imm); err != nil {
		return err
	}
	out.Exec = execStAsync
	return nil
}

// decodeMbarOperand decodes an [mbar] operand into a slot holding its
// address; the displacement goes into the high bits of imm (the
// displacement of [a] uses Inst.Off).
func decodeMbarOperand(d *Decoder, e ast.Expr, imm uint64) (int32, uint64, error) {
	base, off, _, err := d.Addr(e)
	if err != nil {
		return 0, 0, err
	}
	if off < -(1<<31) || off >= 1<<31 {
		return 0, 0, d.Errorf(e, "mbarrier displacement out of range")
	}
	return base, imm | uint64(uint32(int32(off)))<<32, nil
}

// mbarAddr returns lane l's mbarrier operand address.
func (w *Warp) mbarAddr(l int, in *Inst) uint64 {
	return w.R[in.C+int32(l)] + uint64(int64(int32(uint32(in.Imm>>32))))
}

// storeValue gathers lane l's source value(s) as little-endian bytes.
func (w *Warp) storeValue(l int, in *Inst, buf []byte) []byte {
	n := in.Type.Size()
	if in.Vec == 1 {
		putN(buf[:n], w.R[in.B+int32(l)])
		return buf[:n]
	}
	for i := 0; i < int(in.Vec); i++ {
		putN(buf[i*n:(i+1)*n], w.R[in.V[i]+int32(l)])
	}
	return buf[:n*int(in.Vec)]
}

// clusterShared resolves a shared::cluster (or generic) operand address of
// an asynchronous store to its CTA and offset, naming the operand in
// reports.
func (w *Warp) clusterShared(l int, in *Inst, a uint64, n int, what, spec string) (*CTA, uint32, bool) {
	if in.Space == SpaceGeneric {
		if genericSpace(a) != SpaceSharedCluster {
			w.Fault(l, ruleWrongWindow, spec, "%s %s address %#x is a generic address outside the .shared::cluster window", in.Opcode, what, a)
			return nil, 0, false
		}
		a -= sharedWindow
	} else if in.Space != SpaceSharedCluster && in.Space != SpaceShared {
		w.Fault(l, ruleWrongWindow, spec, "%s %s must be in .shared::cluster, not %s", in.Opcode, what, in.Space)
		return nil, 0, false
	}
	if a&uint64(n-1) != 0 {
		w.Fault(l, ruleMisaligned, spec, "%s %s address %#x is not a multiple of %d", in.Opcode, what, a, n)
		return nil, 0, false
	}
	return w.SharedTarget(l, a, n, false, true)
}

func execStAsync(w *Warp, in *Inst) Status {
	cl := w.CTA.cluster
	if w.Exec == 0 {
		return Continue
	}
	if len(cl.CTAs) < 2 {
		return w.Fault(lane(w.Exec), ruleStAsyncCluster, specStAsync, "st.async in a cluster of 1 CTA: %%cluster_nctarank must be greater than 1; launch with a cluster of 2 or more CTAs or use st.shared")
	}
	cs := asyncCluster(cl)
	// The lanes' destinations are usually consecutive words: their guards
	// change together, before any plain access can look at them.
	if asyncShortcuts {
		cs.tracker.Hold()
		defer cs.tracker.Release()
		if cs.eager && cl.race == nil && !cs.tracing {
			if w.stAsyncWarp(cs, in) {
				return Continue
			}
			return w.stAsyncEager(cs, in)
		}
		if cl.race == nil && !cs.tracing && w.stAsyncQueued(cs, in) { // stasyncqueue.go
			return Continue
		}
	}
	var bar barMemo
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		o := cs.newStore(in)
		val := w.storeValue(l, in, o.data[:])
		st, ok := w.asyncTarget(l, in, len(val), specStAsync, &bar)
		if !ok {
			return Fault
		}
		if w.issueAsyncStore(l, o, st) != Continue {
			return Fault
		}
	}
	return Continue
}

// stAsyncEager runs st.async under the eager policy, without the race
// detector or a trace: lane by lane, each store is issued and lands at
// once, as issueAsyncStore and Cluster.Issue do, but without the queue
// entry that an eager operation never waits in.
func (w *Warp) stAsyncEager(cs *clusterAsync, in *Inst) Status {
	cl := cs.cl
	var bar barMemo
	var seen *CTA // the destination CTA whose async state exists
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		var buf [32]byte
		val := w.storeValue(l, in, buf[:])
		st, ok := w.asyncTarget(l, in, len(val), specStAsync, &bar)
		if !ok {
			return Fault
		}
		if st.dst != seen {
			asyncCTA(st.dst) // watch the destination CTA's shared memory from now on
			seen = st.dst
		}
		id := cs.tracker.IssueStore(in.Opcode, w, w.siteAt(l),
			asyncgroup.Range{Lo: st.generic, Hi: st.generic + uint64(st.n)})
		if cs.tracker.Len() > maxOutstandingAsync {
			return w.outstandingFault(l)
		}
		if cl.queued >= maxQueuedAsync && w.landOldest() != Continue {
			return Fault
		}
		cs.armGlobalWatch(cl, id)
		cl.issueSeq++ // as Cluster.Issue counts it
		r := cs.landData(cl, id, in, &st, val)
		if r != nil && cl.report == nil && cl.keep(r) {
			r = nil
		}
		if r != nil {
			cl.fail(r)
			return Fault
		}
	}
	return Continue
}

// barMemo is the mbarrier operand of the last lane of an asynchronous
// store that resolved it: lanes usually name one mbarrier.
type barMemo struct {
	ok   bool
	addr uint64
	cta  *CTA
	off  uint32
}

// asyncStore is the resolved destination and mbarrier of an asynchronous
// store or reduction.
type asyncStore struct {
	dst     *CTA
	off     uint32
	n       int
	barOff  uint32
	generic uint64
}

// asyncTarget resolves and checks lane l's destination and mbarrier: both
// in the shared memory of one CTA of the cluster (§9.7.9.12).
// The resolution of the mbarrier operand depends on its address alone, so
// a lane naming the one memo holds reuses it.
func (w *Warp) asyncTarget(l int, in *Inst, n int, spec string, memo *barMemo) (asyncStore, bool) {
	a := w.R[in.A+int32(l)] + uint64(in.Off)
	dst, off, ok := w.clusterShared(l, in, a, n, "destination", spec)
	if !ok {
		return asyncStore{}, false
	}
	ba := w.mbarAddr(l, in)
	if !memo.ok || memo.addr != ba || !asyncShortcuts {
		bar, boff, ok := w.clusterShared(l, in, ba, 8, "mbarrier", spec)
		if !ok {
			return asyncStore{}, false
		}
		*memo = barMemo{ok: true, addr: ba, cta: bar, off: boff}
	}
	bar, boff := memo.cta, memo.off
	if bar != dst {
		w.Fault(l, ruleAsyncSameCTA, spec, "%s destination is in the shared memory of CTA rank %d but its mbarrier is in CTA rank %d; both must belong to the same CTA",
			in.Opcode, dst.Rank, bar.Rank)
		return asyncStore{}, false
	}
	return asyncStore{dst: dst, off: off, n: n, barOff: boff, generic: sharedGeneric(dst, off)}, true
}

// asyncStoreOp is a queued st.async or red.async: the bytes to store, or
// the reduction and its operand.
type asyncStoreOp struct {
	cs   *clusterAsync
	id   asyncgroup.OpID
	in   *Inst
	st   asyncStore
	data [32]byte // st.async: the value, little-endian
	red  uint64   // red.async: the operation (0 for a store)
	b    uint64   // red.async: the operand
}

func (cs *clusterAsync) newStore(in *Inst) *asyncStoreOp {
	if n := len(cs.spareStores); n > 0 {
		o := cs.spareStores[n-1]
		cs.spareStores = cs.spareStores[:n-1]
		o.in = in
		return o
	}
	return &asyncStoreOp{cs: cs, in: in}
}

func (o *asyncStoreOp) recycle() {
	cs := o.cs
	*o = asyncStoreOp{cs: cs}
	cs.spareStores = append(cs.spareStores, o)
}

// land applies the data to the destination bytes, then signals complete-tx
// with the byte count on the mbarrier.
func (o *asyncStoreOp) land(c *Cluster) *Report {
	if o.red == 0 {
		return o.cs.landData(c, o.id, o.in, &o.st, o.data[:o.st.n])
	}
	st, name := &o.st, o.in.Opcode
	if st.dst.exited {
		return o.cs.landReport(c, o.id, ruleRemoteExited, specDSMEM, fmt.Sprintf("%s lands in the shared memory of CTA rank %d, which has exited", name, st.dst.Rank))
	}
	dst := st.dst.Shared[st.off : st.off+uint32(st.n)]
	putN(dst, reduce(o.red, o.in.Type, getN(dst), o.b))
	o.cs.tracker.Land(o.id)
	return o.cs.completeTx(c, o.id, name, st.dst, st.barOff, uint32(st.n))
}

// landData lands st.async operation id of in: data goes to the
// destination, then complete-tx with its byte count.
func (cs *clusterAsync) landData(c *Cluster, id asyncgroup.OpID, in *Inst, st *asyncStore, data []byte) *Report {
	if st.dst.exited {
		return cs.landReport(c, id, ruleRemoteExited, specDSMEM, fmt.Sprintf("%s lands in the shared memory of CTA rank %d, which has exited", in.Opcode, st.dst.Rank))
	}
	copy(st.dst.Shared[st.off:st.off+uint32(st.n)], data)
	op := cs.tracker.Get(id)
	if op != nil {
		op.Landed = true // Tracker.Land
	}
	return cs.completeTxOf(c, id, op, in.Opcode, st.dst, st.barOff, uint32(st.n))
}

// issueAsyncStore queues o, an asynchronous store or reduction to st.
func (w *Warp) issueAsyncStore(l int, o *asyncStoreOp, st asyncStore) Status {
	cs := asyncCluster(w.CTA.cluster)
	asyncCTA(st.dst) // watch the destination CTA's shared memory from now on
	o.cs, o.st = cs, st
	o.id = cs.tracker.Issue(w.siteOp(l, o.in.Opcode,
		asyncgroup.Range{Lo: st.generic, Hi: st.generic + uint64(st.n)}, asyncgroup.Range{}))
	cs.willSignal(o.id, asyncgroup.BarrierRef{CTA: st.dst.Rank, Addr: uint64(st.barOff)})
	kind := "st.async"
	if o.red != 0 {
		kind = "red.async"
	}
	return w.issue(l, o.id, kind, int(st.n), o, func() string {
		return fmt.Sprintf("%d bytes to shared offset %#x of CTA rank %d, complete-tx on the mbarrier at %#x", st.n, st.off, st.dst.Rank, st.barOff)
	})
}

// completeTx performs the complete-tx of a landed operation on the mbarrier
// at offset off of c and records the phase it counts toward.
func (cs *clusterAsync) completeTx(c *Cluster, id asyncgroup.OpID, name string, cta *CTA, off uint32, n uint32) *Report {
	return cs.completeTxOf(c, id, cs.tracker.Get(id), name, cta, off, n)
}

// completeTxOf is completeTx given op, the tracker's record of id (nil
// once observed).
func (cs *clusterAsync) completeTxOf(c *Cluster, id asyncgroup.OpID, op *asyncgroup.Op, name string, cta *CTA, off uint32, n uint32) *Report {
	tab := asyncCTA(cta).bars
	phase, _ := tab.Phases(uint64(off))
	r, err := tab.CompleteTx(name, uint64(off), loadWord(cta, off), n)
	if err != nil {
		return cs.txReport(c, id, cs.tracker.Get(id), err, cta, off, n)
	}
	storeWord(cta, off, r.Word)
	c.raceSignal(id, cta, off, phase)
	if op != nil {
		cs.tracker.SignalOp(op, asyncgroup.BarrierRef{CTA: cta.Rank, Addr: uint64(off)}, phase)
	}
	return nil
}

// txReport is the report of operation id (tracked as op, or nil once
// observed) whose complete-tx of n bytes on the mbarrier at offset off of
// cta failed with err as it landed.
func (cs *clusterAsync) txReport(c *Cluster, id asyncgroup.OpID, op *asyncgroup.Op, err error, cta *CTA, off uint32, n uint32) *Report {
	rule, spec, msg := RuleUnsupported, "", err.Error()
	var e *mbarrier.Error
	if errors.As(err, &e) {
		rule, spec = e.Kind.Rule(), e.Kind.Spec()
		msg = fmt.Sprintf("complete-tx of %d bytes on the mbarrier at offset %#x of CTA rank %d: %s", n, off, cta.Rank, mbDetail(e))
	}
	r := cs.landReportOf(c, op, rule, spec, msg)
	if m, ok := cs.meta[id]; ok {
		r.Pos = m.pos
	}
	return r
}

// landReport builds the report of an operation that fails as it lands.
func (cs *clusterAsync) landReport(c *Cluster, id asyncgroup.OpID, rule, spec, msg string) *Report {
	r := cs.landReportOf(c, cs.tracker.Get(id), rule, spec, msg)
	if m, ok := cs.meta[id]; ok {
		r.Pos = m.pos
	}
	return r
}

// landReportOf builds the report of operation op (nil once observed)
// failing as it lands.
func (cs *clusterAsync) landReportOf(c *Cluster, op *asyncgroup.Op, rule, spec, msg string) *Report {
	r := &Report{Rule: rule, Spec: spec, File: c.prog.File, Message: msg}
	if op != nil {
		where, issuer := cs.tracker.Describes(op)
		r.Message = fmt.Sprintf("%s, when the %s at %s issued by %s lands", msg, op.Name, where, issuer)
		if w, ok := op.Site.(*Warp); ok {
			r.Pos = w.prog.Insts[int32(uint32(op.SiteAt))].Pos // the report leads with the issuing instruction (describeSite)
		}
	}
	return r
}

// execStAsyncRelease runs the .release global form: a strong release store
// to global memory, issued asynchronously and landed by the policy (at
// once unless --async=random, which delays it by a seeded number of
// steps), so that a consumer polling with ld.acquire always sees it.
func execStAsyncRelease(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		var buf [32]byte
		val := w.storeValue(l, in, buf[:])
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		if in.Space == SpaceGeneric && genericSpace(a) != SpaceGlobal {
			return w.Fault(l, ruleWrongWindow, specStAsync, "st.async.release address %#x is a generic address outside the .global window", a)
		}
		dst := w.Bytes(l, SpaceGlobal, a, len(val), true)
		if dst == nil {
			return Fault
		}
		data := append([]byte(nil), val...)
		land := func(c *Cluster) *Report {
			if c.atomMu != nil {
				c.atomMu.Lock()
				defer c.atomMu.Unlock()
			}
			copy(dst, data)
			return nil
		}
		if w.CTA.cluster.cfg.Async != AsyncRandom {
			land(w.CTA.cluster)
			continue
		}
		cs := asyncCluster(w.CTA.cluster)
		id := cs.tracker.Issue(w.siteOp(l, in.Opcode, asyncgroup.Range{}, asyncgroup.Range{}))
		cs.tracker.Observe(id) // nothing waits for it: release/acquire orders it
		if w.issue(l, id, "st.async.release", len(val), landFunc(land), func() string { return fmt.Sprintf("%d bytes to global %#x", len(val), a) }) != Continue {
			return Fault
		}
	}
	return Continue
}

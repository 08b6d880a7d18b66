package emu

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// This file holds the state shared by the asynchronous instructions
// (mbarrier_ops.go, stasync.go, cpasync.go): each CTA's mbarrier table and
// per-thread async-groups, each cluster's outstanding operations, the
// shared-memory watch that reports plain accesses to live mbarriers and to
// async destinations and sources, and the completion trace.

// Sanitizer rules of the asynchronous instructions. mbarrier misuse uses
// the rules of package mbarrier ("mbarrier-uninit", ...), hazards those of
// package asyncgroup ("async-read-destination", ...).
const (
	ruleStAsyncCluster = "st-async-cluster"     // st.async with %cluster_nctarank == 1
	ruleAsyncSameCTA   = "async-mbarrier-cta"   // destination and mbarrier in different CTAs
	ruleRedAsyncOwnCTA = "red-async-own-cta"    // red.async on the executing CTA
	ruleMbarrierRemote = "mbarrier-remote"      // operation not allowed on a remote mbarrier
	ruleAsyncGroupExit = "async-group-exit"     // exit with async-groups not waited for
	ruleBulkSize       = "bulk-size"            // bulk copy size not a multiple of 16
	ruleMbarrierStore  = "mbarrier-plain-store" // st over a live mbarrier object
)

const (
	specStAsync      = "PTX ISA §9.7.9.12 (st.async)"
	specRedAsync     = "PTX ISA §9.7.13.7 (red.async)"
	specAsyncGroup   = "PTX ISA §9.7.9.25.1.1 (async-group mechanism)"
	specMbarrierObj  = "PTX ISA §9.7.13.15.1 (mbarrier object: accessed only through mbarrier instructions)"
	specMbarrierAddr = "PTX ISA §9.7.13.15.8 (state spaces of mbarrier operations)"
	specBulk         = "PTX ISA §9.7.9.25.4.1 (cp.async.bulk)"
)

var (
	ctaAsyncKey     = NewCTAKey(newCTAAsync)
	clusterAsyncKey = NewClusterKey(func(*Cluster) any { return &clusterAsync{} })
)

func init() { OnCTAExit(checkAsyncExit) }

// ctaAsync is one CTA's asynchronous state.
type ctaAsync struct {
	cta     *CTA
	bars    *mbarrier.Table
	threads []threadAsync // by linear thread index in the CTA
	guards  *sharedGuards // the granules the watch must see
	waits   []waitMemo    // by warp index: what its suspended try_wait waits for
}

// threadAsync is one thread's async-groups and where it last used them.
type threadAsync struct {
	asyncgroup.Thread
	last token.Pos
}

func newCTAAsync(c *CTA) any {
	s := &ctaAsync{cta: c, bars: mbarrier.NewTable(), guards: newSharedGuards(c)}
	c.Watch = s.watch
	return s
}

// asyncCTA returns c's asynchronous state, creating it (and installing
// the shared-memory watch) on first use.
func asyncCTA(c *CTA) *ctaAsync {
	if s, ok := c.ext[ctaAsyncKey].(*ctaAsync); ok {
		return s
	}
	return c.Ext(ctaAsyncKey).(*ctaAsync)
}

// thread returns the async-group state of lane l of w.
func (s *ctaAsync) thread(w *Warp, l int) *threadAsync {
	if s.threads == nil {
		s.threads = make([]threadAsync, 32*len(s.cta.Warps))
	}
	return &s.threads[w.Index*32+l]
}

// clusterAsync is a cluster's outstanding asynchronous operations.
type clusterAsync struct {
	cl      *Cluster
	guards  []*sharedGuards // by CTA rank, filled as used (asyncwatch.go)
	tracker asyncgroup.Tracker
	tracing bool
	eager   bool                       // operations land as they are issued (AsyncEager)
	meta    map[asyncgroup.OpID]opMeta // operation descriptions, when tracing

	globalArmed bool      // every warp has watchGlobal set (asyncglobal.go)
	globalBox   globalBox // holds every guarded global range

	// Landed operations, for reuse: the core's queue drops an operation
	// once it has landed, so a steady stream of operations allocates
	// nothing.
	spareQueued []*queuedOp
	spareStores []*asyncStoreOp
	spareCopies []*cpAsyncOp
	spareBatch  []*queuedBatch

	sigID  asyncgroup.OpID // willSignal's operation, for the next newQueued
	sigRef asyncgroup.BarrierRef
}

// asyncShortcuts enables the fast paths of the asynchronous instructions
// (docs/async-fast-paths.md): eager st.async landing without a queue entry,
// per-warp reuse of an mbarrier operand's resolution and of a wait's
// outcome, retries of an unchanged wait, gathered guard changes. Each
// gives the same results as the plain path; tests turn them off to check.
var asyncShortcuts = true

// opMeta describes an operation for the trace.
type opMeta struct {
	kind   string
	pos    token.Pos
	issuer ThreadID
	detail string
	bytes  int
}

// An operation's Site is the issuing warp and its SiteAt the lane and pc,
// packed as lane<<32 | pc, so issuing allocates nothing; reports format
// them lazily.
func describeSite(op *asyncgroup.Op) (where, issuer string) {
	w, ok := op.Site.(*Warp)
	if !ok {
		return "", ""
	}
	lane, pc := int(op.SiteAt>>32), int32(uint32(op.SiteAt))
	return fmt.Sprintf("%s:%s", w.prog.File, w.prog.Insts[pc].Pos), w.threadID(lane).String()
}

// siteOp returns an operation named name issued by lane l of w, which
// writes dst and reads src.
func (w *Warp) siteOp(l int, name string, dst, src asyncgroup.Range) asyncgroup.Op {
	return asyncgroup.Op{Name: name, Site: w, SiteAt: w.siteAt(l), Dst: dst, Src: src}
}

// siteAt packs lane l and the pc of w for an operation's SiteAt.
func (w *Warp) siteAt(l int) uint64 { return uint64(l)<<32 | uint64(uint32(w.pc)) }

func asyncCluster(c *Cluster) *clusterAsync {
	if s, ok := c.ext[clusterAsyncKey].(*clusterAsync); ok && s.cl != nil {
		return s
	}
	s := c.Ext(clusterAsyncKey).(*clusterAsync)
	if s.cl == nil {
		s.tracker.Describe = describeSite
		s.tracker.Counted = isGlobalRange
		s.cl = c
		s.tracker.Changed = s.guardChanged
		s.tracing = c.cfg.obs.trace != nil
		s.eager = c.cfg.Async == AsyncEager
		s.meta = map[asyncgroup.OpID]opMeta{}
	}
	return s
}

// sharedGeneric returns the generic address of byte off of c's shared
// memory, the address space the tracker names bytes in.
func sharedGeneric(c *CTA, off uint32) uint64 {
	return sharedWindow + uint64(c.Rank+1)<<sharedRankShift + uint64(off)
}

// watch sees every plain access to the CTA's shared memory (CTA.Watch).
func (s *ctaAsync) watch(w *Warp, l int, off uint32, n int, write bool) Status {
	if write {
		if a, ok := s.bars.Overlapping(uint64(off), uint64(off)+uint64(n)); ok {
			o, _, _ := s.bars.Get(a)
			return w.Fault(l, ruleMbarrierStore, specMbarrierObj,
				"%d-byte store at shared offset %#x overwrites the live mbarrier object at %#x of CTA rank %d (%s); invalidate it with mbarrier.inval first",
				n, off, a, s.cta.Rank, o)
		}
	}
	cs, ok := s.cta.cluster.ext[clusterAsyncKey].(*clusterAsync)
	if !ok || cs.tracker.Len() == 0 {
		return Continue
	}
	g := sharedGeneric(s.cta, off)
	r := asyncgroup.Range{Lo: g, Hi: g + uint64(n)}
	var h *asyncgroup.Hazard
	if write {
		h = cs.tracker.CheckWrite(r)
	} else {
		h = cs.tracker.CheckRead(r)
	}
	if h != nil {
		verb, role := hazardWords(h.Rule)
		where, issuer := cs.tracker.Describes(h.Op)
		return w.Fault(l, h.Rule, h.Spec, "%s %d bytes at shared offset %#x of CTA rank %d, the %s of %s at %s issued by %s, before a wait observed its completion",
			verb, n, off, s.cta.Rank, role, h.Op.Name, where, issuer)
	}
	return Continue
}

// checkAsyncExit reports a CTA whose threads exit with async-groups they
// never waited for (OnCTAExit).
func checkAsyncExit(c *CTA) *Report {
	s, ok := c.ext[ctaAsyncKey].(*ctaAsync)
	if !ok {
		return nil
	}
	for i := range s.threads {
		t := &s.threads[i]
		if msg, ok := t.Unwaited(); !ok {
			w := c.Warps[i/32]
			return &Report{Rule: ruleAsyncGroupExit, File: w.prog.File, Pos: t.last, Thread: w.threadID(i % 32), Spec: specAsyncGroup,
				Message: "thread exits with " + msg + "; wait for them (cp.async.wait_group / cp.async.bulk.wait_group) before exit"}
		}
	}
	return nil
}

// loadWord reads the 8 bytes at off of c's shared memory.
func loadWord(c *CTA, off uint32) uint64 { return binary.LittleEndian.Uint64(c.Shared[off : off+8]) }

// storeWord writes the 8 bytes at off of c's shared memory: an mbarrier
// object's new state, which Launch.Barriers hears of.
func storeWord(c *CTA, off uint32, v uint64) {
	binary.LittleEndian.PutUint64(c.Shared[off:off+8], v)
	if c.cluster.cfg.obs.barrier != nil {
		c.noteBarrier(off, v)
	}
}

// Limits on asynchronous operations per cluster, so that any program runs
// in bounded memory and time.
const (
	// maxQueuedAsync is how many operations may wait to land; beyond it
	// the oldest lands at once (landing early is always allowed).
	maxQueuedAsync = 1024
	// maxOutstandingAsync is how many operations may be issued without
	// their completion being observed; beyond it the run stops.
	maxOutstandingAsync = 1 << 15
)

// MaxTracedAsync is how many operations of a cluster Launch.Trace receives
// events for; later ones are not traced, so that tracing a long-running
// kernel keeps bounded memory.
const MaxTracedAsync = 1 << 14

// ruleAsyncLimit reports a program that issues more than
// maxOutstandingAsync operations whose completion it never observes.
const ruleAsyncLimit = "async-limit"

// lander is what a queued operation does when it lands.
type lander interface{ land(c *Cluster) *Report }

// landFunc adapts a function to lander.
type landFunc func(c *Cluster) *Report

func (f landFunc) land(c *Cluster) *Report { return f(c) }

// issue queues an operation of the given kind, tracked as id, moving n
// bytes, on behalf of lane l of w; ld lands it. detail describes it for
// the trace (it is called only when tracing).
func (w *Warp) issue(l int, id asyncgroup.OpID, kind string, n int, ld lander, detail func() string) Status {
	cl := w.CTA.cluster
	cs := asyncCluster(cl)
	if cl.race != nil {
		cl.race.Issue(w.raceThread(l), uint64(id), w.pc)
	}
	if cs.tracker.Len() > maxOutstandingAsync {
		return w.outstandingFault(l)
	}
	if cl.queued >= maxQueuedAsync && w.landOldest() != Continue {
		return Fault
	}
	q := cs.newQueued(id, kind, ld)
	op := &q.AsyncOp
	cs.armGlobalWatch(cl, id)
	if cs.tracing && len(cs.meta) < MaxTracedAsync {
		cs.meta[id] = opMeta{kind: kind, pos: w.prog.Insts[w.pc].Pos, issuer: *w.threadID(l), detail: detail(), bytes: n}
	}
	cs.event(cl, id, "issued", "")
	if cs.eager {
		// The operation lands now: the position and issuer that
		// IssueFrom records for queued operations are never read.
		if r := cl.Issue(op); r != nil {
			cl.fail(r)
			return Fault
		}
		return Continue
	}
	return w.IssueFrom(l, op)
}

// outstandingFault reports lane l issuing past maxOutstandingAsync.
func (w *Warp) outstandingFault(l int) Status {
	return w.Fault(l, ruleAsyncLimit, specAsyncGroup,
		"more than %d asynchronous operations issued whose completion no wait has observed; wait for them (cp.async.wait_group, mbarrier.try_wait)", maxOutstandingAsync)
}

// landOldest lands the oldest queued operation, to make room in the queue.
func (w *Warp) landOldest() Status {
	cl := w.CTA.cluster
	if r := cl.landFirst(); r != nil {
		cl.fail(r)
		return Fault
	}
	return Continue
}

// queuedOp is an operation in the core's queue: the AsyncOp, whose Land is
// bound to the queuedOp once, when it is first made, and what landing it
// does.
type queuedOp struct {
	AsyncOp
	cs    *clusterAsync
	id    asyncgroup.OpID
	ld    lander
	bound func(c *Cluster) *Report

	signals bool                  // landing signals the mbarrier target
	target  asyncgroup.BarrierRef // (for signalling)
}

// recycler is a lander that can be reused once it has landed.
type recycler interface{ recycle() }

func (cs *clusterAsync) newQueued(id asyncgroup.OpID, kind string, ld lander) *queuedOp {
	var q *queuedOp
	if n := len(cs.spareQueued); n > 0 {
		q = cs.spareQueued[n-1]
		cs.spareQueued = cs.spareQueued[:n-1]
	} else {
		q = &queuedOp{cs: cs}
		q.bound = q.land
	}
	q.AsyncOp = AsyncOp{Kind: kind, Land: q.bound, q: q}
	q.id, q.ld = id, ld
	q.signals = cs.sigID == id
	q.target, cs.sigID = cs.sigRef, 0
	return q
}

func (q *queuedOp) land(c *Cluster) *Report {
	cs, id, ld := q.cs, q.id, q.ld
	q.AsyncOp.q = nil // landed: no longer queued
	if c.race != nil {
		if r := c.raceLand(cs, id); r != nil {
			return r
		}
		c.race.Landing = true
	}
	r := ld.land(c)
	if c.race != nil {
		c.race.Landing = false
	}
	cs.event(c, id, "landed", "")
	q.ld = nil
	cs.spareQueued = append(cs.spareQueued, q)
	if rc, ok := ld.(recycler); ok {
		rc.recycle()
	}
	return r
}

// willSignal records that operation id, about to be issued, signals
// barrier b when it lands (for signalling).
func (cs *clusterAsync) willSignal(id asyncgroup.OpID, b asyncgroup.BarrierRef) {
	cs.sigID, cs.sigRef = id, b
}

// queuedOf returns the operation of cs that op, from the cluster's queue,
// is, or nil.
func (cs *clusterAsync) queuedOf(op *AsyncOp) *queuedOp {
	if q := op.q; q != nil && q.cs == cs {
		return q
	}
	return nil
}

// signalling returns the queued operations that will signal the mbarrier
// at offset off of c, in issue order.
func (cs *clusterAsync) signalling(c *CTA, off uint32) []asyncgroup.OpID {
	b := asyncgroup.BarrierRef{CTA: c.Rank, Addr: uint64(off)}
	var ids []asyncgroup.OpID
	for _, op := range cs.cl.async {
		if qb := op.batch; qb != nil {
			if qb.cs == cs && qb.ref == b {
				for m := qb.left; m != 0; m &= m - 1 {
					ids = append(ids, qb.id+asyncgroup.OpID(bits.TrailingZeros32(m)))
				}
			}
			continue
		}
		if q := cs.queuedOf(op); q != nil && q.signals && q.target == b {
			ids = append(ids, q.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// landOps lands the queued operations among ids (a wait that forces
// completion).
func (c *Cluster) landOps(ids []asyncgroup.OpID) *Report {
	if len(ids) == 0 {
		return nil
	}
	if !slices.IsSorted(ids) {
		ids = slices.Sorted(slices.Values(ids))
	}
	cs := asyncCluster(c)
	return c.LandWhere(func(op *AsyncOp) bool {
		q := cs.queuedOf(op)
		if q == nil {
			return false
		}
		_, ok := slices.BinarySearch(ids, q.id)
		return ok
	})
}

// observe forgets operation id after a wait observed its completion.
func (cs *clusterAsync) observe(c *Cluster, id asyncgroup.OpID) {
	if cs.tracker.Get(id) != nil {
		cs.event(c, id, "observed", "")
		cs.tracker.Observe(id)
	}
}

// observeBarrier forgets the operations whose completion a true wait on
// barrier b (which has completed phases phases) observes.
func (cs *clusterAsync) observeBarrier(c *Cluster, b asyncgroup.BarrierRef, phases uint64) {
	if cs.tracker.Len() == 0 {
		return
	}
	if !cs.tracing {
		cs.tracker.ObserveBarrier(b, phases)
		return
	}
	cs.tracker.ObserveBarrierEach(b, phases, func(op *asyncgroup.Op) { cs.event(c, op.ID, "observed", "") })
}

// AsyncEvent is one step in the life of an asynchronous operation, for
// `ptxkit run --trace`: "issued", "landed" (its data written and its
// completion signalled) or "observed" (a wait saw it complete).
type AsyncEvent struct {
	Cluster int       // linear cluster index
	Step    uint64    // cluster clock (warp-instructions executed)
	Op      uint64    // operation number within the cluster, from 1
	Event   string    // "issued", "landed", "observed"
	Kind    string    // instruction, e.g. "st.async"
	Pos     token.Pos // of the issuing instruction
	Issuer  ThreadID
	Detail  string // bytes and addresses
	Bytes   int    // bytes the operation moves (0 for an arrive)
	// By is the thread whose wait observed the completion ("observed"
	// events).
	By ThreadID
}

// event reports a trace event for operation id.
func (cs *clusterAsync) event(c *Cluster, id asyncgroup.OpID, what, detail string) {
	if !cs.tracing {
		return
	}
	m, ok := cs.meta[id]
	if !ok {
		return
	}
	e := AsyncEvent{Cluster: c.Index, Step: c.steps, Op: uint64(id), Event: what, Kind: m.kind, Pos: m.pos, Issuer: m.issuer, Detail: detail, Bytes: m.bytes}
	if detail == "" {
		e.Detail = m.detail
	}
	if w := c.running; what == "observed" && w != nil {
		e.By = *w.threadID(lane(w.Exec))
	}
	c.cfg.obs.trace(e)
}

// hazardWords names the access and the operand of an async hazard rule
// for a report: "read of ... destination", "write to ... source".
func hazardWords(rule string) (verb, role string) {
	switch rule {
	case "async-write-source":
		return "write to", "source"
	case "async-write-destination":
		return "write to", "destination"
	}
	return "read of", "destination"
}

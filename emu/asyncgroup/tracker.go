package asyncgroup

import (
	"fmt"
	"math/bits"
	"slices"
)

// Range is a half-open byte range [Lo, Hi) in the address space the
// emulator uses to name memory (one address per byte, the same for every
// thread, e.g. generic addresses). An empty range touches nothing.
type Range struct{ Lo, Hi uint64 }

// Overlaps reports whether r and s share a byte.
func (r Range) Overlaps(s Range) bool {
	return r.Lo < s.Hi && s.Lo < r.Hi && r.Lo < r.Hi && s.Lo < s.Hi
}

func (r Range) String() string { return fmt.Sprintf("[%#x, %#x)", r.Lo, r.Hi) }

// BarrierRef names an mbarrier object: the CTA whose shared memory holds it
// and its shared::cta address.
type BarrierRef struct {
	CTA  int
	Addr uint64
}

// Op is one outstanding asynchronous operation.
type Op struct {
	ID     OpID
	Name   string // instruction, e.g. "cp.async.cg.shared.global"
	Issuer string // issuing thread, as the emulator describes it
	Where  string // source position of the instruction, for reports
	Site   any    // the emulator's record of where the operation was issued
	SiteAt uint64 // a number the emulator keeps beside Site (e.g. lane and pc)
	Dst    Range  // bytes the operation writes
	Src    Range  // bytes the operation reads; empty for a register source

	Landed     bool // the data has been written
	SourceFree bool // the source has been read (a .read wait observed it)

	// Signalled is set once the operation's completion has been signalled on
	// an mbarrier (complete-tx, or the arrival of cp.async.mbarrier.arrive)
	// while that barrier had completed Phase phases: the signal counts
	// toward the phase numbered Phase.
	Signalled bool
	Barrier   BarrierRef
	Phase     uint64

	// A batch (IssueBatch) stands for N > 1 operations issued together
	// that write adjacent ranges of Each bytes and read no memory: member
	// k has ID ID+k, writes [Dst.Lo+k*Each, Dst.Lo+(k+1)*Each) and was
	// issued at SiteAt+k*SiteStep. Dst is their union. N is 0 or 1 for a
	// single operation.
	// A batch has at most 32 members. Those of a batch issued with
	// IssueQueuedBatch land and signal one at a time (LandMember,
	// SignalMember) and a wait may observe some of them before the others:
	// bit k of out is set once member k has been observed, of unlanded
	// while member k has not landed, of unsignalled while it has not been
	// signalled. Signalled, Barrier and Phase then describe the members
	// signalled and not yet observed, which all count toward one phase of
	// one barrier (a member signalled in another phase turns the batch into
	// single operations). A batch of IssueBatch has landed and is signalled
	// as a whole.
	N        int
	Each     uint64
	SiteStep uint64

	out, unlanded, unsignalled uint32

	counted [2]bool // Tracker.Counted selected Dst, Src (computed at issue)
}

// members returns the number of operations op stands for and that are
// not observed.
func (op *Op) members() int {
	if op.N <= 1 {
		return 1
	}
	return op.N - bits.OnesCount32(op.out)
}

// all returns the mask of a batch's N members.
func (op *Op) all() uint32 { return uint32(uint64(1)<<op.N - 1) }

// signalledMembers returns the members of batch op that are signalled and
// not observed.
func (op *Op) signalledMembers() uint32 {
	if !op.Signalled {
		return 0
	}
	return op.all() &^ op.out &^ op.unsignalled
}

// memberRange returns the bytes member k of batch op writes.
func (op *Op) memberRange(k int) Range {
	lo := op.Dst.Lo + uint64(k)*op.Each
	return Range{Lo: lo, Hi: lo + op.Each}
}

// member returns member k of batch op as a single operation, for a report.
func (op *Op) member(k int) *Op {
	bit := uint32(1) << k
	m := &Op{ID: op.ID + OpID(k), Name: op.Name, Site: op.Site, SiteAt: op.SiteAt + uint64(k)*op.SiteStep,
		Dst:    op.memberRange(k),
		Landed: op.Landed || op.N > 1 && op.unlanded&bit == 0, Signalled: op.Signalled && op.unsignalled&bit == 0}
	if m.Signalled {
		m.Barrier, m.Phase = op.Barrier, op.Phase
	}
	return m
}

// Member returns member k of batch op as a single operation, for a
// report, or nil once it has been observed.
func (op *Op) Member(k int) *Op {
	if op.N <= 1 || k < 0 || k >= op.N || op.out&(1<<k) != 0 {
		return nil
	}
	return op.member(k)
}

// firstOverlap returns the first operation op stands for, not observed,
// that writes a byte of r (op itself when it is not a batch), or nil.
func (op *Op) firstOverlap(r Range) *Op {
	if !op.Dst.Overlaps(r) {
		return nil
	}
	if op.N <= 1 {
		return op
	}
	k := 0
	if r.Lo > op.Dst.Lo {
		k = int((r.Lo - op.Dst.Lo) / op.Each)
	}
	last := int((min(r.Hi, op.Dst.Hi) - 1 - op.Dst.Lo) / op.Each)
	for ; k <= last; k++ {
		if op.out&(1<<k) == 0 {
			return op.member(k)
		}
	}
	return nil
}

// Tracker holds the outstanding asynchronous operations of one launch. An
// operation stays outstanding from its issue until its completion is
// observed: by the wait of its async-group, or by a wait that returns true
// on the mbarrier phase its completion was signalled in. The zero Tracker is
// ready to use; it is not safe for concurrent use.
//
// Every method costs O(log n) or less for n outstanding operations,
// except a check that finds a hazard. The guarded ranges are kept in
// per-byte counts and an interval index (guards.go, index.go), so an
// access that touches none of them is cleared without looking at the
// operations. Operations are found by ID with a binary search over the
// issue order. A true wait on an mbarrier looks only at the operations
// signalled on it. Observed operations are recycled, so a steady stream
// of operations allocates nothing once the Tracker has held its largest
// population. A check that finds a hazard scans the operations in issue
// order for the oldest offender, so that the report is the same whatever
// the index.
type Tracker struct {
	ops   []*Op  // in issue order; nil once observed, until compacted
	ids   []OpID // ids[i] is the ID of ops[i], kept after it is observed
	holes int    // nil entries of ops
	live  int    // outstanding operations, counting each member of a batch
	next  OpID
	spare []*Op // observed operations, for reuse
	slab  []Op  // operations never used yet, allocated together

	dsts guardSet // outstanding destinations, with multiplicity
	srcs guardSet // sources not yet read, with multiplicity

	// signalled lists, per mbarrier, operations signalled on it; entries
	// go stale when the operation is observed or signals another barrier,
	// and are dropped when the list is next walked.
	signalled map[BarrierRef]*[]OpID
	recent    [4]barList // the lists used last, most recent first
	due       []int      // scratch for ObserveBarrier: positions in ops

	// Describe, when set, fills in the Where and Issuer of an operation
	// that lacks them, from its Site; reports call it so that issuing an
	// operation need not format text.
	Describe func(op *Op) (where, issuer string)

	// Counted, when set, selects guarded ranges to count (for example those
	// in global memory); Watched returns how many are outstanding, so that
	// a caller can skip a check when none is. Set it before the first Issue.
	Counted  func(r Range) bool
	nCounted int

	// Changed, when set, is told each time the bytes of a destination (dst)
	// or source range r become guarded once more (d = 1) or once less
	// (d = -1). Adjacent short ranges guarded or released together may be
	// told as one range covering them (see Hold), so a listener counts
	// bytes, not ranges.
	Changed func(r Range, dst bool, d int)

	holding bool
	pend    pendingRange
}

// pendingRange is the union of adjacent short ranges whose guard counts
// change by d together in set, not yet applied (see Hold).
type pendingRange struct {
	set *guardSet
	r   Range
	d   int
}

// Hold starts gathering the guard changes of adjacent short ranges (a warp
// issuing stores to consecutive words), which Release applies as one:
// per-byte counts are the same either way. Until Release, the Tracker's
// own answers are exact (a check applies what is pending first), but
// Changed may not have heard of the pending change yet.
func (tr *Tracker) Hold() { tr.holding = true }

// Release applies what Hold gathered and tells Changed.
func (tr *Tracker) Release() {
	tr.holding = false
	tr.flush()
}

// flush applies the pending guard change.
func (tr *Tracker) flush() {
	p := &tr.pend
	if p.set == nil {
		return
	}
	p.set.short.add(p.r, p.d) // a union of short ranges: per-byte counts
	if tr.Changed != nil {
		tr.Changed(p.r, p.set == &tr.dsts, p.d)
	}
	*p = pendingRange{}
}

// Watched returns the number of guarded ranges (destinations, and sources
// not yet read, with multiplicity) selected by Counted.
func (tr *Tracker) Watched() int { return tr.nCounted }

// addRange guards r once more (d = 1) or once less (d = -1) in x;
// counted says whether Counted selects it.
func (tr *Tracker) addRange(x *guardSet, r Range, counted bool, d int) {
	if r.Lo >= r.Hi {
		return
	}
	if counted {
		tr.nCounted += d
	}
	if tr.holding && r.Hi-r.Lo <= shortRange {
		if p := &tr.pend; p.set == x && p.d == d && p.r.Hi == r.Lo {
			p.r.Hi = r.Hi
			return
		}
		tr.flush()
		tr.pend = pendingRange{set: x, r: r, d: d}
		return
	}
	tr.flush() // changes apply in order: a release never precedes its guard
	x.add(r, d)
	if tr.Changed != nil {
		tr.Changed(r, x == &tr.dsts, d)
	}
}

func (tr *Tracker) counts(r Range) bool {
	return r.Lo < r.Hi && tr.Counted != nil && tr.Counted(r)
}

// Issue records a new operation and returns its ID.
func (tr *Tracker) Issue(op Op) OpID {
	p := tr.newOp()
	*p = op
	return tr.issue(p)
}

// IssueStore records a new operation named name that writes dst and reads
// no memory, issued at site and siteAt, as Issue(Op{...}) does without
// copying an Op.
func (tr *Tracker) IssueStore(name string, site any, siteAt uint64, dst Range) OpID {
	p := tr.newOp()
	*p = Op{Name: name, Site: site, SiteAt: siteAt, Dst: dst}
	return tr.issue(p)
}

// IssueBatch records 0 < n <= 32 operations named name, issued together at site,
// the k-th at siteAt+k*siteStep, that write the adjacent ranges of each
// bytes from lo and read no memory, as one batch (see Op.N), and returns
// it; its ID is the first member's, the others have the IDs that follow.
// It leaves the
// Tracker as issuing them one by one would, but for the number of entries
// Ops returns and for Get, which finds the batch by its first ID only.
// Changed hears of the union of the ranges.
func (tr *Tracker) IssueBatch(name string, site any, siteAt, siteStep uint64, lo, each uint64, n int) *Op {
	p := tr.newOp()
	*p = Op{Name: name, Site: site, SiteAt: siteAt, Dst: Range{Lo: lo, Hi: lo + each*uint64(n)},
		N: n, Each: each, SiteStep: siteStep}
	tr.issue(p)
	return p
}

// IssueQueuedBatch is IssueBatch for n <= 32 operations that have not
// landed yet: each member lands (LandMember) and is signalled
// (SignalMember) on its own, and a wait may observe some members before
// the others.
func (tr *Tracker) IssueQueuedBatch(name string, site any, siteAt, siteStep uint64, lo, each uint64, n int) *Op {
	p := tr.newOp()
	*p = Op{Name: name, Site: site, SiteAt: siteAt, Dst: Range{Lo: lo, Hi: lo + each*uint64(n)},
		N: n, Each: each, SiteStep: siteStep}
	p.unlanded, p.unsignalled = p.all(), p.all()
	tr.issue(p)
	return p
}

// LandMember marks member k of batch op (from IssueQueuedBatch) as landed.
func (tr *Tracker) LandMember(op *Op, k int) { op.unlanded &^= 1 << k }

// SignalMember records that the completion of member k of batch op (from
// IssueQueuedBatch) was signalled on barrier b while b had completed phase
// phases, as Signal does for a single operation. When other members are
// signalled toward another phase or barrier and not yet observed, the
// batch becomes single operations first (Explode), and op must not be used
// after.
func (tr *Tracker) SignalMember(op *Op, k int, b BarrierRef, phase uint64) {
	bit := uint32(1) << k
	if op.out&bit != 0 {
		return
	}
	if others := op.signalledMembers() &^ bit; others != 0 && (op.Barrier != b || op.Phase != phase) {
		id := op.ID + OpID(k)
		tr.explode(op)
		tr.Signal(id, b, phase)
		return
	}
	op.unsignalled &^= bit
	tr.SignalOp(op, b, phase)
}

// LandMembers marks the members of batch op in mask as landed.
func (tr *Tracker) LandMembers(op *Op, mask uint32) { op.unlanded &^= mask }

// SignalMembers is SignalMember for each member of batch op in mask, in
// member order, all signalled while b had completed phase phases.
func (tr *Tracker) SignalMembers(op *Op, mask uint32, b BarrierRef, phase uint64) {
	if others := op.signalledMembers() &^ mask; others == 0 || op.Barrier == b && op.Phase == phase {
		op.unsignalled &^= mask &^ op.out
		tr.SignalOp(op, b, phase)
		return
	}
	id := op.ID
	tr.explode(op)
	for ; mask != 0; mask &= mask - 1 {
		tr.Signal(id+OpID(bits.TrailingZeros32(mask)), b, phase)
	}
}

// guardRuns guards once more (d = 1) or once less (d = -1) the ranges of
// the members of batch op in mask, each run of adjacent members as one
// range. The members not observed of a batch are guarded as their runs:
// the whole batch's range at issue, the runs left after a wait observes
// some.
func (tr *Tracker) guardRuns(op *Op, mask uint32, d int) {
	for mask != 0 {
		k := bits.TrailingZeros32(mask)
		run := bits.TrailingZeros32(^(mask >> k)) // adjacent members from k
		lo := op.Dst.Lo + uint64(k)*op.Each
		tr.addRange(&tr.dsts, Range{Lo: lo, Hi: lo + uint64(run)*op.Each}, false, d)
		if k+run >= 32 {
			break
		}
		mask &^= (uint32(1)<<run - 1) << k
	}
}

// forgetMembers forgets the members of batch op in mask (signalled, not
// observed), which is not all of those left, and reports how many.
func (tr *Tracker) forgetMembers(op *Op, mask uint32) int {
	alive := op.all() &^ op.out
	tr.guardRuns(op, alive, -1)
	tr.guardRuns(op, alive&^mask, 1)
	op.out |= mask
	op.Signalled = false
	n := bits.OnesCount32(mask)
	tr.live -= n
	return n
}

// explode replaces batch op by a single operation for each member not
// observed, in place in the issue order, with the member's ID, range,
// site and state. Signalled members are listed on their barrier. The
// guarded bytes do not change (the batch's runs are released, the
// singles' ranges guarded). op is dropped (not reused).
func (tr *Tracker) explode(op *Op) {
	i := tr.index(op.ID)
	if i < 0 {
		return
	}
	var singles []*Op
	for k := 0; k < op.N; k++ {
		if op.out&(1<<k) != 0 {
			continue
		}
		m := op.member(k)
		p := tr.newOp()
		*p = *m
		p.counted = [2]bool{tr.counts(p.Dst), false}
		if p.counted[0] {
			tr.nCounted++
		}
		singles = append(singles, p)
	}
	if op.counted[0] {
		tr.nCounted--
	}
	tr.guardRuns(op, op.all()&^op.out, -1)
	for _, p := range singles {
		tr.addRange(&tr.dsts, p.Dst, false, 1)
	}
	ids := make([]OpID, len(singles))
	for j, p := range singles {
		ids[j] = p.ID
	}
	tr.ops = slices.Replace(tr.ops, i, i+1, singles...)
	tr.ids = slices.Replace(tr.ids, i, i+1, ids...)
	for _, p := range singles {
		if p.Signalled {
			l := tr.list(p.Barrier, true)
			*l = append(*l, p.ID)
		}
	}
	*op = Op{N: -1} // dropped: a caller holding it finds no batch
}

// issue records p, filled in but for its ID, as the newest operation.
func (tr *Tracker) issue(p *Op) OpID {
	tr.next++
	p.ID = tr.next
	k := p.members()
	tr.next += OpID(k - 1)
	tr.live += k
	p.counted = [2]bool{tr.counts(p.Dst), tr.counts(p.Src)}
	tr.addRange(&tr.dsts, p.Dst, p.counted[0], 1)
	if !p.SourceFree {
		tr.addRange(&tr.srcs, p.Src, p.counted[1], 1)
	}
	tr.ops = append(tr.ops, p)
	tr.ids = append(tr.ids, p.ID)
	return p.ID
}

// newOp returns an unused Op.
func (tr *Tracker) newOp() *Op {
	var p *Op
	if k := len(tr.spare); k > 0 {
		p = tr.spare[k-1]
		tr.spare = tr.spare[:k-1]
	} else {
		if len(tr.slab) == 0 {
			tr.slab = make([]Op, min(256, 1+len(tr.ops)))
		}
		p, tr.slab = &tr.slab[0], tr.slab[1:]
	}
	return p
}

// index returns the position of id in the issue order, or -1.
func (tr *Tracker) index(id OpID) int {
	if n := len(tr.ids); n > 0 && id >= tr.ids[0] {
		// IDs are consecutive until observed operations are compacted
		// away from the middle: most lookups need no search.
		if d := id - tr.ids[0]; d < OpID(n) && tr.ids[d] == id {
			if tr.ops[d] == nil {
				return -1
			}
			return int(d)
		}
	}
	i, ok := slices.BinarySearch(tr.ids, id)
	if !ok || tr.ops[i] == nil {
		return -1
	}
	return i
}

// Get returns the outstanding operation id, or nil once it is observed.
func (tr *Tracker) Get(id OpID) *Op {
	if i := tr.index(id); i >= 0 {
		return tr.ops[i]
	}
	return nil
}

// Len returns the number of outstanding operations, counting each member
// of a batch.
func (tr *Tracker) Len() int { return tr.live }

// Ops returns the outstanding operations in issue order. The slice is
// valid until the next call that changes the Tracker.
func (tr *Tracker) Ops() []*Op {
	tr.compact()
	return tr.ops
}

// compact drops the entries of observed operations.
func (tr *Tracker) compact() {
	if tr.holes == 0 {
		return
	}
	n := 0
	for i, op := range tr.ops {
		if op != nil {
			tr.ops[n], tr.ids[n] = op, tr.ids[i]
			n++
		}
	}
	clear(tr.ops[n:])
	tr.ops, tr.ids, tr.holes = tr.ops[:n], tr.ids[:n], 0
}

// Land marks id as landed: its source has been read and its destination
// written. Its ranges stay guarded: the issuing program cannot know that
// before a wait observes it, so the verdict does not depend on when the
// operation happened to land.
func (tr *Tracker) Land(id OpID) {
	if op := tr.Get(id); op != nil {
		op.Landed = true
	}
}

// FreeSource marks the source of id as read and no longer guarded, as a
// completed cp.async.bulk.wait_group.read does.
func (tr *Tracker) FreeSource(id OpID) {
	if op := tr.Get(id); op != nil && !op.SourceFree {
		op.SourceFree = true
		tr.addRange(&tr.srcs, op.Src, op.counted[1], -1)
	}
}

// Signal records that the completion of id was signalled on barrier b while
// b had completed phase phases.
func (tr *Tracker) Signal(id OpID, b BarrierRef, phase uint64) {
	if op := tr.Get(id); op != nil {
		tr.SignalOp(op, b, phase)
	}
}

// SignalOp is Signal for the outstanding operation op (from Get).
func (tr *Tracker) SignalOp(op *Op, b BarrierRef, phase uint64) {
	id := op.ID
	listed := op.Signalled && op.Barrier == b
	op.Signalled, op.Barrier, op.Phase = true, b, phase
	if listed {
		return
	}
	l := tr.list(b, true)
	*l = append(*l, id)
	if len(*l) > 2*tr.Len()+16 {
		*l = tr.prune(b, *l)
	}
}

// list returns the list of operations signalled on b; with create, one is
// made if b has none, otherwise nil is returned.
func (tr *Tracker) list(b BarrierRef, create bool) *[]OpID {
	// A few barriers take turns (one per CTA of a pipeline): look at the
	// lists used last before the map.
	for i := range tr.recent {
		if r := tr.recent[i]; r.l != nil && r.b == b {
			copy(tr.recent[1:i+1], tr.recent[:i])
			tr.recent[0] = r
			return r.l
		}
	}
	l := tr.signalled[b]
	if l == nil {
		if !create {
			return nil
		}
		if tr.signalled == nil {
			tr.signalled = map[BarrierRef]*[]OpID{}
		}
		l = new([]OpID)
		tr.signalled[b] = l
	}
	copy(tr.recent[1:], tr.recent[:len(tr.recent)-1])
	tr.recent[0] = barList{b: b, l: l}
	return l
}

// barList is a barrier and its list of signalled operations.
type barList struct {
	b BarrierRef
	l *[]OpID
}

// prune drops the stale and repeated entries of l, barrier b's list.
func (tr *Tracker) prune(b BarrierRef, l []OpID) []OpID {
	slices.Sort(l)
	l = slices.Compact(l)
	return slices.DeleteFunc(l, func(id OpID) bool {
		op := tr.Get(id)
		return op == nil || !op.Signalled || op.Barrier != b
	})
}

// Observe forgets id: its completion has been observed.
func (tr *Tracker) Observe(id OpID) {
	if i := tr.index(id); i >= 0 {
		tr.observeAt(i)
		tr.settle()
	}
}

// observeAt forgets the operation at position i of the issue order.
func (tr *Tracker) observeAt(i int) {
	op := tr.ops[i]
	if op.N > 1 && op.out != 0 {
		if op.counted[0] {
			tr.nCounted--
		}
		tr.guardRuns(op, op.all()&^op.out, -1)
	} else {
		tr.addRange(&tr.dsts, op.Dst, op.counted[0], -1)
	}
	if !op.SourceFree {
		tr.addRange(&tr.srcs, op.Src, op.counted[1], -1)
	}
	tr.ops[i] = nil
	tr.holes++
	tr.live -= op.members()
	tr.spare = append(tr.spare, op)
}

// settle compacts the operations once observed entries are more than half.
func (tr *Tracker) settle() {
	if tr.holes >= 32 && tr.holes > len(tr.ops)/2 {
		tr.compact()
	}
}

// ObserveBarrier forgets every operation signalled on b in a phase that has
// completed, now that a wait on b returned true with b having completed
// phases phases. It returns how many it forgot (each member of a batch
// counted).
func (tr *Tracker) ObserveBarrier(b BarrierRef, phases uint64) int {
	return tr.ObserveBarrierEach(b, phases, nil)
}

// ObserveBarrierEach is ObserveBarrier calling seen, when not nil, with
// each operation it forgets (a batch once), in issue order, before
// forgetting it.
func (tr *Tracker) ObserveBarrierEach(b BarrierRef, phases uint64, seen func(*Op)) int {
	lp := tr.list(b, false)
	if lp == nil {
		return 0
	}
	l := *lp
	// Positions in ops order the operations as IDs do; nothing is
	// compacted until every due operation is forgotten.
	due, kept := tr.due[:0], l[:0]
	for _, id := range l {
		i := tr.index(id)
		if i < 0 {
			continue
		}
		switch op := tr.ops[i]; {
		case !op.Signalled || op.Barrier != b:
		case op.Phase < phases:
			due = append(due, i)
		default:
			kept = append(kept, id)
		}
	}
	*lp = kept
	if !slices.IsSorted(due) { // signals usually come in issue order
		slices.Sort(due)
	}
	due = slices.Compact(due)
	held := tr.holding
	tr.Hold()
	forgot := 0
	for _, i := range due {
		op := tr.ops[i]
		if seen != nil {
			seen(op)
		}
		if op.N > 1 && op.unsignalled&^op.out != 0 {
			// some members are still to land or be signalled
			forgot += tr.forgetMembers(op, op.signalledMembers())
			continue
		}
		forgot += op.members()
		tr.observeAt(i)
	}
	if !held {
		tr.Release()
	}
	tr.settle()
	tr.due = due[:0]
	return forgot
}

// Hazard is an access to memory an outstanding asynchronous operation owns
// (§9.7.9.25.1: reading the destination or modifying the source before the
// operation completes is undefined).
type Hazard struct {
	Rule    string // "async-read-destination", "async-write-source", "async-write-destination"
	Spec    string
	Message string
	Op      *Op
}

const completionSpec = "PTX ISA §9.7.9.25.1 (completion mechanisms for asynchronous copy operations)"

// CheckRead returns a hazard when bytes r, which a thread reads, are
// written by an outstanding operation, or nil.
func (tr *Tracker) CheckRead(r Range) *Hazard {
	tr.flush()
	if !tr.dsts.overlaps(r) {
		return nil
	}
	for _, op := range tr.ops { // the oldest offender, for a deterministic report
		if op == nil {
			continue
		}
		if m := op.firstOverlap(r); m != nil {
			return tr.hazard("async-read-destination", "read of %s, the destination of %s", r, m)
		}
	}
	return nil
}

// CheckWrite returns a hazard when bytes r, which a thread writes, are
// still read or written by an outstanding operation, or nil.
func (tr *Tracker) CheckWrite(r Range) *Hazard {
	tr.flush()
	if !tr.dsts.overlaps(r) && !tr.srcs.overlaps(r) {
		return nil
	}
	for _, op := range tr.ops {
		if op == nil {
			continue
		}
		if !op.SourceFree && op.Src.Overlaps(r) {
			return tr.hazard("async-write-source", "write to %s, the source of %s", r, op)
		}
		if m := op.firstOverlap(r); m != nil {
			return tr.hazard("async-write-destination", "write to %s, the destination of %s", r, m)
		}
	}
	return nil
}

// Describes returns the Where and Issuer of op, filled in by Describe when
// they are empty.
func (tr *Tracker) Describes(op *Op) (where, issuer string) {
	if op.Where == "" && op.Issuer == "" && tr.Describe != nil {
		op.Where, op.Issuer = tr.Describe(op)
	}
	return op.Where, op.Issuer
}

func (tr *Tracker) hazard(rule, format string, r Range, op *Op) *Hazard {
	tr.Describes(op)
	msg := fmt.Sprintf(format, r, op.Name)
	if op.Where != "" {
		msg += " at " + op.Where
	}
	if op.Issuer != "" {
		msg += " issued by " + op.Issuer
	}
	return &Hazard{Rule: rule, Spec: completionSpec, Op: op, Message: msg + ", before its completion is observed"}
}

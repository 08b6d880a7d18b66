package asyncgroup

import (
	"fmt"
	"sort"
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
}

// Tracker holds the outstanding asynchronous operations of one launch. An
// operation stays outstanding from its issue until its completion is
// observed: by the wait of its async-group, or by a wait that returns true
// on the mbarrier phase its completion was signalled in. The zero Tracker is
// ready to use; it is not safe for concurrent use.
//
// Checks look at the distinct guarded ranges rather than at every
// operation, so a loop that keeps issuing copies of the same buffer costs
// one range per access.
type Tracker struct {
	ops  []*Op // outstanding, in issue order
	next OpID
	dsts map[Range]int // outstanding destinations, with multiplicity
	srcs map[Range]int // sources not yet read, with multiplicity

	// Describe, when set, fills in the Where and Issuer of an operation
	// that lacks them, from its Site; reports call it so that issuing an
	// operation need not format text.
	Describe func(op *Op) (where, issuer string)

	// Counted, when set, selects guarded ranges to count (for example those
	// in global memory); Watched returns how many are outstanding, so that
	// a caller can skip a check when none is. Set it before the first Issue.
	Counted  func(r Range) bool
	nCounted int
}

// Watched returns the number of guarded ranges (destinations, and sources
// not yet read, with multiplicity) selected by Counted.
func (tr *Tracker) Watched() int { return tr.nCounted }

func (tr *Tracker) addRange(m map[Range]int, r Range, d int) {
	if r.Lo >= r.Hi {
		return
	}
	if tr.Counted != nil && tr.Counted(r) {
		tr.nCounted += d
	}
	if n := m[r] + d; n > 0 {
		m[r] = n
	} else {
		delete(m, r)
	}
}

// Issue records a new operation and returns its ID.
func (tr *Tracker) Issue(op Op) OpID {
	if tr.dsts == nil {
		tr.dsts, tr.srcs = map[Range]int{}, map[Range]int{}
	}
	tr.next++
	op.ID = tr.next
	tr.addRange(tr.dsts, op.Dst, 1)
	if !op.SourceFree {
		tr.addRange(tr.srcs, op.Src, 1)
	}
	tr.ops = append(tr.ops, &op)
	return op.ID
}

// Get returns the outstanding operation id, or nil once it is observed.
func (tr *Tracker) Get(id OpID) *Op {
	i := sort.Search(len(tr.ops), func(i int) bool { return tr.ops[i].ID >= id })
	if i < len(tr.ops) && tr.ops[i].ID == id {
		return tr.ops[i]
	}
	return nil
}

// Len returns the number of outstanding operations.
func (tr *Tracker) Len() int { return len(tr.ops) }

// Ops returns the outstanding operations in issue order.
func (tr *Tracker) Ops() []*Op { return tr.ops }

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
		tr.addRange(tr.srcs, op.Src, -1)
	}
}

// Signal records that the completion of id was signalled on barrier b while
// b had completed phase phases.
func (tr *Tracker) Signal(id OpID, b BarrierRef, phase uint64) {
	if op := tr.Get(id); op != nil {
		op.Signalled, op.Barrier, op.Phase = true, b, phase
	}
}

// forget drops op's guarded ranges.
func (tr *Tracker) forget(op *Op) {
	tr.addRange(tr.dsts, op.Dst, -1)
	if !op.SourceFree {
		tr.addRange(tr.srcs, op.Src, -1)
	}
}

// Observe forgets id: its completion has been observed.
func (tr *Tracker) Observe(id OpID) {
	i := sort.Search(len(tr.ops), func(i int) bool { return tr.ops[i].ID >= id })
	if i < len(tr.ops) && tr.ops[i].ID == id {
		tr.forget(tr.ops[i])
		tr.ops = append(tr.ops[:i], tr.ops[i+1:]...)
	}
}

// ObserveBarrier forgets every operation signalled on b in a phase that has
// completed, now that a wait on b returned true with b having completed
// phases phases. It returns how many it forgot.
func (tr *Tracker) ObserveBarrier(b BarrierRef, phases uint64) int {
	kept := tr.ops[:0]
	n := 0
	for _, op := range tr.ops {
		if op.Signalled && op.Barrier == b && op.Phase < phases {
			tr.forget(op)
			n++
			continue
		}
		kept = append(kept, op)
	}
	for i := len(kept); i < len(tr.ops); i++ {
		tr.ops[i] = nil
	}
	tr.ops = kept
	return n
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

func overlapsAny(m map[Range]int, r Range) bool {
	for g := range m {
		if g.Overlaps(r) {
			return true
		}
	}
	return false
}

// CheckRead returns a hazard when bytes r, which a thread reads, are
// written by an outstanding operation, or nil.
func (tr *Tracker) CheckRead(r Range) *Hazard {
	if !overlapsAny(tr.dsts, r) {
		return nil
	}
	for _, op := range tr.ops { // the oldest offender, for a deterministic report
		if op.Dst.Overlaps(r) {
			return tr.hazard("async-read-destination", "read of %s, the destination of %s", r, op)
		}
	}
	return nil
}

// CheckWrite returns a hazard when bytes r, which a thread writes, are
// still read or written by an outstanding operation, or nil.
func (tr *Tracker) CheckWrite(r Range) *Hazard {
	if !overlapsAny(tr.dsts, r) && !overlapsAny(tr.srcs, r) {
		return nil
	}
	for _, op := range tr.ops {
		if !op.SourceFree && op.Src.Overlaps(r) {
			return tr.hazard("async-write-source", "write to %s, the source of %s", r, op)
		}
		if op.Dst.Overlaps(r) {
			return tr.hazard("async-write-destination", "write to %s, the destination of %s", r, op)
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

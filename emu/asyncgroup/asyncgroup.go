// Package asyncgroup models the async-group completion mechanism of PTX
// asynchronous copies (PTX ISA §9.7.9.25.1.1) and tracks the memory that
// outstanding asynchronous operations read and write.
//
// Thread holds one thread's async-groups: operations it issued but has not
// committed yet, and committed groups in commit order, separately for
// non-bulk operations (cp.async, committed by cp.async.commit_group and
// waited by cp.async.wait_group / wait_all, §9.7.9.25.3.2-3) and bulk
// operations (cp{.reduce}.async.bulk with .bulk_group, committed by
// cp.async.bulk.commit_group and waited by cp.async.bulk.wait_group{.read},
// §9.7.9.27.2.1-2). Groups complete in commit order; an empty group is
// complete.
//
// Tracker holds every outstanding asynchronous operation of a launch with
// its destination and source byte ranges. Until the completion of an
// operation is observed, reading its destination or modifying its source is
// undefined (§9.7.9.25.1); the tracker reports such accesses as Hazards.
package asyncgroup

import "fmt"

// Kind separates the two families of async-groups; a thread must keep bulk
// and non-bulk operations in separate groups (§9.7.9.25.1.1).
type Kind uint8

// Kinds of async-groups.
const (
	NonBulk Kind = iota // cp.async
	Bulk                // cp{.reduce}.async.bulk{.tensor}.bulk_group
	numKinds
)

func (k Kind) String() string {
	switch k {
	case NonBulk:
		return "cp.async"
	case Bulk:
		return "cp.async.bulk"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// OpID identifies an asynchronous operation within a Tracker. IDs start at
// 1 and increase in issue order.
type OpID uint64

// Thread is the async-group state of one thread. The zero Thread is ready to
// use.
type Thread struct {
	open   [numKinds][]OpID   // issued, not yet committed
	groups [numKinds][][]OpID // committed groups, oldest first
	// tracked marks open non-bulk operations whose completion an mbarrier
	// tracks (cp.async.mbarrier.arrive), so they need no group.
	tracked map[OpID]bool

	spare   [][]OpID // emptied groups, for reuse
	retired []OpID   // Retire's result
}

// Add records an issued operation of kind k, not yet in any group.
func (t *Thread) Add(k Kind, id OpID) {
	if t.open[k] == nil {
		if n := len(t.spare); n > 0 {
			t.open[k], t.spare = t.spare[n-1], t.spare[:n-1]
		} else {
			t.open[k] = make([]OpID, 0, 4)
		}
	}
	t.open[k] = append(t.open[k], id)
}

// Commit packs every uncommitted operation of kind k into a new group, which
// may be empty, and returns the number of groups of that kind now pending.
func (t *Thread) Commit(k Kind) int {
	if t.groups[k] == nil {
		t.groups[k] = make([][]OpID, 0, 4)
	}
	t.groups[k] = append(t.groups[k], t.open[k])
	t.open[k] = nil
	return len(t.groups[k])
}

// Due returns the operations that must be complete before wait_group n of
// kind k returns: those of every committed group except the n most recent
// (§9.7.9.25.3.3). n < 0 counts as 0.
func (t *Thread) Due(k Kind, n int) []OpID { return t.due(k, n, nil) }

func (t *Thread) due(k Kind, n int, ids []OpID) []OpID {
	g := t.groups[k]
	n = max(n, 0)
	if n >= len(g) {
		return nil
	}
	for _, grp := range g[:len(g)-n] {
		ids = append(ids, grp...)
	}
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// Retire removes the groups that wait_group n of kind k waited for, once
// their operations are complete, and returns their operations. The result
// is valid until the next call of a method of t.
func (t *Thread) Retire(k Kind, n int) []OpID {
	ids := t.due(k, n, t.retired[:0])
	if ids != nil {
		t.retired = ids
	}
	n = max(n, 0)
	if g := t.groups[k]; n < len(g) {
		for _, grp := range g[:len(g)-n] {
			if cap(grp) > 0 {
				t.spare = append(t.spare, grp[:0])
			}
		}
		m := copy(g, g[len(g)-n:])
		clear(g[m:])
		t.groups[k] = g[:m]
	}
	return ids
}

// Prior returns every operation of kind k the thread issued and has not
// retired, in issue order: committed groups first, then uncommitted ones.
// cp.async.mbarrier.arrive arrives once all of them complete
// (§9.7.13.15.15).
func (t *Thread) Prior(k Kind) []OpID {
	var ids []OpID
	for _, g := range t.groups[k] {
		ids = append(ids, g...)
	}
	return append(ids, t.open[k]...)
}

// TrackUncommitted marks the thread's uncommitted non-bulk operations as
// tracked by an mbarrier (cp.async.mbarrier.arrive), so leaving them out of
// every group is not a missing wait.
func (t *Thread) TrackUncommitted() {
	if t.tracked == nil {
		t.tracked = make(map[OpID]bool)
	}
	for _, id := range t.open[NonBulk] {
		t.tracked[id] = true
	}
}

// Pending returns the number of committed groups of kind k not yet retired.
func (t *Thread) Pending(k Kind) int { return len(t.groups[k]) }

// Unwaited describes what the thread leaves behind when it exits: committed
// groups never waited for and issued operations that are neither committed
// nor tracked by an mbarrier. A thread that exits with either never observes
// their completion. Whether the operations happen to have landed does not
// matter, so the verdict does not depend on the landing schedule. ok is true
// when nothing is left.
func (t *Thread) Unwaited() (msg string, ok bool) {
	for k := Kind(0); k < numKinds; k++ {
		loose := 0
		for _, id := range t.open[k] {
			if !t.tracked[id] {
				loose++
			}
		}
		groups := 0
		for _, g := range t.groups[k] {
			if len(g) > 0 {
				groups++
			}
		}
		if groups+loose > 0 {
			return fmt.Sprintf("%d %s group(s) not waited for and %d uncommitted operation(s)", groups, k, loose), false
		}
	}
	return "", true
}

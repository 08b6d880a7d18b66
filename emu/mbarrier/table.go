package mbarrier

import (
	"fmt"
	"sort"
)

// Table keeps the live mbarrier objects of one CTA's shared memory, keyed by
// their shared::cta address. It is the authority on liveness: an object is
// live from init to inval. For each live object it remembers the memory word
// the last operation wrote and a full phase counter.
//
// Every operation takes the word currently in emulated memory at the
// object's address and returns the word to store back. When the word in
// memory differs from the one the table wrote, a non-mbarrier access has
// modified the live object and the operation fails with Clobbered
// (§9.7.13.15.1: accessing the object other than through mbarrier
// instructions is undefined). A Table is not safe for concurrent use.
type Table struct {
	live map[uint64]*entry

	// The entry used last: most operations in a row use one object.
	lastAddr uint64
	last     *entry

	epoch uint64 // counts the changes of state
}

// Epoch returns a number that changes whenever an object of the table
// changes state (init, inval, an arrival, a tx-count change, a phase): a
// wait that saw an incomplete phase sees the same while it is unchanged
// and the object's memory word is too.
func (t *Table) Epoch() uint64 { return t.epoch }

// entryAt returns the live entry at addr, or nil.
func (t *Table) entryAt(addr uint64) *entry {
	if t.last != nil && t.lastAddr == addr {
		return t.last
	}
	e := t.live[addr]
	if e != nil {
		t.lastAddr, t.last = addr, e
	}
	return e
}

// drop forgets the entry at addr.
func (t *Table) drop(addr uint64) {
	delete(t.live, addr)
	t.last = nil
	t.epoch++
}

type entry struct {
	word   uint64 // word last stored by an mbarrier operation
	phases uint64 // completed phases since init
}

// Result is what an operation did.
type Result struct {
	Word      uint64 // word to store at the object's address
	Object    Object // object after the operation
	Token     Token  // state token of an arrival
	Completed bool   // the operation completed a phase
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{live: make(map[uint64]*entry)} }

// Phases returns the full phase counter of the object at addr (the number
// of completed phases since init), or false when none is live there.
func (t *Table) Phases(addr uint64) (uint64, bool) {
	if e := t.entryAt(addr); e != nil {
		return e.phases, true
	}
	return 0, false
}

// Unchanged reports whether the object at addr is live, mem still holds
// the word the table wrote, and it has completed phases phases: a wait
// that found a phase incomplete when it had finds the same.
func (t *Table) Unchanged(addr, mem, phases uint64) bool {
	e := t.entryAt(addr)
	return e != nil && e.word == mem && e.phases == phases
}

// Live reports whether an object is live at addr.
func (t *Table) Live(addr uint64) bool { _, ok := t.live[addr]; return ok }

// Len returns the number of live objects.
func (t *Table) Len() int { return len(t.live) }

// Addrs returns the addresses of the live objects in increasing order.
func (t *Table) Addrs() []uint64 {
	a := make([]uint64, 0, len(t.live))
	for k := range t.live {
		a = append(a, k)
	}
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	return a
}

// Get returns the object at addr as the table last wrote it, and its full
// phase counter (the number of completed phases since init).
func (t *Table) Get(addr uint64) (o Object, phases uint64, ok bool) {
	e := t.entryAt(addr)
	if e == nil {
		return Object{}, 0, false
	}
	o, _ = Decode(e.word)
	return o, e.phases, true
}

// Overlapping returns the address of a live object whose 8 bytes overlap
// [lo, hi), for reporting plain accesses to live objects at the time they
// happen. Objects are 8-byte aligned, so at most (hi-lo)/8+2 are checked.
func (t *Table) Overlapping(lo, hi uint64) (uint64, bool) {
	if hi <= lo || len(t.live) == 0 {
		return 0, false
	}
	if hi-lo > 8*uint64(len(t.live)) {
		for _, a := range t.Addrs() {
			if a < hi && lo < a+Size {
				return a, true
			}
		}
		return 0, false
	}
	for a := lo &^ (Align - 1); a < hi; a += Align {
		if _, ok := t.live[a]; ok {
			return a, true
		}
	}
	return 0, false
}

// Init initializes an object at addr expecting count arrivals per phase
// (§9.7.13.15.9).
func (t *Table) Init(addr uint64, count uint32) (Result, error) {
	const op = "mbarrier.init"
	if err := checkAlign(op, addr); err != nil {
		return Result{}, err
	}
	if e, ok := t.live[addr]; ok {
		o, _ := Decode(e.word)
		return Result{}, &Error{Kind: InitLive, Op: op, Addr: addr, Detail: "object is live: " + o.String()}
	}
	o, err := New(count)
	if err != nil {
		return Result{}, wrap(err, op, addr)
	}
	w := o.Encode()
	t.live[addr] = &entry{word: w}
	t.epoch++
	return Result{Word: w, Object: o}, nil
}

// Inval invalidates the object at addr (§9.7.13.15.10); its memory may be
// reused afterwards. The returned word is 0.
func (t *Table) Inval(addr uint64, mem uint64) (Result, error) {
	const op = "mbarrier.inval"
	if _, err := t.load(op, addr, mem); err != nil {
		return Result{}, err
	}
	t.drop(addr)
	return Result{}, nil
}

// Forget drops the object at addr without checks, for when its memory goes
// away (the owning CTA exits).
func (t *Table) Forget(addr uint64) { t.drop(addr) }

// Arrive performs arrive{.noComplete} with count (§9.7.13.15.13).
func (t *Table) Arrive(addr, mem uint64, count uint32, noComplete bool) (Result, error) {
	return t.update("mbarrier.arrive", addr, mem, change{kind: chArrive, n: count, noComplete: noComplete})
}

// ArriveDrop performs arrive_drop{.noComplete} with count (§9.7.13.15.14).
func (t *Table) ArriveDrop(addr, mem uint64, count uint32, noComplete bool) (Result, error) {
	return t.update("mbarrier.arrive_drop", addr, mem, change{kind: chArriveDrop, n: count, noComplete: noComplete})
}

// ExpectArrive performs arrive.expect_tx (drop false) or
// arrive_drop.expect_tx (drop true) with tx bytes.
func (t *Table) ExpectArrive(addr, mem uint64, tx uint32, drop, noComplete bool) (Result, error) {
	op := "mbarrier.arrive.expect_tx"
	if drop {
		op = "mbarrier.arrive_drop.expect_tx"
	}
	return t.update(op, addr, mem, change{kind: chExpectArrive, n: tx, drop: drop, noComplete: noComplete})
}

// ExpectTx performs expect_tx with tx bytes (§9.7.13.15.11).
func (t *Table) ExpectTx(addr, mem uint64, tx uint32) (Result, error) {
	return t.update("mbarrier.expect_tx", addr, mem, change{kind: chExpectTx, n: tx})
}

// CompleteTx performs complete_tx with tx bytes (§9.7.13.15.12). Asynchronous
// stores and bulk copies call it when they land; op names the instruction.
func (t *Table) CompleteTx(op string, addr, mem uint64, tx uint32) (Result, error) {
	return t.update(op, addr, mem, change{kind: chCompleteTx, n: tx})
}

// CompleteTxRun performs k complete-tx operations of tx bytes each on the
// object at addr as one change (Object.CompleteTxRun), leaving the table as
// k calls of CompleteTx would. ok is false, and nothing changed, when they
// would not all succeed with at most the last completing a phase; the
// caller then performs them one by one.
func (t *Table) CompleteTxRun(addr, mem uint64, tx uint32, k int) (r Result, ok bool) {
	if addr%Align != 0 {
		return Result{}, false
	}
	e := t.entryAt(addr)
	if e == nil || mem != e.word {
		return Result{}, false
	}
	o, _ := Decode(e.word)
	completed, ok := o.CompleteTxRun(tx, k)
	if !ok {
		return Result{}, false
	}
	e.word = o.Encode()
	if completed {
		e.phases++
	}
	t.epoch += uint64(k)
	return Result{Word: e.word, Object: o, Completed: completed}, true
}

// Increment adds one pending arrival: the synchronous part of
// cp.async.mbarrier.arrive without .noinc (§9.7.13.15.15).
func (t *Table) Increment(addr, mem uint64) (Result, error) {
	return t.update("cp.async.mbarrier.arrive", addr, mem, change{kind: chIncrement})
}

// TestWait reports whether the phase of tok has completed (test_wait and
// try_wait with a state token, §9.7.13.15.16).
func (t *Table) TestWait(op string, addr, mem uint64, tok Token) (bool, error) {
	o, err := t.load(op, addr, mem)
	if err != nil {
		return false, err
	}
	if !tok.Valid() || !tok.Names(addr) {
		return false, &Error{Kind: ForeignToken, Op: op, Addr: addr, Detail: fmt.Sprintf("token %#x", uint64(tok))}
	}
	ok, err := o.Ready(tok)
	return ok, wrap(err, op, addr)
}

// TestWaitParity reports whether the phase with the given parity has
// completed (.parity forms of test_wait and try_wait, §9.7.13.15.16).
func (t *Table) TestWaitParity(op string, addr, mem uint64, parity uint32) (bool, error) {
	o, err := t.load(op, addr, mem)
	if err != nil {
		return false, err
	}
	return o.ReadyParity(parity), nil
}

// load returns the live object at addr after checking alignment, liveness
// and that mem still holds the word the table wrote.
func (t *Table) load(op string, addr, mem uint64) (Object, error) {
	if err := checkAlign(op, addr); err != nil {
		return Object{}, err
	}
	e := t.entryAt(addr)
	if e == nil {
		return Object{}, &Error{Kind: Uninitialized, Op: op, Addr: addr}
	}
	if mem != e.word {
		want, _ := Decode(e.word)
		return Object{}, &Error{Kind: Clobbered, Op: op, Addr: addr,
			Detail: fmt.Sprintf("memory holds %#016x, the object (%s) was %#016x", mem, want, e.word)}
	}
	o, _ := Decode(e.word)
	return o, nil
}

// change is one state-changing operation for update.
type change struct {
	kind             uint8
	n                uint32 // count or tx bytes
	drop, noComplete bool
}

const (
	chArrive = iota
	chArriveDrop
	chExpectArrive
	chExpectTx
	chCompleteTx
	chIncrement
)

func (c change) apply(o *Object) (tok Token, completed bool, err error) {
	switch c.kind {
	case chArrive:
		return o.Arrive(c.n, c.noComplete)
	case chArriveDrop:
		return o.ArriveDrop(c.n, c.noComplete)
	case chExpectArrive:
		return o.ExpectArrive(c.n, c.drop, c.noComplete)
	case chExpectTx:
		return 0, false, o.ExpectTx(c.n)
	case chCompleteTx:
		completed, err = o.CompleteTx(c.n)
		return 0, completed, err
	}
	return 0, false, o.Increment()
}

func (t *Table) update(op string, addr, mem uint64, c change) (Result, error) {
	o, err := t.load(op, addr, mem)
	if err != nil {
		return Result{}, err
	}
	tok, completed, err := c.apply(&o)
	if err != nil {
		return Result{}, wrap(err, op, addr)
	}
	if tok != 0 {
		tok = MakeToken(addr, tok.Phase(), tok.Pending(), tok.NoComplete())
	}
	e := t.entryAt(addr)
	e.word = o.Encode()
	if completed {
		e.phases++
	}
	t.epoch++
	return Result{Word: e.word, Object: o, Token: tok, Completed: completed}, nil
}

func checkAlign(op string, addr uint64) error {
	if addr%Align != 0 {
		return &Error{Kind: Misaligned, Op: op, Addr: addr, Detail: fmt.Sprintf("address %#x", addr)}
	}
	return nil
}

// wrap fills in the operation and address of an *Error from Object.
func wrap(err error, op string, addr uint64) error {
	if e, ok := err.(*Error); ok {
		e.Op, e.Addr = op, addr
		return e
	}
	return err
}

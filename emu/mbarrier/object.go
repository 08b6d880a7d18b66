package mbarrier

// This file holds the pure state transitions of one object. Each method
// leaves the receiver unchanged when it returns an error.

// New returns a freshly initialized object expecting count arrivals per
// phase (§9.7.13.15.9): phase 0, pending = expected = count, tx-count 0.
func New(count uint32) (Object, error) {
	if count < 1 || count > MaxCount {
		return Object{}, errorf(CountRange, "init count %d not in [1, %d]", count, MaxCount)
	}
	return Object{Pending: count, Expected: count}, nil
}

// ExpectTx performs an expect-tx operation (§9.7.13.15.11): tx-count += n.
// It never completes the phase.
func (o *Object) ExpectTx(n uint32) error {
	if n > MaxTx {
		return errorf(TxRange, "expect-tx count %d exceeds %d", n, MaxTx)
	}
	tx := int64(o.Tx) + int64(n)
	if tx > MaxTx {
		return errorf(TxRange, "tx-count %d + %d = %d exceeds %d", o.Tx, n, tx, MaxTx)
	}
	o.Tx = int32(tx)
	return nil
}

// CompleteTx performs a complete-tx operation (§9.7.13.15.12): tx-count -= n,
// then the phase completes if nothing is pending. completed reports a phase
// completion.
func (o *Object) CompleteTx(n uint32) (completed bool, err error) {
	if n > MaxTx {
		return false, errorf(TxRange, "complete-tx count %d exceeds %d", n, MaxTx)
	}
	tx := int64(o.Tx) - int64(n)
	if tx < -MaxTx {
		return false, errorf(TxRange, "tx-count %d - %d = %d is below -%d", o.Tx, n, tx, MaxTx)
	}
	o.Tx = int32(tx)
	return o.settle(), nil
}

// CompleteTxRun performs k > 0 complete-tx operations of n > 0 bytes each
// as one change, when that is what performing them one by one does: none
// fails and no phase completes before the last of them. ok is false, and
// the object unchanged, otherwise. completed reports that the last one
// completed the phase.
func (o *Object) CompleteTxRun(n uint32, k int) (completed, ok bool) {
	if n == 0 || n > MaxTx || k < 1 || k > MaxTx {
		return false, false
	}
	tx := int64(o.Tx) - int64(n)*int64(k)
	if tx < -MaxTx {
		return false, false
	}
	// With nothing pending, the member that brings the tx-count to zero
	// completes the phase: it must be the last.
	if o.Pending == 0 && o.Tx > 0 && int64(o.Tx)%int64(n) == 0 && int64(o.Tx)/int64(n) < int64(k) {
		return false, false
	}
	o.Tx = int32(tx)
	return o.settle(), true
}

// Arrive performs an arrive-on operation with the given count
// (§9.7.13.15.7, §9.7.13.15.13). It returns the token of the arrival (taken
// before it: the phase and the pending count it found) without the object's
// address; Table.Arrive adds it. With noComplete, an arrival that would
// complete the phase is an error and changes nothing.
func (o *Object) Arrive(count uint32, noComplete bool) (tok Token, completed bool, err error) {
	if count < 1 || count > MaxCount {
		return 0, false, errorf(CountRange, "arrival count %d not in [1, %d]", count, MaxCount)
	}
	if count > o.Pending {
		return 0, false, errorf(CountRange, "arrival count %d exceeds the %d pending arrivals of phase %d", count, o.Pending, o.Phase)
	}
	if noComplete && count == o.Pending && o.Tx == 0 {
		return 0, false, errorf(NoCompleteDone, "arrival of %d on %d pending arrivals with tx-count 0", count, o.Pending)
	}
	tok = MakeToken(0, o.Phase, o.Pending, noComplete)
	o.Pending -= count
	return tok, o.settle(), nil
}

// ArriveDrop performs arrive_drop (§9.7.13.15.14): the expected count drops
// by count for this and every later phase, then an arrive-on with count
// follows. An expected count of zero is outside the documented range.
func (o *Object) ArriveDrop(count uint32, noComplete bool) (tok Token, completed bool, err error) {
	if count < 1 || count > MaxCount {
		return 0, false, errorf(CountRange, "arrival count %d not in [1, %d]", count, MaxCount)
	}
	if count >= o.Expected {
		return 0, false, errorf(CountRange, "arrive_drop of %d leaves the expected count %d below 1", count, o.Expected)
	}
	saved := *o
	o.Expected -= count
	tok, completed, err = o.Arrive(count, noComplete)
	if err != nil {
		*o = saved
	}
	return tok, completed, err
}

// ExpectArrive performs arrive.expect_tx or arrive_drop.expect_tx
// (§9.7.13.15.13-14): expect-tx(tx) followed by an arrival of 1.
func (o *Object) ExpectArrive(tx uint32, drop, noComplete bool) (tok Token, completed bool, err error) {
	saved := *o
	if err := o.ExpectTx(tx); err != nil {
		return 0, false, err
	}
	if drop {
		tok, completed, err = o.ArriveDrop(1, noComplete)
	} else {
		tok, completed, err = o.Arrive(1, noComplete)
	}
	if err != nil {
		*o = saved
	}
	return tok, completed, err
}

// Increment adds one pending arrival, as cp.async.mbarrier.arrive without
// .noinc does before its asynchronous arrival (§9.7.13.15.15).
func (o *Object) Increment() error {
	if o.Pending >= MaxCount {
		return errorf(CountRange, "pending count %d + 1 exceeds %d", o.Pending, MaxCount)
	}
	o.Pending++
	return nil
}

// Ready reports whether the phase a token was taken in has completed
// (§9.7.13.15.16). Only the current phase (false) and the one just before it
// (true) are valid; older tokens are stale.
func (o Object) Ready(tok Token) (bool, error) {
	switch d := (o.Phase - tok.Phase()) % PhaseModulus; d {
	case 0:
		return false, nil
	case 1:
		return true, nil
	default:
		return false, errorf(StalePhase, "token of phase %d, object is in phase %d (%d phases later)", tok.Phase(), o.Phase, d)
	}
}

// ReadyParity reports whether the phase with the given parity has completed
// (§9.7.13.15.16): true when the current phase's parity differs. Only bit 0
// of parity is used.
func (o Object) ReadyParity(parity uint32) bool { return o.Parity() != parity&1 }

// settle completes the phase when no arrivals and no tx-count are pending
// (§9.7.13.15.6): the phase advances and pending resets to expected.
func (o *Object) settle() bool {
	if o.Pending != 0 || o.Tx != 0 {
		return false
	}
	o.Phase = (o.Phase + 1) % PhaseModulus
	o.Pending = o.Expected
	return true
}

// PendingCount returns the pending arrival count recorded in a token
// (§9.7.13.15.17), which must come from a .noComplete arrival.
func PendingCount(tok Token) (uint32, error) {
	if !tok.Valid() {
		return 0, errorf(ForeignToken, "%#x is not a state token", uint64(tok))
	}
	if !tok.NoComplete() {
		return 0, errorf(NotNoComplete, "token %#x", uint64(tok))
	}
	return tok.Pending(), nil
}

package mbarrier

import (
	"errors"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	cases := []Object{
		{Phase: 0, Pending: 1, Expected: 1, Tx: 0},
		{Phase: 7, Pending: MaxCount, Expected: MaxCount, Tx: MaxTx},
		{Phase: 3, Pending: 0, Expected: 5, Tx: -MaxTx},
		{Phase: 5, Pending: 12, Expected: 3, Tx: -1},
		{Phase: 1, Pending: 0, Expected: 1, Tx: 16},
	}
	for _, o := range cases {
		got, ok := Decode(o.Encode())
		if !ok || got != o {
			t.Errorf("Decode(Encode(%+v)) = %+v, %v", o, got, ok)
		}
	}
}

func TestDecodeRejectsDeadWords(t *testing.T) {
	if _, ok := Decode(0); ok {
		t.Error("zero word decodes as a live object")
	}
	// expected 1, tx field = -2^20 (bit pattern 1<<20), never produced.
	w := uint64(1)<<expectedShift | uint64(1)<<20<<txShift
	if _, ok := Decode(w); ok {
		t.Error("tx of -2^20 decodes as a live object")
	}
}

func TestEncodingLayout(t *testing.T) {
	o := Object{Phase: 5, Pending: 0x12345, Expected: 0xABCDE, Tx: -2}
	w := o.Encode()
	if got := w & countMask; got != 0x12345 {
		t.Errorf("pending bits = %#x", got)
	}
	if got := (w >> 20) & countMask; got != 0xABCDE {
		t.Errorf("expected bits = %#x", got)
	}
	if got := (w >> 40) & txMask; got != txMask-1 {
		t.Errorf("tx bits = %#x, want %#x", got, txMask-1)
	}
	if got := w >> 61; got != 5 {
		t.Errorf("phase bits = %d", got)
	}
}

func TestTokenFields(t *testing.T) {
	tok := MakeToken(0x1238, 6, 77, true)
	if !tok.Valid() || tok.Phase() != 6 || tok.Pending() != 77 || !tok.NoComplete() || !tok.Names(0x1238) || tok.Names(0x1240) {
		t.Errorf("token %#x decodes wrongly", uint64(tok))
	}
	if Token(0).Valid() {
		t.Error("zero token is valid")
	}
	if MakeToken(8, 9, 0, false).Phase() != 1 {
		t.Error("phase not reduced modulo 8")
	}
}

func TestNewRanges(t *testing.T) {
	for _, c := range []uint32{0, MaxCount + 1, 1 << 31} {
		if _, err := New(c); KindOf(err) != CountRange {
			t.Errorf("New(%d) err = %v, want CountRange", c, err)
		}
	}
	o, err := New(MaxCount)
	if err != nil || o.Pending != MaxCount || o.Expected != MaxCount || o.Tx != 0 || o.Phase != 0 {
		t.Errorf("New(MaxCount) = %+v, %v", o, err)
	}
}

func mustNew(t *testing.T, n uint32) Object {
	t.Helper()
	o, err := New(n)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestArrivePhaseCompletion(t *testing.T) {
	o := mustNew(t, 3)
	for i, wantPending := range []uint32{2, 1} {
		tok, done, err := o.Arrive(1, false)
		if err != nil || done || o.Pending != wantPending || tok.Phase() != 0 || tok.Pending() != wantPending+1 {
			t.Fatalf("arrival %d: %+v tok=%#x done=%v err=%v", i, o, uint64(tok), done, err)
		}
	}
	tok, done, err := o.Arrive(1, false)
	if err != nil || !done {
		t.Fatalf("last arrival: done=%v err=%v", done, err)
	}
	if o.Phase != 1 || o.Pending != 3 || o.Expected != 3 {
		t.Errorf("after completion %+v", o)
	}
	if ok, err := o.Ready(tok); !ok || err != nil {
		t.Errorf("Ready(token of completed phase) = %v, %v", ok, err)
	}
	tok2, _, _ := o.Arrive(2, false)
	if ok, err := o.Ready(tok2); ok || err != nil {
		t.Errorf("Ready(token of current phase) = %v, %v", ok, err)
	}
}

func TestArriveCountForms(t *testing.T) {
	o := mustNew(t, 4)
	if _, _, err := o.Arrive(0, false); KindOf(err) != CountRange {
		t.Errorf("count 0: %v", err)
	}
	if _, _, err := o.Arrive(MaxCount+1, false); KindOf(err) != CountRange {
		t.Errorf("count 2^20: %v", err)
	}
	if _, _, err := o.Arrive(5, false); KindOf(err) != CountRange {
		t.Errorf("count above pending: %v", err)
	}
	if o != mustNew(t, 4) {
		t.Errorf("failed arrivals changed the object: %+v", o)
	}
	if _, done, err := o.Arrive(4, false); !done || err != nil {
		t.Errorf("arrive 4 of 4: done=%v err=%v", done, err)
	}
}

func TestNoComplete(t *testing.T) {
	o := mustNew(t, 2)
	tok, done, err := o.Arrive(1, true)
	if err != nil || done || !tok.NoComplete() {
		t.Fatalf("first .noComplete: %v %v %v", tok, done, err)
	}
	if n, err := PendingCount(tok); n != 2 || err != nil {
		t.Errorf("PendingCount = %d, %v; want 2", n, err)
	}
	before := o
	if _, _, err := o.Arrive(1, true); KindOf(err) != NoCompleteDone {
		t.Errorf(".noComplete completing the phase: %v", err)
	}
	if o != before {
		t.Errorf("failed .noComplete changed the object")
	}
	// With tx outstanding the last arrival does not complete the phase.
	if err := o.ExpectTx(8); err != nil {
		t.Fatal(err)
	}
	if _, done, err := o.Arrive(1, true); done || err != nil {
		t.Errorf(".noComplete with tx pending: done=%v err=%v", done, err)
	}
	if done, err := o.CompleteTx(8); !done || err != nil {
		t.Errorf("complete-tx finishing the phase: %v %v", done, err)
	}
}

func TestPendingCountNeedsNoComplete(t *testing.T) {
	o := mustNew(t, 2)
	tok, _, _ := o.Arrive(1, false)
	if _, err := PendingCount(tok); KindOf(err) != NotNoComplete {
		t.Errorf("pending_count of plain token: %v", err)
	}
	if _, err := PendingCount(0); KindOf(err) != ForeignToken {
		t.Errorf("pending_count of zero: %v", err)
	}
}

func TestTxCount(t *testing.T) {
	o := mustNew(t, 1)
	// complete-tx before expect-tx: tx goes negative, phase stays.
	if done, err := o.CompleteTx(16); done || err != nil || o.Tx != -16 {
		t.Fatalf("early complete-tx: %+v %v %v", o, done, err)
	}
	// arrive.expect_tx brings tx to 0 and arrives: completes.
	if _, done, err := o.ExpectArrive(16, false, false); !done || err != nil {
		t.Fatalf("arrive.expect_tx: %+v %v %v", o, done, err)
	}
	if o.Phase != 1 || o.Tx != 0 || o.Pending != 1 {
		t.Errorf("after completion %+v", o)
	}
	// Arrival first, bytes later: complete-tx completes.
	if _, done, _ := o.ExpectArrive(24, false, false); done {
		t.Fatal("completed with 24 bytes pending")
	}
	if done, _ := o.CompleteTx(8); done {
		t.Fatal("completed with 16 bytes pending")
	}
	if done, err := o.CompleteTx(16); !done || err != nil || o.Phase != 2 {
		t.Fatalf("final complete-tx: %+v %v %v", o, done, err)
	}
	// Completing more bytes than expected leaves tx negative: no completion.
	if _, done, _ := o.ExpectArrive(8, false, false); done {
		t.Fatal("completed early")
	}
	if done, _ := o.CompleteTx(16); done || o.Tx != -8 {
		t.Errorf("over-completion: %+v done=%v", o, done)
	}
}

func TestTxRange(t *testing.T) {
	o := mustNew(t, 1)
	if err := o.ExpectTx(MaxTx); err != nil {
		t.Fatal(err)
	}
	if err := o.ExpectTx(1); KindOf(err) != TxRange {
		t.Errorf("overflow: %v", err)
	}
	if o.Tx != MaxTx {
		t.Errorf("failed expect-tx changed tx to %d", o.Tx)
	}
	if err := o.ExpectTx(MaxTx + 1); KindOf(err) != TxRange {
		t.Errorf("operand above range: %v", err)
	}
	o = mustNew(t, 1)
	if _, err := o.CompleteTx(MaxTx); err != nil {
		t.Fatal(err)
	}
	if _, err := o.CompleteTx(1); KindOf(err) != TxRange {
		t.Errorf("underflow: %v", err)
	}
	if _, err := o.CompleteTx(MaxTx + 1); KindOf(err) != TxRange {
		t.Errorf("complete operand above range: %v", err)
	}
	// A failing expect-tx inside arrive.expect_tx must not arrive.
	o = mustNew(t, 2)
	before := o
	if _, _, err := o.ExpectArrive(MaxTx+1, false, false); KindOf(err) != TxRange || o != before {
		t.Errorf("arrive.expect_tx overflow: %v, %+v", err, o)
	}
}

func TestArriveDrop(t *testing.T) {
	o := mustNew(t, 3)
	if _, done, err := o.ArriveDrop(1, false); done || err != nil || o.Expected != 2 || o.Pending != 2 {
		t.Fatalf("arrive_drop: %+v %v %v", o, done, err)
	}
	if _, done, _ := o.Arrive(2, false); !done || o.Pending != 2 || o.Phase != 1 {
		t.Fatalf("phase after drop: %+v", o)
	}
	if _, _, err := o.ArriveDrop(2, false); KindOf(err) != CountRange {
		t.Errorf("drop to zero expected: %v", err)
	}
	if _, _, err := o.ArriveDrop(0, false); KindOf(err) != CountRange {
		t.Errorf("drop of 0: %v", err)
	}
	// Pending below count: arrival part fails, drop is undone.
	o = mustNew(t, 4)
	o.Arrive(3, false)
	before := o
	if _, _, err := o.ArriveDrop(2, false); KindOf(err) != CountRange || o != before {
		t.Errorf("drop beyond pending: %v %+v", err, o)
	}
	// arrive_drop.expect_tx
	o = mustNew(t, 2)
	if _, done, err := o.ExpectArrive(4, true, false); done || err != nil || o.Expected != 1 || o.Tx != 4 || o.Pending != 1 {
		t.Errorf("arrive_drop.expect_tx: %+v %v %v", o, done, err)
	}
	// arrive_drop.noComplete that completes
	o = mustNew(t, 2)
	o.Arrive(1, false)
	if _, _, err := o.ArriveDrop(1, true); KindOf(err) != NoCompleteDone {
		t.Errorf("arrive_drop.noComplete completing: %v", err)
	}
}

func TestIncrement(t *testing.T) {
	o := mustNew(t, 1)
	if err := o.Increment(); err != nil || o.Pending != 2 {
		t.Fatalf("Increment: %+v %v", o, err)
	}
	// The thread's own arrival no longer completes the phase; the async one does.
	if _, done, _ := o.Arrive(1, false); done {
		t.Fatal("completed with the async arrival outstanding")
	}
	if _, done, _ := o.Arrive(1, false); !done || o.Pending != 1 {
		t.Fatalf("async arrival: %+v", o)
	}
	o = Object{Pending: MaxCount, Expected: MaxCount}
	if err := o.Increment(); KindOf(err) != CountRange {
		t.Errorf("increment overflow: %v", err)
	}
}

func TestReadyPhaseArithmetic(t *testing.T) {
	for cur := uint8(0); cur < PhaseModulus; cur++ {
		for tp := uint8(0); tp < PhaseModulus; tp++ {
			o := Object{Phase: cur, Pending: 1, Expected: 1}
			ok, err := o.Ready(MakeToken(0, tp, 1, false))
			switch (cur - tp) % PhaseModulus {
			case 0:
				if ok || err != nil {
					t.Errorf("cur %d tok %d: %v %v, want false", cur, tp, ok, err)
				}
			case 1:
				if !ok || err != nil {
					t.Errorf("cur %d tok %d: %v %v, want true", cur, tp, ok, err)
				}
			default:
				if KindOf(err) != StalePhase {
					t.Errorf("cur %d tok %d: %v, want StalePhase", cur, tp, err)
				}
			}
		}
		o := Object{Phase: cur, Pending: 1, Expected: 1}
		if o.ReadyParity(uint32(cur&1)) || !o.ReadyParity(uint32(cur&1)^1) {
			t.Errorf("parity at phase %d", cur)
		}
		if o.ReadyParity(uint32(cur&1)|2) != o.ReadyParity(uint32(cur&1)) {
			t.Errorf("parity uses more than bit 0")
		}
	}
}

func TestPhaseWraps(t *testing.T) {
	o := mustNew(t, 1)
	for i := 1; i <= 20; i++ {
		if _, done, _ := o.Arrive(1, false); !done {
			t.Fatal("not completed")
		}
		if int(o.Phase) != i%PhaseModulus || o.Parity() != uint32(i&1) {
			t.Fatalf("after %d phases: %+v", i, o)
		}
	}
}

func TestErrorText(t *testing.T) {
	tb := NewTable()
	_, err := tb.Arrive(0x40, 0, 1, false)
	msg := err.Error()
	for _, want := range []string{"mbarrier.arrive", "0x40", "not initialized", "§9.7.13.15.9"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if !errors.Is(err, &Error{Kind: Uninitialized}) || errors.Is(err, &Error{Kind: InitLive}) {
		t.Error("errors.Is by kind")
	}
	for k := Uninitialized; k <= Clobbered; k++ {
		if !strings.HasPrefix(k.Rule(), "mbarrier-") || !strings.Contains(k.Spec(), "§9.7.13.15") || k.String() == "" {
			t.Errorf("kind %d: rule %q spec %q", k, k.Rule(), k.Spec())
		}
	}
	if Kind(0).Rule() != "mbarrier" || Kind(200).String() != "Kind(200)" {
		t.Error("invalid kind text")
	}
}

func TestObjectString(t *testing.T) {
	o := Object{Phase: 3, Pending: 1, Expected: 2, Tx: 16}
	if got, want := o.String(), "phase 3 (parity 1), 1 of 2 arrivals pending, tx-count 16"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

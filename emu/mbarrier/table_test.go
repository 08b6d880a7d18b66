package mbarrier

import (
	"testing"
)

// mem is a tiny emulated shared memory of 64-bit words for table tests.
type mem map[uint64]uint64

// stepper returns a function that stores an operation's word at addr and
// fails the test on error.
func (m mem) stepper(t *testing.T, addr uint64) func(Result, error) Result {
	return func(r Result, err error) Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		m[addr] = r.Word
		return r
	}
}

func TestTableLifecycle(t *testing.T) {
	tb, m := NewTable(), mem{}
	const a = 0x100
	step := m.stepper(t, a)
	step(tb.Init(a, 2))
	if !tb.Live(a) || tb.Len() != 1 {
		t.Fatal("not live after init")
	}
	if o, ok := Decode(m[a]); !ok || o.Pending != 2 || o.Expected != 2 {
		t.Fatalf("memory word %#x decodes to %+v", m[a], o)
	}
	r := step(tb.Arrive(a, m[a], 1, false))
	tok := r.Token
	if !tok.Names(a) || tok.Phase() != 0 {
		t.Fatalf("token %#x", uint64(tok))
	}
	if ok, err := tb.TestWait("mbarrier.test_wait", a, m[a], tok); ok || err != nil {
		t.Fatalf("test_wait before completion: %v %v", ok, err)
	}
	r = step(tb.Arrive(a, m[a], 1, false))
	if !r.Completed {
		t.Fatal("second arrival did not complete")
	}
	if ok, err := tb.TestWait("mbarrier.test_wait", a, m[a], tok); !ok || err != nil {
		t.Fatalf("test_wait after completion: %v %v", ok, err)
	}
	if ok, _ := tb.TestWaitParity("mbarrier.try_wait.parity", a, m[a], 0); !ok {
		t.Fatal("parity 0 not complete after phase 0")
	}
	if _, phases, _ := tb.Get(a); phases != 1 {
		t.Fatalf("phase counter %d", phases)
	}
	step(tb.Inval(a, m[a]))
	if tb.Live(a) || m[a] != 0 {
		t.Fatal("still live after inval")
	}
	// Reinitialization after inval is allowed.
	step(tb.Init(a, 1))
}

func TestTableErrors(t *testing.T) {
	const a = 0x40
	tests := []struct {
		name string
		run  func(tb *Table, m mem) error
		want Kind
	}{
		{"arrive before init", func(tb *Table, m mem) error { _, err := tb.Arrive(a, 0, 1, false); return err }, Uninitialized},
		{"test_wait before init", func(tb *Table, m mem) error { _, err := tb.TestWaitParity("mbarrier.test_wait", a, 0, 0); return err }, Uninitialized},
		{"inval before init", func(tb *Table, m mem) error { _, err := tb.Inval(a, 0); return err }, Uninitialized},
		{"expect_tx after inval", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			tb.Inval(a, r.Word)
			_, err := tb.ExpectTx(a, 0, 4)
			return err
		}, Uninitialized},
		{"init live", func(tb *Table, m mem) error { tb.Init(a, 1); _, err := tb.Init(a, 1); return err }, InitLive},
		{"init count 0", func(tb *Table, m mem) error { _, err := tb.Init(a, 0); return err }, CountRange},
		{"init misaligned", func(tb *Table, m mem) error { _, err := tb.Init(a+4, 1); return err }, Misaligned},
		{"arrive misaligned", func(tb *Table, m mem) error { _, err := tb.Arrive(a+1, 0, 1, false); return err }, Misaligned},
		{"plain store over live object", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			_, err := tb.Arrive(a, r.Word^0xff, 1, false)
			return err
		}, Clobbered},
		{"zeroed live object", func(tb *Table, m mem) error {
			tb.Init(a, 1)
			_, err := tb.CompleteTx("st.async", a, 0, 4)
			return err
		}, Clobbered},
		{"stale token", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			r, _ = tb.Arrive(a, r.Word, 1, false)
			tok := r.Token
			r, _ = tb.Arrive(a, r.Word, 1, false)
			_, err := tb.TestWait("mbarrier.try_wait", a, r.Word, tok)
			return err
		}, StalePhase},
		{"token of another object", func(tb *Table, m mem) error {
			r1, _ := tb.Init(a, 2)
			r2, _ := tb.Init(a+8, 2)
			r2, _ = tb.Arrive(a+8, r2.Word, 1, false)
			_, err := tb.TestWait("mbarrier.test_wait", a, r1.Word, r2.Token)
			return err
		}, ForeignToken},
		{"zero token", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 2)
			_, err := tb.TestWait("mbarrier.test_wait", a, r.Word, 0)
			return err
		}, ForeignToken},
		{"noComplete completes", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			_, err := tb.Arrive(a, r.Word, 1, true)
			return err
		}, NoCompleteDone},
		{"tx overflow", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			r, _ = tb.ExpectTx(a, r.Word, MaxTx)
			_, err := tb.ExpectArrive(a, r.Word, 1, false, false)
			return err
		}, TxRange},
		{"increment overflow", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, MaxCount)
			_, err := tb.Increment(a, r.Word)
			return err
		}, CountRange},
		{"drop to zero", func(tb *Table, m mem) error {
			r, _ := tb.Init(a, 1)
			_, err := tb.ArriveDrop(a, r.Word, 1, false)
			return err
		}, CountRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(NewTable(), mem{})
			if KindOf(err) != tc.want {
				t.Errorf("got %v, want kind %v", err, tc.want)
			}
		})
	}
}

func TestTableFailedOpKeepsState(t *testing.T) {
	tb := NewTable()
	const a = 0x80
	r, _ := tb.Init(a, 2)
	w := r.Word
	if _, err := tb.Arrive(a, w, 3, false); err == nil {
		t.Fatal("arrival of 3 on 2 pending succeeded")
	}
	// The table still expects the old word: the next op with it works.
	if _, err := tb.Arrive(a, w, 2, false); err != nil {
		t.Fatalf("table state changed by a failed op: %v", err)
	}
}

func TestTableExpectArriveForms(t *testing.T) {
	tb, m := NewTable(), mem{}
	const a = 0x10
	step := m.stepper(t, a)
	step(tb.Init(a, 2))
	r := step(tb.ExpectArrive(a, m[a], 32, false, false))
	if r.Object.Tx != 32 || r.Object.Pending != 1 {
		t.Fatalf("arrive.expect_tx: %+v", r.Object)
	}
	r = step(tb.ExpectArrive(a, m[a], 0, true, false))
	if r.Object.Expected != 1 || r.Object.Pending != 0 || r.Completed {
		t.Fatalf("arrive_drop.expect_tx: %+v", r.Object)
	}
	r = step(tb.CompleteTx("st.async", a, m[a], 32))
	if !r.Completed || r.Object.Pending != 1 || r.Object.Phase != 1 {
		t.Fatalf("complete_tx: %+v", r.Object)
	}
	if _, err := tb.ArriveDrop(a, m[a], 1, false); KindOf(err) != CountRange {
		t.Fatalf("dropping the last expected arrival: %v", err)
	}
}

func TestOverlapping(t *testing.T) {
	tb := NewTable()
	tb.Init(0x20, 1)
	tb.Init(0x100, 1)
	cases := []struct {
		lo, hi uint64
		addr   uint64
		ok     bool
	}{
		{0x20, 0x21, 0x20, true},
		{0x27, 0x28, 0x20, true},
		{0x1c, 0x20, 0, false},
		{0x28, 0x30, 0, false},
		{0x1c, 0x24, 0x20, true},
		{0x0, 0x1000, 0x20, true},
		{0x30, 0x1000, 0x100, true},
		{0x108, 0x1000, 0, false},
		{0x10, 0x10, 0, false},
	}
	for _, c := range cases {
		addr, ok := tb.Overlapping(c.lo, c.hi)
		if addr != c.addr || ok != c.ok {
			t.Errorf("Overlapping(%#x, %#x) = %#x, %v; want %#x, %v", c.lo, c.hi, addr, ok, c.addr, c.ok)
		}
	}
	if got := tb.Addrs(); len(got) != 2 || got[0] != 0x20 || got[1] != 0x100 {
		t.Errorf("Addrs = %v", got)
	}
	tb.Forget(0x20)
	if tb.Live(0x20) {
		t.Error("Forget")
	}
}

package mbarrier

import (
	"testing"
)

// model is an independent reference for one object: plain integers and a
// full phase counter, checked against the Table after every step.
type model struct {
	live                  bool
	phase                 uint64
	pending, expected, tx int64
	completed             int
}

func (m *model) settle() bool {
	if m.pending == 0 && m.tx == 0 {
		m.phase++
		m.pending = m.expected
		m.completed++
		return true
	}
	return false
}

// FuzzTable drives one object through a byte-coded sequence of operations
// and checks the table against the reference model: same counts, a phase
// completion exactly when pending arrivals and tx-count reach zero, errors
// exactly where the model's ranges are violated, no state change on error,
// and memory words that decode to the table's object.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 2, 0, 1, 0, 0, 1, 0, 6, 0, 0})
	f.Add([]byte{0, 1, 0, 3, 16, 0, 4, 16, 0, 2, 0, 0})
	f.Add([]byte{0, 3, 0, 5, 1, 0, 1, 2, 0, 7, 0, 0, 8, 0, 0, 1, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 1, 0, 9, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, prog []byte) {
		const a = 0x40
		tb := NewTable()
		var word uint64
		var m model
		var lastTok Token
		for i := 0; i+2 < len(prog) && i < 3*256; i += 3 {
			op, n := prog[i]%11, uint32(prog[i+1])|uint32(prog[i+2])<<8
			if prog[i+2] == 0xff {
				n = MaxCount + uint32(prog[i+1]) // out-of-range operands
			}
			before := m
			var r Result
			var err error
			var wantErr bool
			var wantDone bool
			arrive := func(cnt int64, noComplete bool) {
				if !m.live || cnt < 1 || cnt > MaxCount || cnt > m.pending {
					wantErr = true
					return
				}
				if noComplete && cnt == m.pending && m.tx == 0 {
					wantErr = true
					return
				}
				m.pending -= cnt
				wantDone = m.settle()
			}
			switch op {
			case 0:
				r, err = tb.Init(a, n)
				if m.live || n < 1 || n > MaxCount {
					wantErr = true
				} else {
					m = model{live: true, pending: int64(n), expected: int64(n)}
				}
			case 1:
				r, err = tb.Inval(a, word)
				wantErr = !m.live
				m.live = false
			case 2, 3:
				r, err = tb.Arrive(a, word, n, op == 3)
				arrive(int64(n), op == 3)
			case 4:
				r, err = tb.ExpectTx(a, word, n)
				if !m.live || n > MaxTx || m.tx+int64(n) > MaxTx {
					wantErr = true
				} else {
					m.tx += int64(n)
				}
			case 5:
				r, err = tb.CompleteTx("complete_tx", a, word, n)
				if !m.live || n > MaxTx || m.tx-int64(n) < -MaxTx {
					wantErr = true
				} else {
					m.tx -= int64(n)
					wantDone = m.settle()
				}
			case 6:
				r, err = tb.ExpectArrive(a, word, n, false, false)
				if !m.live || n > MaxTx || m.tx+int64(n) > MaxTx {
					wantErr = true
				} else {
					m.tx += int64(n)
					arrive(1, false)
				}
			case 7:
				r, err = tb.ArriveDrop(a, word, n, false)
				if !m.live || int64(n) >= m.expected {
					wantErr = true
				} else {
					m.expected -= int64(n)
					arrive(int64(n), false)
				}
			case 8:
				r, err = tb.Increment(a, word)
				if !m.live || m.pending >= MaxCount {
					wantErr = true
				} else {
					m.pending++
				}
			case 9:
				var ok bool
				ok, err = tb.TestWaitParity("test_wait.parity", a, word, n)
				wantErr = !m.live
				if err == nil && ok != (m.phase&1 != uint64(n&1)) {
					t.Fatalf("step %d: parity %d ready=%v at phase %d", i/3, n&1, ok, m.phase)
				}
				r = Result{Word: word}
			case 10:
				var ok bool
				ok, err = tb.TestWait("test_wait", a, word, lastTok)
				r = Result{Word: word}
				if !m.live {
					wantErr = true
				} else if lastTok.Valid() {
					d := (uint8(m.phase) - lastTok.Phase()) % PhaseModulus
					wantErr = d > 1
					if err == nil && ok != (d == 1) {
						t.Fatalf("step %d: token phase %d ready=%v at phase %d", i/3, lastTok.Phase(), ok, m.phase)
					}
				} else {
					wantErr = true
				}
			}
			if wantErr {
				m = before
				if err == nil {
					t.Fatalf("step %d op %d n %d: no error, model %+v", i/3, op, n, before)
				}
				if KindOf(err) == 0 {
					t.Fatalf("untyped error %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d op %d n %d: %v (model %+v)", i/3, op, n, err, before)
			}
			if r.Completed != wantDone {
				t.Fatalf("step %d op %d: completed=%v, model %v", i/3, op, r.Completed, wantDone)
			}
			if r.Token != 0 {
				lastTok = r.Token
			}
			word = r.Word
			if !m.live {
				if tb.Live(a) || word != 0 {
					t.Fatalf("step %d: live after inval", i/3)
				}
				continue
			}
			o, phases, ok := tb.Get(a)
			d, dok := Decode(word)
			if !ok || !dok || d != o || phases != m.phase ||
				int64(o.Pending) != m.pending || int64(o.Expected) != m.expected || int64(o.Tx) != m.tx ||
				uint64(o.Phase) != m.phase%PhaseModulus {
				t.Fatalf("step %d op %d: table %+v phases %d, model %+v", i/3, op, o, phases, m)
			}
		}
	})
}

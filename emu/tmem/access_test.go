package tmem

import (
	"errors"
	"strings"
	"testing"
)

func regsFor(f Form, fill uint32) [][]uint32 {
	regs := make([][]uint32, 32)
	for t := range regs {
		regs[t] = make([]uint32, f.Regs())
		for j := range regs[t] {
			regs[t][j] = fill + uint32(t*1000+j)
		}
	}
	return regs
}

func wantRule(t *testing.T, err error, rule Rule) {
	t.Helper()
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("error = %v, want *Error with rule %s", err, rule)
	}
	if te.Rule != rule {
		t.Fatalf("rule = %s (%v), want %s", te.Rule, err, rule)
	}
	if !strings.HasPrefix(te.Spec, "PTX ISA §") || te.Message == "" {
		t.Fatalf("error %#v lacks a spec citation or message", te)
	}
}

func newAllocated(t *testing.T, nCols int) *Memory {
	t.Helper()
	m := New()
	if _, ok, err := m.Alloc.TryAlloc(CTAGroup1, nCols); !ok || err != nil {
		t.Fatalf("TryAlloc(%d) = %v, %v", nCols, ok, err)
	}
	return m
}

// cellsUntouched reports whether the store wrote nothing.
func cellsUntouched(m *Memory) bool {
	for _, w := range m.written {
		if w != 0 {
			return false
		}
	}
	return true
}

func TestLaneQuarter(t *testing.T) {
	f32 := Form{Shape: Shape32x32b, Num: 1}
	f16 := Form{Shape: Shape16x64b, Num: 1}
	tests := []struct {
		name string
		warp int
		f    Form
		lane int
		ok   bool
	}{
		{"warp0 own quarter", 0, f32, 0, true},
		{"warp1 own quarter", 1, f32, 32, true},
		{"warp5 is quarter 1", 5, f32, 32, true},
		{"warp1 at lane 0", 1, f32, 0, false},
		{"warp3 at quarter 2", 3, f32, 64, false},
		{"32 lanes straddle", 0, f32, 1, false},
		{"16 lanes upper half", 2, f16, 80, true},
		{"16 lanes straddle", 2, f16, 81, false},
		{"16 lanes below quarter", 2, f16, 63, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newAllocated(t, 32)
			err := m.Store(Uniform(tt.warp, MakeAddr(tt.lane, 0)), tt.f, regsFor(tt.f, 1))
			if tt.ok {
				if err != nil {
					t.Fatalf("Store: %v", err)
				}
				return
			}
			wantRule(t, err, RuleLaneQuarter)
			if !cellsUntouched(m) {
				t.Fatal("failed store wrote cells")
			}
			out := regsFor(tt.f, 0)
			wantRule(t, m.Load(Uniform(tt.warp, MakeAddr(tt.lane, 0)), tt.f, out), RuleLaneQuarter)
		})
	}
}

func TestLaneBeyond128(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape16x64b, Num: 1}
	wantRule(t, m.Store(Uniform(3, MakeAddr(120, 0)), f, regsFor(f, 1)), RuleColumnRange)
	wantRule(t, m.Store(Uniform(3, MakeAddr(0x8000, 0)), f, regsFor(f, 1)), RuleColumnRange)
	if err := m.Store(Uniform(3, MakeAddr(112, 0)), f, regsFor(f, 1)); err != nil {
		t.Fatalf("store at lane 112: %v", err)
	}
}

func TestColumnRange(t *testing.T) {
	m := newAllocated(t, 512)
	f := Form{Shape: Shape32x32b, Num: 8}
	if err := m.Store(Uniform(0, MakeAddr(0, 504)), f, regsFor(f, 1)); err != nil {
		t.Fatalf("store ending at column 511: %v", err)
	}
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 505)), f, regsFor(f, 1)), RuleColumnRange)
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 0xffff)), f, regsFor(f, 1)), RuleColumnRange)

	// The second half of .16x32bx2 counts too.
	h := Form{Shape: Shape16x32bx2, Num: 4, SplitOffset: 508}
	if err := m.Store(Uniform(0, MakeAddr(0, 0)), h, regsFor(h, 1)); err != nil {
		t.Fatalf("split store ending at 511: %v", err)
	}
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 1)), h, regsFor(h, 1)), RuleColumnRange)
}

func TestUnallocated(t *testing.T) {
	m := newAllocated(t, 32) // columns 0..31
	f := Form{Shape: Shape32x32b, Num: 32}
	if err := m.Store(Uniform(0, MakeAddr(0, 0)), f, regsFor(f, 1)); err != nil {
		t.Fatalf("store into allocated columns: %v", err)
	}
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 1)), f, regsFor(f, 1)), RuleUnallocated)
	out := regsFor(f, 0)
	wantRule(t, m.Load(Uniform(0, MakeAddr(0, 16)), f, out), RuleUnallocated)

	// Packing doubles the columns: 16x64b.x16 = 32 columns, packed 64.
	p := Form{Shape: Shape16x64b, Num: 16}
	if err := m.Store(Uniform(0, MakeAddr(0, 0)), p, regsFor(p, 1)); err != nil {
		t.Fatalf("unpacked: %v", err)
	}
	p.Packed = true
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 0)), p, regsFor(p, 1)), RuleUnallocated)

	// A split landing in a hole: allocate 32..63 is free, 64..127 taken.
	m2 := New()
	m2.Alloc.TryAlloc(CTAGroup1, 32)
	m2.Alloc.TryAlloc(CTAGroup1, 64) // lands at 64
	h := Form{Shape: Shape16x32bx2, Num: 1, SplitOffset: 64}
	if err := m2.Store(Uniform(0, MakeAddr(0, 0)), h, regsFor(h, 1)); err != nil {
		t.Fatalf("split across two allocations: %v", err)
	}
	h.SplitOffset = 32
	wantRule(t, m2.Store(Uniform(0, MakeAddr(0, 0)), h, regsFor(h, 1)), RuleUnallocated)

	// Nothing allocated after dealloc.
	if err := m.Alloc.Dealloc(CTAGroup1, 0, 32); err != nil {
		t.Fatal(err)
	}
	wantRule(t, m.Store(Uniform(0, MakeAddr(0, 0)), f, regsFor(f, 1)), RuleUnallocated)
}

func TestTaddrMismatch(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape16x128b, Num: 2}
	acc := Uniform(0, MakeAddr(0, 4))
	if err := m.Store(acc, f, regsFor(f, 1)); err != nil {
		t.Fatalf("uniform taddr: %v", err)
	}
	acc.Taddr[17] = MakeAddr(0, 8)
	err := m.Store(acc, f, regsFor(f, 1))
	wantRule(t, err, RuleTaddrMismatch)
	if !strings.Contains(err.Error(), "thread 17") {
		t.Errorf("message %q does not name thread 17", err)
	}
	out := regsFor(f, 0)
	wantRule(t, m.Load(acc, f, out), RuleTaddrMismatch)
}

func TestRegisterCount(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape16x256b, Num: 1}
	regs := regsFor(f, 1)
	if err := m.Store(Uniform(0, 0), f, regs); err != nil {
		t.Fatal(err)
	}
	regs[3] = regs[3][:3]
	wantRule(t, m.Store(Uniform(0, 0), f, regs), RuleForm)
	wantRule(t, m.Store(Uniform(0, 0), f, regs[:31]), RuleForm)
	wantRule(t, m.Store(Uniform(0, 0), Form{Shape: Shape16x256b, Num: 64}, regsFor(f, 1)), RuleForm)
}

func TestUnwaitedStore(t *testing.T) {
	m := newAllocated(t, 64)
	f := Form{Shape: Shape32x32b, Num: 4}
	acc := Uniform(1, MakeAddr(32, 0))
	if err := m.Store(acc, f, regsFor(f, 7)); err != nil {
		t.Fatal(err)
	}
	if n := m.PendingStores(32 + 5); n != 4 {
		t.Fatalf("PendingStores = %d, want 4", n)
	}
	out := regsFor(f, 0)
	err := m.Load(acc, f, out)
	wantRule(t, err, RuleUnwaitedStore)
	if out[5][2] != 7+5*1000+2 {
		t.Fatalf("load with hazard still loads: got %d", out[5][2])
	}

	// Reading other cells is fine.
	other := Uniform(1, MakeAddr(32, 4))
	if err := m.Load(other, f, out); err != nil {
		t.Fatalf("load of cells not pending: %v", err)
	}

	// Waiting for all but one thread still reports that one.
	for th := 32; th < 64; th++ {
		if th != 40 {
			m.WaitStores(th)
		}
	}
	err = m.Load(acc, f, out)
	wantRule(t, err, RuleUnwaitedStore)
	if !strings.Contains(err.Error(), "thread 40") {
		t.Errorf("message %q does not name thread 40", err)
	}
	m.WaitStores(40)
	if err := m.Load(acc, f, out); err != nil {
		t.Fatalf("load after wait::st: %v", err)
	}
	if m.PendingStores(40) != 0 || m.PendingStores(1000) != 0 {
		t.Fatal("pending stores remain after wait")
	}
}

// A packed store's pending cells include both columns of a register.
func TestUnwaitedStorePacked(t *testing.T) {
	m := newAllocated(t, 32)
	st := Form{Shape: Shape32x32b, Num: 1, Packed: true} // columns 0,1
	if err := m.Store(Uniform(0, 0), st, regsFor(st, 1)); err != nil {
		t.Fatal(err)
	}
	ld := Form{Shape: Shape32x32b, Num: 1} // reads column 1 only
	out := regsFor(ld, 0)
	wantRule(t, m.Load(Uniform(0, MakeAddr(0, 1)), ld, out), RuleUnwaitedStore)
	if err := m.Load(Uniform(0, MakeAddr(0, 2)), ld, out); err != nil {
		t.Fatalf("column 2 was not written: %v", err)
	}
}

func TestUnpackUpperBits(t *testing.T) {
	f := Form{Shape: Shape32x32b, Num: 1, Packed: true}
	for _, zero := range []bool{false, true} {
		m := newAllocated(t, 32)
		m.ZeroUpperOnUnpack = zero
		for l := range 32 {
			m.SetCell(l, 0, 0xaaaa0000)
			m.SetCell(l, 1, 0xbbbb0000)
		}
		regs := regsFor(f, 0)
		regs[3][0] = 0x12345678
		if err := m.Store(Uniform(0, 0), f, regs); err != nil {
			t.Fatal(err)
		}
		lo, hi := uint32(0xaaaa5678), uint32(0xbbbb1234)
		if zero {
			lo, hi = 0x5678, 0x1234
		}
		if m.Cell(3, 0) != lo || m.Cell(3, 1) != hi {
			t.Errorf("zero=%v: cells %#x %#x, want %#x %#x", zero, m.Cell(3, 0), m.Cell(3, 1), lo, hi)
		}
		// .pack::16b takes the low halves back.
		out := regsFor(f, 0)
		for th := range 32 {
			m.WaitStores(th)
		}
		if err := m.Load(Uniform(0, 0), f, out); err != nil {
			t.Fatal(err)
		}
		if out[3][0] != 0x12345678 {
			t.Errorf("zero=%v: packed load = %#x", zero, out[3][0])
		}
	}
}

func TestPrepareStore(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape32x32b, Num: 2}
	regs := regsFor(f, 5)
	st, err := m.PrepareStore(Uniform(0, 0), f, regs)
	if err != nil {
		t.Fatal(err)
	}
	regs[0][0] = 999 // the store keeps its own copy
	if m.Written(0, 0) || st.Landed() {
		t.Fatal("PrepareStore wrote cells")
	}
	if m.PendingStores(0) != 2 {
		t.Fatalf("pending = %d before landing, want 2", m.PendingStores(0))
	}
	out := regsFor(f, 0)
	wantRule(t, m.Load(Uniform(0, 0), f, out), RuleUnwaitedStore)
	st.Land()
	st.Land()
	if m.Cell(0, 0) != 5 || m.Cell(31, 1) != 5+31*1000+1 || !st.Landed() {
		t.Fatalf("landed cells %d %d", m.Cell(0, 0), m.Cell(31, 1))
	}
	_, err = m.PrepareStore(Uniform(0, MakeAddr(0, 31)), f, regs)
	wantRule(t, err, RuleUnallocated)
}

// Another thread's unwaited store is reported too: warps 0 and 4 share lane
// quarter 0, and threads of one warp read each other's cells with a
// different shape.
func TestUnwaitedStoreOtherThread(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape32x32b, Num: 1}
	if err := m.Store(Uniform(0, 0), f, regsFor(f, 1)); err != nil {
		t.Fatal(err)
	}
	out := regsFor(f, 0)
	err := m.Load(Uniform(4, 0), f, out)
	wantRule(t, err, RuleUnwaitedStore)
	if !strings.Contains(err.Error(), "thread 128 (warp 4, lane 0)") || !strings.Contains(err.Error(), "tcgen05.st of thread 0 (warp 0)") {
		t.Errorf("message %q", err)
	}
	// 16x64b thread 1 reads lane 8, written by 32x32b thread 8.
	g := Form{Shape: Shape16x64b, Num: 1}
	for th := range 32 {
		if th != 8 {
			m.WaitStores(th)
		}
	}
	err = m.Load(Uniform(0, 0), g, regsFor(g, 0))
	wantRule(t, err, RuleUnwaitedStore)
	if !strings.Contains(err.Error(), "thread 1 (warp 0, lane 1) reads Tensor Memory lane 8, column 0, which the tcgen05.st of thread 8") {
		t.Errorf("message %q", err)
	}
	m.WaitStores(8)
	if err := m.Load(Uniform(4, 0), f, out); err != nil {
		t.Fatalf("after every writer waited: %v", err)
	}
	for i, n := range m.writers {
		if n != 0 {
			t.Fatalf("writers[%d] = %d after all waits", i, n)
		}
	}
}

// Overlapping .16x32bx2 halves make threads t and t+16 write the same
// cells; each write stays pending until its own thread waits.
func TestUnwaitedStoreTwoWriters(t *testing.T) {
	m := newAllocated(t, 32)
	f := Form{Shape: Shape16x32bx2, Num: 1, SplitOffset: 0}
	if err := m.Store(Uniform(0, 0), f, regsFor(f, 1)); err != nil {
		t.Fatal(err)
	}
	ld := Form{Shape: Shape32x32b, Num: 1}
	for th := range 16 {
		m.WaitStores(th)
	}
	err := m.Load(Uniform(0, 0), ld, regsFor(ld, 0))
	wantRule(t, err, RuleUnwaitedStore)
	if !strings.Contains(err.Error(), "tcgen05.st of thread 16") {
		t.Errorf("message %q", err)
	}
	for th := 16; th < 32; th++ {
		m.WaitStores(th)
	}
	if err := m.Load(Uniform(0, 0), ld, regsFor(ld, 0)); err != nil {
		t.Fatal(err)
	}
}

func TestReset(t *testing.T) {
	m := newAllocated(t, 64)
	f := Form{Shape: Shape32x32b, Num: 4}
	if err := m.Store(Uniform(0, MakeAddr(0, 3)), f, regsFor(f, 9)); err != nil {
		t.Fatal(err)
	}
	m.Alloc.Relinquish(CTAGroup1)
	m.Reset()
	for lane := range Lanes {
		for col := range Columns {
			if m.Cell(lane, col) != 0 || m.Written(lane, col) {
				t.Fatalf("cell (%d,%d) survives Reset", lane, col)
			}
		}
	}
	if m.PendingStores(0) != 0 || m.Alloc.FreeColumns() != Columns || m.Alloc.Relinquished() || m.Alloc.Group() != 0 {
		t.Fatal("Reset left state behind")
	}
	for i := range m.writers {
		if m.writers[i] != 0 || m.owner[i] != noOwner {
			t.Fatalf("pending bookkeeping of cell %d survives Reset", i)
		}
	}
	// The reset memory works like a new one.
	m.Alloc.TryAlloc(CTAGroup1, 32)
	if err := m.Store(Uniform(0, 0), f, regsFor(f, 9)); err != nil {
		t.Fatal(err)
	}
	wantRule(t, m.Load(Uniform(0, 0), f, regsFor(f, 0)), RuleUnwaitedStore)
}

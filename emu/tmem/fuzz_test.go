package tmem

import (
	"errors"
	"testing"
)

// FuzzStoreLoad drives Form validation, Place, Store and Load with arbitrary
// forms, addresses and warps: no input may panic; a valid form places every
// register inside its extent; a store that succeeds is read back unchanged
// by a load of the same form once waited for, unless the two halves of a
// .16x32bx2 overlap (then two threads write the same cells).
func FuzzStoreLoad(f *testing.F) {
	for _, form := range allForms() {
		f.Add(uint8(form.Shape), uint16(form.Num), form.Packed, int16(form.SplitOffset), uint32(0), uint8(0), uint16(512), uint32(1))
	}
	f.Add(uint8(Shape16x64b), uint16(3), false, int16(0), uint32(32<<16), uint8(1), uint16(64), uint32(7))
	f.Add(uint8(Shape32x32b), uint16(4), true, int16(0), uint32(0xffffffff), uint8(9), uint16(32), uint32(9))
	f.Fuzz(func(t *testing.T, shape uint8, num uint16, packed bool, imm int16, taddr uint32, warp uint8, nCols uint16, seed uint32) {
		form := Form{Shape: Shape(shape), Num: int(num), Packed: packed, SplitOffset: int(imm)}
		m := New()
		if _, _, err := m.Alloc.TryAlloc(CTAGroup1, int(nCols)); err != nil {
			var te *Error
			if !errors.As(err, &te) || te.Rule != RuleNCols {
				t.Fatalf("TryAlloc(%d): %v", nCols, err)
			}
		}
		_ = LayoutTable(form, packed)
		if form.Validate() != nil {
			if err := m.Store(Uniform(int(warp), Addr(taddr)), form, nil); err == nil {
				t.Fatal("invalid form stored")
			}
			return
		}
		lanes, cols := form.Extent()
		covered := make(map[[2]int]bool)
		for th := range 32 {
			for j := range form.Regs() {
				p := form.Place(th, j)
				if p.Lane < 0 || p.Lane >= lanes || p.Column < 0 || p.Column+p.Cells > cols {
					t.Fatalf("%v Place(%d,%d) = %+v outside extent %dx%d", form, th, j, p, lanes, cols)
				}
				for c := range p.Cells {
					covered[[2]int{p.Lane, p.Column + c}] = true
				}
			}
		}
		perReg := 1
		if packed {
			perReg = 2
		}
		w := form.Shape.BaseColumns() * form.Num * perReg
		overlap := form.Shape == Shape16x32bx2 && form.SplitOffset < w
		if !overlap && len(covered) != 32*form.Regs()*perReg {
			t.Fatalf("%v: %d distinct cells for %d register cells", form, len(covered), 32*form.Regs()*perReg)
		}
		regs := make([][]uint32, 32)
		x := seed | 1
		for th := range regs {
			regs[th] = make([]uint32, form.Regs())
			for j := range regs[th] {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				regs[th][j] = x
			}
		}
		acc := Uniform(int(warp), Addr(taddr))
		if err := m.Store(acc, form, regs); err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("Store error %T %v", err, err)
			}
			return
		}
		for th := range 32 {
			m.WaitStores(int(warp)*32 + th)
		}
		out := make([][]uint32, 32)
		for th := range out {
			out[th] = make([]uint32, form.Regs())
		}
		if err := m.Load(acc, form, out); err != nil {
			t.Fatalf("Load after successful Store: %v", err)
		}
		if overlap {
			return
		}
		for th := range 32 {
			for j := range out[th] {
				if out[th][j] != regs[th][j] {
					t.Fatalf("%v at %v: thread %d reg %d = %#x, stored %#x", form, Addr(taddr), th, j, out[th][j], regs[th][j])
				}
			}
		}
	})
}

// FuzzAllocator runs arbitrary sequences of tcgen05.alloc, dealloc and
// relinquish_alloc_permit (each byte pair is one operation) and checks the
// allocator's invariants after each: live allocations are naturally
// aligned, disjoint, inside the 512 columns, account for every allocated
// column, and an alloc blocks only when no aligned range is free.
func FuzzAllocator(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 0, 2, 0})
	f.Add([]byte{0, 4, 0, 4, 0, 0, 1, 1, 0, 4})
	f.Add([]byte{0, 2, 0, 0, 0, 1, 1, 0, 1, 1, 0, 3})
	f.Fuzz(func(t *testing.T, prog []byte) {
		var a Allocator
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i]%4, int(prog[i+1])
			switch op {
			case 0, 3: // alloc 32 << arg%5 columns; op 3 asks for arg*8, mostly illegal
				n := 32 << (arg % 5)
				if op == 3 {
					n = arg * 8
				}
				free := fit(a.used, n)
				_, ok, err := a.TryAlloc(CTAGroup1, n)
				switch {
				case err != nil:
					if CheckNCols(n) == nil && !a.Relinquished() {
						t.Fatalf("alloc %d: unexpected %v", n, err)
					}
				case !ok && free >= 0:
					t.Fatalf("alloc %d blocked with column %d free", n, free)
				case ok && free < 0:
					t.Fatalf("alloc %d succeeded with no free range", n)
				}
			case 1: // dealloc the arg-th live allocation
				live := a.Live()
				if len(live) == 0 {
					if err := a.Dealloc(CTAGroup1, 0, 32); err == nil {
						t.Fatal("dealloc with nothing allocated succeeded")
					}
					continue
				}
				al := live[arg%len(live)]
				if err := a.Dealloc(CTAGroup1, al.Addr(), al.NCols); err != nil {
					t.Fatalf("dealloc %+v: %v", al, err)
				}
			case 2:
				if arg%8 == 0 {
					a.Relinquish(CTAGroup1)
				}
			}
			checkAllocator(t, &a)
		}
	})
}

func checkAllocator(t *testing.T, a *Allocator) {
	t.Helper()
	var used [Columns]bool
	total := 0
	for _, al := range a.Live() {
		if al.Column%al.NCols != 0 || al.Column+al.NCols > Columns || CheckNCols(al.NCols) != nil {
			t.Fatalf("bad allocation %+v", al)
		}
		for c := al.Column; c < al.Column+al.NCols; c++ {
			if used[c] {
				t.Fatalf("column %d allocated twice", c)
			}
			used[c] = true
		}
		total += al.NCols
	}
	for c := range Columns {
		if a.Allocated(c) != used[c] {
			t.Fatalf("Allocated(%d) = %v, live allocations say %v", c, a.Allocated(c), used[c])
		}
	}
	if a.FreeColumns() != Columns-total {
		t.Fatalf("FreeColumns = %d, want %d", a.FreeColumns(), Columns-total)
	}
}

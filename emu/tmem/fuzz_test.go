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

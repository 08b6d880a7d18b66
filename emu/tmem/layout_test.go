package tmem

import (
	"errors"
	"fmt"
	"github.com/ptxkit/ptxkit/isa"
	"testing"
)

// The tests below check Form.Place and Memory.Store/Load against the
// tcgen05 matrix-fragment layouts (PTX ISA §9.7.16.2.3.1, Figures 183-187,
// decoded in the project's spec digest §8 and CUTLASS's SM100 TMEM copy
// traits). They are written as the INVERSE map: for a cell (lane l, column c)
// of the footprint, relative to taddr, which thread t and register j of the
// warp write it. Place computes the forward map; neither is derived from the
// other.

// writer returns the thread and register that write unpacked logical cell
// (l, c) of one warp's access of shape s with the half split imm. ok is
// false when the cell is outside the footprint.
func writer(s Shape, num, imm, l, c int) (t, j int, ok bool) {
	switch s {
	case Shape32x32b:
		// Lane l belongs to thread l; column c is register c.
		if l < 32 && c < num {
			return l, c, true
		}
	case Shape16x64b:
		// Column pair 2j,2j+1 is repeat j; lanes 0-7 go to even threads,
		// lanes 8-15 to odd ones; the odd column of a pair to threads with
		// bit 1 set.
		if l < 16 && c < 2*num {
			return 4*(l%8) + 2*(c%2) + l/8, c / 2, true
		}
	case Shape16x128b:
		// Repeat i spans columns 4i..4i+3, one per thread of a quad; the
		// quad's first register covers lanes 0-7, the second lanes 8-15.
		if l < 16 && c < 4*num {
			return 4*(l%8) + c%4, 2*(c/4) + l/8, true
		}
	case Shape16x256b:
		// Repeat i spans columns 8i..8i+7; each thread owns two adjacent
		// columns, registers {0,1} in lanes 0-7 and {2,3} in lanes 8-15.
		if l < 16 && c < 8*num {
			return 4*(l%8) + (c%8)/2, 4*(c/8) + 2*(l/8) + c%2, true
		}
	case Shape16x32bx2:
		// Threads 0-15 own lanes 0-15 of columns [0, num), threads 16-31 the
		// same lanes of columns [imm, imm+num).
		if l >= 16 {
			return 0, 0, false
		}
		if c >= imm && c < imm+num {
			return l + 16, c - imm, true
		}
		if c < num {
			return l, c, true
		}
	}
	return 0, 0, false
}

// writerPacked is writer for .unpack::16b: the logical (unpacked) column of
// physical column c is c/2 (after removing the split offset of the second
// half, which is not scaled), and c%2 says which register half lands there.
func writerPacked(s Shape, num, imm, l, c int) (t, j, half int, ok bool) {
	if s == Shape16x32bx2 {
		w := 2 * num
		if l >= 16 {
			return 0, 0, 0, false
		}
		if c >= imm && c < imm+w {
			return l + 16, (c - imm) / 2, (c - imm) % 2, true
		}
		if c < w {
			return l, c / 2, c % 2, true
		}
		return 0, 0, 0, false
	}
	t, j, ok = writer(s, num, 0, l, c/2)
	return t, j, c % 2, ok
}

// value is the distinct register value of (warp q, thread t, register j):
// both 16-bit halves are unique across the warpgroup and from each other.
func value(q, t, j int) uint32 {
	lo := uint32((q*32+t)*128 + j) // < 1<<14
	return (lo|0x8000)<<16 | lo
}

// allForms enumerates every Table 50 combination with both packings, and for
// .16x32bx2 a split right after the first half and one leaving a gap.
func allForms() []Form {
	var out []Form
	for _, s := range Shapes {
		for num := 1; num <= 128; num *= 2 {
			if s.BaseRegs()*num > 128 {
				continue
			}
			for _, packed := range []bool{false, true} {
				f := Form{Shape: s, Num: num, Packed: packed}
				if s != Shape16x32bx2 {
					out = append(out, f)
					continue
				}
				w := num
				if packed {
					w *= 2
				}
				for _, imm := range []int{w, w + 5} {
					if imm+w <= Columns {
						f.SplitOffset = imm
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

func TestAllFormsCount(t *testing.T) {
	// Table 50: 8 nums for 16x64b, 32x32b, 16x32bx2; 7 for 16x128b; 6 for
	// 16x256b; times two packings; 16x32bx2 has two splits except when a
	// gap does not fit (x128 packed: 256+5+256 > 512).
	got := len(allForms())
	want := (8+8+7+6)*2 + 8*2*2 - 1
	if got != want {
		t.Fatalf("allForms() = %d forms, want %d", got, want)
	}
}

// expectedCell returns the value warp q's store of f (at relative base
// lane lb, column cb within its quarter) leaves in cell (lane, col), and
// whether the store writes that cell.
func expectedCell(f Form, q, lb, cb, lane, col int) (uint32, bool) {
	l := lane - (32*q + lb)
	c := col - cb
	if l < 0 || c < 0 {
		return 0, false
	}
	if !f.Packed {
		t, j, ok := writer(f.Shape, f.Num, f.SplitOffset, l, c)
		if !ok {
			return 0, false
		}
		return value(q, t, j), true
	}
	t, j, half, ok := writerPacked(f.Shape, f.Num, f.SplitOffset, l, c)
	if !ok {
		return 0, false
	}
	return value(q, t, j) >> (16 * half) & 0xffff, true
}

func storeWarpgroup(t *testing.T, m *Memory, f Form, lb, cb int) [4][][]uint32 {
	t.Helper()
	var regs [4][][]uint32
	for q := range 4 {
		regs[q] = make([][]uint32, 32)
		for th := range 32 {
			regs[q][th] = make([]uint32, f.Regs())
			for j := range regs[q][th] {
				regs[q][th][j] = value(q, th, j)
			}
		}
		if err := m.Store(Uniform(q, MakeAddr(32*q+lb, cb)), f, regs[q]); err != nil {
			t.Fatalf("Store%v warp %d: %v", f, q, err)
		}
	}
	return regs
}

// TestStoreLayoutExhaustive stores distinct values from the 128 threads of a
// warpgroup for every form and checks all 65,536 cells against the inverse
// layout; then loads them back.
func TestStoreLayoutExhaustive(t *testing.T) {
	for _, f := range allForms() {
		_, cols := f.Extent()
		cb := (Columns - cols) / 2 // odd bases too
		lbs := []int{0}
		if f.Shape.LaneSpan() == 16 {
			lbs = append(lbs, 16)
		}
		for _, lb := range lbs {
			t.Run(fmt.Sprintf("%v/lane+%d", f, lb), func(t *testing.T) {
				m := New()
				if _, ok, err := m.Alloc.TryAlloc(CTAGroup1, 512); !ok || err != nil {
					t.Fatalf("alloc: %v %v", ok, err)
				}
				regs := storeWarpgroup(t, m, f, lb, cb)
				written := 0
				for lane := range Lanes {
					for col := range Columns {
						want, ok := expectedCell(f, lane/32, lb, cb, lane, col)
						if ok {
							written++
						}
						if got := m.Cell(lane, col); got != want || m.Written(lane, col) != ok {
							t.Fatalf("cell (lane %d, col %d) = %#x written=%v, want %#x written=%v",
								lane, col, got, m.Written(lane, col), want, ok)
						}
					}
				}
				perReg := 1
				if f.Packed {
					perReg = 2
				}
				if want := 4 * 32 * f.Regs() * perReg; written != want {
					t.Fatalf("%d cells written, want %d (each register cell written once)", written, want)
				}
				for q := range 4 {
					for th := range 32 {
						m.WaitStores(32*q + th)
					}
					out := make([][]uint32, 32)
					for th := range out {
						out[th] = make([]uint32, f.Regs())
					}
					if err := m.Load(Uniform(q, MakeAddr(32*q+lb, cb)), f, out); err != nil {
						t.Fatalf("Load warp %d: %v", q, err)
					}
					for th := range 32 {
						for j := range out[th] {
							if out[th][j] != regs[q][th][j] {
								t.Fatalf("warp %d thread %d reg %d loaded %#x, stored %#x", q, th, j, out[th][j], regs[q][th][j])
							}
						}
					}
				}
			})
		}
	}
}

// TestPlaceMatchesInverse checks the forward map directly: Place(t, j)
// lands where the inverse layout says (t, j) writes.
func TestPlaceMatchesInverse(t *testing.T) {
	for _, f := range allForms() {
		for th := range 32 {
			for j := range f.Regs() {
				p := f.Place(th, j)
				if !f.Packed {
					gt, gj, ok := writer(f.Shape, f.Num, f.SplitOffset, p.Lane, p.Column)
					if !ok || gt != th || gj != j || p.Cells != 1 {
						t.Fatalf("%v: Place(%d,%d) = %+v, inverse says (%d,%d,%v)", f, th, j, p, gt, gj, ok)
					}
					continue
				}
				for h := range 2 {
					gt, gj, gh, ok := writerPacked(f.Shape, f.Num, f.SplitOffset, p.Lane, p.Column+h)
					if !ok || gt != th || gj != j || gh != h || p.Cells != 2 {
						t.Fatalf("%v: Place(%d,%d) half %d = %+v, inverse says (%d,%d,%d,%v)", f, th, j, h, p, gt, gj, gh, ok)
					}
				}
			}
		}
	}
}

// Concrete cells from the figure captions, spot-checked by hand.
func TestPlaceKnownCells(t *testing.T) {
	tests := []struct {
		f        Form
		th, j    int
		lane, co int
	}{
		{Form{Shape: Shape32x32b, Num: 8}, 5, 7, 5, 7},
		{Form{Shape: Shape16x64b, Num: 1}, 0, 0, 0, 0},
		{Form{Shape: Shape16x64b, Num: 1}, 1, 0, 8, 0},
		{Form{Shape: Shape16x64b, Num: 1}, 2, 0, 0, 1},
		{Form{Shape: Shape16x64b, Num: 4}, 31, 3, 15, 7},
		{Form{Shape: Shape16x128b, Num: 1}, 3, 1, 8, 3},
		{Form{Shape: Shape16x128b, Num: 2}, 4, 2, 1, 4},
		{Form{Shape: Shape16x256b, Num: 1}, 1, 3, 8, 3},
		{Form{Shape: Shape16x256b, Num: 2}, 31, 7, 15, 15},
		{Form{Shape: Shape16x32bx2, Num: 2, SplitOffset: 2}, 17, 1, 1, 3},
		{Form{Shape: Shape16x32bx2, Num: 1, Packed: true, SplitOffset: 2}, 16, 0, 0, 2},
		{Form{Shape: Shape16x128b, Num: 1, Packed: true}, 3, 1, 8, 6},
	}
	for _, tt := range tests {
		p := tt.f.Place(tt.th, tt.j)
		if p.Lane != tt.lane || p.Column != tt.co {
			t.Errorf("%v Place(%d, %d) = lane %d col %d, want lane %d col %d", tt.f, tt.th, tt.j, p.Lane, p.Column, tt.lane, tt.co)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		f  Form
		ok bool
	}{
		{Form{Shape: Shape16x64b, Num: 128}, true},
		{Form{Shape: Shape32x32b, Num: 128, Packed: true}, true},
		{Form{Shape: Shape16x128b, Num: 64}, true},
		{Form{Shape: Shape16x128b, Num: 128}, false}, // NA in Table 50
		{Form{Shape: Shape16x256b, Num: 32}, true},
		{Form{Shape: Shape16x256b, Num: 64}, false}, // NA
		{Form{Shape: Shape16x64b, Num: 3}, false},
		{Form{Shape: Shape16x64b, Num: 0}, false},
		{Form{Shape: Shape16x64b, Num: 256}, false},
		{Form{Shape: 0, Num: 1}, false},
		{Form{Shape: Shape16x32bx2, Num: 1, SplitOffset: -1}, false},
		{Form{Shape: Shape16x32bx2, Num: 1, SplitOffset: 512}, false},
		{Form{Shape: Shape16x32bx2, Num: 1, SplitOffset: 511}, true},
	}
	for _, tt := range tests {
		err := tt.f.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%v.Validate() = %v, want ok=%v", tt.f, err, tt.ok)
		}
		var te *Error
		if err != nil && (!errors.As(err, &te) || te.Rule != RuleForm || te.Spec == "") {
			t.Errorf("%v.Validate() = %#v, want *Error with RuleForm and a spec", tt.f, err)
		}
	}
}

// TestShapeOf checks that every shape isa decodes maps to its Shape.
func TestShapeOf(t *testing.T) {
	for _, s := range Shapes {
		q := isa.LookupQual("." + s.String())
		if got, ok := shapeOf(q); !ok || got != s {
			t.Errorf("shapeOf(%v) = %v, %v; want %v", q, got, ok, s)
		}
	}
	if _, ok := shapeOf(isa.QX1); ok {
		t.Errorf("shapeOf(.x1) accepted")
	}
}

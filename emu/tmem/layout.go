package tmem

import (
	"fmt"
	"strings"
)

// Shape is the base data-movement shape of tcgen05.ld and tcgen05.st
// (PTX ISA §9.7.16.2.3): lanes x bits accessed by one warp per repeat.
type Shape uint8

// The data-movement shapes of tcgen05.ld/tcgen05.st.
const (
	Shape16x64b   Shape = iota + 1 // 16 lanes x 64 bits
	Shape16x128b                   // 16 lanes x 128 bits
	Shape16x256b                   // 16 lanes x 256 bits
	Shape32x32b                    // 32 lanes x 32 bits
	Shape16x32bx2                  // two 16 lanes x 32 bits accesses, the second at taddr+immHalfSplitoff
)

// Shapes lists every shape in declaration order.
var Shapes = []Shape{Shape16x64b, Shape16x128b, Shape16x256b, Shape32x32b, Shape16x32bx2}

var shapeNames = [...]string{
	Shape16x64b:   "16x64b",
	Shape16x128b:  "16x128b",
	Shape16x256b:  "16x256b",
	Shape32x32b:   "32x32b",
	Shape16x32bx2: "16x32bx2",
}

// String returns the qualifier text without the leading dot, e.g. "16x64b".
func (s Shape) String() string {
	if s.valid() {
		return shapeNames[s]
	}
	return fmt.Sprintf("Shape(%d)", uint8(s))
}

func (s Shape) valid() bool { return s >= Shape16x64b && s <= Shape16x32bx2 }

// BaseRegs returns the number of 32-bit registers per thread for one repeat
// (.x1) of the shape: the ".x1" row of Table 50.
func (s Shape) BaseRegs() int {
	switch s {
	case Shape16x128b:
		return 2
	case Shape16x256b:
		return 4
	}
	return 1
}

// BaseColumns returns how many 32-bit columns one repeat of the shape spans
// (per half for .16x32bx2), before 16-bit unpacking doubles it.
func (s Shape) BaseColumns() int {
	switch s {
	case Shape16x64b:
		return 2
	case Shape16x128b:
		return 4
	case Shape16x256b:
		return 8
	}
	return 1
}

// LaneSpan returns how many lanes the shape touches from the base lane.
func (s Shape) LaneSpan() int {
	if s == Shape32x32b {
		return 32
	}
	return 16
}

// MaxRegs is the largest register vector tcgen05.ld/tcgen05.st accepts
// (Table 50: the combinations marked NA are exactly those above 128).
const MaxRegs = 128

// Form is one tcgen05.st or tcgen05.ld instruction form: shape, .num
// repeat count, 16-bit (un)packing and, for .16x32bx2, the immediate half
// split offset in columns.
type Form struct {
	Shape  Shape
	Num    int  // repeat factor: 1, 2, 4, ..., 128 (.x1 ... .x128)
	Packed bool // .unpack::16b on tcgen05.st, .pack::16b on tcgen05.ld
	// SplitOffset is immHalfSplitoff of .16x32bx2: the column offset of the
	// second half's base from taddr. Ignored by the other shapes.
	SplitOffset int
}

// String renders f as tcgen05.st qualifiers, e.g. ".16x64b.x4.unpack::16b",
// followed for .16x32bx2 by its immediate, e.g. ".16x32bx2.x2 (imm 2)".
func (f Form) String() string { return f.Qualifiers(false) }

// Qualifiers renders f as the qualifiers of tcgen05.ld (load true, packing
// spelled .pack::16b) or tcgen05.st (.unpack::16b).
func (f Form) Qualifiers(load bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".%s.x%d", f.Shape, f.Num)
	if f.Packed && load {
		b.WriteString(".pack::16b")
	} else if f.Packed {
		b.WriteString(".unpack::16b")
	}
	if f.Shape == Shape16x32bx2 {
		fmt.Fprintf(&b, " (imm %d)", f.SplitOffset)
	}
	return b.String()
}

// Regs returns the number of 32-bit registers per thread (Table 50). It is
// meaningful only for a valid form.
func (f Form) Regs() int { return f.Shape.BaseRegs() * f.Num }

// Validate reports whether f is one of the combinations of Table 50
// (PTX ISA §9.7.16.8.4; tcgen05.ld uses the same table, §9.7.16.8.3).
func (f Form) Validate() error {
	if !f.Shape.valid() {
		return errorf(RuleForm, specTable50, "unknown tcgen05 data-movement shape %d", uint8(f.Shape))
	}
	if f.Num < 1 || f.Num > 128 || f.Num&(f.Num-1) != 0 {
		return errorf(RuleForm, specTable50, ".num must be one of .x1, .x2, .x4, ..., .x128, got .x%d", f.Num)
	}
	if f.Regs() > MaxRegs {
		return errorf(RuleForm, specTable50, ".%s.x%d needs %d registers per thread; Table 50 marks it NA (at most %d)",
			f.Shape, f.Num, f.Regs(), MaxRegs)
	}
	if f.Shape == Shape16x32bx2 && (f.SplitOffset < 0 || f.SplitOffset >= Columns) {
		return errorf(RuleForm, specStore, "immHalfSplitoff %d is outside the %d columns of Tensor Memory", f.SplitOffset, Columns)
	}
	return nil
}

// Placement is where one register of one thread lands, relative to the
// base address taddr.
//
// Without packing the register fills the cell (Lane, Column). With
// .unpack::16b / .pack::16b the register's bits 15:0 go to the low 16 bits of
// (Lane, Column) and bits 31:16 to the low 16 bits of (Lane, Column+1)
// (§9.7.16.8.2, Figure 193); Cells is then 2.
type Placement struct {
	Lane   int // lane offset from the lane of taddr
	Column int // column offset from the column of taddr
	Cells  int // 1, or 2 when packed
}

// Place returns where register reg (0 <= reg < f.Regs()) of thread
// (0 <= thread < 32, lane within the warp) lands. The layouts are those of
// the tcgen05 matrix fragments (PTX ISA §9.7.16.2.3.1, Figures 183-187); with
// R = Shape.BaseRegs(), register reg belongs to repeat reg/R, and repeat i is
// the base shape shifted by i*BaseColumns columns (one column per repeat,
// inside each half, for .16x32bx2).
//
// Place panics if f is not valid or thread/reg are out of range; callers
// validate user input with Validate first.
func (f Form) Place(thread, reg int) Placement {
	if thread < 0 || thread >= 32 || reg < 0 || reg >= f.Regs() {
		panic(fmt.Sprintf("tmem: Place(%d, %d) out of range for %v", thread, reg, f))
	}
	lane, col := f.Shape.place(thread, reg)
	cells := 1
	if f.Packed {
		col *= 2
		cells = 2
	}
	if f.Shape == Shape16x32bx2 && thread >= 16 {
		col += f.SplitOffset
	}
	return Placement{Lane: lane, Column: col, Cells: cells}
}

// place is the unpacked layout of shape s, without the half split offset.
func (s Shape) place(t, j int) (lane, col int) {
	switch s {
	case Shape32x32b:
		// Thread t owns lane t; register j is column j.
		return t, j
	case Shape16x64b:
		// Thread pairs split a 64-bit row: lanes t/4 and t/4+8.
		return t>>2 + 8*(t&1), 2*j + (t>>1)&1
	case Shape16x128b:
		i, h := j>>1, j&1
		return t>>2 + 8*h, 4*i + t&3
	case Shape16x256b:
		i, k := j>>2, j&3
		return t>>2 + 8*(k>>1), 8*i + 2*(t&3) + k&1
	case Shape16x32bx2:
		return t & 15, j
	}
	panic("tmem: invalid shape " + s.String())
}

// Extent returns the lane and column span of the form from taddr: every
// placement lies in lanes [0, lanes) and columns [0, cols) relative to the
// base (columns counting both cells of a packed register).
func (f Form) Extent() (lanes, cols int) {
	w := f.Shape.BaseColumns() * f.Num
	if f.Packed {
		w *= 2
	}
	if f.Shape == Shape16x32bx2 {
		w += f.SplitOffset
	}
	return f.Shape.LaneSpan(), w
}

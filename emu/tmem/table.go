package tmem

import (
	"fmt"
	"io"
	"strings"
)

// tableRegs is how many registers per thread LayoutTable prints before
// summarising the remaining repeats.
const tableRegs = 8

// LayoutTable returns a compact text table of the Tensor Memory cell each
// register of each thread of a warp is stored to (tcgen05.st, load false)
// or loaded from (tcgen05.ld, load true) for form f: one row per thread,
// one "lane,column" entry per register, both relative to taddr
// ("lane,c-c+1" for a packed register's two cells). Forms with more than
// eight registers per thread show the first registers and state the rule
// giving the rest. An invalid form yields its validation error as text.
func LayoutTable(f Form, load bool) string {
	if err := f.Validate(); err != nil {
		return err.Error() + "\n"
	}
	var b strings.Builder
	lanes, cols := f.Extent()
	fmt.Fprintf(&b, "%s: %d register(s) per thread; lanes taddr+0..%d, columns taddr+0..%d",
		f.Qualifiers(load), f.Regs(), lanes-1, cols-1)
	if f.Packed {
		b.WriteString("; register bits 15:0 and 31:16 are the low halves of two adjacent columns")
	}
	b.WriteString("\n")
	shown := min(f.Regs(), max(tableRegs, f.Shape.BaseRegs()))
	entries := make([][]string, 32)
	width := 0
	for t := range 32 {
		for j := range shown {
			e := placementText(f.Place(t, j))
			entries[t] = append(entries[t], e)
			width = max(width, len(e))
		}
	}
	b.WriteString("thread")
	for j := range shown {
		fmt.Fprintf(&b, " %*s", width, fmt.Sprintf("r%d", j))
	}
	b.WriteString("\n")
	for t := range 32 {
		fmt.Fprintf(&b, "%6d", t)
		for _, e := range entries[t] {
			fmt.Fprintf(&b, " %*s", width, e)
		}
		b.WriteString("\n")
	}
	if shown < f.Regs() {
		r, w := f.Shape.BaseRegs(), f.Shape.BaseColumns()
		if f.Packed {
			w *= 2
		}
		fmt.Fprintf(&b, "r%d..r%d: register j lands where register j mod %d does, %d column(s) further per repeat (repeat = j / %d)\n",
			shown, f.Regs()-1, r, w, r)
	}
	return b.String()
}

func placementText(p Placement) string {
	if p.Cells == 2 {
		return fmt.Sprintf("%d,%d-%d", p.Lane, p.Column, p.Column+1)
	}
	return fmt.Sprintf("%d,%d", p.Lane, p.Column)
}

// dumpBlock is how many columns Dump prints per block.
const dumpBlock = 8

// Dump writes the cells of m that were ever stored as a lane x column grid
// of hexadecimal values, in blocks of eight columns. Only lanes and column
// blocks holding stored cells appear; "-" marks a cell never stored. The
// live allocations are listed first. The output depends only on m's state.
func (m *Memory) Dump(w io.Writer) error {
	var b strings.Builder
	live := m.Alloc.Live()
	fmt.Fprintf(&b, "tensor memory: %d allocation(s)", len(live))
	for _, al := range live {
		fmt.Fprintf(&b, "; columns %d..%d (%s)", al.Column, al.Column+al.NCols-1, al.Group)
	}
	b.WriteString("\n")
	any := false
	for c0 := 0; c0 < Columns; c0 += dumpBlock {
		var rows []int
		for lane := range Lanes {
			if m.rowWritten(lane, c0) {
				rows = append(rows, lane)
			}
		}
		if len(rows) == 0 {
			continue
		}
		any = true
		b.WriteString("lane\\col")
		for c := c0; c < c0+dumpBlock; c++ {
			fmt.Fprintf(&b, " %8d", c)
		}
		b.WriteString("\n")
		for _, lane := range rows {
			fmt.Fprintf(&b, "%8d", lane)
			for c := c0; c < c0+dumpBlock; c++ {
				if m.Written(lane, c) {
					fmt.Fprintf(&b, " %08x", m.Cell(lane, c))
				} else {
					fmt.Fprintf(&b, " %8s", "-")
				}
			}
			b.WriteString("\n")
		}
	}
	if !any {
		b.WriteString("(no cell stored)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (m *Memory) rowWritten(lane, c0 int) bool {
	for c := c0; c < c0+dumpBlock; c++ {
		if m.Written(lane, c) {
			return true
		}
	}
	return false
}

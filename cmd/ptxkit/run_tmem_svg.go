package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/emu/tmem"
)

// Geometry of the Tensor Memory picture, in pixels.
const (
	tmemCellW  = 12
	tmemCellH  = 5
	tmemLeft   = 56 // lane labels
	tmemTop    = 40 // title and column labels
	tmemLegend = 18 // height of one legend row
)

// writeTMEMSVG writes the Tensor Memory snapshot of a launch of prog to
// f (the --tmem-svg file, created before the run) as an SVG picture and
// closes it.
func writeTMEMSVG(f io.WriteCloser, prog *emu.Program, snap *emu.TMEMSnapshot, id [3]int) error {
	bw := bufio.NewWriter(f)
	tmemSVG(bw, prog, snap, id)
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("--tmem-svg: %v", err)
	}
	return f.Close()
}

// tmemShownColumns is how many columns the picture shows: up to the last
// column stored or allocated, in blocks of eight.
func tmemShownColumns(m *tmem.Memory) int {
	last := -1
	for _, al := range m.Alloc.Live() {
		last = max(last, al.Column+al.NCols-1)
	}
	for lane := range tmem.Lanes {
		for col := tmem.Columns - 1; col > last; col-- {
			if m.Written(lane, col) {
				last = col
				break
			}
		}
	}
	return max(8, (last+8)/8*8)
}

// tmemWriters lists the distinct writers of the stored cells, in order
// of instruction then warp, with how many cells each last wrote.
func tmemWriters(m *tmem.Memory, cols int) ([]tmem.Writer, map[tmem.Writer]int) {
	count := map[tmem.Writer]int{}
	for lane := range tmem.Lanes {
		for col := range cols {
			if m.Written(lane, col) {
				w, _ := m.WriterOf(lane, col)
				count[w]++
			}
		}
	}
	ws := make([]tmem.Writer, 0, len(count))
	for w := range count {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		return ws[i].Site < ws[j].Site || ws[i].Site == ws[j].Site && ws[i].Warp < ws[j].Warp
	})
	return ws, count
}

// writerColors gives each writer a colour: a hue per instruction, a
// lightness per warp.
func writerColors(ws []tmem.Writer) map[tmem.Writer]string {
	sites := map[int32]int{}
	for _, w := range ws {
		if _, ok := sites[w.Site]; !ok {
			sites[w.Site] = len(sites)
		}
	}
	colors := map[tmem.Writer]string{}
	for _, w := range ws {
		if w.Site == 0 {
			colors[w] = "#888888"
			continue
		}
		hue := (210 + 360*sites[w.Site]/max(1, len(sites))) % 360
		light := 35 + 12*(int(w.Warp)%4)
		colors[w] = fmt.Sprintf("hsl(%d,65%%,%d%%)", hue, light)
	}
	return colors
}

// writerText describes a writer for the legend and the cells' titles.
func writerText(prog *emu.Program, w tmem.Writer) string {
	if w.Site <= 0 || int(w.Site) > len(prog.Insts) {
		return "an instruction other than tcgen05.st"
	}
	in := &prog.Insts[w.Site-1]
	return fmt.Sprintf("%s at line %d, warp %d", in.Opcode, in.Pos.Line, w.Warp)
}

// tmemSVG draws the snapshot: lanes as rows, columns as columns, each
// stored cell coloured by what last wrote it, with its value, lane,
// column and writer as its title; live allocations shaded; a legend.
func tmemSVG(w io.Writer, prog *emu.Program, snap *emu.TMEMSnapshot, id [3]int) {
	var m *tmem.Memory
	if snap != nil {
		m = snap.Mem
	} else {
		m = tmem.New() // the CTA ran no tcgen05 instruction: nothing stored
	}
	cols := tmemShownColumns(m)
	ws, count := tmemWriters(m, cols)
	colors := writerColors(ws)
	gridW, gridH := cols*tmemCellW, tmem.Lanes*tmemCellH
	width := max(tmemLeft+gridW+20, 640)
	height := tmemTop + gridH + 30 + tmemLegend*(len(ws)+2)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="10">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<title>Tensor Memory of CTA (%d,%d,%d)</title>`+"\n", id[0], id[1], id[2])
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(w, `<text x="4" y="14" font-size="13" font-weight="bold">Tensor Memory of CTA (%d,%d,%d), kernel %s: lanes × columns 0..%d</text>`+"\n",
		id[0], id[1], id[2], html.EscapeString(prog.Kernel), cols-1)
	for c := 0; c < cols; c += 8 {
		fmt.Fprintf(w, `<text x="%d" y="%d">%d</text>`+"\n", tmemLeft+c*tmemCellW, tmemTop-4, c)
	}
	for l := 0; l < tmem.Lanes; l += 16 {
		fmt.Fprintf(w, `<text x="4" y="%d">lane %d</text>`+"\n", tmemTop+l*tmemCellH+tmemCellH*2, l)
	}
	live := map[int]bool{}
	for _, al := range m.Alloc.Live() {
		for c := al.Column; c < al.Column+al.NCols; c++ {
			live[c] = true
		}
	}
	fmt.Fprintf(w, `<g id="cells" stroke="white" stroke-width="0.5">`+"\n")
	for lane := range tmem.Lanes {
		for col := range cols {
			x, y := tmemLeft+col*tmemCellW, tmemTop+lane*tmemCellH
			if !m.Written(lane, col) {
				fill := "#f2f2f2"
				if live[col] {
					fill = "#dde6f0"
				}
				fmt.Fprintf(w, `<rect class="cell empty" x="%d" y="%d" width="%d" height="%d" fill="%s"><title>lane %d, column %d: never stored</title></rect>`+"\n",
					x, y, tmemCellW, tmemCellH, fill, lane, col)
				continue
			}
			wr, _ := m.WriterOf(lane, col)
			fmt.Fprintf(w, `<rect class="cell" x="%d" y="%d" width="%d" height="%d" fill="%s"><title>lane %d, column %d: %#08x, stored by %s</title></rect>`+"\n",
				x, y, tmemCellW, tmemCellH, colors[wr], lane, col, m.Cell(lane, col), html.EscapeString(writerText(prog, wr)))
		}
	}
	fmt.Fprintf(w, "</g>\n")
	for q := 1; q < 4; q++ { // the lane quarters of the four warps of a warpgroup
		y := tmemTop + q*tmem.LanesPerWarp*tmemCellH
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-width="1"/>`+"\n", tmemLeft, y, tmemLeft+gridW, y)
	}
	y := tmemTop + gridH + 24
	fmt.Fprintf(w, `<text x="4" y="%d" font-weight="bold">last writer of each cell (shaded: allocated now, never stored; grey: never stored)</text>`+"\n", y)
	for _, wr := range ws {
		y += tmemLegend
		fmt.Fprintf(w, `<rect class="legend" x="4" y="%d" width="14" height="12" fill="%s"/><text x="24" y="%d">%s: %d cells</text>`+"\n",
			y-10, colors[wr], y, html.EscapeString(writerText(prog, wr)), count[wr])
	}
	fmt.Fprintf(w, "</svg>\n")
}

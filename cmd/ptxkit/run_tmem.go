package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/emu"
)

// parseCTAID parses the --dump-tmem value "X[,Y[,Z]]", a %ctaid whose
// components are >= 0.
func parseCTAID(s string) ([3]int, error) {
	var id [3]int
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return id, fmt.Errorf("--dump-tmem %q: at most three dimensions", s)
	}
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 || v > 1<<31-1 {
			return id, fmt.Errorf("--dump-tmem %q: a CTA index is X[,Y[,Z]] with non-negative integers", s)
		}
		id[i] = v
	}
	return id, nil
}

// captureTMEM asks the emulator to keep the Tensor Memory of the CTA named
// by spec ("" for none).
func captureTMEM(prog *emu.Program, spec string, grid [3]int) error {
	if spec == "" {
		return nil
	}
	id, err := parseCTAID(spec)
	if err != nil {
		return err
	}
	for i := range 3 {
		if id[i] >= grid[i] {
			return fmt.Errorf("--dump-tmem %q: CTA (%d,%d,%d) is outside the grid (%d,%d,%d)", spec, id[0], id[1], id[2], grid[0], grid[1], grid[2])
		}
	}
	emu.CaptureTMEM(prog, id)
	return nil
}

// printTMEM prints the captured Tensor Memory as a lane x column grid of
// the cells that were stored, also when a sanitizer report stopped the run.
func printTMEM(w io.Writer, prog *emu.Program, spec string) {
	id, _ := parseCTAID(spec)
	snap := emu.TMEMOf(prog)
	if snap == nil {
		fmt.Fprintf(w, "Tensor Memory of CTA (%d,%d,%d): nothing to show (the CTA ran no tcgen05 instruction)\n", id[0], id[1], id[2])
		return
	}
	fmt.Fprintf(w, "Tensor Memory of CTA (%d,%d,%d) at exit or where the run stopped:\n", id[0], id[1], id[2])
	snap.Mem.Dump(w)
}

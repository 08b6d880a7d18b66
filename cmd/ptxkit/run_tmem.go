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

// printTMEM prints the Tensor Memory of CTA id that the launch captured
// (snap is nil when that CTA ran no tcgen05 instruction).
func printTMEM(w io.Writer, id [3]int, snap *emu.TMEMSnapshot) {
	if snap == nil {
		fmt.Fprintf(w, "Tensor Memory of CTA (%d,%d,%d): nothing to show (the CTA ran no tcgen05 instruction)\n", id[0], id[1], id[2])
		return
	}
	fmt.Fprintf(w, "Tensor Memory of CTA (%d,%d,%d) at exit or where the run stopped:\n", id[0], id[1], id[2])
	snap.Mem.Dump(w)
}

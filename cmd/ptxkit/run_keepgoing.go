package main

import (
	"fmt"
	"io"

	"github.com/ptxkit/ptxkit/emu"
)

// maxReportsLimit bounds --max-reports: the distinct problems a
// keep-going run keeps are held in memory until it ends.
const maxReportsLimit = 1 << 20

// printKept prints the distinct problems of a --keep-going run on stderr,
// in order of first occurrence, each with its count, and the outcome line
// on stdout.
func printKept(stdout, stderr io.Writer, prog *emu.Program, res *emu.Result) {
	for i, k := range res.Reports {
		if i > 0 {
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "%v\n", k.Report)
		if src := prog.SourceOf(k.Report.Pos); src != "" {
			fmt.Fprintf(stderr, "  source: %s (.loc)\n", src)
		}
		fmt.Fprintf(stderr, "  %s\n", keptCount(k))
	}
	if res.LeftOut > 0 {
		fmt.Fprintf(stderr, "\n%d more instances of problems past --max-reports %d were not reported\n", res.LeftOut, len(res.Reports))
	}
	n := fmt.Sprintf("%d distinct problems", len(res.Reports))
	if len(res.Reports) == 1 {
		n = "1 distinct problem"
	}
	last := res.Reports[len(res.Reports)-1]
	if !emu.Continuable(last.Rule) {
		fmt.Fprintf(stdout, "%s reported (--keep-going); %s\n", n, stopLine(last.Rule))
		return
	}
	fmt.Fprintf(stdout, "ran to the end with %s reported (--keep-going); the faulting accesses were suppressed\n", n)
}

// keptCount says how often a kept problem was hit.
func keptCount(k emu.KeptReport) string {
	if k.Count == 1 {
		return "hit once"
	}
	who := ""
	if k.Thread != nil {
		who = ", first by the thread named"
	}
	return fmt.Sprintf("hit %d times%s", k.Count, who)
}

// keptStatus is the JSON status of a --keep-going run that made reports:
// "stopped" when a report ended it, "reported" when it ran to its end.
func keptStatus(res *emu.Result) string {
	if last := res.Reports[len(res.Reports)-1]; !emu.Continuable(last.Rule) {
		return "stopped"
	}
	return "reported"
}

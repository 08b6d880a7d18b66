package mm

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// describe returns the instruction text of event i, or "init" for an
// initial write.
func (x *Execution) describe(prog *Program, i int) string {
	e := &x.Events[i]
	if e.Thread < 0 {
		return "init " + prog.PhysNames[prog.Locs[e.Loc].Phys]
	}
	return prog.Threads[e.Thread].Code[e.Instr].Text
}

func eventAction(prog *Program, e *Event, v int64) string {
	switch e.Kind {
	case EvRead:
		return fmt.Sprintf("R %s=%d", prog.Locs[e.Loc].Name, v)
	case EvWrite:
		return fmt.Sprintf("W %s=%d", prog.Locs[e.Loc].Name, v)
	case EvFence:
		return "F"
	case EvArrive:
		return "arrive " + prog.Mbars[e.mbar]
	case EvWait:
		return "wait " + prog.Mbars[e.mbar]
	}
	return "B"
}

// successors lists the targets of edges from event i.
func successors(edges [][2]int, i int) string {
	var out []string
	for _, p := range edges {
		if p[0] == i {
			out = append(out, fmt.Sprintf("e%d", p[1]))
		}
	}
	return strings.Join(out, " ")
}

// Format writes the execution as a table of its events with reads-from,
// coherence successors and synchronizes-with successors: one line per event.
func (x *Execution) Format(prog *Program) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "event\tthread\tinstruction\taction\trf\tco\tsw")
	for i := range x.Events {
		e := &x.Events[i]
		th := "-"
		if e.Thread >= 0 {
			th = prog.Threads[e.Thread].Name
		}
		rf := ""
		if x.RF[i] >= 0 {
			rf = fmt.Sprintf("from e%d", x.RF[i])
		}
		fmt.Fprintf(tw, "e%d\t%s\t%s\t%s\t%s\t%s\t%s\n", i, th, x.describe(prog, i), eventAction(prog, e, x.Values[i]), rf, successors(x.CO, i), successors(x.SW, i))
	}
	tw.Flush()
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

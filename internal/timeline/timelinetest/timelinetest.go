// Package timelinetest reads the trace-event files package timeline
// writes and checks what a trace viewer relies on, for tests.
package timelinetest

import (
	"encoding/json"
	"testing"
)

// Trace is a trace-event file as a viewer reads it.
type Trace struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		Ph   string         `json:"ph"`
		TS   float64        `json:"ts"`
		Dur  float64        `json:"dur"`
		PID  int            `json:"pid"`
		TID  int            `json:"tid"`
		ID   string         `json:"id"`
		BP   string         `json:"bp"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// Parse parses a trace-event file and checks its structure.
func Parse(t testing.TB, raw []byte) *Trace {
	t.Helper()
	var tr Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("timeline is not JSON: %v", err)
	}
	CheckStructure(t, &tr)
	return &tr
}

// CheckStructure checks what a viewer needs: every track named,
// complete slices that nest on each track, flow events inside a slice of
// their track, each async span begun and ended once, counters not
// negative.
func CheckStructure(t testing.TB, tr *Trace) {
	t.Helper()
	type trk struct{ pid, tid int }
	named := map[trk]bool{}
	procs := map[int]bool{}
	type span struct{ lo, hi float64 }
	slices := map[trk][]span{}
	open := map[string]int{}
	for _, e := range tr.TraceEvents {
		k := trk{e.PID, e.TID}
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				named[k] = true
			}
			if e.Name == "process_name" {
				procs[e.PID] = true
			}
		case "X":
			if e.Dur <= 0 {
				t.Errorf("slice %q at %v has duration %v", e.Name, e.TS, e.Dur)
			}
			for _, s := range slices[k] {
				inside := e.TS >= s.lo && e.TS+e.Dur <= s.hi
				outside := e.TS >= s.hi || e.TS+e.Dur <= s.lo
				around := e.TS <= s.lo && e.TS+e.Dur >= s.hi
				if !inside && !outside && !around {
					t.Errorf("slice %q [%v,%v] overlaps [%v,%v] on track %v without nesting", e.Name, e.TS, e.TS+e.Dur, s.lo, s.hi, k)
				}
			}
			slices[k] = append(slices[k], span{e.TS, e.TS + e.Dur})
		case "b":
			open[e.ID]++
		case "e":
			open[e.ID]--
		case "C":
			for name, v := range e.Args {
				if f, ok := v.(float64); !ok || f < 0 {
					t.Errorf("counter %s.%s = %v", e.Name, name, v)
				}
			}
		}
	}
	for id, n := range open {
		if n != 0 {
			t.Errorf("async span %s: %d begins without an end", id, n)
		}
	}
	for _, e := range tr.TraceEvents {
		k := trk{e.PID, e.TID}
		if e.Ph == "X" && !named[k] {
			t.Errorf("slice %q on unnamed track %v", e.Name, k)
		}
		if e.Ph != "M" && !procs[e.PID] {
			t.Errorf("event %q of unnamed process %d", e.Name, e.PID)
		}
		if e.Ph == "s" || e.Ph == "t" || e.Ph == "f" {
			in := false
			for _, s := range slices[k] {
				in = in || (e.TS >= s.lo && e.TS <= s.hi)
			}
			if !in {
				t.Errorf("flow %s %q at %v is in no slice of track %v", e.Ph, e.Name, e.TS, k)
			}
		}
	}
}

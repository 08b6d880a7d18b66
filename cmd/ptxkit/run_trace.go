package main

import (
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/ptxkit/ptxkit/emu"
)

// asyncTrace collects the asynchronous-operation events of a launch for
// ptxkit run --trace.
type asyncTrace struct {
	mu      sync.Mutex
	events  []emu.AsyncEvent
	dropped int  // events past maxTraceEvents
	capped  bool // a cluster reached emu.MaxTracedAsync traced operations
}

// maxTraceEvents bounds the events --trace keeps and prints: the first
// ones in cluster order.
const maxTraceEvents = 100000

// add records one event; it is the launch's emu.Launch.Trace.
func (t *asyncTrace) add(e emu.AsyncEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, e)
	t.capped = t.capped || e.Op >= emu.MaxTracedAsync
	if len(t.events) >= 2*maxTraceEvents {
		t.trim()
	}
}

// trim keeps the first maxTraceEvents events in cluster order. An event
// that is not among the first of some events is not among the first of
// all, so the kept events do not depend on the order clusters ran in.
func (t *asyncTrace) trim() {
	sort.SliceStable(t.events, func(i, j int) bool { return t.events[i].Cluster < t.events[j].Cluster })
	if len(t.events) > maxTraceEvents {
		t.dropped += len(t.events) - maxTraceEvents
		t.events = t.events[:maxTraceEvents:maxTraceEvents]
	}
}

// print stops collecting and prints the timeline, cluster by cluster in
// the order events happened (so the output does not depend on --jobs). A
// nil trace prints nothing.
func (t *asyncTrace) print(w io.Writer) {
	if t == nil {
		return
	}
	t.trim()
	fmt.Fprintf(w, "asynchronous operations (%d events; step = warp-instructions the cluster had executed):\n", len(t.events)+t.dropped)
	for _, e := range t.events {
		fmt.Fprintf(w, "  %s\n", formatEvent(e))
	}
	if t.dropped > 0 {
		fmt.Fprintf(w, "  ... %d more events not shown (at most %d are)\n", t.dropped, maxTraceEvents)
	}
	if t.capped {
		fmt.Fprintf(w, "  (operations after the first %d of a cluster are not traced)\n", emu.MaxTracedAsync)
	}
}

// formatEvent formats one --trace line.
func formatEvent(e emu.AsyncEvent) string {
	return fmt.Sprintf("cluster %d step %6d  op %3d %-8s %s at line %d by CTA rank %d thread %d: %s",
		e.Cluster, e.Step, e.Op, e.Event, e.Kind, e.Pos.Line, e.Issuer.Rank, e.Issuer.Warp*32+e.Issuer.Lane, e.Detail)
}

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
	mu     sync.Mutex
	prog   *emu.Program
	events []emu.AsyncEvent
}

// traceAsync starts collecting the events of p's launches.
func traceAsync(p *emu.Program) *asyncTrace {
	t := &asyncTrace{prog: p}
	emu.TraceAsync(p, func(e emu.AsyncEvent) {
		t.mu.Lock()
		t.events = append(t.events, e)
		t.mu.Unlock()
	})
	return t
}

// print stops collecting and prints the timeline, cluster by cluster in
// the order events happened (so the output does not depend on --jobs). A
// nil trace prints nothing.
func (t *asyncTrace) print(w io.Writer) {
	if t == nil {
		return
	}
	emu.TraceAsync(t.prog, nil)
	sort.SliceStable(t.events, func(i, j int) bool { return t.events[i].Cluster < t.events[j].Cluster })
	fmt.Fprintf(w, "asynchronous operations (%d events; step = warp-instructions the cluster had executed):\n", len(t.events))
	for _, e := range t.events {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

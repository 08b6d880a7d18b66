// Package timeline owns the trace-event timeline of emulated launches:
// it records what emu.Launch's observers report (asynchronous
// operations, warps' waits, mbarrier states) for one launch or several in
// a row, and writes them as one Chrome/Perfetto trace-event JSON file
// (docs/timeline.md).
//
// Each launch is a span on the "launches" process (one thread per
// stream); its CTAs are processes and their warps threads. The clock is
// the emulator's deterministic step clock: within a launch each
// cluster's clock starts at the launch's start, and a launch starts where
// the previous one ended.
package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/ptxkit/ptxkit/emu"
)

// MaxEvents bounds each kind of event (asynchronous events, waits,
// mbarrier states) a Recorder keeps over all its launches: the first ones,
// in launch order and within a launch in cluster order.
const MaxEvents = 200000

// Recorder collects the timelines of launches, in the order they are
// attached, into one trace. Its methods are safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	launches []*Launch
	budget   [3]int // events each kind may still keep
}

// New returns an empty Recorder.
func New() *Recorder {
	return &Recorder{budget: [3]int{MaxEvents, MaxEvents, MaxEvents}}
}

// Launch is the record of one launch of a Recorder.
type Launch struct {
	rec    *Recorder
	index  int // from 0, in attach order
	kernel string
	cfg    emu.Config
	stream int

	mu      sync.Mutex
	async   []emu.AsyncEvent
	waits   []emu.WaitEvent
	bars    []emu.BarrierEvent
	limit   [3]int // of async, waits, bars
	dropped int
	capped  bool
	steps   uint64 // the launch's longest cluster clock, once ended
	ended   bool
}

// Attach adds a launch of l to the trace, on stream stream (0 for the
// default stream), and makes l report to it as well as to the Trace
// observer it has; it sets l.Waits and l.Barriers. l's kernel and
// configuration must be set: the record takes them now. Call End with
// the launch's result once it ran.
func (r *Recorder) Attach(l *emu.Launch, stream int) *Launch {
	r.mu.Lock()
	rec := &Launch{rec: r, index: len(r.launches), cfg: l.Config, stream: stream, limit: r.budget}
	if l.Kernel != nil {
		rec.kernel = l.Kernel.Kernel
	}
	r.launches = append(r.launches, rec)
	r.mu.Unlock()
	prev := l.Trace
	l.Trace = func(e emu.AsyncEvent) {
		if prev != nil {
			prev(e)
		}
		rec.addAsync(e)
	}
	l.Waits, l.Barriers = rec.addWait, rec.addBarrier
	return rec
}

// End closes the launch's span: res is its result (nil when the launch
// did not run, and then the span ends after its last event). Events that
// arrive after End are still recorded.
func (rec *Launch) End(res *emu.Result) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if res != nil {
		rec.steps = res.Stats.ClusterSteps
	}
	rec.ended = true
	kept := [3]int{len(rec.async), len(rec.waits), len(rec.bars)}
	rec.rec.mu.Lock()
	for i := range kept {
		rec.rec.budget[i] = max(0, rec.rec.budget[i]-min(kept[i], rec.limit[i]))
	}
	rec.rec.mu.Unlock()
}

// keep appends e to *list and, once the list holds twice its limit,
// keeps the first limit events in cluster order, counting the rest as
// dropped.
func keep[E any](list *[]E, e E, limit int, cluster func(E) int, dropped *int) {
	*list = append(*list, e)
	if len(*list) < 2*max(limit, 1) {
		return
	}
	trim(list, limit, cluster, dropped)
}

// trim keeps the first limit events of *list in cluster order.
func trim[E any](list *[]E, limit int, cluster func(E) int, dropped *int) {
	l := *list
	sort.SliceStable(l, func(i, j int) bool { return cluster(l[i]) < cluster(l[j]) })
	if len(l) > limit {
		*dropped += len(l) - limit
		*list = l[:limit:limit]
	}
}

func asyncCluster(e emu.AsyncEvent) int     { return e.Cluster }
func waitCluster(e emu.WaitEvent) int       { return e.Cluster }
func barrierCluster(e emu.BarrierEvent) int { return e.Cluster }

func (rec *Launch) addAsync(e emu.AsyncEvent) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.capped = rec.capped || e.Op >= emu.MaxTracedAsync
	keep(&rec.async, e, rec.limit[0], asyncCluster, &rec.dropped)
}

func (rec *Launch) addWait(e emu.WaitEvent) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	keep(&rec.waits, e, rec.limit[1], waitCluster, &rec.dropped)
}

func (rec *Launch) addBarrier(e emu.BarrierEvent) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	keep(&rec.bars, e, rec.limit[2], barrierCluster, &rec.dropped)
}

// traceFile is the JSON object the timeline writes.
type traceFile struct {
	TraceEvents     []traceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// clockNote says what the timestamps mean.
const clockNote = "each cluster's clock: 1 us = 1 step (a warp-instruction the cluster executed); clusters start at 0"

// Write writes the trace of every launch attached so far as one
// trace-event JSON object. The same events give the same bytes.
func (r *Recorder) Write(w io.Writer) error {
	r.mu.Lock()
	launches := append([]*Launch(nil), r.launches...)
	r.mu.Unlock()
	var meta, events []traceEvent
	var start uint64
	pidBase := 0
	dropped, capped := 0, false
	var info []map[string]any
	for _, rec := range launches {
		b := rec.build(pidBase, start, len(launches) > 1)
		meta = append(meta, b.meta...)
		events = append(events, b.events...)
		info = append(info, map[string]any{"kernel": rec.kernel, "grid": rec.cfg.Grid, "block": rec.cfg.Block,
			"cluster": rec.cfg.Cluster, "stream": rec.stream, "start step": start / stepTicks, "steps": b.steps})
		start += b.steps * stepTicks
		g := rec.cfg.Grid
		pidBase += g[0] * g[1] * g[2]
		dropped += b.dropped
		capped = capped || b.capped
	}
	meta = append(launchesMetadata(launches), meta...)
	sort.SliceStable(events, func(i, j int) bool { return events[i].ticks < events[j].ticks })
	file := traceFile{TraceEvents: append(meta, events...), DisplayTimeUnit: "ns", OtherData: map[string]any{
		"clock": clockNote, "droppedEvents": dropped,
	}}
	if len(launches) == 1 {
		for _, k := range []string{"kernel", "grid", "block", "cluster"} {
			file.OtherData[k] = info[0][k]
		}
	} else {
		file.OtherData["clock"] = "launches follow each other; within a launch, " + clockNote + " of the launch"
		file.OtherData["launches"] = info
	}
	if capped {
		file.OtherData["note"] = fmt.Sprintf("operations after the first %d of a cluster are not traced", emu.MaxTracedAsync)
	}
	if file.TraceEvents == nil {
		file.TraceEvents = []traceEvent{}
	}
	return json.NewEncoder(w).Encode(file)
}

// launchesPID is the process of the launches' spans.
const launchesPID = 0

// launchesMetadata names the launches process and its threads: one per
// stream that launched.
func launchesMetadata(launches []*Launch) []traceEvent {
	if len(launches) == 0 {
		return nil
	}
	meta := []traceEvent{
		{Name: "process_name", Ph: "M", TS: "0", PID: launchesPID, Args: map[string]any{"name": "launches"}},
		{Name: "process_sort_index", Ph: "M", TS: "0", PID: launchesPID, Args: map[string]any{"sort_index": launchesPID}},
	}
	seen := map[int]bool{}
	var streams []int
	for _, rec := range launches {
		if !seen[rec.stream] {
			seen[rec.stream] = true
			streams = append(streams, rec.stream)
		}
	}
	sort.Ints(streams)
	for _, s := range streams {
		meta = append(meta,
			traceEvent{Name: "thread_name", Ph: "M", TS: "0", PID: launchesPID, TID: s, Args: map[string]any{"name": fmt.Sprintf("stream %d", s)}},
			traceEvent{Name: "thread_sort_index", Ph: "M", TS: "0", PID: launchesPID, TID: s, Args: map[string]any{"sort_index": s}})
	}
	return meta
}

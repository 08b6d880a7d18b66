package timeline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/ptxkit/ptxkit/emu"
)

// landTID is the track of a CTA that shows the landings of the operations
// its threads issued; warps use their index as track.
const landTID = 1 << 20

// stepTicks is the length of one step of a cluster's clock in the trace's
// time unit (1 ns): a step is 1 µs, and the events of one track within
// one step share it in the order they happened.
const stepTicks = 1000

// traceEvent is one record of the trace-event format.
type traceEvent struct {
	Name string         `json:"name,omitempty"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur,omitempty"`
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`

	ticks uint64 // TS in ns, for ordering
}

// usTime formats ns ticks as microseconds with three decimals.
func usTime(ticks uint64) json.Number {
	return json.Number(fmt.Sprintf("%d.%03d", ticks/1000, ticks%1000))
}

// track is one thread of the trace: a warp of a CTA, or the CTA's
// landings.
type track struct{ pid, tid int }

// group is one slice of a track within one step: the operations one warp
// issued or observed, or that landed, of one kind.
type group struct {
	tr    track
	step  uint64
	name  string
	ops   []uint64
	lines []int
	start uint64 // ns, once laid out
	dur   uint64
}

// timelineBuilder turns the collected events into trace events.
type timelineBuilder struct {
	cfg     *emu.Config
	pidBase int    // the pid of the launch's first CTA, less 1
	start   uint64 // the launch's start, in ticks
	named   string // what process names add: the launch, when the trace has several
	meta    []traceEvent
	events  []traceEvent
	steps   uint64 // the launch's length in steps
	dropped int
	capped  bool
	groups  []*group
	index   map[string]*group
	ctas    map[int][3]int // pid -> %ctaid
	ranks   map[int][2]int // pid -> cluster, rank
	tracks  map[track]bool
}

// pidOf numbers a CTA by its linear %ctaid, from 1.
func (b *timelineBuilder) pidOf(cluster, rank int, id [3]int) int {
	g := b.cfg.Grid
	pid := b.pidBase + 1 + id[0] + id[1]*g[0] + id[2]*g[0]*g[1]
	b.ctas[pid] = id
	b.ranks[pid] = [2]int{cluster, rank}
	return pid
}

// groupOf returns the slice of track tr at step step named name, creating
// it in arrival order.
func (b *timelineBuilder) groupOf(tr track, step uint64, name string) *group {
	key := fmt.Sprintf("%d/%d/%d/%s", tr.pid, tr.tid, step, name)
	g := b.index[key]
	if g == nil {
		g = &group{tr: tr, step: step, name: name}
		b.index[key] = g
		b.groups = append(b.groups, g)
		b.tracks[tr] = true
	}
	return g
}

// opRef is where an operation's events went.
type opRef struct {
	issue, land, observe *group
	pid                  int
	bytes                int
	kind                 string
	line                 int
}

// build lays out the launch's events: its CTAs are processes from
// pidBase+1, its clock starts at tick start, and its span is on the
// launches process. named adds the launch to the CTAs' process names.
func (rec *Launch) build(pidBase int, start uint64, named bool) *timelineBuilder {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	b := &timelineBuilder{cfg: &rec.cfg, pidBase: pidBase, start: start, dropped: rec.dropped, capped: rec.capped,
		index: map[string]*group{}, ctas: map[int][3]int{}, ranks: map[int][2]int{}, tracks: map[track]bool{}}
	if named {
		b.named = fmt.Sprintf(" · launch %d %s", rec.index+1, rec.kernel)
	}
	trim(&rec.async, rec.limit[0], asyncCluster, &b.dropped)
	trim(&rec.waits, rec.limit[1], waitCluster, &b.dropped)
	trim(&rec.bars, rec.limit[2], barrierCluster, &b.dropped)
	rec.dropped = b.dropped
	ops := b.asyncGroups(rec.async)
	b.layout()
	b.opEvents(rec.async, ops)
	b.waitSpans(rec.waits)
	b.barrierCounters(rec.bars)
	b.groupSlices()
	b.metadata()
	b.steps = max(rec.steps, b.lastStep(rec)+1)
	args := map[string]any{"kernel": rec.kernel, "grid": rec.cfg.Grid, "block": rec.cfg.Block, "cluster": rec.cfg.Cluster,
		"stream": rec.stream, "steps": b.steps}
	if !rec.ended {
		args["unfinished"] = "the launch had not ended when the trace was written"
	}
	span := traceEvent{Name: rec.kernel, Cat: "launch", Ph: "X", PID: launchesPID, TID: rec.stream,
		Dur: usTime(b.steps * stepTicks), ticks: 0, Args: args}
	b.add(span)
	// The span comes first among the events of its time.
	b.events = append(b.events[len(b.events)-1:], b.events[:len(b.events)-1]...)
	sort.SliceStable(b.events, func(i, j int) bool { return b.events[i].ticks < b.events[j].ticks })
	return b
}

// lastStep is the latest step of the launch's events.
func (b *timelineBuilder) lastStep(rec *Launch) uint64 {
	var last uint64
	for _, e := range rec.async {
		last = max(last, e.Step)
	}
	for _, e := range rec.waits {
		last = max(last, e.End)
	}
	for _, e := range rec.bars {
		last = max(last, e.Step)
	}
	return last
}

// opKey names operation op of cluster c across the launch.
func opKey(cluster int, op uint64) uint64 { return uint64(cluster)<<32 | op }

// asyncGroups files every asynchronous event into the slice of its track
// and step.
func (b *timelineBuilder) asyncGroups(evs []emu.AsyncEvent) map[uint64]*opRef {
	ops := map[uint64]*opRef{}
	for _, e := range evs {
		k := opKey(e.Cluster, e.Op)
		r := ops[k]
		if r == nil {
			r = &opRef{pid: b.pidOf(e.Cluster, e.Issuer.Rank, e.Issuer.CTA), bytes: e.Bytes, kind: e.Kind, line: int(e.Pos.Line)}
			ops[k] = r
		}
		var g *group
		switch e.Event {
		case "issued":
			g = b.groupOf(track{r.pid, e.Issuer.Warp}, e.Step, "issue "+e.Kind)
			r.issue = g
		case "landed":
			g = b.groupOf(track{r.pid, landTID}, e.Step, "land "+e.Kind)
			r.land = g
		case "observed":
			pid := b.pidOf(e.Cluster, e.By.Rank, e.By.CTA)
			g = b.groupOf(track{pid, e.By.Warp}, e.Step, "observe "+e.Kind)
			r.observe = g
		default:
			continue
		}
		g.ops = append(g.ops, e.Op)
		g.lines = append(g.lines, int(e.Pos.Line))
	}
	return ops
}

// layout places the slices of each track and step one after the other
// within the step, in the order they happened.
func (b *timelineBuilder) layout() {
	count := map[string]int{}
	key := func(g *group) string { return fmt.Sprintf("%d/%d/%d", g.tr.pid, g.tr.tid, g.step) }
	for _, g := range b.groups {
		count[key(g)]++
	}
	seen := map[string]int{}
	for _, g := range b.groups {
		k := key(g)
		n := uint64(count[k])
		i := uint64(seen[k])
		seen[k]++
		g.start = g.step*stepTicks + i*stepTicks/n
		g.dur = stepTicks * 8 / (10 * n)
	}
}

// opEvents emits, per operation, its flow (issue -> landing -> the wait
// that observed it), its in-flight async span, and the counters of bytes
// and operations in flight of the issuing CTA.
func (b *timelineBuilder) opEvents(evs []emu.AsyncEvent, ops map[uint64]*opRef) {
	type flight struct{ bytes, ops int }
	inFlight := map[int]*flight{}
	done := map[uint64]bool{}
	counter := map[[2]uint64]int{} // pid and time -> index of its counter event
	for _, e := range evs {
		k := opKey(e.Cluster, e.Op)
		r := ops[k]
		id := "0x" + strconv.FormatUint(k, 16)
		name := fmt.Sprintf("%s op %d", r.kind, e.Op)
		fl := inFlight[r.pid]
		if fl == nil {
			fl = new(flight)
			inFlight[r.pid] = fl
		}
		var g *group
		switch e.Event {
		case "issued":
			g = r.issue
			b.flow("s", name, id, g, "")
			b.add(traceEvent{Name: r.kind, Cat: "async", Ph: "b", PID: r.pid, TID: 0, ID: id, ticks: g.start,
				Args: map[string]any{"op": e.Op, "bytes": r.bytes, "line": r.line, "detail": e.Detail}})
			fl.bytes += r.bytes
			fl.ops++
		case "landed":
			g = r.land
			step := "t"
			if r.observe == nil {
				step = "f"
			}
			b.flow(step, name, id, g, "e")
			b.add(traceEvent{Name: r.kind, Cat: "async", Ph: "e", PID: r.pid, TID: 0, ID: id, ticks: g.start + g.dur})
			fl.bytes -= r.bytes
			fl.ops--
		case "observed":
			if done[k] {
				continue
			}
			done[k] = true
			g = r.observe
			b.flow("f", name, id, g, "e")
			continue
		default:
			continue
		}
		args := map[string]any{"bytes": fl.bytes, "operations": fl.ops}
		if i, ok := counter[[2]uint64{uint64(r.pid), g.start}]; ok {
			b.events[i].Args = args // one value per time: the last
			continue
		}
		counter[[2]uint64{uint64(r.pid), g.start}] = len(b.events)
		b.add(traceEvent{Name: "in flight", Ph: "C", PID: r.pid, ticks: g.start, Args: args})
	}
}

// barrierCounters emits, per mbarrier object, a counter of its tx-count,
// pending arrivals and completed phases, in the process of the CTA whose
// shared memory holds it: one value per step, the last.
func (b *timelineBuilder) barrierCounters(bars []emu.BarrierEvent) {
	type key struct {
		pid   int
		addr  uint32
		ticks uint64
	}
	at := map[key]int{}
	for _, e := range bars {
		pid := b.pidOf(e.Cluster, e.Rank, e.CTA)
		k := key{pid, e.Addr, e.Step * stepTicks}
		args := map[string]any{"tx-count": e.Tx, "pending arrivals": e.Pending, "completed phases": e.Phases}
		if i, ok := at[k]; ok {
			b.events[i].Args = args
			continue
		}
		at[k] = len(b.events)
		b.add(traceEvent{Name: fmt.Sprintf("mbarrier %#x", e.Addr), Ph: "C", PID: pid, ticks: k.ticks, Args: args})
	}
}

// flow emits one flow event of phase ph bound to slice g.
func (b *timelineBuilder) flow(ph, name, id string, g *group, bp string) {
	if g == nil {
		return
	}
	b.add(traceEvent{Name: name, Cat: "flow", Ph: ph, PID: g.tr.pid, TID: g.tr.tid, ID: id, BP: bp, ticks: g.start + g.dur/2})
}

// waitSpans emits a slice for each span a warp waited; a wait ends with
// the instruction that completed it, so it covers the observations the
// warp made first at the step it moved again.
func (b *timelineBuilder) waitSpans(waits []emu.WaitEvent) {
	first := map[string]*group{}
	for _, g := range b.groups {
		k := fmt.Sprintf("%d/%d/%d", g.tr.pid, g.tr.tid, g.step)
		if first[k] == nil {
			first[k] = g
		}
	}
	for _, w := range waits {
		pid := b.pidOf(w.Cluster, w.Rank, w.CTA)
		tr := track{pid, w.Warp}
		b.tracks[tr] = true
		start, end := w.Start*stepTicks, w.End*stepTicks
		if g := first[fmt.Sprintf("%d/%d/%d", pid, w.Warp, w.End)]; g != nil && !w.Open && len(g.name) > 8 && g.name[:8] == "observe " {
			end = g.start + g.dur + 1
		}
		if end <= start {
			end = start + 1
		}
		args := map[string]any{"waits for": w.What, "line": int(w.Pos.Line), "from step": w.Start, "to step": w.End}
		if w.Open {
			args["still waiting"] = "the cluster stopped during this wait"
		}
		b.add(traceEvent{Name: "wait " + w.Opcode, Cat: "wait", Ph: "X", PID: pid, TID: w.Warp,
			Dur: usTime(end - start), ticks: start, Args: args})
	}
}

// groupSlices emits the slices of issues, landings and observations.
func (b *timelineBuilder) groupSlices() {
	for _, g := range b.groups {
		name := g.name
		if len(g.ops) > 1 {
			name = fmt.Sprintf("%s ×%d", g.name, len(g.ops))
		}
		b.add(traceEvent{Name: name, Cat: "async", Ph: "X", PID: g.tr.pid, TID: g.tr.tid, Dur: usTime(g.dur), ticks: g.start,
			Args: map[string]any{"ops": g.ops, "lines": g.lines, "step": g.step}})
	}
}

// metadata names every CTA (process) and track (thread) the trace uses:
// all warps of a CTA that appears, and its landing track when used.
func (b *timelineBuilder) metadata() {
	nt := b.cfg.Block[0] * b.cfg.Block[1] * b.cfg.Block[2]
	warps := (nt + 31) / 32
	pids := make([]int, 0, len(b.ctas))
	for pid := range b.ctas {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	var meta []traceEvent
	for _, pid := range pids {
		id, cr := b.ctas[pid], b.ranks[pid]
		meta = append(meta,
			traceEvent{Name: "process_name", Ph: "M", PID: pid, Args: map[string]any{"name": fmt.Sprintf("CTA (%d,%d,%d) · cluster %d rank %d%s", id[0], id[1], id[2], cr[0], cr[1], b.named)}},
			traceEvent{Name: "process_sort_index", Ph: "M", PID: pid, Args: map[string]any{"sort_index": pid}})
		for w := 0; w < warps; w++ {
			meta = append(meta,
				traceEvent{Name: "thread_name", Ph: "M", PID: pid, TID: w, Args: map[string]any{"name": fmt.Sprintf("warp %d", w)}},
				traceEvent{Name: "thread_sort_index", Ph: "M", PID: pid, TID: w, Args: map[string]any{"sort_index": w}})
		}
		if b.tracks[track{pid, landTID}] {
			meta = append(meta,
				traceEvent{Name: "thread_name", Ph: "M", PID: pid, TID: landTID, Args: map[string]any{"name": "landings of its async operations"}},
				traceEvent{Name: "thread_sort_index", Ph: "M", PID: pid, TID: landTID, Args: map[string]any{"sort_index": warps}})
		}
	}
	for i := range meta {
		meta[i].TS = "0"
	}
	b.meta = meta
}

// add appends e, its time moved to the launch's start and formatted.
func (b *timelineBuilder) add(e traceEvent) {
	e.ticks += b.start
	e.TS = usTime(e.ticks)
	b.events = append(b.events, e)
}

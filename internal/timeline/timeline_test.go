package timeline

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/timeline/timelinetest"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// loadKernel decodes the first kernel of a file of testdata/emu.
func loadKernel(t *testing.T, name string) *emu.Program {
	t.Helper()
	path := "../../testdata/emu/" + name
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseString(path, string(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	prog, errs := emu.Decode(m, "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return prog
}

// exchangeLaunch is cluster_exchange.ptx as its .args file runs it: two
// CTAs of a cluster sending each other 32 st.async each.
func exchangeLaunch(prog *emu.Program) *emu.Launch {
	return &emu.Launch{Kernel: prog, Config: emu.Config{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, Cluster: [3]int{2, 1, 1},
		Async: emu.AsyncRandom, Seed: 7}, Args: []emu.Arg{{IsBuffer: true, Size: 256}}}
}

// runInto runs l with its timeline recorded in rec on stream stream.
func runInto(t *testing.T, rec *Recorder, l *emu.Launch, stream int) *emu.Result {
	t.Helper()
	lr := rec.Attach(l, stream)
	res, err := l.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatal(res.Report)
	}
	lr.End(res)
	return res
}

func write(t *testing.T, rec *Recorder) (*timelinetest.Trace, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return timelinetest.Parse(t, buf.Bytes()), buf.Bytes()
}

// TestTwoLaunches records two launches of cluster_exchange, on streams 0
// and 3, into one trace: two spans on the launches process, the second
// starting where the first ended, each launch's CTAs on their own
// processes with their events inside their launch's span.
func TestTwoLaunches(t *testing.T) {
	prog := loadKernel(t, "async/cluster_exchange.ptx")
	rec := New()
	first := runInto(t, rec, exchangeLaunch(prog), 0)
	second := runInto(t, rec, exchangeLaunch(prog), 3)
	if first.Stats.ClusterSteps == 0 || first.Stats.ClusterSteps != second.Stats.ClusterSteps {
		t.Fatalf("cluster steps %d and %d, want the same, not 0", first.Stats.ClusterSteps, second.Stats.ClusterSteps)
	}
	tr, raw := write(t, rec)
	type span struct{ lo, hi float64 }
	var launches []span
	var streams []int
	procs := map[int]string{}
	threads := map[[2]int]string{}
	lo, hi := map[int]float64{}, map[int]float64{}
	stores := map[int]int{} // pid -> st.async issued
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			procs[e.PID] = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "thread_name":
			threads[[2]int{e.PID, e.TID}] = e.Args["name"].(string)
		case e.Ph == "X" && e.Cat == "launch":
			if e.PID != 0 || e.Name != "exchange" || e.Args["stream"].(float64) != float64(e.TID) {
				t.Errorf("launch span %q on pid %d tid %d, args %v", e.Name, e.PID, e.TID, e.Args)
			}
			launches = append(launches, span{e.TS, e.TS + e.Dur})
			streams = append(streams, e.TID)
		case e.Ph != "M" && e.PID != 0:
			if _, ok := lo[e.PID]; !ok || e.TS < lo[e.PID] {
				lo[e.PID] = e.TS
			}
			hi[e.PID] = max(hi[e.PID], e.TS+e.Dur)
			if e.Ph == "b" && e.Name == "st.async" {
				stores[e.PID]++
			}
		}
	}
	steps := float64(first.Stats.ClusterSteps)
	if len(launches) != 2 || launches[0] != (span{0, steps}) || launches[1] != (span{steps, 2 * steps}) {
		t.Fatalf("launch spans %v, want [0,%v] then [%v,%v] (1 us a step)", launches, steps, steps, 2*steps)
	}
	if streams[0] != 0 || streams[1] != 3 || threads[[2]int{0, 0}] != "stream 0" || threads[[2]int{0, 3}] != "stream 3" || procs[0] != "launches" {
		t.Errorf("launch tracks: streams %v, process %q, threads %v", streams, procs[0], threads)
	}
	// Launch 1's CTAs are processes 1 and 2, launch 2's 3 and 4; each
	// sends 32 st.async, and all its events lie inside its launch.
	for pid, want := range map[int]string{
		1: "CTA (0,0,0) · cluster 0 rank 0 · launch 1 exchange", 2: "CTA (1,0,0) · cluster 0 rank 1 · launch 1 exchange",
		3: "CTA (0,0,0) · cluster 0 rank 0 · launch 2 exchange", 4: "CTA (1,0,0) · cluster 0 rank 1 · launch 2 exchange",
	} {
		l := launches[(pid-1)/2]
		if procs[pid] != want || threads[[2]int{pid, 0}] != "warp 0" || stores[pid] != 32 || lo[pid] < l.lo || hi[pid] > l.hi {
			t.Errorf("pid %d: %q, warp track %q, %d st.async, events in [%v,%v], want %q, 32, inside %v",
				pid, procs[pid], threads[[2]int{pid, 0}], stores[pid], lo[pid], hi[pid], want, l)
		}
	}
	if len(procs) != 5 {
		t.Errorf("processes %v, want the launches and four CTAs", procs)
	}
	// otherData lists the launches with where each starts.
	info, _ := tr.OtherData["launches"].([]any)
	for i, want := range []float64{0, steps} {
		if i >= len(info) || info[i].(map[string]any)["start step"] != want {
			t.Errorf("otherData.launches = %v, want launch %d to start at step %v", info, i+1, want)
		}
	}
	_, again := func() (*timelinetest.Trace, []byte) {
		rec := New()
		runInto(t, rec, exchangeLaunch(prog), 0)
		runInto(t, rec, exchangeLaunch(prog), 3)
		return write(t, rec)
	}()
	if !bytes.Equal(raw, again) {
		t.Error("the trace of two launches differs between identical runs")
	}
}

// TestKernels checks the layout of two kernels' launches: the flow of
// each st.async of cluster_exchange to the wait that observed it, and
// the bar.sync waits of store_bench.
func TestKernels(t *testing.T) {
	rec := New()
	runInto(t, rec, exchangeLaunch(loadKernel(t, "async/cluster_exchange.ptx")), 0)
	tr, _ := write(t, rec)
	ops, observed := map[string]bool{}, map[string]bool{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "b" && e.Name == "st.async" {
			ops[e.ID] = true
		}
		if e.Ph == "f" {
			observed[e.ID] = true
		}
	}
	if len(ops) != 64 || len(observed) != 64 {
		t.Errorf("%d st.async operations, %d flows to an observing wait; want 64 each", len(ops), len(observed))
	}
	rec = New()
	bench := &emu.Launch{Kernel: loadKernel(t, "store_bench.ptx"), Config: emu.Config{Grid: [3]int{1, 1, 1}, Block: [3]int{256, 1, 1}},
		Args: []emu.Arg{{IsBuffer: true, Size: 4096}, {IsBuffer: true, Size: 16384}, {Value: 3}}}
	runInto(t, rec, bench, 0)
	tr, _ = write(t, rec)
	bars := map[int]int{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" && e.Name == "wait bar.sync" {
			bars[e.TID]++
			if !strings.HasPrefix(e.Args["waits for"].(string), "bar.sync 0 (") {
				t.Errorf("bar.sync wait says %q", e.Args["waits for"])
			}
		}
	}
	// Three rounds of two bar.sync: at each, every warp but the last to
	// arrive waits.
	total := 0
	for _, n := range bars {
		total += n
	}
	if len(bars) != 8 || total != 3*2*7 {
		t.Errorf("bar.sync waits per warp: %v, want 42 over 8 warps", bars)
	}
}

// TestEventBudget checks that the event limits hold over all the
// launches of a recorder: a launch attached once they are spent keeps no
// events and counts them as dropped.
func TestEventBudget(t *testing.T) {
	prog := loadKernel(t, "async/cluster_exchange.ptx")
	rec := New()
	rec.budget = [3]int{64 * 3, 1 << 20, 1 << 20} // one launch's issued, landed and observed events
	runInto(t, rec, exchangeLaunch(prog), 0)
	runInto(t, rec, exchangeLaunch(prog), 0)
	tr, _ := write(t, rec)
	begins := map[int]int{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "b" {
			begins[(e.PID-1)/2]++
		}
	}
	if begins[0] != 64 || begins[1] != 0 || tr.OtherData["droppedEvents"] != float64(64*3) {
		t.Errorf("st.async spans per launch %v, dropped %v; want 64 then 0, 192 dropped", begins, tr.OtherData["droppedEvents"])
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parsedTrace is a trace-event file as a viewer reads it.
type parsedTrace struct {
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

// runTimeline runs ptxkit run with args and --timeline and parses the file.
func runTimeline(t *testing.T, args ...string) (*parsedTrace, []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "trace.json")
	var out, errb bytes.Buffer
	if code := run(append(append([]string{"run"}, args...), "--timeline", f), strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var tr parsedTrace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("timeline is not JSON: %v", err)
	}
	checkTraceStructure(t, &tr)
	return &tr, raw
}

// checkTraceStructure checks what a viewer needs: every track named,
// complete slices that nest on each track, flow events inside a slice of
// their track, each async span begun and ended once, counters not
// negative.
func checkTraceStructure(t *testing.T, tr *parsedTrace) {
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

func TestRunTimelineExample(t *testing.T) {
	tr, raw := runTimeline(t)
	names := map[string]bool{}
	waits := map[int][]string{} // pid -> wait slices
	flows := map[string]string{}
	flowTrack := map[string]int{}
	var bytesSeen []float64
	mbar := map[int][]string{} // pid -> its mbarrier counter values
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if n, ok := e.Args["name"].(string); ok {
				names[e.Name+"="+n+"@"+strconv.Itoa(e.PID)] = true
			}
		case "X":
			if e.Cat == "wait" {
				waits[e.PID] = append(waits[e.PID], e.Name)
			}
		case "s", "t", "f":
			flows[e.ID] += e.Ph
			flowTrack[e.ID+e.Ph] = e.PID
		case "C":
			if e.Name == "in flight" {
				bytesSeen = append(bytesSeen, e.Args["bytes"].(float64))
			} else {
				mbar[e.PID] = append(mbar[e.PID], fmt.Sprintf("%s tx=%v pending=%v phases=%v", e.Name, e.Args["tx-count"], e.Args["pending arrivals"], e.Args["completed phases"]))
			}
		}
	}
	for _, want := range []string{
		"process_name=CTA (0,0,0) · cluster 0 rank 0@1", "process_name=CTA (1,0,0) · cluster 0 rank 1@2",
		"thread_name=warp 0@1", "thread_name=warp 0@2", "thread_name=landings of its async operations@1",
	} {
		if !names[want] {
			t.Errorf("no metadata %q", want)
		}
	}
	// Both CTAs wait on their mbarrier; rank 0 reaches the cluster
	// barriers first and waits there too.
	for pid, want := range map[int]string{
		1: "wait barrier.cluster.wait.acquire.aligned|wait mbarrier.try_wait.parity.shared::cta.b64|wait barrier.cluster.wait.acquire.aligned",
		2: "wait mbarrier.try_wait.parity.shared::cta.b64",
	} {
		if got := strings.Join(waits[pid], "|"); got != want {
			t.Errorf("CTA %d waits: %s\nwant %s", pid, got, want)
		}
	}
	// Each st.async goes issue -> landing -> the wait that observed it; the
	// CTA of rank 1 sends op 1 to rank 0, whose warp observes it.
	for _, id := range []string{"0x1", "0x2"} {
		if flows[id] != "stf" {
			t.Errorf("flow %s: phases %q, want stf", id, flows[id])
		}
	}
	if flowTrack["0x1s"] != 2 || flowTrack["0x1f"] != 1 {
		t.Errorf("op 1 flows from CTA %d to CTA %d, want 2 -> 1", flowTrack["0x1s"], flowTrack["0x1f"])
	}
	if len(bytesSeen) != 4 || bytesSeen[0] != 16 || bytesSeen[3] != 0 {
		t.Errorf("bytes in flight over time: %v", bytesSeen)
	}
	// Each CTA's mbarrier: initialised for one arrival, armed for 16 bytes
	// (arrive.expect_tx), then the peer's st.async completes the phase.
	for pid, want := range map[int]string{
		1: "mbarrier 0x0 tx=0 pending=1 phases=0|mbarrier 0x0 tx=16 pending=0 phases=0|mbarrier 0x0 tx=0 pending=1 phases=1",
		2: "mbarrier 0x0 tx=16 pending=0 phases=0|mbarrier 0x0 tx=0 pending=1 phases=1",
	} {
		if got := strings.Join(mbar[pid], "|"); got != want {
			t.Errorf("CTA %d mbarrier counters:\n%s\nwant\n%s", pid, got, want)
		}
	}
	if !strings.Contains(string(raw), `"waits for":"mbarrier.try_wait.parity.shared::cta.b64 on the mbarrier at offset 0x0 of CTA rank 0 (phase 0`) {
		t.Errorf("no wait names its mbarrier and phase:\n%s", raw)
	}
	_, again := runTimeline(t)
	if !bytes.Equal(raw, again) {
		t.Error("timeline differs between identical runs")
	}
}

func TestRunTimelineKernels(t *testing.T) {
	dir := "../../testdata/emu/"
	tr, _ := runTimeline(t, dir+"async/cluster_exchange.ptx", "--grid", "2", "--block", "32", "--cluster", "2",
		"--arg", "buf:256", "--dump", "none", "--async", "random", "--seed", "7")
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
	tr, _ = runTimeline(t, dir+"store_bench.ptx", "--grid", "1", "--block", "256", "--arg", "buf:4096", "--arg", "buf:16384", "--arg", "3", "--dump", "none")
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

// TestRunPictureBadPath checks that a --timeline or --tmem-svg path that
// cannot be written is reported before the run, not after it.
func TestRunPictureBadPath(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "missing", "x")
	for _, flag := range []string{"--timeline", "--tmem-svg"} {
		code, out, errs := runCmd(t, "", "run", flag, bad)
		if code != exitUsage || !strings.Contains(errs, "ptxkit run: "+flag+": open "+bad) || strings.Contains(out, "completed") {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q", flag, bad, code, out, errs)
		}
	}
}

// TestRunTimelineJobs checks that the file does not depend on how many
// clusters ran in parallel.
func TestRunTimelineJobs(t *testing.T) {
	args := []string{"../../testdata/emu/async/red_async.ptx", "--grid", "8", "--block", "32", "--cluster", "4",
		"--arg", "buf:32", "--async", "random", "--seed", "7", "--dump", "none"}
	_, one := runTimeline(t, append(args, "--jobs", "1")...)
	_, two := runTimeline(t, append(args, "--jobs", "2")...)
	if !bytes.Equal(one, two) {
		t.Error("the timeline differs between --jobs 1 and --jobs 2")
	}
	if !bytes.Contains(one, []byte(`"name":"process_name","ph":"M","ts":0,"pid":8,"tid":0,"args":{"name":"CTA (7,0,0) · cluster 1 rank 3"}`)) {
		t.Errorf("no track for the last CTA of the second cluster")
	}
}

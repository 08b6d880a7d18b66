package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/timeline/timelinetest"
)

// runTimeline runs ptxkit run with args and --timeline and parses the file.
func runTimeline(t *testing.T, args ...string) (*timelinetest.Trace, []byte) {
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
	return timelinetest.Parse(t, raw), raw
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

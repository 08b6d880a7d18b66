package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptxkit/ptxkit/emu"
)

// The budgets of ptxkit run. A kernel that never ends (a spin loop, a
// wait nobody satisfies while other warps spin) must stop on its own
// within seconds, with a report of where each warp was; a long run that
// is making progress says so on standard error.
const (
	// defaultMaxSteps is the per-cluster step budget: 2^26
	// warp-instructions take half a second to eight seconds of emulation
	// (8 to 150 million warp-instructions per second, host load
	// depending), yet allow two billion thread-instructions per cluster.
	defaultMaxSteps = 1 << 26
	// defaultTimeout is the wall-clock budget of a launch: on a loaded
	// host, where a tight loop runs 8 million warp-instructions per second
	// or fewer, it is what stops a runaway kernel first. Longer runs pass
	// --timeout; the heartbeat shows whether they progress.
	defaultTimeout = 8 * time.Second
	// defaultHeartbeat is how often a long run prints a progress line.
	defaultHeartbeat = 3 * time.Second
	// progressEvery is how often the progress bar on a terminal is
	// redrawn, after progressDelay has passed.
	progressEvery = 200 * time.Millisecond
	progressDelay = time.Second
)

// stepsFlag is a step budget: unset it is the default; 0, given
// explicitly, means no limit.
type stepsFlag struct {
	n   uint64
	set bool
}

func (s *stepsFlag) String() string {
	if s == nil || !s.set {
		return ""
	}
	return strconv.FormatUint(s.n, 10)
}

func (s *stepsFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return fmt.Errorf("want a number of warp-instructions (0: no limit)")
	}
	s.n, s.set = n, true
	return nil
}

// budget returns the emu.Config value of the flag: def when unset,
// "no limit" for an explicit 0.
func (s *stepsFlag) budget(def uint64) uint64 {
	switch {
	case !s.set:
		return def
	case s.n == 0:
		return math.MaxUint64
	}
	return s.n
}

// durationFlag is a time budget or period; 0 turns it off.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil || t < 0 {
		return fmt.Errorf("want a duration such as 30s, 2m or 0 (off)")
	}
	*d = durationFlag(t)
	return nil
}

// progress reports a running launch on standard error: a heartbeat line
// every period, or, when standard error is a terminal, a progress bar
// redrawn in place. stop ends it and erases the bar.
type progress struct {
	w        io.Writer
	mon      *emu.Monitor
	clusters int
	start    time.Time
	bar      bool
	quit     chan struct{}
	wg       sync.WaitGroup
}

// startProgress starts reporting mon on w; period 0 turns the heartbeat
// off (the bar too).
func startProgress(w io.Writer, mon *emu.Monitor, clusters int, period time.Duration) *progress {
	p := &progress{w: w, mon: mon, clusters: clusters, start: time.Now(), bar: isTerminal(w), quit: make(chan struct{})}
	if period <= 0 {
		return p
	}
	delay, every := period, period
	if p.bar {
		delay, every = progressDelay, progressEvery
	}
	p.wg.Add(1)
	go p.loop(delay, every)
	return p
}

func (p *progress) loop(delay, every time.Duration) {
	defer p.wg.Done()
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			if p.bar {
				fmt.Fprintf(p.w, "\r%s\x1b[K", p.line())
			} else {
				fmt.Fprintf(p.w, "ptxkit run: %s\n", p.line())
			}
			t.Reset(every)
		}
	}
}

// line is one progress report: time, steps, waiting warps, clusters.
func (p *progress) line() string {
	done := p.mon.ClustersDone()
	s := fmt.Sprintf("%.0fs: %d warp-instructions, %d warps waiting, %d of %d clusters done",
		time.Since(p.start).Seconds(), p.mon.Steps(), p.mon.Waiting(), done, p.clusters)
	if !p.bar {
		return s
	}
	const width = 20
	n := done * width / max(p.clusters, 1)
	return "[" + strings.Repeat("#", n) + strings.Repeat(" ", width-n) + "] " + s
}

// stop ends the reports; a bar is erased.
func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
	if p.bar && time.Since(p.start) >= progressDelay {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// clusterCount returns the clusters of a normalized launch.
func clusterCount(c *emu.Config) int {
	return c.Grid[0] / c.Cluster[0] * (c.Grid[1] / c.Cluster[1]) * (c.Grid[2] / c.Cluster[2])
}

// stopLine says on standard output why a run stopped early.
func stopLine(rule string) string {
	switch rule {
	case emu.RuleUnsupported:
		return "stopped: the kernel does something the emulator does not support (not undefined behaviour); buffers hold what was stored up to that point"
	case emu.RuleMaxSteps, emu.RuleTimeout:
		return "stopped: a run budget was spent; buffers hold what was stored up to that point"
	}
	return "stopped by the sanitizer; buffers hold what was stored up to that point"
}

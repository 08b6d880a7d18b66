package emu

import (
	"fmt"
	"math/bits"
	"strings"
	"sync/atomic"
	"time"
)

// RuleTimeout is the rule of the report a launch gets when its wall-clock
// budget (Config.Timeout) runs out or its Monitor is stopped.
const RuleTimeout = "timeout"

// Monitor lets another goroutine watch a running launch and stop it: the
// heartbeat of ptxkit run reads Steps and Waiting every few seconds, and
// the wall-clock budget (Config.Timeout) calls Stop. Clusters publish their
// counters once per scheduling pass and check for a stop once per warp
// time slice, so watching costs the dispatch loop next to nothing. The
// zero Monitor is ready to use; one Monitor serves one launch.
type Monitor struct {
	steps   atomic.Uint64 // warp-instructions executed, all clusters
	waiting atomic.Int64  // warps of running clusters that made no progress in their last pass
	done    atomic.Int64  // clusters finished
	stop    atomic.Bool
	reason  atomic.Value // string: why Stop was called
}

// Steps returns the warp-instructions the launch has executed so far (as
// of each running cluster's last scheduling pass).
func (m *Monitor) Steps() uint64 { return m.steps.Load() }

// Waiting returns how many warps of the running clusters made no progress
// in their cluster's last scheduling pass: they wait at a barrier, on an
// mbarrier or for an asynchronous operation.
func (m *Monitor) Waiting() int { return int(m.waiting.Load()) }

// ClustersDone returns how many clusters have finished.
func (m *Monitor) ClustersDone() int { return int(m.done.Load()) }

// Stop asks the launch to stop at its next time slice; its report (rule
// RuleTimeout) gives reason and where every warp was. Only the first call's
// reason is kept.
func (m *Monitor) Stop(reason string) {
	if m.reason.CompareAndSwap(nil, reason) {
		m.stop.Store(true)
	}
}

func (m *Monitor) stopped() bool { return m != nil && m.stop.Load() }

func (m *Monitor) stopReason() string {
	r, _ := m.reason.Load().(string)
	return r
}

// startTimeout arms cfg.Timeout on the launch's monitor, creating one when
// the caller gave none, and returns the monitor (nil when neither is set)
// and a function that disarms the timer.
func startTimeout(cfg *Config) (*Monitor, func()) {
	m := cfg.Monitor
	if cfg.Timeout <= 0 {
		return m, func() {}
	}
	if m == nil {
		m = new(Monitor)
	}
	t := time.AfterFunc(cfg.Timeout, func() {
		m.Stop(fmt.Sprintf("the launch ran longer than %v (--timeout)", cfg.Timeout))
	})
	return m, func() { t.Stop() }
}

// publish adds the cluster's progress since its last call to the monitor:
// its steps, and waiting, the warps that made no progress in the pass.
func (c *Cluster) publish(waiting int) {
	m := c.mon
	m.steps.Add(c.steps - c.pubSteps)
	m.waiting.Add(int64(waiting - c.pubWaiting))
	c.pubSteps, c.pubWaiting = c.steps, waiting
}

// retire publishes the cluster's last steps and takes its warps out of
// the waiting count.
func (c *Cluster) retire() {
	if c.mon != nil {
		c.publish(0)
		c.mon.done.Add(1)
	}
}

// stopReport is the report of a cluster stopped through its monitor.
func (c *Cluster) stopReport() *Report {
	r := &Report{Rule: RuleTimeout, File: c.prog.File,
		Message: fmt.Sprintf("%s; stopped in cluster (%d,%d,%d) after %d warp-instructions of the launch",
			c.mon.stopReason(), c.ID[0], c.ID[1], c.ID[2], c.mon.Steps())}
	c.locate(r)
	return r
}

// locate fills r's position with the first live warp's instruction and
// r.Waits with where each live warp of the cluster is, in CTA rank and
// warp order: its instruction, and what it waits for when it waits.
func (c *Cluster) locate(r *Report) {
	const maxShown = 64
	n := 0
	for _, cta := range c.CTAs {
		for _, w := range cta.Warps {
			if w.live == 0 {
				continue
			}
			if n++; n > maxShown {
				continue
			}
			pc := w.pc
			if w.active == 0 && w.blocked != 0 {
				pc = w.WaitPC
			}
			in := &c.prog.Insts[min(int(pc), len(c.prog.Insts)-1)]
			if r.Pos.Line == 0 {
				r.Pos, r.Opcode = in.Pos, in.Opcode
			}
			r.Waits = append(r.Waits, c.warpWhere(w, in))
		}
	}
	if n > maxShown {
		r.Waits = append(r.Waits, fmt.Sprintf("... and %d more warps", n-maxShown))
	}
}

func (c *Cluster) warpWhere(w *Warp, in *Inst) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CTA (%d,%d,%d) warp %d (%d live threads) at line %d: %s",
		w.CTA.ID[0], w.CTA.ID[1], w.CTA.ID[2], w.Index, bits.OnesCount32(w.live), in.Pos.Line, in.Opcode)
	if w.blocked != 0 && w.active == 0 {
		fmt.Fprintf(&b, ", waiting: %s", w.waitDescription())
	}
	return b.String()
}

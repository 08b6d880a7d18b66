package emu

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// spinWaitKernel: warp 0 spins forever; warp 1 waits at a barrier warp 0
// never reaches, so the cluster keeps moving and never deadlocks.
const spinWaitKernel = `.version 8.0
.target sm_90
.address_size 64
.entry k()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra L;
	bar.sync 0;
	ret;
L:
	add.u32 %r2, %r2, 1;
	bra.uni L;
}
`

// TestTimeoutStopsLaunch checks Config.Timeout: the launch stops soon
// after it with a RuleTimeout report that says where each warp was, and
// the monitor counted the steps and the waiting warp.
func TestTimeoutStopsLaunch(t *testing.T) {
	p := compile(t, spinWaitKernel)
	mon := new(Monitor)
	start := time.Now()
	timeout := 100 * time.Millisecond * raceSlowdown
	res, err := execute(p, Config{Block: dims(64, 1, 1), MaxSteps: 1<<64 - 1, Timeout: timeout, Monitor: mon}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second*raceSlowdown {
		t.Errorf("stopped after %v", took)
	}
	r := res.Report
	if r == nil || r.Rule != RuleTimeout || !strings.HasPrefix(r.Message, "the launch ran longer than "+timeout.String()+" (--timeout)") || r.Pos.Line != 14 && r.Pos.Line != 15 {
		t.Fatalf("report %+v", r)
	}
	if len(r.Waits) != 2 || !strings.HasPrefix(r.Waits[0], "CTA (0,0,0) warp 0 (32 live threads) at line 1") ||
		r.Waits[1] != "CTA (0,0,0) warp 1 (32 live threads) at line 11: bar.sync, waiting: bar.sync 0 (32 of 64 threads arrived)" {
		t.Errorf("waits %q", r.Waits)
	}
	if mon.Steps() == 0 || mon.Steps() != res.Stats.WarpInsts || mon.Waiting() != 0 || mon.ClustersDone() != 1 {
		t.Errorf("monitor: %d steps (stats %d), %d waiting, %d done", mon.Steps(), res.Stats.WarpInsts, mon.Waiting(), mon.ClustersDone())
	}
}

// TestMonitorStopBeforeClusters stops a launch before it starts: no
// cluster runs and the report says so.
func TestMonitorStopBeforeClusters(t *testing.T) {
	p := compile(t, spinWaitKernel)
	mon := new(Monitor)
	mon.Stop("stopped by the test")
	mon.Stop("a second reason is ignored")
	res, err := execute(p, Config{Grid: dims(4, 1, 1), Block: dims(64, 1, 1), Monitor: mon}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Report; r == nil || r.Rule != RuleTimeout || r.Message != "stopped by the test; stopped after 0 warp-instructions, before the clusters after 0 ran" {
		t.Errorf("report %+v", r)
	}
}

// TestMaxStepsReportLocatesWarps checks that the step-budget report lists
// every live warp.
func TestMaxStepsReportLocatesWarps(t *testing.T) {
	p := compile(t, spinWaitKernel)
	res, err := execute(p, Config{Block: dims(64, 1, 1), MaxSteps: 100000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if r == nil || r.Rule != RuleMaxSteps || len(r.Waits) != 2 || !strings.Contains(r.Waits[1], "waiting: bar.sync 0") {
		t.Fatalf("report %+v", r)
	}
}

// BenchmarkMonitorOverhead runs a spinning CTA of eight warps for 2^20
// warp-instructions with and without a Monitor, round-robin and with
// seeded scheduling (time slices of 1 to 64 instructions, the most
// monitor checks per instruction).
func BenchmarkMonitorOverhead(b *testing.B) {
	p := compile(b, `.version 8.0
.target sm_90
.address_size 64
.entry k()
{
	.reg .b32 %r<2>;
L:
	add.u32 %r1, %r1, 1;
	bra.uni L;
}
`)
	for _, seed := range []uint64{0, 1} {
		for _, watched := range []bool{false, true} {
			name := map[bool]string{false: "plain", true: "monitor"}[watched]
			b.Run(fmt.Sprintf("seed%d/%s", seed, name), func(b *testing.B) {
				start := benchmod.CPUTime()
				for b.Loop() {
					cfg := Config{Block: dims(256, 1, 1), MaxSteps: 1 << 20, Seed: seed}
					if watched {
						cfg.Monitor, cfg.Timeout = new(Monitor), time.Hour
					}
					res, err := execute(p, cfg, nil)
					if err != nil || res.Report == nil || res.Report.Rule != RuleMaxSteps {
						b.Fatal(err, res.Report)
					}
				}
				b.ReportMetric(float64(benchmod.CPUTime()-start)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

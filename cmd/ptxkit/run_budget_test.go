package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/emu"
)

// spinKernel is a three-instruction loop that never ends.
const spinKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry spin()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
$L:
	add.u32 %r1, %r1, 1;
	setp.ne.u32 %p1, %r1, 0xffffffff;
	bra.uni $L;
}
`

// spinAndWaitKernel: warp 0 spins, warp 1 waits at a barrier warp 0
// never reaches. Nothing deadlocks (warp 0 moves), so only a budget stops it.
const spinAndWaitKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra $SPIN;
	bar.sync 0;
	ret;
$SPIN:
	add.u32 %r2, %r2, 1;
	bra.uni $SPIN;
}
`

// TestRunDefaultBudgetStopsSpin runs an endless loop with no budget flag:
// the default budgets stop it within 10 s, with a report naming where the
// warp was.
func TestRunDefaultBudgetStopsSpin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2^26 warp-instructions (seconds)")
	}
	k := writeFile(t, "spin.ptx", spinKernel)
	start := time.Now()
	code, out, errs := runCmd(t, "", "run", k)
	took := time.Since(start)
	// The step budget stops it on a quiet host, the 8 s timeout on a
	// loaded one.
	budget := strings.Contains(errs, "exceeded 67108864 warp-instructions (--max-steps) [max-steps]") ||
		strings.Contains(errs, "the launch ran longer than 8s (--timeout)")
	if code != exitSanitize || !budget || !strings.Contains(errs, "CTA (0,0,0) warp 0 (32 live threads) at line ") ||
		!strings.Contains(out, "stopped: a run budget was spent") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if took > 10*time.Second*raceSlowdown {
		t.Errorf("stopped after %v, want within 10s", took)
	}
}

// TestRunTimeout runs the endless loop without a step limit: --timeout
// stops it, and the report says where every warp was, the waiting one
// with what it waits for.
func TestRunTimeout(t *testing.T) {
	k := writeFile(t, "k.ptx", spinAndWaitKernel)
	start := time.Now()
	timeout := (300 * time.Millisecond * raceSlowdown).String()
	code, _, errs := runCmd(t, "", "run", k, "--block", "64", "--max-steps", "0", "--timeout", timeout, "--heartbeat", "0")
	took := time.Since(start)
	for _, want := range []string{
		"sanitizer: the launch ran longer than " + timeout + " (--timeout); stopped in cluster (0,0,0) after ",
		"[timeout]",
		"CTA (0,0,0) warp 0 (32 live threads) at line 1",
		"CTA (0,0,0) warp 1 (32 live threads) at line 11: bar.sync, waiting: bar.sync 0 (32 of 64 threads arrived)",
		"--max-steps, --max-launch-steps and --timeout raise the budgets (0: no limit)",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != exitSanitize || took > 5*time.Second*raceSlowdown {
		t.Errorf("exit %d after %v", code, took)
	}
}

// TestRunMaxStepsZeroMeansNoLimit checks that an explicit --max-steps 0
// lifts the step budget: the loop runs past the default budget's report
// until the timeout stops it.
func TestRunMaxStepsZeroMeansNoLimit(t *testing.T) {
	k := writeFile(t, "spin.ptx", spinKernel)
	code, _, errs := runCmd(t, "", "run", k, "--max-steps", "0", "--timeout", "200ms", "--heartbeat", "0")
	if code != exitSanitize || !strings.Contains(errs, "[timeout]") || strings.Contains(errs, "[max-steps]") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	code, _, errs = runCmd(t, "", "run", k, "--max-steps", "1000", "--timeout", "0")
	if code != exitSanitize || !strings.Contains(errs, "exceeded 1000 warp-instructions (--max-steps) [max-steps]") {
		t.Errorf("--max-steps 1000: exit %d, stderr:\n%s", code, errs)
	}
}

// TestRunHeartbeat checks the progress line of a long run: elapsed time,
// steps (growing), waiting warps and clusters, on standard error only.
func TestRunHeartbeat(t *testing.T) {
	k := writeFile(t, "k.ptx", spinAndWaitKernel)
	code, out, errs := runCmd(t, "", "run", k, "--block", "64", "--max-steps", "0", "--timeout", (time.Second * raceSlowdown).String(), "--heartbeat", "200ms")
	beat := regexp.MustCompile(`(?m)^ptxkit run: \d+s: (\d+) warp-instructions, (\d+) warps waiting, 0 of 1 clusters done$`)
	m := beat.FindAllStringSubmatch(errs, -1)
	if code != exitSanitize || len(m) < 2 || strings.Contains(out, "warp-instructions,") {
		t.Fatalf("exit %d, %d heartbeat lines; stdout:\n%s\nstderr:\n%s", code, len(m), out, errs)
	}
	if m[0][1] == m[len(m)-1][1] || m[len(m)-1][2] != "1" {
		t.Errorf("steps do not grow or the waiting warp is not counted:\n%s", errs)
	}
}

func TestStepsFlag(t *testing.T) {
	var s stepsFlag
	if s.budget(7) != 7 {
		t.Error("unset: want the default")
	}
	if err := s.Set("0"); err != nil || s.budget(7) != 1<<64-1 {
		t.Errorf("explicit 0: %v, budget %d, want no limit", err, s.budget(7))
	}
	if err := s.Set("-1"); err == nil {
		t.Error("-1 accepted")
	}
}

// TestRunDeepCallChain runs a kernel whose 200 functions call each other
// in a chain (no recursion): valid PTX beyond the emulator's 64 levels,
// reported as unsupported, not as undefined behaviour.
func TestRunDeepCallChain(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n")
	const depth = 200
	for i := depth; i >= 1; i-- {
		fmt.Fprintf(&b, ".func f%d()\n{\n", i)
		if i < depth {
			fmt.Fprintf(&b, "\tcall f%d;\n", i+1)
		}
		b.WriteString("\tret;\n}\n")
	}
	b.WriteString(".visible .entry k()\n{\n\tcall f1;\n\tret;\n}\n")
	code, out, errs := runCmd(t, "", "run", writeFile(t, "chain.ptx", b.String()))
	if code != exitSanitize || !strings.Contains(errs, "call nesting deeper than 64 levels: the emulator does not support deeper call chains (the PTX program may be valid) [unsupported]") ||
		!strings.Contains(out, "stopped: the kernel does something the emulator does not support (not undefined behaviour)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestProgressBar checks the terminal form of the progress report: a bar
// of the clusters done, redrawn in place, and erased at the end.
func TestProgressBar(t *testing.T) {
	var buf strings.Builder
	p := &progress{w: &buf, mon: new(emu.Monitor), clusters: 4, start: time.Now().Add(-2 * time.Second), bar: true, quit: make(chan struct{})}
	if got := p.line(); !strings.HasPrefix(got, "[                    ] 2s: 0 warp-instructions, 0 warps waiting, 0 of 4 clusters done") {
		t.Errorf("line %q", got)
	}
	p.wg.Add(1)
	go p.loop(time.Millisecond, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	p.stop()
	out := buf.String()
	if !strings.HasPrefix(out, "\r[") || !strings.HasSuffix(out, "\r\x1b[K") || strings.Contains(out, "\n") {
		t.Errorf("output %q", out)
	}
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/ptxkit/ptxkit/emu"
)

// explore runs launch l under its own schedule and then under n more,
// seeds --seed+1 ... --seed+n with --async random (so that both the warp
// order and the landing of asynchronous operations change). It stops at
// the first schedule whose run reports (a race under --race, or any other
// undefined behaviour) or stores bytes different from the first run's,
// and prints the flags that replay it. It returns the exit status: 0 when
// every schedule ran clean to the same result, exitSanitize otherwise.
func explore(l *emu.Launch, n int, stdout, stderr io.Writer) int {
	base := l.Seed
	args := l.Args
	var first *emu.Result
	for i := 0; i <= n; i++ {
		run := *l
		run.Args = slices.Clone(args)
		for j := range run.Args {
			run.Args[j].Adopt = false // every run starts from the same bytes
		}
		if i > 0 {
			run.Seed, run.Async = base+uint64(i), emu.AsyncRandom
		}
		replay := fmt.Sprintf("--seed %d --async %s", run.Seed, run.Async)
		res, err := run.Run()
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
		if res.Report != nil {
			fmt.Fprintf(stderr, "%v\n", res.Report)
			fmt.Fprintf(stdout, "schedule %d of %d reported %s; replay it with %s\n", i, n, res.Report.Rule, replay)
			return exitSanitize
		}
		if first == nil {
			first = res
			continue
		}
		if d := firstDifference(first, res); d != "" {
			fmt.Fprintf(stdout, "schedule %d of %d stored a different result (%s) than the first schedule (--seed %d --async %s); replay it with %s\n",
				i, n, d, base, l.Async, replay)
			return exitSanitize
		}
		res.Mem.Release() // its large buffers serve the next schedule
	}
	fmt.Fprintf(stdout, "explored %d schedules after the first (--seed %d to %d, --async random): no report, the same result\n", n, base+1, base+uint64(n))
	return exitOK
}

// firstDifference names the first byte where the buffers of two runs
// differ, or returns "".
func firstDifference(a, b *emu.Result) string {
	for i := range a.Buffers {
		if a.Buffers[i] == nil || b.Buffers[i] == nil {
			continue
		}
		x, y := a.Buffers[i].Data, b.Buffers[i].Data
		if bytes.Equal(x, y) {
			continue
		}
		for j := range x {
			if x[j] != y[j] {
				return fmt.Sprintf("arg%d byte %d: %#02x, first %#02x", i, j, y[j], x[j])
			}
		}
	}
	return ""
}

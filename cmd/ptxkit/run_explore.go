package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

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
			rule := res.Report.Rule
			shrinkSchedule(&run, stdout, func(r *emu.Result) bool { return r.Report != nil && r.Report.Rule == rule })
			return exitSanitize
		}
		if first == nil {
			first = res
			continue
		}
		if d := firstDifference(first, res); d != "" {
			fmt.Fprintf(stdout, "schedule %d of %d stored a different result (%s) than the first schedule (--seed %d --async %s); replay it with %s\n",
				i, n, d, base, l.Async, replay)
			shrinkSchedule(&run, stdout, func(r *emu.Result) bool { return r.Report == nil && firstDifference(first, r) != "" })
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

// shrinkBudget bounds the runs and the time spent shrinking a schedule.
const (
	shrinkRuns = 200
	shrinkTime = 30 * time.Second
)

// shrinkSchedule looks for a shortest schedule of launch l (a seeded
// run that showed what shows tells) and prints it with the flags that
// replay it. The seeded run's scheduling choices are recorded; each that
// differs from its neutral value (warps in order, the longest time slice,
// no delay, the oldest operation landing first) is a candidate, and
// delta debugging (ddmin, removing ever smaller chunks) keeps the fewest
// that still show it, every other choice neutral.
func shrinkSchedule(l *emu.Launch, stdout io.Writer, shows func(*emu.Result) bool) {
	if l.Seed == 0 && l.Schedule == nil {
		return // round-robin: no choices to shrink
	}
	runs, start := 0, time.Now()
	try := func(sched *emu.Schedule) (*emu.Result, bool) {
		run := *l
		run.Schedule = sched
		run.Args = slices.Clone(l.Args)
		for j := range run.Args {
			run.Args[j].Adopt = false
		}
		runs++
		res, err := run.Run()
		return res, err == nil && shows(res)
	}
	rec := &emu.Schedule{Force: l.Schedule.ForceOrNil()}
	if _, ok := try(rec); !ok {
		return
	}
	value := map[emu.ChoiceAt]emu.Choice{}
	var keep []emu.ChoiceAt
	total := 0
	for _, cl := range rec.Clusters() {
		for pos, c := range rec.Choices(cl) {
			total++
			if c.Value != c.Neutral {
				at := emu.ChoiceAt{Cluster: cl, Pos: pos}
				value[at] = c
				keep = append(keep, at)
			}
		}
	}
	forced := func(set []emu.ChoiceAt) map[emu.ChoiceAt]int {
		f := make(map[emu.ChoiceAt]int, len(set))
		for _, at := range set {
			f[at] = value[at].Value
		}
		return f
	}
	within := func() bool { return runs < shrinkRuns && time.Since(start) < shrinkTime }
	chunks := 2
	if _, ok := try(&emu.Schedule{Force: map[emu.ChoiceAt]int{}}); ok {
		keep = nil
	}
	for len(keep) > 0 && within() {
		chunks = min(chunks, len(keep))
		size := (len(keep) + chunks - 1) / chunks
		removed := false
		for lo := 0; lo < len(keep) && within(); lo += size {
			rest := append(slices.Clone(keep[:lo]), keep[min(lo+size, len(keep)):]...)
			if _, ok := try(&emu.Schedule{Force: forced(rest)}); ok {
				keep, removed = rest, true
				chunks = max(chunks-1, 2)
				break
			}
		}
		if !removed {
			if chunks >= len(keep) {
				break
			}
			chunks = min(2*chunks, len(keep))
		}
	}
	done := "shortest"
	if !within() {
		done = "shortest found within the budget"
	}
	var parts []string
	for _, at := range keep {
		c := value[at]
		parts = append(parts, fmt.Sprintf("cluster %d choice %d (%s) %d of %d, in order %d", at.Cluster, at.Pos, c.Kind, c.Value, c.N, c.Neutral))
	}
	desc := "every choice in order"
	if len(parts) > 0 {
		desc = strings.Join(parts, "; ")
	}
	fmt.Fprintf(stdout, "%s schedule: %d of %d scheduling choices differ from the in-order one (%d runs to shrink): %s; replay it with --seed %d --async %s --schedule %s\n",
		done, len(keep), total, runs, desc, l.Seed, l.Async, orNeutral(emu.FormatSchedule(forced(keep))))
}

func orNeutral(s string) string {
	if s == "" {
		return "neutral"
	}
	return s
}

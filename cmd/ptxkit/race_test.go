package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// raceSchedules are the (seed, --async) pairs the race tests run under:
// the default schedule first.
var raceSchedules = []struct {
	seed  int
	async string
}{{0, "eager"}, {3, "delayed"}, {5, "random"}, {11, "random"}}

// raceKernel is one kernel of testdata/race: its launch flags and the
// verdict it must get under every schedule: "clean", or the sanitizer
// rules of which one must be reported ("data-race", or "data-race
// mbarrier-uninit" when the schedule decides which of the two is seen
// first).
type raceKernel struct {
	path   string
	expect []string
	args   []string
}

func readRaceKernels(t *testing.T) []raceKernel {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "race", "*.ptx"))
	if len(files) < 16 {
		t.Fatalf("found %d race kernels", len(files))
	}
	var out []raceKernel
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		k := raceKernel{path: f}
		for _, line := range strings.Split(string(src), "\n") {
			if v, ok := strings.CutPrefix(line, "// expect: "); ok {
				k.expect = strings.Fields(v)
			}
			if v, ok := strings.CutPrefix(line, "// args: "); ok {
				k.args = strings.Fields(v)
			}
		}
		if len(k.expect) == 0 {
			t.Fatalf("%s: no // expect: line", f)
		}
		out = append(out, k)
	}
	return out
}

// TestRaceKernels runs each pair of testdata/race (a kernel with one race
// and its minimal fix) under --race: the racy one must be reported under
// every schedule, the fixed one never.
func TestRaceKernels(t *testing.T) {
	for _, k := range readRaceKernels(t) {
		t.Run(filepath.Base(k.path), func(t *testing.T) {
			for _, s := range raceSchedules {
				args := append([]string{"run", k.path, "--race", "--dump", "none", "--seed", strconv.Itoa(s.seed), "--async", s.async}, k.args...)
				code, out, errs := runCmd(t, "", args...)
				if k.expect[0] == "clean" {
					if code != exitOK {
						t.Fatalf("seed %d --async %s: exit %d, want a clean run\n%s%s", s.seed, s.async, code, out, errs)
					}
					continue
				}
				found := false
				for _, rule := range k.expect {
					found = found || strings.Contains(out+errs, "["+rule+"]")
				}
				if code != exitSanitize || !found {
					t.Fatalf("seed %d --async %s: exit %d, want a report of %v\n%s%s", s.seed, s.async, code, k.expect, out, errs)
				}
			}
		})
	}
}

// raceDefaultOnly are the reference launches that run only under the
// default schedule, to keep the test short: the two longest. curandDraws
// uses no shared memory and no asynchronous operation; mm_tiled's
// bar.sync-separated tile phases are the idiom transpose_tiled and
// scan_block exercise under two schedules.
var raceDefaultOnly = map[string]bool{"curandDraws": true, "mm_tiled": true}

// TestRaceReferenceClean runs every launch of the H100 reference set and
// every kernel of testdata/emu with --race: none may report a race, under
// the default schedule and one other (a different one per launch, so that
// together they cover every --async policy).
func TestRaceReferenceClean(t *testing.T) {
	runs := 0
	check := func(name string, args []string, i int) {
		scheds := raceSchedules[:1]
		if !testing.Short() && i >= 0 {
			scheds = append(scheds, raceSchedules[1+i%(len(raceSchedules)-1)])
		}
		for _, s := range scheds {
			full := append(append([]string{}, args...), "--race", "--seed", strconv.Itoa(s.seed), "--async", s.async, "--timeout", "0")
			code, out, errs := runCmd(t, "", full...)
			if code != exitOK {
				t.Errorf("%s seed %d --async %s: exit %d\n%s%s", name, s.seed, s.async, code, tail(out), errs)
			}
			runs++
		}
	}
	if _, err := os.Stat(gpuRefDir); err == nil {
		for i, g := range readGPULaunches(t) {
			if raceDefaultOnly[g.Name] {
				i = -1
			}
			check(g.Name, g.command(t.TempDir()), i)
		}
		// The grid-wide barrier of cooperative groups: fences, atomics and
		// volatile polling across clusters.
		check("grid_sync", []string{"run", filepath.Join(gpuRefDir, "ptx", "warp.ptx"), "--kernel", "grid_sync", "--grid", "8",
			"--block", "128", "--cooperative", "--arg", "buf:40000", "--arg", "10000", "--dump", "none"}, 0)
		check("recursion", []string{"run", filepath.Join(gpuRefDir, "ptx", "basics.ptx"), "--kernel", "recursion", "--grid", "4",
			"--block", "128", "--arg", "file:" + filepath.Join(gpuRefDir, "inputs", "u16k.bin"), "--arg", "buf:2048", "--dump", "none"}, 1)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "emu", "*", "*.args"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "emu", "*.args"))
	files = append(files, more...)
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"run", strings.TrimSuffix(f, ".args") + ".ptx"}, strings.Fields(string(b))...)
		for j, a := range args {
			if a == "--trace" {
				args[j] = "--stats"
			}
		}
		check(f, append(args, "--dump", "none"), i)
	}
	if runs < 20 {
		t.Fatalf("only %d runs", runs)
	}
}

// tail returns the last lines of a long output.
func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}

// TestRunExplore checks --explore: a kernel whose result depends on the
// schedule is caught with the flags that replay it, a correct one runs
// every schedule, and a bad count is a usage error.
func TestRunExplore(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "race")
	code, out, errs := runCmd(t, "", "run", filepath.Join(dir, "dsmem_reuse_race.ptx"), "--grid", "2", "--block", "32", "--cluster", "2",
		"--arg", "buf:256", "--explore", "20")
	if code != exitSanitize || !strings.Contains(out, "stored a different result") || !strings.Contains(out, "replay it with --seed") {
		t.Fatalf("racy kernel without --race: exit %d\n%s%s", code, out, errs)
	}
	// The shortest schedule: its flags replay a result different from
	// the default schedule's.
	_, flags, ok := strings.Cut(out, "shortest schedule: ")
	if !ok || !strings.Contains(flags, "--schedule ") {
		t.Fatalf("no shortest schedule:\n%s", out)
	}
	_, flags, _ = strings.Cut(flags, "replay it with ")
	launchArgs := []string{"run", filepath.Join(dir, "dsmem_reuse_race.ptx"), "--grid", "2", "--block", "32", "--cluster", "2", "--arg", "buf:256"}
	_, first, _ := runCmd(t, "", launchArgs...)
	_, replayed, _ := runCmd(t, "", append(launchArgs, strings.Fields(flags)...)...)
	if first == replayed {
		t.Fatalf("the shortest schedule (%s) stores what the default schedule stores:\n%s", strings.TrimSpace(flags), replayed)
	}
	// Under --race the race shows whatever the order: the shortest
	// schedule is the in-order one.
	code, out, errs = runCmd(t, "", "run", filepath.Join(dir, "shared_nobar_race.ptx"), "--block", "64", "--arg", "buf:256", "--seed", "3",
		"--async", "random", "--explore", "1", "--race")
	if code != exitSanitize || !strings.Contains(out, "shortest schedule: 0 of ") || !strings.Contains(out, "--schedule neutral") {
		t.Fatalf("racy kernel with --race from seed 3: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "run", filepath.Join(dir, "dsmem_reuse_race.ptx"), "--grid", "2", "--block", "32", "--cluster", "2",
		"--arg", "buf:256", "--explore", "20", "--race")
	if code != exitSanitize || !strings.Contains(out, "schedule 0 of 20 reported data-race; replay it with --seed 0 --async eager") {
		t.Fatalf("racy kernel with --race: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "run", filepath.Join(dir, "shared_nobar_fixed.ptx"), "--block", "64", "--arg", "buf:256", "--explore", "12", "--race")
	if code != exitOK || !strings.Contains(out, "explored 12 schedules after the first (--seed 1 to 12, --async random)") {
		t.Fatalf("fixed kernel: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs = runCmd(t, "", "run", filepath.Join(dir, "shared_nobar_fixed.ptx"), "--explore", "-1"); code != exitUsage || !strings.Contains(errs, "--explore -1") {
		t.Fatalf("--explore -1: exit %d, %s", code, errs)
	}
}

// BenchmarkRaceOverhead runs each reference launch in-process without and
// with --race (BENCHMARKS.md, "The race detector").
func BenchmarkRaceOverhead(b *testing.B) {
	for _, g := range readGPULaunches(b) {
		for _, mode := range []string{"plain", "race"} {
			b.Run(g.Name+"/"+mode, func(b *testing.B) {
				args := append(g.command(b.TempDir()), "--timeout", "0")
				if mode == "race" {
					args = append(args, "--race")
				}
				for b.Loop() {
					var out, errs bytes.Buffer
					if code := run(args, strings.NewReader(""), &out, &errs); code != exitOK {
						b.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
					}
				}
			})
		}
	}
}

// TestRaceReportNamesBoth checks what a race report says: both accesses
// with their thread, instruction, PTX position and .loc source line, the
// space and address, and a fix.
func TestRaceReportNamesBoth(t *testing.T) {
	code, out, errs := runCmd(t, "", "run", filepath.Join("..", "..", "testdata", "race", "loc_lines_race.ptx"), "--block", "64", "--race")
	if code != exitSanitize {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"data race on shared memory offset 0x0 of CTA rank 0",
		"a load reads what was written by a store by thread (0,0,0) of CTA (0,0,0)",
		"loc_lines_race.ptx:25:2 [/src/kernel.cu:12:5] (st.shared.u32)",
		"in ld.shared.u32 by thread (32,0,0) of CTA (0,0,0) [cluster (0,0,0) rank 0, warp 1 lane 0]",
		"this access is at /src/kernel.cu:14:7 in the source (.loc)",
		"fix: put bar.sync (__syncthreads) between the accesses",
		"[data-race]",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("the report lacks %q:\n%s", want, errs)
		}
	}
}

// TestRaceSharedOverrun: a store that runs one element past shared array
// a lands on the first bytes of array b; whichever warp stores first, the
// race is reported on b's bytes (the variable that holds them, not the
// one the address was computed from).
func TestRaceSharedOverrun(t *testing.T) {
	for _, s := range raceSchedules {
		code, out, errs := runCmd(t, "", "run", filepath.Join("..", "..", "testdata", "race", "shared_overrun_race.ptx"), "--block", "64",
			"--arg", "buf:256", "--race", "--seed", strconv.Itoa(s.seed), "--async", s.async)
		if code != exitSanitize {
			t.Fatalf("seed %d: exit %d\n%s%s", s.seed, code, out, errs)
		}
		for _, want := range []string{"data race on shared memory offset 0x80 of CTA rank 0 (b+0x0)", "st.shared.u32", "warp 0 lane 31", "warp 1 lane 0"} {
			if !strings.Contains(errs, want) {
				t.Errorf("seed %d: the report lacks %q:\n%s", s.seed, want, errs)
			}
		}
	}
}

package emu

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/internal/testref"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// raceFingerprint is fingerprint plus the race detector's shadow: its
// size and records, which the warp-level hook must leave as the per-lane
// path leaves them.
func raceFingerprint(res *Result) string {
	m := res.Stats.RaceShadow
	return fmt.Sprintf("%sshadow %d/%d peak %d/%d records %d collections %d\n", fingerprint(res),
		m.Shadow, m.Shadowed, m.PeakShadow, m.PeakShadowed, m.Records, m.Collections)
}

// raceKernelLaunch reads a kernel of testdata/race and its "// args:"
// line (--grid, --block, --cluster, --arg buf:N[:fill=B], --arg
// tmap:u32,dims=AxB,box=CxD,buf=I).
func raceKernelLaunch(t *testing.T, path string) (*Program, Config, func() []Arg) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseString(filepath.Base(path), string(src))
	if errs.HasErrors() {
		t.Fatalf("%s: %v", path, errs.Err())
	}
	p, errs := Decode(m, "")
	if errs.HasErrors() {
		t.Fatalf("%s: %v", path, errs.Err())
	}
	cfg := Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1), Cluster: dims(1, 1, 1), Race: true, MaxSteps: 1 << 20}
	var specs []string
	for _, line := range strings.Split(string(src), "\n") {
		v, ok := strings.CutPrefix(line, "// args: ")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		for i := 0; i+1 < len(f); i += 2 {
			n, _ := strconv.Atoi(f[i+1])
			switch f[i] {
			case "--grid":
				cfg.Grid[0] = n
			case "--block":
				cfg.Block[0] = n
			case "--cluster":
				cfg.Cluster[0] = n
			case "--arg":
				specs = append(specs, f[i+1])
			default:
				t.Fatalf("%s: flag %s", path, f[i])
			}
		}
	}
	args := func() []Arg {
		var out []Arg
		for _, s := range specs {
			out = append(out, raceTestArg(t, s))
		}
		return out
	}
	return p, cfg, args
}

// raceTestArg converts the --arg forms the race kernels use.
func raceTestArg(t *testing.T, s string) Arg {
	t.Helper()
	if v, ok := strings.CutPrefix(s, "buf:"); ok {
		size, fill, _ := strings.Cut(v, ":fill=")
		n, err := strconv.Atoi(size)
		b, err2 := strconv.Atoi("0" + fill)
		if err != nil || err2 != nil {
			t.Fatalf("argument %q", s)
		}
		return Arg{IsBuffer: true, Size: n, Fill: byte(b)}
	}
	if v, ok := strings.CutPrefix(s, "tmap:u32,"); ok {
		m := tensormap.Map{Type: tensormap.U32, Rank: 2}
		var of int
		for _, kv := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			x, y, _ := strings.Cut(val, "x")
			a, _ := strconv.Atoi(x)
			b, _ := strconv.Atoi(y)
			switch k {
			case "dims":
				m.Dims[0], m.Dims[1] = uint64(a), uint64(b)
			case "box":
				m.Box[0], m.Box[1] = uint32(a), uint32(b)
			case "buf":
				of = a
			default:
				t.Fatalf("argument %q", s)
			}
		}
		m.Strides[0] = 4 * m.Dims[0]
		m.ElemStrides[0], m.ElemStrides[1] = 1, 1
		if err := m.Validate(); err != nil {
			t.Fatalf("argument %q: %v", s, err)
		}
		return Arg{TensorMap: &m, MapOf: of}
	}
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("argument %q", s)
	}
	return scalar(n)
}

// raceBothWays runs a launch with the warp-level race hook on and off and
// fails unless reports, statistics, memory and shadow are the same; it
// returns the warp-instructions the hook checked.
func raceBothWays(t *testing.T, name string, p *Program, cfg Config, args func() []Arg) int {
	t.Helper()
	defer func() { raceWarpChecks = true }()
	var got [2]string
	hits := 0
	for i, on := range []bool{true, false} {
		raceWarpChecks = on
		res, err := execute(p, cfg, args())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[i] = raceFingerprint(res)
		if on {
			hits = res.Stats.RaceShadow.WarpChecks
		} else if res.Stats.RaceShadow.WarpChecks != 0 {
			t.Fatalf("%s: %d warp checks with the hook off", name, res.Stats.RaceShadow.WarpChecks)
		}
	}
	if !cfg.KeepGoing && strings.Contains(got[0], RuleMaxSteps) {
		t.Errorf("%s: the step bound ended the run", name)
	}
	if got[0] != got[1] {
		t.Errorf("%s: the warp-level hook changes the run\nwith it:\n%s\nper lane:\n%s", name, got[0], got[1])
	}
	return hits
}

// TestRaceWarpHookSameReports runs every kernel of testdata/race (each
// race and its fix) under four schedules, stopping at the first report
// and going on after it, and the reference launches that use shared
// memory under the default schedule, with the warp-level race hook and
// with the per-lane path: the reports (thread, instruction, message),
// statistics, memory and the detector's shadow must be identical, and
// the hook must have checked the converged accesses.
func TestRaceWarpHookSameReports(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "race", "*.ptx"))
	if len(files) < 16 {
		t.Fatalf("found %d race kernels", len(files))
	}
	hits, racyHits := 0, 0
	for _, f := range files {
		p, cfg, args := raceKernelLaunch(t, f)
		for _, s := range []struct {
			seed  uint64
			async AsyncPolicy
			keep  bool
		}{{0, AsyncEager, false}, {3, AsyncDelayed, true}, {5, AsyncRandom, false}, {11, AsyncRandom, false}} {
			c := cfg
			c.Seed, c.Async, c.KeepGoing = s.seed, s.async, s.keep
			if s.keep {
				// A racy kernel that keeps going may spin on a flag
				// whose store the race suppressed: a small step bound
				// ends it, the same way both ways.
				c.MaxSteps = 4000
			}
			n := raceBothWays(t, fmt.Sprintf("%s seed %d keep %v", filepath.Base(f), s.seed, s.keep), p, c, args)
			hits += n
			if strings.HasSuffix(f, "_race.ptx") {
				racyHits += n
			}
		}
	}
	if hits == 0 || racyHits == 0 {
		t.Fatalf("the warp-level hook checked %d warp-instructions (%d in racy kernels)", hits, racyHits)
	}
	if testing.Short() {
		return
	}
	dir := gpuRefDir(t)
	rows, err := testref.Launches(filepath.Join(dir, "launches.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, row := range rows {
		cfg, ok := refConfig(row)
		// The launches the hook matters most for, kept short: shared
		// memory tiles and reductions.
		if !ok || !strings.Contains(row.Name, "tiled") && !strings.Contains(row.Name, "reduce") && !strings.Contains(row.Name, "scan") {
			continue
		}
		p := gpuRefProgram(t, dir, filepath.Base(row.PTX), row.Kernel)
		cfg.Race = true
		if raceBothWays(t, row.Name, p, cfg, func() []Arg { return refArgs(t, dir, row.Args) }) == 0 {
			t.Errorf("%s: the warp-level hook checked nothing", row.Name)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("%d reference launches compared", ran)
	}
}

package main

import (
	"cmp"
	_ "embed"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/timeline"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// exampleName and exampleSrc are the built-in program "ptxkit run" runs
// without a file, with exampleArgs as its launch.
const exampleName = "example.ptx"

//go:embed run_example.ptx
var exampleSrc []byte

var exampleArgs = []string{"--grid", "2", "--block", "32", "--cluster", "2", "--arg", "buf:32", "--dump", "u32", "--async", "delayed", "--trace"}

func init() {
	commands["run"] = command{"emulate a kernel launch and report what it stored", runRun}
}

// runOptions are the parsed flags of ptxkit run.
type runOptions struct {
	kernel    string
	grid      string
	block     string
	cluster   string
	shared    int
	heap      int
	args      []string
	out       string
	stats     bool
	seed      uint64
	jobs      int
	maxSteps  stepsFlag
	maxLaunch stepsFlag
	timeout   durationFlag
	heartbeat durationFlag
	async     *choiceFlag
	dump      string
	dumpBytes int
	noCheck   bool
	strict    bool
	trace     bool
	tmemSVG   string             // --tmem-svg FILE.svg
	timeline  string             // --timeline FILE.json
	tl        *timeline.Recorder // its recorder during the run
	tlLaunch  *timeline.Launch   // the run's launch in it
	outs      runOutputs
	dumpTMEM  string // %ctaid whose Tensor Memory to print, "" for none
	target    *targetFlag
	ptx       *versionFlag
	coop      bool
	format    *choiceFlag // --format: text or json
	race      bool
	explore   int
	schedule  string
	keepGoing bool // --keep-going
	maxReps   int  // --max-reports
}

const runUsage = `usage: ptxkit run [FILE.ptx] [--kernel NAME] [--grid X[,Y[,Z]]] [--block X[,Y[,Z]]] [--cluster X[,Y[,Z]]]
                  [--shared-bytes N] [--arg VALUE]... [--out DIR] [--stats] [--seed N] [--jobs N]
                  [--max-steps N] [--max-launch-steps N] [--timeout D] [--target sm_XX] [--ptx X.Y] [--cooperative]
                  [--heap-bytes N] [--race] [--explore N] [--schedule LIST] [--keep-going [--max-reports N]]

Emulates one kernel launch and reports what it stored. Without FILE it runs
a built-in example. Exit status: 0 ok, 1 invalid program, 2 usage or I/O
error, 3 the run stopped early: undefined behaviour, a deadlock, a budget
spent (--max-steps, --timeout) or something the emulator does not support.
With --keep-going the run goes on after a report it can continue from (the
faulting access is suppressed) and reports each distinct problem once, with
how many times it was hit; exit status 3 still says a report was made.`

// launchShapeFlags defines the flags run and gpu-diff share: the kernel,
// the launch's shape and its arguments.
func launchShapeFlags(fs *flag.FlagSet, o *runOptions) {
	fs.StringVar(&o.kernel, "kernel", "", "kernel to launch (default: the first .entry)")
	fs.StringVar(&o.grid, "grid", "1", "CTAs per grid: X[,Y[,Z]]")
	fs.StringVar(&o.block, "block", "32", "threads per CTA: X[,Y[,Z]]")
	fs.StringVar(&o.cluster, "cluster", "1", "CTAs per cluster: X[,Y[,Z]]")
	fs.IntVar(&o.shared, "shared-bytes", 0, "dynamic shared memory per CTA in bytes")
	fs.Func("arg", "kernel argument, in order: a number, buf:SIZE, buf:SIZE:fill=BYTE, file:PATH, hex:BYTES (a parameter's raw bytes, for structs), tex:WxH:TYPExC[:options] or surf:WxH:TYPExC[:file=PATH] (a texture or surface object; docs/emu.md), or "+tmapUsage+" (a tensor map of buffer argument N, or of a buffer of its own, for a 128-byte parameter)", func(s string) error {
		o.args = append(o.args, s)
		return nil
	})
}

func runFlags(o *runOptions) *commandLine {
	cl := newCommandLine("run", runUsage)
	fs := cl.fs
	launchShapeFlags(fs, o)
	fs.IntVar(&o.heap, "heap-bytes", 0, "device heap of malloc/free in bytes (0: 8 MiB, CUDA's default)")
	fs.BoolVar(&o.coop, "cooperative", false, "a cooperative launch: every CTA resident at once, with the grid workspace cooperative_groups::grid_group::sync needs")
	fs.BoolVar(&o.race, "race", false, "detect data races (happens-before, PTX memory model; docs/race.md); clusters run one at a time")
	fs.StringVar(&o.schedule, "schedule", "", "force the scheduling choices CLUSTER:POS=VALUE,... (as --explore prints a shortest schedule), every other choice in order")
	fs.IntVar(&o.explore, "explore", 0, "after the run, try N more schedules (--seed+1.. with --async random), stopping at the first report or different result")
	fs.BoolVar(&o.keepGoing, "keep-going", false, "go on after a report that can be continued from (the faulting access is suppressed; deadlock, trap, assert, a budget or something unsupported still stop) and report every distinct problem once, with a count (docs/emu.md)")
	fs.IntVar(&o.maxReps, "max-reports", emu.DefaultMaxReports, "with --keep-going: report at most N distinct problems, counting what is left out")
	fs.StringVar(&o.out, "out", "", "write each buffer argument's final bytes to DIR/argN.bin")
	fs.BoolVar(&o.stats, "stats", false, "print instruction counts, bytes stored per space and wall time")
	fs.Uint64Var(&o.seed, "seed", 0, "warp scheduling seed (0: round-robin)")
	fs.IntVar(&o.jobs, "jobs", 1, "clusters emulated in parallel")
	fs.Var(&o.maxSteps, "max-steps", "warp-instructions per cluster before stopping (default 2^26; 0: no limit)")
	fs.Var(&o.maxLaunch, "max-launch-steps", "warp-instructions of all clusters together before stopping, each warp started counting 64 (default: 2^32 or --max-steps if larger; 0: no limit)")
	o.timeout, o.heartbeat = durationFlag(defaultTimeout), durationFlag(defaultHeartbeat)
	fs.Var(&o.timeout, "timeout", "wall-clock budget of the launch (0: no limit)")
	fs.Var(&o.heartbeat, "heartbeat", "print progress on standard error this often during a long run (0: never); a bar when it is a terminal")
	o.async = newChoice("eager", "eager", "delayed", "random")
	fs.Var(o.async, "async", "when asynchronous operations land: eager, delayed or random")
	fs.StringVar(&o.dump, "dump", "hex", "how to print buffers: hex, u8, u16, u32, i32, u64, f32, f64 or none")
	fs.IntVar(&o.dumpBytes, "dump-bytes", 256, "print at most this many bytes of each buffer (0: all)")
	fs.BoolVar(&o.noCheck, "no-check", false, "skip validation before emulating")
	fs.BoolVar(&o.strict, "strict", false, "validate as check --strict: forms ptxas accepts against the ISA pages are errors")
	fs.BoolVar(&o.trace, "trace", false, "print when each asynchronous operation is issued, lands and has its completion observed")
	fs.StringVar(&o.timeline, "timeline", "", "write the run's timeline (warps' waits, asynchronous operations, bytes in flight) to FILE.json in the Chrome/Perfetto trace-event format")
	fs.StringVar(&o.dumpTMEM, "dump-tmem", "", "print the Tensor Memory of CTA X[,Y[,Z]] (its %ctaid) as it was at exit or where the run stopped")
	fs.StringVar(&o.tmemSVG, "tmem-svg", "", "draw the Tensor Memory of the --dump-tmem CTA (default 0) to FILE.svg: lanes by columns, each cell coloured by the instruction and warp that last wrote it")
	o.target, o.ptx = targetFlags(fs)
	o.format = newChoice("text", "text", "json")
	fs.Var(o.format, "format", "output: text, or json (one object on standard output; docs/emu.md)")
	return cl
}

// runRun implements "ptxkit run".
func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o runOptions
	pos, status, ok := runFlags(&o).parse(args, stdout, stderr)
	if !ok {
		return status
	}
	var err error
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "ptxkit run: one FILE at most, got %d\n", len(pos))
		return exitUsage
	}
	name, src := exampleName, exampleSrc
	if len(pos) == 1 {
		name = pos[0]
		if src, err = readBounded(name, stdin, maxPTXBytes); err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
	} else {
		fmt.Fprintf(stdout, "no FILE given: running the built-in example (%s)\n", strings.Join(exampleArgs, " "))
		o2 := o
		if _, err := parseInterspersed(runFlags(&o2).fs, exampleArgs); err != nil {
			fmt.Fprintf(stderr, "ptxkit run: built-in example: %v\n", err)
			return exitUsage
		}
		o.grid, o.block, o.cluster, o.args = o2.grid, o2.block, o2.cluster, o2.args
		o.dump, o.trace, o.async = o2.dump, o2.trace, o2.async
		fmt.Fprintf(stdout, "%s", exampleSrc)
	}
	return runProgram(name, src, &o, stdout, stderr)
}

func runProgram(name string, src []byte, o *runOptions, stdout, stderr io.Writer) int {
	defer o.outs.closeAll()                                         // files a failed run did not write
	if errs := emu.Prescan(name, src, o.kernel); errs.HasErrors() { // over a limit: refuse before parsing
		diag.WriteText(stderr, errs)
		return decodeStatus(errs)
	}
	m, errs := parser.ParseFile(name, src)
	var info *resolve.Info
	if !errs.HasErrors() {
		if o.noCheck {
			var rerrs diag.List
			info, rerrs = resolve.Module(m)
			errs = append(errs, rerrs...)
		} else {
			var l diag.List
			info, l = check.ModuleInfo(m, check.Config{Target: string(*o.target), PTX: string(*o.ptx), Strict: o.strict}) // resolved once, for both
			errs = append(errs, l...)
		}
	}
	if errs.HasErrors() {
		errs.Sort()
		o.writeDiags(stdout, stderr, errs)
		return exitFail
	}
	prog, derrs := emu.DecodeResolved(m, info, o.kernel)
	if derrs.HasErrors() {
		o.writeDiags(stdout, stderr, derrs)
		return decodeStatus(derrs)
	}
	l, trace, err := o.launch(prog)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
		return exitUsage
	}
	if o.explore > 0 {
		printLaunch(stdout, prog, &l.Config)
		return explore(l, o.explore, stdout, stderr)
	}
	progress := startProgress(stderr, l.Monitor, clusterCount(&l.Config), time.Duration(o.heartbeat))
	res, err := l.Run()
	progress.stop()
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
		return exitUsage
	}
	if o.format.value == "json" {
		return o.finishJSON(name, prog, l, res, stdout, stderr)
	}
	printLaunch(stdout, prog, &l.Config)
	if len(res.Reports) > 0 {
		printKept(stdout, stderr, prog, res)
	} else if res.Report != nil {
		fmt.Fprintf(stderr, "%v\n", res.Report)
		if src := prog.SourceOf(res.Report.Pos); src != "" {
			fmt.Fprintf(stderr, "  source: %s (.loc)\n", src)
		}
		if r := res.Report.Rule; r == emu.RuleMaxSteps || r == emu.RuleTimeout {
			fmt.Fprintln(stderr, "  the kernel may never end; --max-steps, --max-launch-steps and --timeout raise the budgets (0: no limit)")
		}
		fmt.Fprintln(stdout, stopLine(res.Report.Rule))
	} else {
		fmt.Fprintln(stdout, "completed")
	}
	if out := res.Stats.Printf; len(out) > 0 {
		fmt.Fprintln(stdout, "device printf output:")
		stdout.Write(out)
		if out[len(out)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
	}
	if o.dump != "none" {
		for i, r := range res.Buffers {
			if r != nil {
				if err := dumpBuffer(stdout, i, r.Data, o.dump, o.dumpBytes); err != nil {
					fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
					return exitUsage
				}
			}
		}
	}
	trace.print(stdout)
	if o.tl != nil {
		o.tlLaunch.End(res)
		err := writeTimeline(o.outs.timeline, o.tl)
		o.outs.timeline = nil
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
	}
	if l.TMEMOf != nil && o.dumpTMEM != "" {
		printTMEM(stdout, *l.TMEMOf, res.TMEM)
	}
	if o.tmemSVG != "" {
		err := writeTMEMSVG(o.outs.tmem, prog, res.TMEM, *l.TMEMOf)
		o.outs.tmem = nil
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
	}
	if o.stats {
		printStats(stdout, &res.Stats)
	}
	if o.out != "" {
		if err := writeBuffers(o.out, res.Buffers); err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
	}
	if res.Report != nil {
		return exitSanitize
	}
	return exitOK
}

// launch builds and checks the launch the flags describe, with its
// observers: the --trace recorder (nil without --trace) and the
// --dump-tmem request.
func (o *runOptions) launch(prog *emu.Program) (*emu.Launch, *asyncTrace, error) {
	cfg, err := o.config()
	if err != nil {
		return nil, nil, err
	}
	if err := o.checkOutput(); err != nil {
		return nil, nil, err
	}
	if err := o.openOutputs(); err != nil {
		return nil, nil, err
	}
	l := &emu.Launch{Kernel: prog, Config: cfg}
	if o.dumpTMEM != "" || o.tmemSVG != "" {
		id, err := parseCTAID(cmp.Or(o.dumpTMEM, "0"))
		if err != nil {
			return nil, nil, err
		}
		l.TMEMOf = &id
	}
	if l.Args, err = kernelArgs(prog, o.args); err != nil {
		return nil, nil, err
	}
	var trace *asyncTrace
	if o.trace {
		trace = new(asyncTrace)
		l.Trace = trace.add
	}
	if o.timeline != "" {
		o.tl = timeline.New()
		o.tlLaunch = o.tl.Attach(l, 0)
	}
	return l, trace, l.Check()
}

// writeTimeline writes the trace of rec to f (the --timeline file,
// created before the run) and closes it.
func writeTimeline(f io.WriteCloser, rec *timeline.Recorder) error {
	if err := rec.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("--timeline: %v", err)
	}
	return f.Close()
}

func (o *runOptions) config() (emu.Config, error) {
	var cfg emu.Config
	var err error
	if cfg.Grid, err = parseDims("--grid", o.grid); err != nil {
		return cfg, err
	}
	if cfg.Block, err = parseDims("--block", o.block); err != nil {
		return cfg, err
	}
	if cfg.Cluster, err = parseDims("--cluster", o.cluster); err != nil {
		return cfg, err
	}
	if cfg.Async, err = parseAsyncPolicy(o.async.value); err != nil {
		return cfg, err
	}
	if o.shared < 0 {
		return cfg, fmt.Errorf("--shared-bytes %d: want a byte count of 0 or more", o.shared)
	}
	if o.jobs < 1 {
		return cfg, fmt.Errorf("--jobs must be at least 1")
	}
	if o.heap < 0 {
		return cfg, fmt.Errorf("--heap-bytes %d: want a byte count of 0 or more", o.heap)
	}
	if o.explore < 0 || o.explore > 1<<20 {
		return cfg, fmt.Errorf("--explore %d: want a number of schedules from 0 to %d", o.explore, 1<<20)
	}
	cfg.SharedBytes, cfg.HeapBytes, cfg.Seed, cfg.Jobs = o.shared, o.heap, o.seed, o.jobs
	if o.schedule != "" {
		force, err := emu.ParseSchedule(o.schedule)
		if err != nil {
			return cfg, err
		}
		cfg.Schedule = &emu.Schedule{Force: force}
	}
	cfg.MaxSteps = o.maxSteps.budget(defaultMaxSteps)
	cfg.MaxLaunchSteps = o.maxLaunch.budget(0) // 0: emu's default
	cfg.Timeout = time.Duration(o.timeout)
	cfg.Monitor = new(emu.Monitor)
	cfg.Cooperative = o.coop
	cfg.Race = o.race
	if o.keepGoing && (o.maxReps < 1 || o.maxReps > maxReportsLimit) {
		return cfg, fmt.Errorf("--max-reports %d: want a number of reports from 1 to %d", o.maxReps, maxReportsLimit)
	}
	cfg.KeepGoing, cfg.MaxReports = o.keepGoing, o.maxReps
	return cfg, nil
}

// dumpSizes maps the --dump element types to their sizes in bytes.
var dumpSizes = map[string]int{"u8": 1, "u16": 2, "u32": 4, "i32": 4, "f32": 4, "u64": 8, "f64": 8}

// checkOutput rejects bad output flags before the run, so that a long
// emulation is not wasted on them; it creates the --out directory.
func (o *runOptions) checkOutput() error {
	if o.dump != "hex" && o.dump != "none" && dumpSizes[o.dump] == 0 {
		return fmt.Errorf("unknown --dump %q (want hex, u8, u16, u32, i32, u64, f32, f64 or none)", o.dump)
	}
	if o.dumpBytes < 0 {
		return fmt.Errorf("--dump-bytes %d: want 0 (all) or a positive byte count", o.dumpBytes)
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return fmt.Errorf("--out: %v", err)
		}
	}
	return nil
}

// parseDims parses "X[,Y[,Z]]" with every dimension >= 1.
func parseDims(flagName, s string) ([3]int, error) {
	d := [3]int{1, 1, 1}
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return d, fmt.Errorf("%s %q: at most three dimensions", flagName, s)
	}
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 || v > 1<<31-1 {
			return d, fmt.Errorf("%s %q: dimensions are positive integers", flagName, s)
		}
		d[i] = v
	}
	return d, nil
}

// maxPTXBytes bounds the PTX source read by ptxkit run: the syntax tree
// takes about 18 times the source, and a kernel of the most instructions
// the emulator decodes (1<<20) is about 22 MiB of PTX.
const maxPTXBytes = 32 << 20

func printLaunch(w io.Writer, p *emu.Program, c *emu.Config) {
	n := c.Grid[0] * c.Grid[1] * c.Grid[2] * c.Block[0] * c.Block[1] * c.Block[2]
	fmt.Fprintf(w, "kernel %s: grid (%d,%d,%d) x block (%d,%d,%d), cluster (%d,%d,%d): %d threads\n",
		p.Kernel, c.Grid[0], c.Grid[1], c.Grid[2], c.Block[0], c.Block[1], c.Block[2],
		c.Cluster[0], c.Cluster[1], c.Cluster[2], n)
}

func printStats(w io.Writer, s *emu.Stats) {
	fmt.Fprintf(w, "instructions: %d warp-level, %d thread-level\n", s.WarpInsts, s.ThreadInsts)
	fmt.Fprintf(w, "bytes stored:")
	for sp := emu.SpaceGlobal; sp <= emu.SpaceParamFunc; sp++ {
		if s.Stored[sp] > 0 {
			fmt.Fprintf(w, " %s %d", sp, s.Stored[sp])
		}
	}
	fmt.Fprintln(w)
	secs := s.Wall.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(s.ThreadInsts) / secs / 1e6
	}
	fmt.Fprintf(w, "wall time: %.3fs (%.1f million thread-instructions/s)\n", secs, rate)
	if m := s.RaceShadow; m.PeakShadowed > 0 {
		fmt.Fprintf(w, "race shadow: %d bytes at the peak for %d bytes of memory shadowed (%.2fx); %d records, %d collections\n",
			m.PeakShadow, m.PeakShadowed, float64(m.PeakShadow)/float64(m.PeakShadowed), m.Records, m.Collections)
	}
}

func writeBuffers(dir string, bufs []*emu.Region) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, r := range bufs {
		if r == nil {
			continue
		}
		if err := writeOutFile(filepath.Join(dir, fmt.Sprintf("arg%d.bin", i)), r.Data); err != nil {
			return err
		}
	}
	return nil
}

// dumpBuffer prints a buffer as hex lines (with ASCII) or typed values,
// skipping repeated all-zero lines.
func dumpBuffer(w io.Writer, idx int, b []byte, how string, limit int) error {
	shown := b
	if limit > 0 && len(shown) > limit {
		shown = shown[:limit]
	}
	fmt.Fprintf(w, "arg%d: %d bytes", idx, len(b))
	if len(shown) < len(b) {
		fmt.Fprintf(w, " (first %d shown; --dump-bytes 0 shows all)", len(shown))
	}
	fmt.Fprintln(w)
	if how == "hex" {
		zeros := false
		for off := 0; off < len(shown); off += 16 {
			line := shown[off:min(off+16, len(shown))]
			if allZero(line) && off > 0 && off+16 < len(shown) {
				if !zeros {
					fmt.Fprintln(w, "  *")
				}
				zeros = true
				continue
			}
			zeros = false
			fmt.Fprintf(w, "  %08x ", off)
			for j := range 16 {
				if j < len(line) {
					fmt.Fprintf(w, " %02x", line[j])
				} else {
					fmt.Fprint(w, "   ")
				}
			}
			fmt.Fprint(w, "  |")
			for _, c := range line {
				if c < 32 || c > 126 {
					c = '.'
				}
				fmt.Fprintf(w, "%c", c)
			}
			fmt.Fprintln(w, "|")
		}
		return nil
	}
	size := dumpSizes[how]
	if size == 0 {
		return fmt.Errorf("unknown --dump %q (want hex, u8, u16, u32, i32, u64, f32, f64 or none)", how)
	}
	per := 16 / size
	for i := 0; i+size <= len(shown); i += size {
		if (i/size)%per == 0 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "  [%d]", i/size)
		}
		e := shown[i : i+size]
		switch how {
		case "u8":
			fmt.Fprintf(w, " %d", e[0])
		case "u16":
			fmt.Fprintf(w, " %d", binary.LittleEndian.Uint16(e))
		case "u32":
			fmt.Fprintf(w, " %d", binary.LittleEndian.Uint32(e))
		case "i32":
			fmt.Fprintf(w, " %d", int32(binary.LittleEndian.Uint32(e)))
		case "f32":
			fmt.Fprintf(w, " %g", math.Float32frombits(binary.LittleEndian.Uint32(e)))
		case "u64":
			fmt.Fprintf(w, " %d", binary.LittleEndian.Uint64(e))
		case "f64":
			fmt.Fprintf(w, " %g", math.Float64frombits(binary.LittleEndian.Uint64(e)))
		}
	}
	if len(shown) >= size {
		fmt.Fprintln(w)
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

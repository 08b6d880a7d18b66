package emu

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptxkit/ptxkit/emu/race"
)

// Config describes a launch.
type Config struct {
	Grid    [3]int // CTAs per grid dimension
	Block   [3]int // threads per CTA dimension
	Cluster [3]int // CTAs per cluster dimension; zero means 1x1x1 (implicit)

	SharedBytes int    // dynamic shared memory per CTA
	HeapBytes   int    // device heap of malloc/free (0: DefaultHeapBytes)
	Seed        uint64 // scheduling seed: 0 runs warps round-robin, others shuffle them
	// Schedule records (or forces) the scheduling choices (schedule.go).
	Schedule *Schedule
	Jobs     int    // clusters emulated in parallel (0: 1)
	MaxSteps uint64 // warp-instructions per cluster before a max-steps report (0: 1<<32)
	// MaxLaunchSteps bounds the warp-instructions of all clusters together,
	// each warp started counting as 64 more (0: 1<<32, or MaxSteps when
	// that is larger); no cluster starts once they are spent.
	MaxLaunchSteps uint64
	Async          AsyncPolicy
	// Timeout is the launch's wall-clock budget (0: none): when it runs
	// out the launch stops with a RuleTimeout report.
	Timeout time.Duration
	// Monitor, when not nil, is updated as the launch runs and can stop it
	// (see Monitor).
	Monitor *Monitor
	// Cooperative makes a cooperative launch (cudaLaunchCooperativeKernel):
	// every CTA of the grid is resident at once, and the grid workspace the
	// CUDA runtime's grid_group::sync uses is passed in %envreg1/%envreg2
	// (coop.go).
	Cooperative bool
	// Race runs the happens-before data-race detector (emu/race,
	// docs/race.md): a race stops the run with a data-race report.
	// Clusters then run one at a time.
	Race bool
	// KeepGoing keeps a run going after a report that can be continued
	// from (Continuable): the faulting access is suppressed, and each
	// distinct problem is kept once with a count (Result.Reports, at most
	// MaxReports of them; 0: DefaultMaxReports).
	KeepGoing  bool
	MaxReports int

	gridWorkspace uint64     // address of the grid workspace of a cooperative launch
	obs           *observers // what watches the launch (set by normalize)
}

// maxLaunchBytes bounds the emulator's own memory for the state of the
// clusters it emulates at once (registers, local and shared memory, call
// stacks, Tensor Memory); --jobs is lowered to stay within it. It is a
// quarter of the machine's memory, at least 1 GiB and at most 8 GiB: a
// cooperative grid of 264 CTAs of 1,024 threads (what CUDA's occupancy
// calculator asks for on an H100) holds about 1.4 GiB of registers.
var maxLaunchBytes = launchBudget(physicalMemory())

// launchBudget is maxLaunchBytes for a machine with total bytes of
// memory (0: unknown).
func launchBudget(total uint64) uint64 {
	return min(max(total/4, 1<<30), 8<<30)
}

// maxGridCTAs bounds the CTAs of one launch: the emulator runs every CTA,
// so a larger grid would run for hours even with an empty kernel.
const maxGridCTAs = 1 << 24

// ctaOverheadBytes is the per-CTA state not counted by the register, local
// and shared sizes: Tensor Memory (about 264 KiB when used) and bookkeeping.
const ctaOverheadBytes = 320 << 10

// warpOverheadBytes is the per-warp state besides registers: the return
// address, callee and stack-pointer stacks of every lane.
const warpOverheadBytes = 3 * maxCallDepth * 32 * 4

// defaultMaxSteps is the per-cluster step budget when Config.MaxSteps is 0.
const defaultMaxSteps = 1 << 32

// defaultMaxLaunchSteps is the launch-wide step budget when
// Config.MaxLaunchSteps is 0 (or MaxSteps when that is larger): a grid of
// runaway clusters costs no more than one runaway cluster.
const defaultMaxLaunchSteps = 1 << 32

// warpStartSteps is what starting a warp costs against MaxLaunchSteps:
// setting up its registers takes about as long as 64 instructions, and a
// grid of millions of CTAs that each execute a few must stay bounded too.
const warpStartSteps = 64

// maxThreadsPerCTA and maxClusterSize are the launch limits (§5.2.1 of the
// CUDA programming guide; 16 with non-portable cluster sizes).
const (
	maxThreadsPerCTA = 1024
	maxClusterSize   = 16
)

// Stats counts what a run did.
type Stats struct {
	WarpInsts   uint64
	ThreadInsts uint64
	Stored      [numSpaces]uint64 // bytes stored per state space
	Loaded      [numSpaces]uint64
	CTAs        uint64
	// ClusterSteps is the longest cluster clock of the launch: the most
	// steps one cluster ran (the clock of Launch.Trace, Waits and
	// Barriers events, each cluster's starting at 0).
	ClusterSteps uint64
	Wall         time.Duration
	Printf       []byte // device printf output, clusters in order
	// RaceShadow is the race detector's shadow memory (--race only).
	RaceShadow race.Memory
}

func (s *Stats) add(o *Stats) {
	s.WarpInsts += o.WarpInsts
	s.ThreadInsts += o.ThreadInsts
	for i := range s.Stored {
		s.Stored[i] += o.Stored[i]
		s.Loaded[i] += o.Loaded[i]
	}
	s.CTAs += o.CTAs
	s.ClusterSteps = max(s.ClusterSteps, o.ClusterSteps)
}

// ExtKey names a per-CTA or per-cluster extension state slot.
type ExtKey int

var (
	ctaExt     []func(*CTA) any
	clusterExt []func(*Cluster) any
	ctaExit    []func(*CTA) *Report
)

// NewCTAKey registers per-CTA state for an extension (tensor memory, the
// CTA's mbarrier table, ...). init builds the state the first time
// CTA.Ext(key) is called for a CTA. Call it from a package-level var
// initializer or init function, never while a launch runs.
func NewCTAKey(init func(*CTA) any) ExtKey {
	ctaExt = append(ctaExt, init)
	return ExtKey(len(ctaExt) - 1)
}

// NewClusterKey registers per-cluster state for an extension (async-op
// bookkeeping shared by the CTAs of a cluster, ...).
func NewClusterKey(init func(*Cluster) any) ExtKey {
	clusterExt = append(clusterExt, init)
	return ExtKey(len(clusterExt) - 1)
}

// OnCTAExit registers a check that runs when every thread of a CTA has
// exited (e.g. tensor memory still allocated). A non-nil report stops the run.
func OnCTAExit(fn func(*CTA) *Report) { ctaExit = append(ctaExit, fn) }

// barrier is one of a CTA's 16 named barriers (bar.sync / barrier.sync).
type barrier struct {
	arrived  int
	expected int // 0: every live thread of the CTA
	line     int32
	popc     uint32 // bar.red: threads whose predicate held
	threads  uint32 // bar.red: threads that contributed
}

// CTA is one cooperative thread array.
type CTA struct {
	ID     [3]int // %ctaid
	Rank   int    // %cluster_ctarank
	Shared []byte // static + dynamic shared memory
	Warps  []*Warp
	// Watch, when set, sees every access to this CTA's shared memory made
	// by ordinary loads, stores and atomics (off is the byte offset in
	// Shared); returning Fault stops the run. The mbarrier extension uses
	// it to flag plain accesses to a live barrier object.
	Watch func(w *Warp, l int, off uint32, n int, write bool) Status
	// WatchRead and WatchWrite, when set beside Watch, hold one bit per
	// 16-byte granule of Shared: the granules whose reads (writes) Watch
	// must see. The fast load and store paths skip Watch elsewhere.
	WatchRead, WatchWrite []uint64

	cluster *Cluster
	local   []byte
	bars    [16]barrier
	live    int // threads that have not exited
	ext     []any
	exited  bool
}

// Cluster returns the CTA's cluster.
func (c *CTA) Cluster() *Cluster { return c.cluster }

// Ext returns the CTA's state for extension key k, creating it on first use.
func (c *CTA) Ext(k ExtKey) any {
	if c.ext[k] == nil {
		c.ext[k] = ctaExt[k](c)
	}
	return c.ext[k]
}

// Exited reports whether every thread of the CTA has exited.
func (c *CTA) Exited() bool { return c.exited }

// Cluster is a group of CTAs that run together and can reach each other's
// shared memory. Each cluster runs on one goroutine; clusters of a grid are
// independent and may run in parallel.
type Cluster struct {
	ID    [3]int // %clusterid
	Index int    // linear cluster index in the grid
	CTAs  []*CTA // by rank
	Mem   *Memory

	cfg      *Config
	prog     *Program
	rng      rng
	choices  int // scheduling choices made so far (schedule.go)
	steps    uint64
	report   *Report
	kept     *keptSet // KeepGoing: the problems kept; nil otherwise
	ext      []any
	async    []*AsyncOp // pending operations in issue order (async.go)
	queued   int        // operations in async, each member of a batch counted
	cbPhase  uint32     // barrier.cluster phase
	cbCount  int
	live     int
	atomMu   *sync.Mutex // serialises global atomics when clusters run in parallel
	warps    []*Warp
	runq     []*Warp // warps not yet exited, in scheduling order (round)
	issueSeq uint64
	nextDue  uint64 // no queued operation is due before this step (AsyncRandom)

	printf     []byte // device printf output, in emission order
	printfLost bool   // output beyond maxPrintfBytes was dropped

	race    *race.Cluster       // --race: the detector's state (race.go); nil without
	running *Warp               // the warp being run (for trace events of its waits)
	waiting map[*Warp]*openWait // waits begun and not ended, when Launch.Waits is set

	mon        *Monitor // nil when nobody watches the launch
	pubSteps   uint64   // steps and waiting warps last published to mon
	pubWaiting int
}

// Ext returns the cluster's state for extension key k.
func (c *Cluster) Ext(k ExtKey) any {
	if c.ext[k] == nil {
		c.ext[k] = clusterExt[k](c)
	}
	return c.ext[k]
}

// Steps returns how many warp-instructions the cluster has executed; it is
// the clock of the asynchronous-operation queue.
func (c *Cluster) Steps() uint64 { return c.steps }

// Rand returns a deterministic pseudo-random number from the cluster's
// seeded generator (for extension policies such as spurious try_wait
// failures).
func (c *Cluster) Rand() uint64 { return c.rng.next() }

// Config returns the launch configuration.
func (c *Cluster) Config() *Config { return c.cfg }

func (c *Cluster) fail(r *Report) {
	if c.report == nil && !c.keep(r) {
		c.report = r
	}
}

// Fail stops the run with report r (the first report wins); a keep-going
// run keeps r and goes on when its rule is Continuable.
func (c *Cluster) Fail(r *Report) { c.fail(r) }

// rng is splitmix64.
type rng struct{ s uint64 }

// rngStep is what each draw adds to the state of rng.
const rngStep = 0x9e3779b97f4a7c15

func (r *rng) next() uint64 {
	r.s += rngStep
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// threadsExited updates barrier bookkeeping when lanes of w exit.
func (c *CTA) threadsExited(w *Warp, n int) {
	c.live -= n
	c.cluster.live -= n
	for b := range c.bars {
		w.warpArrival(b)
		if c.bars[b].arrived > 0 {
			c.tryRelease(b)
		}
	}
	c.cluster.tryReleaseCluster()
	if c.live == 0 && !c.exited {
		c.exited = true
		for _, fn := range ctaExit {
			if r := fn(c); r != nil {
				c.cluster.fail(r)
			}
		}
	}
}

// liveWarps counts the warps with at least one thread that has not exited.
func (c *CTA) liveWarps() int {
	n := 0
	for _, w := range c.Warps {
		if w.live != 0 {
			n++
		}
	}
	return n
}

// tryRelease completes barrier b when enough threads have arrived.
func (c *CTA) tryRelease(b int) {
	bar := &c.bars[b]
	want := bar.expected
	if want == 0 {
		want = 32 * c.liveWarps()
	}
	if bar.arrived < want {
		return
	}
	popc, threads := bar.popc, bar.threads
	*bar = barrier{}
	var acc *race.Know
	if rc := c.cluster.race; rc != nil {
		acc = rc.BarTake(c.Rank, b)
	}
	for _, w := range c.Warps {
		if m := w.barWait[b]; m != 0 {
			w.barWait[b] = 0
			if acc != nil {
				c.cluster.race.BarWaiter(c.Rank, b, w.Index, acc)
			}
			if rd := w.barRed[b]; rd.dst >= 0 {
				w.barRed[b].dst = -1
				v := redResult(rd.op, popc, threads)
				for x := m; x != 0; x &= x - 1 {
					w.R[rd.dst+int32(lane(x))] = v
				}
			}
			w.Unblock(m)
		}
	}
}

func (c *Cluster) tryReleaseCluster() {
	if c.cbCount == 0 || c.cbCount < c.live {
		return
	}
	c.cbCount = 0
	c.cbPhase++
	if c.race != nil {
		c.race.ClusterPhaseDone()
	}
	for _, w := range c.warps {
		if m := w.cbWait; m != 0 {
			w.cbWait = 0
			if c.race != nil {
				c.race.ClusterWait(w.CTA.Rank, w.Index, true)
			}
			w.cbArrived &^= m
			w.Unblock(m)
		}
	}
}

// ErrLaunch wraps launch-configuration errors.
var ErrLaunch = errors.New("launch")

// normalize checks cfg for a launch of p and fills in what the kernel
// implies: zero dimensions become 1, the cluster shape comes from
// .reqnctapercluster, Jobs is bounded by memory, the step budgets get
// their defaults. Launch.Check calls it before any buffer is allocated.
func (cfg *Config) normalize(p *Program) error {
	if cfg.obs == nil {
		cfg.obs = &observers{}
	}
	for i := range 3 {
		if cfg.Grid[i] == 0 {
			cfg.Grid[i] = 1
		}
		if cfg.Block[i] == 0 {
			cfg.Block[i] = 1
		}
		if cfg.Cluster[i] == 0 {
			cfg.Cluster[i] = 1
		}
		if cfg.Grid[i] < 0 || cfg.Block[i] < 0 || cfg.Cluster[i] < 0 {
			return fmt.Errorf("%w: negative dimension", ErrLaunch)
		}
		if req := p.reqCluster[i]; req != 0 && req != cfg.Cluster[i] {
			if cfg.Cluster[i] != 1 {
				return fmt.Errorf("%w: the kernel requires clusters of (%d,%d,%d) CTAs (.reqnctapercluster); got (%d,%d,%d)", ErrLaunch,
					p.reqCluster[0], p.reqCluster[1], p.reqCluster[2], cfg.Cluster[0], cfg.Cluster[1], cfg.Cluster[2])
			}
			cfg.Cluster[i] = req
		}
		if cfg.Grid[i]%cfg.Cluster[i] != 0 {
			return fmt.Errorf("%w: grid %s dimension (%d) is not a multiple of the cluster %s dimension (%d)", ErrLaunch, axisNames[i], cfg.Grid[i], axisNames[i], cfg.Cluster[i])
		}
	}
	nt := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	if p.reqNTID != [3]int{} && p.reqNTID != cfg.Block {
		return fmt.Errorf("%w: the kernel requires a block of (%d,%d,%d) threads (.reqntid); got (%d,%d,%d)", ErrLaunch,
			p.reqNTID[0], p.reqNTID[1], p.reqNTID[2], cfg.Block[0], cfg.Block[1], cfg.Block[2])
	}
	if p.maxNTID > 0 && nt > p.maxNTID {
		return fmt.Errorf("%w: %d threads per CTA; the kernel allows at most %d (.maxntid)", ErrLaunch, nt, p.maxNTID)
	}
	if uint64(cfg.Block[0])*uint64(cfg.Block[1])*uint64(cfg.Block[2]) > maxThreadsPerCTA || cfg.Block[2] > 64 {
		return fmt.Errorf("%w: %d threads per CTA (at most %d, z at most 64)", ErrLaunch, nt, maxThreadsPerCTA)
	}
	if n := uint64(cfg.Cluster[0]) * uint64(cfg.Cluster[1]) * uint64(cfg.Cluster[2]); n > maxClusterSize {
		return fmt.Errorf("%w: cluster of %d CTAs (at most %d)", ErrLaunch, n, maxClusterSize)
	}
	if cfg.Grid[0] > 1<<31-1 || cfg.Grid[1] > 65535 || cfg.Grid[2] > 65535 {
		return fmt.Errorf("%w: grid (%d,%d,%d) is larger than a GPU allows (x at most %d, y and z at most 65535)", ErrLaunch,
			cfg.Grid[0], cfg.Grid[1], cfg.Grid[2], 1<<31-1)
	}
	if g := uint64(cfg.Grid[0]) * uint64(cfg.Grid[1]) * uint64(cfg.Grid[2]); g > maxGridCTAs {
		return fmt.Errorf("%w: grid of %d CTAs; the emulator runs at most %d CTAs per launch", ErrLaunch, g, maxGridCTAs)
	}
	if cfg.SharedBytes < 0 || p.sharedStatic+cfg.SharedBytes > maxSharedBytes {
		return fmt.Errorf("%w: %d bytes of shared memory per CTA (at most %d)", ErrLaunch, p.sharedStatic+cfg.SharedBytes, maxSharedBytes)
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = 1
	}
	if cfg.Jobs > 256 {
		cfg.Jobs = 256
	}
	perCluster := clusterBytes(p, cfg)
	if perCluster > maxLaunchBytes {
		return fmt.Errorf("%w: emulating one cluster needs %d MiB (registers, local and shared memory); at most %d MiB", ErrLaunch, perCluster>>20, maxLaunchBytes>>20)
	}
	// Clusters in flight at once each hold their own state.
	cfg.Jobs = min(cfg.Jobs, int(maxLaunchBytes/perCluster))
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = defaultMaxSteps
	}
	if cfg.MaxLaunchSteps == 0 {
		cfg.MaxLaunchSteps = max(defaultMaxLaunchSteps, cfg.MaxSteps)
	}
	cfg.MaxSteps = min(cfg.MaxSteps, cfg.MaxLaunchSteps)
	return nil
}

// axisNames names the dimensions of grid, block and cluster.
var axisNames = [3]string{"x", "y", "z"}

// clusterBytes estimates the memory one cluster of a launch holds while it
// runs.
func clusterBytes(p *Program, cfg *Config) uint64 {
	nt := uint64(cfg.Block[0] * cfg.Block[1] * cfg.Block[2])
	nw := (nt + 31) / 32
	ncta := uint64(cfg.Cluster[0] * cfg.Cluster[1] * cfg.Cluster[2])
	slab := uint64(p.numSlots) * 32 * 8
	perWarp := slab + 32*uint64(p.localFrame) + warpOverheadBytes
	// and the worker's start-up template of a slab (Warp.startRegisters)
	return ncta*(nw*perWarp+uint64(ctaSmemBytes(p, cfg))+ctaOverheadBytes) + slab
}

// run emulates a launch of p, whose cfg Launch.Check normalized, on memory
// mem (which holds the parameter buffer and every allocation) and returns
// the counters and the first sanitizer report (nil when the run was
// clean). Clusters with a lower index win when several report, so the
// result does not depend on Jobs.
func run(p *Program, mem *Memory, cfg Config) (Stats, *Report, error) {
	if cfg.Cooperative {
		return runCooperative(p, mem, &cfg)
	}
	start := time.Now()
	mon, disarm := startTimeout(&cfg)
	defer disarm()
	cdim := [3]int{cfg.Grid[0] / cfg.Cluster[0], cfg.Grid[1] / cfg.Cluster[1], cfg.Grid[2] / cfg.Cluster[2]}
	nclusters := cdim[0] * cdim[1] * cdim[2]
	jobs := min(cfg.Jobs, nclusters, runtime.GOMAXPROCS(0)*4)
	var mu *sync.Mutex
	if jobs > 1 {
		mu = new(sync.Mutex)
	}
	var (
		next     atomic.Int64
		spent    atomic.Uint64 // warp-instructions of finished clusters
		cut      atomic.Bool   // a cluster did not start: the launch budget was spent
		failIdx  atomic.Int64
		wg       sync.WaitGroup
		statsMu  sync.Mutex
		total    Stats
		reports  = map[int]*Report{}
		kept     = map[int]*keptSet{}
		reportMu sync.Mutex
		printed  = newPrintLog()
	)
	failIdx.Store(int64(nclusters))
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWorker(p, &cfg, mem, mu)
			wk.mon = mon
			for {
				i := int(next.Add(1) - 1)
				if i >= nclusters || int64(i) > failIdx.Load() {
					break
				}
				if spent.Load() >= cfg.MaxLaunchSteps || mon.stopped() {
					cut.Store(true)
					break
				}
				id := [3]int{i % cdim[0], i / cdim[0] % cdim[1], i / (cdim[0] * cdim[1])}
				r := wk.runCluster(i, id)
				wk.stats.ClusterSteps = max(wk.stats.ClusterSteps, wk.cl.steps)
				spent.Add(wk.cl.steps + uint64(len(wk.cl.warps))*warpStartSteps)
				if len(wk.cl.printf) > 0 || wk.cl.printfLost {
					text := wk.cl.printf
					if wk.cl.printfLost {
						text = append(text, fmt.Sprintf("[printf output of cluster %d truncated at %d bytes]\n", i, maxPrintfBytes)...)
					}
					printed.add(i, text)
				}
				if wk.cl.kept != nil && len(wk.cl.kept.list) > 0 {
					reportMu.Lock()
					kept[i] = wk.cl.kept
					reportMu.Unlock()
				}
				if r != nil {
					reportMu.Lock()
					reports[i] = r
					reportMu.Unlock()
					for {
						old := failIdx.Load()
						if int64(i) >= old || failIdx.CompareAndSwap(old, int64(i)) {
							break
						}
					}
				}
			}
			statsMu.Lock()
			total.add(&wk.stats)
			statsMu.Unlock()
			wk.releaseMemory()
		}()
	}
	wg.Wait()
	total.Wall = time.Since(start)
	last := int(failIdx.Load())
	total.Printf = printed.output(last)
	r := stopReportOf(p, &cfg, mon, reports[last], cut.Load())
	if cfg.KeepGoing {
		cfg.obs.kept = mergeKept(kept, last, cfg.MaxReports, r)
	}
	return total, r, nil
}

// stopReportOf is the report that ended a launch: the one of the cluster
// that stopped it (r), or a launch budget that was spent before every
// cluster ran (cut), or nil.
func stopReportOf(p *Program, cfg *Config, mon *Monitor, r *Report, cut bool) *Report {
	if r != nil || !cut {
		return r
	}
	if mon.stopped() {
		return &Report{Rule: RuleTimeout, File: p.File,
			Message: fmt.Sprintf("%s; stopped after %d warp-instructions, before the clusters after %d ran", mon.stopReason(), mon.Steps(), mon.ClustersDone())}
	}
	return &Report{Rule: RuleMaxSteps, File: p.File,
		Message: fmt.Sprintf("the launch exceeded %d warp-instructions over all its clusters (--max-launch-steps); the clusters after that did not run", cfg.MaxLaunchSteps)}
}

// worker owns reusable CTA storage for the clusters it runs.
type worker struct {
	prog  *Program
	cfg   *Config
	mem   *Memory
	mu    *sync.Mutex
	stats Stats
	ctas  []*CTA
	cl    Cluster
	mon   *Monitor
	arena *arena // the CTAs' shared and local memory, when large (arena.go)
}

func newWorker(p *Program, cfg *Config, mem *Memory, mu *sync.Mutex) *worker {
	wk := &worker{prog: p, cfg: cfg, mem: mem, mu: mu}
	n := cfg.Cluster[0] * cfg.Cluster[1] * cfg.Cluster[2]
	nt := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	nw := (nt + 31) / 32
	shared, local, ar := ctaMemory(n, ctaSmemBytes(p, cfg), p.localFrame*nw*32)
	wk.arena = ar
	init := &regTemplate{}
	for r := range n {
		c := &CTA{Rank: r, Shared: shared[r], local: local[r], ext: make([]any, len(ctaExt))}
		for i := range nw {
			w := &Warp{CTA: c, Index: i, prog: p, stats: &wk.stats, probe: cfg.obs.probe, init: init,
				R: make([]uint64, p.numSlots*32), retpc: make([]int32, maxCallDepth*32), callee: make([]int32, maxCallDepth*32), retsp: make([]int32, maxCallDepth*32)}
			lanes := min(32, nt-i*32)
			w.Lanes = uint32(1<<uint(lanes) - 1)
			for _, k := range p.consts {
				s := w.R[k.slot : k.slot+32]
				for l := range s {
					s[l] = k.val
				}
			}
			c.Warps = append(c.Warps, w)
		}
		wk.ctas = append(wk.ctas, c)
	}
	return wk
}

// runCluster emulates one cluster to completion.
func (wk *worker) runCluster(index int, id [3]int) *Report {
	wk.startCluster(index, id)
	r := wk.cl.schedule()
	wk.cl.retire()
	return r
}

// startCluster places cluster index (coordinates id) on the worker's CTAs
// and starts their warps.
func (wk *worker) startCluster(index int, id [3]int) {
	cfg := wk.cfg
	cl := &wk.cl
	*cl = Cluster{ID: id, Index: index, CTAs: wk.ctas, Mem: wk.mem, cfg: cfg, prog: wk.prog,
		rng: rng{cfg.Seed*0x9e3779b97f4a7c15 + uint64(index)}, ext: make([]any, len(clusterExt)), atomMu: wk.mu, mon: wk.mon}
	if cfg.Seed == 0 {
		cl.rng.s = uint64(index)
	}
	if cfg.KeepGoing {
		cl.kept = newKeptSet(cfg.MaxReports)
	}
	nt := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	for r, c := range wk.ctas {
		cc := [3]int{r % cfg.Cluster[0], r / cfg.Cluster[0] % cfg.Cluster[1], r / (cfg.Cluster[0] * cfg.Cluster[1])}
		c.ID = [3]int{id[0]*cfg.Cluster[0] + cc[0], id[1]*cfg.Cluster[1] + cc[1], id[2]*cfg.Cluster[2] + cc[2]}
		c.cluster = cl
		clear(c.Shared)
		clear(c.local)
		clear(c.ext)
		c.bars = [16]barrier{}
		c.live = nt
		c.exited = false
		c.Watch, c.WatchRead, c.WatchWrite = nil, nil, nil
		cl.live += nt
		for _, w := range c.Warps {
			w.start()
			cl.warps = append(cl.warps, w)
		}
		wk.stats.CTAs++
	}
	cl.startRace()
}

// start resets a warp for a new CTA: registers zeroed, specials filled.
func (w *Warp) start() {
	w.startRegisters()
	w.pc, w.Next = 0, 0
	w.live = w.Lanes
	w.active = w.Lanes
	w.blocked = 0
	w.resched = false
	w.minOther = 1<<31 - 1
	w.tpc = [32]int32{}
	w.allValid = false
	w.depth = [32]uint8{}
	w.barWait = [16]uint32{}
	w.barArr = [16]uint32{}
	for i := range w.barRed {
		w.barRed[i].dst = -1
	}
	w.cbWait, w.cbArrived = 0, 0
	w.ticks = 0
	w.sp = [32]int32{}
	for l := range w.saved {
		w.saved[l] = w.saved[l][:0]
	}
	w.pollPC, w.pollVal = -1, 0
	w.WaitWhat, w.WaitWhy = "", nil
	w.cache, w.prevCache = nil, nil
}

// schedule runs the cluster's warps until all exit or a report stops them.
func (c *Cluster) schedule() *Report {
	if c.cfg.obs.wait != nil {
		defer c.closeWaits()
	}
	for {
		done, progressed, r := c.round()
		if done || r != nil {
			return r
		}
		if !progressed {
			if len(c.async) > 0 {
				if r := c.landIdle(); r != nil { // asyncidle.go
					return r
				}
				continue
			}
			return c.deadlock(c.runq)
		}
	}
}

// round gives every live warp of the cluster one quantum: round-robin with
// long quanta for Seed 0, a shuffled order with random quanta otherwise.
// It reports whether every warp has exited (after landing what is still
// pending), whether any warp executed an instruction, and the report that
// stopped the cluster. c.runq keeps the warps still alive.
func (c *Cluster) round() (done, progressed bool, r *Report) {
	if c.runq == nil {
		c.runq = append([]*Warp(nil), c.warps...)
	}
	warps := c.runq
	quantum := 1 << 16
	if c.cfg.Seed != 0 || c.cfg.Schedule != nil {
		quantum = 0
		for i := len(warps) - 1; i > 0; i-- {
			j := c.choose(ChoiceWarpOrder, i+1, i)
			warps[i], warps[j] = warps[j], warps[i]
		}
	}
	alive := warps[:0]
	waiting := 0
	for _, w := range warps {
		if w.live == 0 {
			continue
		}
		if c.mon.stopped() {
			return false, progressed, c.stopReport()
		}
		budget := quantum
		if budget == 0 {
			budget = 1 + c.choose(ChoiceSlice, 64, 63)
		}
		if left := c.cfg.MaxSteps - c.steps; uint64(budget) > left {
			budget = int(left)
		}
		before := c.steps
		c.running = w
		n, st := w.run(budget)
		c.steps += uint64(n)
		if c.cfg.obs.wait != nil {
			c.noteWait(w, before, n, st)
		}
		if n > 0 {
			progressed = true
		} else {
			waiting++
		}
		if st == Fault || c.report != nil {
			return false, progressed, c.report
		}
		if c.steps >= c.cfg.MaxSteps && w.active != 0 {
			in := &c.prog.Insts[w.pc]
			r := &Report{Rule: RuleMaxSteps, File: c.prog.File, Pos: in.Pos, Opcode: in.Opcode,
				Thread:  w.threadID(lane(w.active)),
				Message: fmt.Sprintf("cluster %d exceeded %d warp-instructions (--max-steps)", c.Index, c.cfg.MaxSteps)}
			c.locate(r)
			r.Pos, r.Opcode = in.Pos, in.Opcode
			return false, progressed, r
		}
		if len(c.async) > 0 && c.cfg.Async == AsyncRandom {
			if r := c.landDue(); r != nil {
				return false, progressed, r
			}
		}
		if w.live != 0 {
			alive = append(alive, w)
		}
	}
	c.runq = alive
	if c.mon != nil {
		c.publish(waiting)
	}
	if len(alive) == 0 {
		if r := c.landAll(); r != nil {
			return true, progressed, r
		}
		return true, progressed, c.report
	}
	return false, progressed, nil
}

// deadlock builds the report for a cluster where nothing can move.
func (c *Cluster) deadlock(warps []*Warp) *Report {
	r := &Report{Rule: ruleDeadlock, File: c.prog.File,
		Message: fmt.Sprintf("deadlock: every warp of cluster (%d,%d,%d) waits and nothing can wake it", c.ID[0], c.ID[1], c.ID[2])}
	for _, w := range warps {
		line := 0
		pc := w.WaitPC
		if int(pc) < len(c.prog.Insts) {
			line = int(c.prog.Insts[pc].Pos.Line)
			if r.Pos.Line == 0 {
				r.Pos = c.prog.Insts[pc].Pos
				r.Opcode = c.prog.Insts[pc].Opcode
			}
		}
		r.Waits = append(r.Waits, fmt.Sprintf("CTA (%d,%d,%d) warp %d (%d live threads) waits at line %d: %s",
			w.CTA.ID[0], w.CTA.ID[1], w.CTA.ID[2], w.Index, bits.OnesCount32(w.live), line, w.waitDescription()))
	}
	return r
}

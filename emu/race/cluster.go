package race

// Cluster is the detector's state for one cluster of a launch: the clocks
// of its threads, grouped by warp, and of its synchronising objects, and
// the shadow of its CTAs' shared memory. Global memory is shadowed by the
// launch's Global, shared by every cluster.
//
// Thread slots number the threads of the cluster: rank*PerCTA + thread
// index in the CTA. Asynchronous agent slots follow them (T + slot): the
// operations one thread issues (cp.async, bulk copies, st.async) run on its
// agent, whose clock counts them.
type Cluster struct {
	Index  int32 // linear cluster index in the grid
	PerCTA int   // threads per CTA
	T      int   // thread slots of the cluster
	G      *Global

	warps    []warp // by rank*warpsPerCTA + warp index
	perCTAW  int
	shared   [][]page // per rank, allocated on first access
	tmem     [][]page // per rank, Tensor Memory (word lane*512 + column)
	act      actor    // the actor of the thread access being checked (Shared, GlobalAccess)
	bars     map[int]*Know
	cbAcc    *Know
	cbDone   *Know
	mbars    map[uint64]*mbar
	locs     map[uint64]*loc // release locations in shared memory (rank<<32 | offset)
	agentClk []uint32
	ops      map[uint64]opEpoch // issued asynchronous operations: their agent epoch
	opRecs   [opRecs]opRec      // records shared by the operations of one warp-instruction (async.go)

	// Landing is set while an asynchronous operation lands: its memory
	// accesses are the operation's (OpAccess), not the thread's.
	Landing bool

	inst                       uint32 // warp-instruction instances so far
	lastWarp, lastPC, lastLane int32
}

// warp is the knowledge of one warp's threads: one Know the lanes share
// (they gain knowledge together, see docs/race.md) and each lane's own
// clock.
type warp struct {
	k       *Know
	shared  bool // k is referenced elsewhere: copy before changing it
	clk     [32]uint32
	vec     uint32    // a vector of the clocks in clk that records share (record.go), or 0
	uni     int8      // whether the clocks in clk agree: 0 not known, 1 yes, -1 no
	rdRec   [8]uint32 // the warp's last read records, by pc (record.go, readRecord)
	pair    uint32    // a pair of the clocks in clk (record.go, pairOf), or 0
	noPair  bool      // the clocks in clk take more than two values
	fence   [32]fenceSnap
	proxy   [32][4]uint32 // clocks of the lane's last fence.proxy.async
	pending []locEntry    // releases read by relaxed strong reads, acquired by the next fence whose scope reaches them

	tcView     *Know  // what the warp's tcgen05 operations know (tmem.go)
	tcSt, tcLd uint32 // agent clocks of the warp's last tcgen05.st and tcgen05.ld
	tcDone     uint32 // agent clock up to which the warp waited for its tcgen05 operations
}

type fenceSnap struct {
	s     Snap
	scope Scope
}

// NewCluster returns the state of cluster index with ctas CTAs of perCTA
// threads.
func NewCluster(g *Global, index int32, ctas, perCTA int) *Cluster {
	t := ctas * perCTA
	nw := (perCTA + 31) / 32
	c := &Cluster{Index: index, PerCTA: perCTA, T: t, G: g, perCTAW: nw,
		warps: make([]warp, ctas*nw), shared: make([][]page, ctas),
		bars: map[int]*Know{}, mbars: map[uint64]*mbar{}, locs: map[uint64]*loc{},
		agentClk: make([]uint32, t), ops: map[uint64]opEpoch{}}
	k0 := newKnow(2 * t)
	for i := range c.warps {
		w := &c.warps[i]
		w.k, w.shared, w.tcView = k0, true, k0
		for l := range w.clk {
			w.clk[l] = 1
		}
	}
	g.clusters = append(g.clusters, c)
	return c
}

// Thread names a thread: its CTA rank, warp index in the CTA and lane.
type Thread struct{ Rank, Warp, Lane int }

func (c *Cluster) slot(t Thread) uint32 { return uint32(t.Rank*c.PerCTA + t.Warp*32 + t.Lane) }

func (c *Cluster) warpOf(t Thread) *warp { return &c.warps[t.Rank*c.perCTAW+t.Warp] }

// SlotThread returns the thread (or, for an agent slot, the issuing
// thread) of slot s and whether s is an agent slot.
func (c *Cluster) SlotThread(s uint32) (Thread, bool) {
	agent := int(s) >= c.T
	if agent {
		s -= uint32(c.T)
	}
	r, i := int(s)/c.PerCTA, int(s)%c.PerCTA
	return Thread{Rank: r, Warp: i / 32, Lane: i % 32}, agent
}

// own makes w's Know private before a change.
func (w *warp) own() *Know {
	if w.shared {
		w.k = w.k.clone()
		w.shared = false
	}
	return w.k
}

// acquire adds o to what the warp knows.
func (w *warp) acquire(o *Know) {
	if o == nil || w.k.covers(o) {
		return
	}
	w.own().join(o)
}

// snap is what lane t releases now; the lane's clock then advances, so
// that its later operations are not covered by this release.
func (c *Cluster) snap(t Thread) Snap {
	w := c.warpOf(t)
	w.shared = true
	s := Snap{K: w.k, Slot: c.slot(t), Clk: w.clk[t.Lane]}
	w.tick(t.Lane)
	return s
}

// joinSnap adds a released snapshot to an accumulator.
func joinSnap(acc *Know, s Snap) {
	acc.join(s.K)
	acc.point(s.Slot, s.Clk)
}

// tick advances lane l's clock.
func (w *warp) tick(l int) {
	w.clk[l]++
	w.vec, w.uni, w.pair, w.noPair = 0, 0, 0, false
}

// actor is the access being checked: who makes it, what it knows, and how.
type actor struct {
	cl    int32
	k     *Know
	self  uint32
	clk   uint32
	extra uint32 // a second own point (an agent's issuer), or ^0
	xclk  uint32
	rank  int32 // CTA rank, for scopes
	scope Scope // of the access (ScopeNone: weak)
	async bool  // the async proxy
	pc    int32
	write bool
	rmw   bool
	cas   bool // atom.cas: benign against a weak load (shadow.go, benign)
	inst  uint32
	w     *warp  // a thread's warp (nil for an operation's agent)
	lane  uint32 // the thread's lane (0 for an agent)
	rec   uint32 // the record of the access's instance, once made (record.go)
}

func (a *actor) knows(e epoch) bool { return a.knowsAt(e.r.cl, e.slot, e.clk) }

// knowsAt reports whether a knows clock clk of slot of cluster cl.
func (a *actor) knowsAt(cl int32, slot, clk uint32) bool {
	if cl != a.cl {
		if a.k.Foreign == nil {
			return false
		}
		v := a.k.Foreign[cl]
		return v != nil && v[slot] >= clk
	}
	if slot == a.self {
		return a.clk >= clk
	}
	if slot == a.extra && a.xclk >= clk {
		return true
	}
	return a.k.V[slot] >= clk
}

// threadActor sets a to thread t's access of kind k. (It fills a in
// place: an actor returned by value and then copied costs a stalled
// store-to-load forward per lane.)
func (c *Cluster) threadActor(a *actor, t Thread, k *Kind) {
	w := c.warpOf(t)
	a.cl, a.k, a.self, a.clk, a.extra, a.xclk = c.Index, w.k, c.slot(t), w.clk[t.Lane], ^uint32(0), 0
	a.rank, a.scope, a.async, a.pc, a.write, a.rmw, a.cas = int32(t.Rank), k.Scope, k.Async, k.PC, k.Write, k.RMW, k.CAS
	if k.Async {
		// A thread's own async-proxy read (wgmma's operands): its own
		// proxy fence after acquiring a write orders it, as an issuer's
		// does for its operations (proxyFenced).
		a.extra, a.xclk = a.self, a.clk
	}
	inst := c.begin(t, k.PC)
	if inst != a.inst || a.rec != 0 && !c.recordFits(a.rec, a) {
		a.rec = 0
	}
	a.inst, a.w, a.lane = inst, w, uint32(t.Lane)
}

// recordFits reports whether record i (made for an earlier lane of the
// actor's instance) describes the actor's access too.
func (c *Cluster) recordFits(i uint32, a *actor) bool {
	m := &c.G.meta[i]
	return m.scope == a.scope && (m.flags&fAsync != 0) == a.async && (m.flags&fWrite != 0) == a.write && (m.flags&fRMW != 0) == a.rmw && (m.flags&fCAS != 0) == a.cas
}

// begin numbers warp-instructions: the lanes of one instruction come in
// increasing order, so a lane not above the last one, another warp or
// another pc starts a new instance.
func (c *Cluster) begin(t Thread, pc int32) uint32 {
	wi := int32(t.Rank*c.perCTAW + t.Warp)
	if wi != c.lastWarp || pc != c.lastPC || int32(t.Lane) <= c.lastLane {
		c.inst++
	}
	c.lastWarp, c.lastPC, c.lastLane = wi, pc, int32(t.Lane)
	return c.inst
}

package race

// epoch is one access in the shadow: who (cluster, slot), when (the
// slot's clock), where in the program (pc), and how (strong scope, proxy).
type epoch struct {
	cl    int32
	slot  uint32
	clk   uint32
	pc    int32
	inst  uint32 // the warp-instruction instance (Cluster.Begin)
	scope Scope
	flags uint8
}

const (
	fValid uint8 = 1 << iota
	fAsync       // made by the async proxy (an asynchronous operation's agent)
	fWrite
	fRMW // a read-modify-write (atom, red)
)

// maxReads bounds the unordered reads a cell remembers: beyond it a new
// read replaces an old one (a race with the forgotten read can then go
// unreported, never a false one).
const maxReads = 16

// Cell is the shadow of one byte: its last write, and the reads made
// since that write (one, or a set once two reads are unordered).
type Cell struct {
	w     epoch
	r     epoch
	reads []epoch
}

const pageBits = 8

type page [1 << pageBits]Cell

// Global is the shadow of global memory for a whole launch, and the
// release locations in it.
type Global struct {
	PerCTA int
	pages  map[uint64]*page
	last   *page
	lastN  uint64
	locs   map[uint64]*loc
	Cells  int // shadow cells allocated, for the memory figure
}

// NewGlobal returns the launch's global shadow for CTAs of perCTA threads.
func NewGlobal(perCTA int) *Global {
	return &Global{PerCTA: perCTA, pages: map[uint64]*page{}, locs: map[uint64]*loc{}, lastN: ^uint64(0)}
}

func (g *Global) cell(a uint64) *Cell {
	n := a >> pageBits
	if n != g.lastN {
		p := g.pages[n]
		if p == nil {
			p = new(page)
			g.pages[n] = p
			g.Cells += len(p)
		}
		g.last, g.lastN = p, n
	}
	return &g.last[a&(1<<pageBits-1)]
}

// Access is one side of a race, as the emulator reports it.
type Access struct {
	Cluster int32
	Thread  Thread
	Agent   bool // an asynchronous operation issued by Thread
	PC      int32
	Write   bool
	Scope   Scope
}

// Race is a pair of conflicting accesses that no ordering relates.
type Race struct {
	Prev, Cur Access
	Offset    int  // byte of the access where the conflict is
	Proxy     bool // ordered, but across proxies without fence.proxy.async
}

func (c *Cluster) access(e *epoch, a *actor) Access {
	t, agent := c.slotThreadOf(e.cl, e.slot)
	return Access{Cluster: e.cl, Thread: t, Agent: agent, PC: e.pc, Write: e.flags&fWrite != 0, Scope: e.scope}
}

func (c *Cluster) slotThreadOf(cl int32, s uint32) (Thread, bool) {
	if cl == c.Index {
		return c.SlotThread(s)
	}
	// Another cluster of the same launch has the same shape.
	return c.SlotThread(s)
}

func (c *Cluster) rankOf(s uint32) int32 {
	if int(s) >= c.T {
		s -= uint32(c.T)
	}
	return int32(int(s) / c.PerCTA)
}

// morallyStrong reports whether two accesses are both strong and each
// one's scope includes the other's thread (PTX ISA §8.6).
func (c *Cluster) morallyStrong(e *epoch, a *actor) bool {
	if e.scope == ScopeNone || a.scope == ScopeNone {
		return false
	}
	inc := func(s Scope) bool {
		switch s {
		case ScopeCTA:
			return e.cl == a.cl && c.rankOf(e.slot) == a.rank
		case ScopeCluster:
			return e.cl == a.cl
		}
		return true
	}
	return inc(e.scope) && inc(a.scope)
}

// check applies actor a's access to cell x. It returns the conflicting
// earlier access, or nil.
func (c *Cluster) check(x *Cell, a *actor) *epoch {
	if w := &x.w; w.flags&fValid != 0 && !a.knows(w) && !c.morallyStrong(w, a) && !benign(w, a) {
		return w
	}
	if a.async && !a.write && x.w.flags&(fValid|fAsync) == fValid && x.w.cl == a.cl && !c.proxyFenced(&x.w, a) {
		return &x.w
	}
	if !a.write {
		return nil
	}
	if r := &x.r; r.flags&fValid != 0 && !a.knows(r) && !c.morallyStrong(r, a) && !benign(r, a) {
		return r
	}
	for i := range x.reads {
		if r := &x.reads[i]; !a.knows(r) && !c.morallyStrong(r, a) && !benign(r, a) {
			return r
		}
	}
	return nil
}

// benign reports the unordered pairs that are not data races:
//   - two stores of one warp-instruction (the lanes of one st to one
//     address: one of the values is stored, CUDA C++ Programming Guide
//     §5.4.3 / PTX ISA §8.7 treats them as one instruction's accesses);
//   - a weak load and a read-modify-write atomic: the load of a
//     compare-and-swap loop reads a guess that the atom.cas validates
//     (the CUDA C++ Programming Guide's atomicAdd for double).
func benign(e *epoch, a *actor) bool {
	if e.inst == a.inst && e.inst != 0 && e.cl == a.cl {
		return true
	}
	if e.flags&fWrite != 0 && e.flags&fRMW != 0 && !a.write && a.scope == ScopeNone {
		return true
	}
	return e.flags&fWrite == 0 && e.scope == ScopeNone && a.rmw
}

// record notes a's access in cell x (after check).
func (x *Cell) record(a *actor) {
	e := epoch{cl: a.cl, slot: a.self, clk: a.clk, pc: a.pc, inst: a.inst, scope: a.scope, flags: fValid}
	if a.async {
		e.flags |= fAsync
	}
	if a.rmw {
		e.flags |= fRMW
	}
	if a.write {
		e.flags |= fWrite
		x.w, x.r, x.reads = e, epoch{}, x.reads[:0]
		return
	}
	if len(x.reads) > 0 {
		for i := range x.reads {
			if r := &x.reads[i]; r.cl == e.cl && r.slot == e.slot {
				*r = e
				return
			}
		}
		if len(x.reads) < maxReads {
			x.reads = append(x.reads, e)
		} else {
			x.reads[e.slot%maxReads] = e
		}
		return
	}
	if x.r.flags&fValid == 0 || a.knows(&x.r) || (x.r.cl == e.cl && x.r.slot == e.slot) {
		x.r = e
		return
	}
	x.reads = append(x.reads, x.r, e)
	x.r = epoch{}
}

// proxyFenced reports whether a generic-proxy write e is ordered before
// the async-proxy access of a by a fence.proxy.async: the writing thread
// fenced after the write, and that fence happened before a (or the
// issuing thread itself fenced with the write known to it).
func (c *Cluster) proxyFenced(e *epoch, a *actor) bool {
	if int(e.slot) >= c.T {
		return true
	}
	t, _ := c.SlotThread(e.slot)
	w := c.warpOf(t)
	for _, f := range w.proxy[t.Lane] {
		if f > e.clk && a.knows(&epoch{cl: e.cl, slot: e.slot, clk: f}) {
			return true
		}
	}
	if int(a.extra) < c.T && a.extra != e.slot {
		it, _ := c.SlotThread(a.extra)
		iw := c.warpOf(it)
		// The issuer fenced after acquiring the write: its fence clock
		// is newer than the issue snapshot's knowledge of the writer.
		for _, f := range iw.proxy[it.Lane] {
			if f != 0 && f <= a.xclk && a.k.V[e.slot] >= e.clk {
				return true
			}
		}
	}
	return false
}

func (c *Cluster) sharedCells(rank int) []Cell { return c.shared[rank] }

// SharedBytes sizes the shadow of rank's shared memory (called at
// cluster start, before any access).
func (c *Cluster) SharedBytes(rank, n int) {
	if cap(c.shared[rank]) >= n {
		c.shared[rank] = c.shared[rank][:n]
		clear(c.shared[rank])
		return
	}
	c.shared[rank] = nil
}

// run applies actor a to n cells, returning the first race.
func (c *Cluster) run(cells func(i int) *Cell, n int, a *actor) *Race {
	for i := range n {
		x := cells(i)
		if e := c.check(x, a); e != nil {
			r := &Race{Prev: c.access(e, a), Offset: i, Proxy: a.async && e.flags&fAsync == 0 && a.knows(e)}
			r.Cur = Access{Cluster: a.cl, PC: a.pc, Write: a.write, Scope: a.scope}
			r.Cur.Thread, r.Cur.Agent = c.SlotThread(a.self)
			return r
		}
		x.record(a)
	}
	return nil
}

func (c *Cluster) sharedSpan(rank int, off uint32, n int) []Cell {
	s := c.shared[rank]
	if s == nil {
		return nil
	}
	return s[off : int(off)+n]
}

// Kind says how a thread accesses memory.
type Kind struct {
	Write, RMW bool
	Scope      Scope // ScopeNone: weak
	PC         int32
}

// Shared checks and records an access by thread t to n bytes of rank's
// shared memory at offset off (size is the CTA's shared memory).
func (c *Cluster) Shared(t Thread, rank int, off uint32, n, size int, k Kind) *Race {
	a := c.threadActor(t, k)
	return c.sharedActor(&a, rank, off, n, size)
}

func (c *Cluster) sharedActor(a *actor, rank int, off uint32, n, size int) *Race {
	if c.shared[rank] == nil {
		c.shared[rank] = make([]Cell, size)
	}
	s := c.shared[rank][off : int(off)+n]
	return c.run(func(i int) *Cell { return &s[i] }, n, a)
}

// GlobalAccess checks and records an access by thread t to n bytes of
// global memory at address addr.
func (c *Cluster) GlobalAccess(t Thread, addr uint64, n int, k Kind) *Race {
	a := c.threadActor(t, k)
	return c.run(func(i int) *Cell { return c.G.cell(addr + uint64(i)) }, n, &a)
}

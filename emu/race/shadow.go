package race

// epoch is one access in the shadow: who (cluster, slot), when (the
// slot's clock), where in the program (pc), and how (strong scope, proxy).
type epoch struct {
	cl    int32
	slot  uint32
	clk   uint32
	pc    int32
	inst  uint32 // the warp-instruction instance (Cluster.begin)
	scope Scope
	flags uint8
	mask  uint8 // the bytes of the word accessed
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
const maxReads = 3

// Cell is the shadow of one aligned 4-byte word: its last write, and the
// reads made since that write (one, or a set once two reads are
// unordered), each with the bytes of the word it accessed.
//
// The cell holds what nearly every word needs, the last write and one
// read (FastTrack's adaptive representation): the rare parts, the weak
// write that atomics followed and a set of unordered reads, live in a
// rare entry of the shadow's rareStore, named by ext (0: none).
type Cell struct {
	w     epoch
	r     epoch
	ext   uint32 // the cell's rare entry, or 0
	nread uint8  // reads in the rare entry's set (r is then unused)
}

// rare is the seldom-used part of a cell.
type rare struct {
	weak  epoch // the last weak write, when strong writes (atomics) followed it
	reads [maxReads]epoch
}

// rareStore holds the rare entries of a shadow (entry 0 is never used)
// in chunks that never move, and the entries freed for reuse.
type rareStore struct {
	chunks []*[rareChunk]rare
	n      uint32 // entries handed out so far, entry 0 included
	free   []uint32
}

const rareChunkBits = 8

const rareChunk = 1 << rareChunkBits

// at returns entry i.
func (st *rareStore) at(i uint32) *rare { return &st.chunks[i>>rareChunkBits][i&(rareChunk-1)] }

// of returns x's rare entry, giving it one if it has none.
func (st *rareStore) of(x *Cell) *rare {
	if x.ext != 0 {
		return st.at(x.ext)
	}
	if n := len(st.free); n > 0 {
		x.ext = st.free[n-1]
		st.free = st.free[:n-1]
		r := st.at(x.ext)
		*r = rare{}
		return r
	}
	if st.n == 0 {
		st.n = 1
	}
	if int(st.n>>rareChunkBits) == len(st.chunks) {
		st.chunks = append(st.chunks, new([rareChunk]rare))
	}
	x.ext = st.n
	st.n++
	return st.at(x.ext)
}

// release gives x's rare entry back.
func (st *rareStore) release(x *Cell) {
	if x.ext != 0 {
		st.free = append(st.free, x.ext)
		x.ext = 0
	}
}

const pageBits = 8

type page [1 << pageBits]Cell

// Global is the shadow of global memory for a whole launch, and the
// release locations in it.
type Global struct {
	pages map[uint64]*page
	rare  rareStore
	last  *page
	lastN uint64
	locs  map[uint64]*loc
	Cells int // shadow cells allocated
}

// MaxGlobalCells bounds the shadow of global memory (about 235 MB of
// cells, for 16 MiB of global memory touched, plus their rare entries); beyond it Full reports
// true and the emulator stops the run.
const MaxGlobalCells = 4 << 20

// Full reports whether the shadow of global memory reached MaxGlobalCells.
func (g *Global) Full() bool { return g.Cells >= MaxGlobalCells }

// NewGlobal returns the shadow of global memory for one launch.
func NewGlobal() *Global {
	return &Global{pages: map[uint64]*page{}, locs: map[uint64]*loc{}, lastN: ^uint64(0)}
}

// page returns shadow page number pn (the words [pn<<pageBits, ...)).
func (g *Global) page(pn uint64) *page {
	if pn != g.lastN {
		p := g.pages[pn]
		if p == nil {
			p = new(page)
			g.pages[pn] = p
			g.Cells += len(p)
		}
		g.last, g.lastN = p, pn
	}
	return g.last
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

// access describes the earlier access e of a race.
func (c *Cluster) access(e *epoch) Access {
	// Another cluster of the launch has the same shape: its slots name
	// threads the same way.
	t, agent := c.SlotThread(e.slot)
	return Access{Cluster: e.cl, Thread: t, Agent: agent, PC: e.pc, Write: e.flags&fWrite != 0, Scope: e.scope}
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

// check applies actor a's access to cell x (whose rare entries are in
// st). It returns the conflicting earlier access, or nil.
func (c *Cluster) check(x *Cell, st *rareStore, a *actor) *epoch {
	if w := &x.w; w.mask&a.mask != 0 && !a.knows(w) && !c.morallyStrong(w, a) && !benign(w, a) {
		return w
	}
	var rr *rare
	if x.ext != 0 {
		rr = st.at(x.ext)
		if w := &rr.weak; w.mask&a.mask != 0 && !a.knows(w) && !benign(w, a) {
			return w
		}
	}
	if a.async && !a.write && x.w.mask&a.mask != 0 && x.w.flags&fAsync == 0 && x.w.cl == a.cl && !c.proxyFenced(&x.w, a) {
		return &x.w
	}
	if !a.write {
		return nil
	}
	if r := &x.r; r.mask&a.mask != 0 && !a.knows(r) && !c.morallyStrong(r, a) && !benign(r, a) {
		return r
	}
	for i := range x.nread {
		if r := &rr.reads[i]; r.mask&a.mask != 0 && !a.knows(r) && !c.morallyStrong(r, a) && !benign(r, a) {
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

// sameEpoch reports whether x already holds an access like a's by the
// same thread in the same epoch (FastTrack's fast path): a read whose
// entry is the last read, or a write that is the last write with no read
// since. Nothing that could race with a came in between, or the entry
// would have been replaced.
func (a *actor) sameEpoch(x *Cell) bool {
	e := &x.r
	if a.write {
		if x.r.mask != 0 || x.nread != 0 {
			return false
		}
		e = &x.w
	}
	return e.slot == a.self && e.clk == a.clk && e.cl == a.cl && e.mask&a.mask == a.mask && e.scope == a.scope &&
		(e.flags&fRMW != 0) == a.rmw && (e.flags&fWrite != 0) == a.write
}

// record notes a's access in cell x (after check); st holds x's rare
// entry. (Epochs are filled in place: one built on the stack and then
// copied costs a stalled store-to-load forward per access.)
func (x *Cell) record(st *rareStore, a *actor) {
	if a.write {
		x.recordWrite(st, a)
		return
	}
	if x.r.inst == a.inst && x.r.cl == a.cl && x.r.mask != 0 {
		// Another lane of the same warp-instruction: one entry stands
		// for the lanes of a warp, which know the same (docs/race.md).
		x.r.mask |= a.mask
		return
	}
	if x.nread > 0 {
		x.nread = st.at(x.ext).addRead(a, x.nread)
		return
	}
	if x.r.mask == 0 || (a.knows(&x.r) && x.r.mask&^a.mask == 0) {
		a.fill(&x.r)
		return
	}
	rr := st.of(x)
	rr.reads[0] = x.r
	a.fill(&rr.reads[1])
	x.nread = 2
	x.r = epoch{}
}

// fill sets e to a's access.
func (a *actor) fill(e *epoch) {
	f := fValid
	if a.async {
		f |= fAsync
	}
	if a.rmw {
		f |= fRMW
	}
	if a.write {
		f |= fWrite
	}
	e.cl, e.slot, e.clk, e.pc, e.inst = a.cl, a.self, a.clk, a.pc, a.inst
	e.scope, e.flags, e.mask = a.scope, f, a.mask
}

// recordWrite notes a's write in x: the reads since the last write are
// forgotten, and a weak write that an atomic overwrites is kept aside.
func (x *Cell) recordWrite(st *rareStore, a *actor) {
	mask := a.mask
	if x.w.slot == a.self && x.w.cl == a.cl && x.w.clk == a.clk {
		mask |= x.w.mask // the same thread's earlier bytes of the word
	}
	switch {
	case a.scope == ScopeNone:
		st.release(x)
	case x.w.scope == ScopeNone && x.w.mask != 0:
		st.of(x).weak = x.w // atomics do not order a later thread after it
	case x.ext != 0 && st.at(x.ext).weak.mask == 0:
		st.release(x) // no weak write kept, and the reads go
	}
	a.fill(&x.w)
	x.w.mask = mask
	x.r, x.nread = epoch{}, 0
}

// addRead adds a's read to the n unordered reads of rr, returning their
// new number.
func (rr *rare) addRead(a *actor, n uint8) uint8 {
	if last := &rr.reads[n-1]; last.inst == a.inst && last.cl == a.cl {
		last.mask |= a.mask
		return n
	}
	// A read the new one knows of is redundant: a write that races
	// with it races with the new read too.
	k := uint8(0)
	for i := range n {
		if r := &rr.reads[i]; !(a.knows(r) && r.mask&^a.mask == 0) {
			if k != i {
				rr.reads[k] = *r
			}
			k++
		}
	}
	if k < maxReads {
		a.fill(&rr.reads[k])
		k++
	} else {
		a.fill(&rr.reads[a.inst%maxReads])
	}
	return k
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

// run applies actor a to the words of [off, off+n) (byte addresses;
// cells[0] shadows the word at base), returning the first race.
func (c *Cluster) run(cells []Cell, st *rareStore, base uint64, off uint64, n int, a *actor) *Race {
	for b := off &^ 3; b < off+uint64(n); b += 4 {
		a.mask = byteMask(b, off, n)
		x := &cells[(b-base)>>2]
		if a.sameEpoch(x) {
			continue
		}
		if e := c.check(x, st, a); e != nil {
			return c.race(e, a, b, off)
		}
		x.record(st, a)
	}
	return nil
}

// byteMask returns the bytes of word b that [off, off+n) covers.
func byteMask(b, off uint64, n int) uint8 {
	lo, hi := max(b, off), min(b+4, off+uint64(n))
	return uint8((1<<(hi-b) - 1) &^ (1<<(lo-b) - 1))
}

// race describes the conflict of a's access to word b (of an access
// starting at off) with the earlier access e.
func (c *Cluster) race(e *epoch, a *actor, b, off uint64) *Race {
	r := &Race{Prev: c.access(e), Proxy: a.async && e.flags&fAsync == 0 && a.knows(e)}
	for i := uint64(0); i < 4; i++ {
		if (e.mask&a.mask)>>i&1 != 0 {
			r.Offset = int(b + i - off)
			break
		}
	}
	r.Cur = Access{Cluster: a.cl, PC: a.pc, Write: a.write, Scope: a.scope}
	r.Cur.Thread, r.Cur.Agent = c.SlotThread(a.self)
	return r
}

func (c *Cluster) sharedActor(a *actor, rank int, off uint32, n, size int) *Race {
	if c.shared[rank] == nil {
		c.shared[rank] = make([]Cell, (size+3)/4)
	}
	return c.run(c.shared[rank], &c.rare, 0, uint64(off), n, a)
}

// globalActor applies a to n bytes of global memory at addr, page by page.
func (c *Cluster) globalActor(a *actor, addr uint64, n int) *Race {
	start := addr
	for n > 0 {
		pw := addr >> 2 >> pageBits // page number
		p := c.G.page(pw)
		base := pw << pageBits << 2
		end := min(addr+uint64(n), base+4<<pageBits)
		if r := c.run(p[:], &c.G.rare, base, addr, int(end-addr), a); r != nil {
			r.Offset += int(addr - start)
			return r
		}
		n -= int(end - addr)
		addr = end
	}
	return nil
}

// Kind says how a thread accesses memory.
type Kind struct {
	Write, RMW bool
	Scope      Scope // ScopeNone: weak
	PC         int32
	// Async marks an access of the async proxy (bulk copies); its reads
	// of generic-proxy writes need fence.proxy.async.
	Async bool
}

// Shared checks and records an access by thread t to n bytes of rank's
// shared memory at offset off (size is the CTA's shared memory).
func (c *Cluster) Shared(t Thread, rank int, off uint32, n, size int, k Kind) *Race {
	return c.CheckShared(t, rank, off, n, size, &k)
}

// CheckShared is Shared with the kind passed by reference (the emulator's
// per-lane hook: a Kind passed by value goes through the stack, byte by
// byte, and is read back in words, which stalls).
func (c *Cluster) CheckShared(t Thread, rank int, off uint32, n, size int, k *Kind) *Race {
	a := &c.act
	c.threadActor(a, t, k)
	return c.sharedActor(a, rank, off, n, size)
}

// GlobalAccess checks and records an access by thread t to n bytes of
// global memory at address addr.
func (c *Cluster) GlobalAccess(t Thread, addr uint64, n int, k Kind) *Race {
	return c.CheckGlobal(t, addr, n, &k)
}

// CheckGlobal is GlobalAccess with the kind passed by reference.
func (c *Cluster) CheckGlobal(t Thread, addr uint64, n int, k *Kind) *Race {
	a := &c.act
	c.threadActor(a, t, k)
	return c.globalActor(a, addr, n)
}

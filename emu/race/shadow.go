package race

// The shadow of memory. Each aligned 4-byte word has two 32-bit handles
// (record.go): its last write, and its last read or (tagged) a rare entry
// with the weak write that atomics followed and a set of unordered reads
// and atomic writes. A word no one wrote may hold in its write handle the
// read that stands for the reads of sealed clusters (Global.sealed).
// A word accessed in part (a byte, a half-word) is split: its write
// handle then names four byte cells, each with its own write and read.
// Shadow pages cover 256 words; a page's write and read arrays are
// allocated on first need, so memory only read (or only written) costs
// one array.

// maxReads bounds the unordered reads a cell remembers: beyond it a new
// read replaces an old one (a race with the forgotten read can then go
// unreported, never a false one).
const maxReads = 3

// rare is the seldom-used part of a word's shadow.
type rare struct {
	weak  uint32           // the last weak write, when strong writes (atomics) followed it
	reads [maxReads]uint32 // unordered reads, and (tagged) atomic writes no later atomic knew of
}

// cell is the shadow of one byte of a split word.
type cell struct{ w, r uint32 }

const pageBits = 8

const pageWords = 1 << pageBits

// page is the shadow of 256 words (1 KiB).
type page struct {
	w, r *[pageWords]uint32
}

// Global is the shadow of global memory for a whole launch, the release
// locations in it, and the tables every shadow of the launch shares:
// records, clock vectors, rare entries and split words.
type Global struct {
	pages map[uint64]*page
	last  *page
	lastN uint64
	locs  map[uint64]*loc
	Cells int // words of global memory shadowed

	recs  slab[record]
	meta  []recMeta // the rest of each record
	vecs  slab[[32]uint32]
	pairs slab[[2]uint32] // two-valued lane clocks: lane mask, second value
	rare  slab[rare]
	split slab[[4]cell]

	clusters []*Cluster           // the live clusters, whose shared memory is shadowed
	clState  []uint8              // per cluster index: clRetired, clExposed
	canon    map[sealedKey]uint32 // sealedRep's records (forgotten at each collection)

	arrays, shadowed   int // page arrays allocated (spare ones included), and bytes of memory their pages cover
	spare              []*[pageWords]uint32
	peak, peakShadowed int
	Collections        int // collections of records
	warpChecks         int // warp-instructions checked in one call (warp.go)
	scratchW, scratchR uint32
}

// MaxGlobalCells bounds the shadow of global memory (64 MiB of global
// memory touched, at most 128 MiB of page arrays plus records); beyond
// it Full reports true and the emulator stops the run.
const MaxGlobalCells = 16 << 20

// Full reports whether the shadow of global memory reached MaxGlobalCells.
func (g *Global) Full() bool { return g.Cells >= MaxGlobalCells }

// NewGlobal returns the shadow of global memory for one launch.
func NewGlobal() *Global {
	g := &Global{pages: map[uint64]*page{}, locs: map[uint64]*loc{}, lastN: ^uint64(0)}
	g.recs.limit = minRecords
	g.vecs.limit = minRecords
	g.pairs.limit = minRecords
	g.rare.limit = 1<<31 - 1
	g.split.limit = 1<<31 - 1
	return g
}

// page returns shadow page number pn (the words [pn<<pageBits, ...)).
func (g *Global) page(pn uint64) *page {
	if pn != g.lastN {
		p := g.pages[pn]
		if p == nil {
			p = new(page)
			g.pages[pn] = p
			g.Cells += pageWords
		}
		g.last, g.lastN = p, pn
	}
	return g.last
}

// Memory is what the shadow holds: Shadow bytes (page arrays and
// structures, records, clock vectors, rare entries, split words) for
// Shadowed bytes of memory (the pages touched: global memory, shared
// memory of the live clusters, Tensor Memory), now and at the peak.
type Memory struct {
	Shadow, Shadowed         int
	PeakShadow, PeakShadowed int
	Records, Collections     int
	// WarpChecks counts the warp-instructions whose lanes were checked
	// in one call (WarpShared, WarpGlobal) rather than one call a lane.
	WarpChecks int
}

// pageStructBytes is a page's own structure, and for global memory its
// map entry (a pointer key and value and the bucket's share).
const pageStructBytes = 16 + 32

func (g *Global) shadowBytes() int {
	return g.arrays*4*pageWords + len(g.pages)*pageStructBytes +
		g.recs.bytes(16) + cap(g.meta)*12 + g.vecs.bytes(128) + g.pairs.bytes(8) + g.rare.bytes(16) + g.split.bytes(32)
}

// note updates the peak after the shadow grew.
func (g *Global) note() {
	if b := g.shadowBytes(); b > g.peak {
		g.peak, g.peakShadowed = b, g.shadowed
	}
}

// Memory reports the shadow's size.
func (g *Global) Memory() Memory {
	g.note()
	return Memory{Shadow: g.shadowBytes(), Shadowed: g.shadowed, PeakShadow: g.peak, PeakShadowed: g.peakShadowed,
		Records: g.recs.inUse, Collections: g.Collections, WarpChecks: g.warpChecks}
}

// Cluster states (Global.clState).
const (
	clRetired uint8 = 1 << iota // it ran to completion
	clExposed                   // it released at .gpu or .sys scope: other clusters may learn its clocks
)

func (g *Global) setState(cl int32, f uint8) {
	if int(cl) >= len(g.clState) {
		g.clState = append(g.clState, make([]uint8, int(cl)+1-len(g.clState))...)
	}
	g.clState[cl] |= f
}

// sealed reports whether the accesses of cluster cl are known to no
// thread of another cluster, now or later: it ran to completion and never
// released at a scope wider than itself. Any later access by another
// cluster is unordered with every one of them, so one of its reads of a
// word stands for all (Cluster.record).
func (g *Global) sealed(cl int32) bool {
	return int(cl) < len(g.clState) && g.clState[cl]&(clRetired|clExposed) == clRetired
}

// unwritten reports whether write handle w says no one wrote the word:
// none, or the read that stands for sealed clusters' reads.
func (g *Global) unwritten(w uint32) bool {
	return w == 0 || w&tag == 0 && g.meta[w>>laneBits].flags&fWrite == 0
}

// sealedKey names the reads of one warp (or agent) of a sealed cluster
// at one instruction.
type sealedKey struct {
	cl, pc int32
	slot   uint32
}

// sealedRep returns the handle that stands for read h of a sealed
// cluster: the same lane of one record per warp and instruction of that
// cluster (its clocks no longer matter: no other thread can know them),
// so that the sealed reads of a whole table keep a few records alive, not
// one per warp-instruction instance.
func (g *Global) sealedRep(h uint32) uint32 {
	i := h >> laneBits
	r := g.recs.at(i)
	k := sealedKey{cl: r.cl, pc: g.meta[i].pc, slot: r.slot}
	if g.canon == nil {
		g.canon = map[sealedKey]uint32{}
	}
	if j, ok := g.canon[k]; ok {
		return j<<laneBits | h&(1<<laneBits-1)
	}
	g.canon[k] = i
	return h
}

// RetireAll forgets the shadow of shared memory and Tensor Memory of
// every cluster made so far (they ran to completion).
func (g *Global) RetireAll() {
	for _, c := range g.clusters {
		c.retire()
	}
	g.clusters = nil
}

func (c *Cluster) retire() {
	g := c.G
	g.setState(c.Index, clRetired)
	for _, set := range [][][]page{c.shared, c.tmem} {
		for _, ps := range set {
			for i := range ps {
				g.dropPage(&ps[i])
			}
		}
	}
	c.shared, c.tmem = nil, nil
}

// dropPage gives back page p's arrays and the split words and rare
// entries they name.
func (g *Global) dropPage(p *page) {
	if p.w == nil && p.r == nil {
		return
	}
	g.shadowed -= 4 * pageWords
	if p.w != nil {
		for _, h := range p.w {
			if h&tag != 0 {
				for _, b := range g.split.at(h &^ tag) {
					if b.r&tag != 0 {
						g.rare.free(b.r &^ tag)
					}
				}
				g.split.free(h &^ tag)
			}
		}
		g.freeArray(p.w)
	}
	if p.r != nil {
		for _, h := range p.r {
			if h&tag != 0 {
				g.rare.free(h &^ tag)
			}
		}
		g.freeArray(p.r)
	}
	*p = page{}
}

func (g *Global) freeArray(a *[pageWords]uint32) {
	clear(a[:])
	g.spare = append(g.spare, a)
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
func (c *Cluster) access(e epoch) Access {
	// Another cluster of the launch has the same shape: its slots name
	// threads the same way.
	t, agent := c.SlotThread(e.slot)
	if agent && e.m.issuer != 0 {
		t.Lane = int(e.m.issuer) - 1 // the issuing thread, not the agent's lane
	}
	return Access{Cluster: e.r.cl, Thread: t, Agent: agent, PC: e.m.pc, Write: e.m.flags&fWrite != 0, Scope: e.m.scope}
}

func (c *Cluster) rankOf(s uint32) int32 {
	if int(s) >= c.T {
		s -= uint32(c.T)
	}
	return int32(int(s) / c.PerCTA)
}

// morallyStrong reports whether two accesses are both strong and each
// one's scope includes the other's thread (PTX ISA §8.6).
func (c *Cluster) morallyStrong(e epoch, a *actor) bool {
	if e.m.scope == ScopeNone || a.scope == ScopeNone {
		return false
	}
	inc := func(s Scope) bool {
		switch s {
		case ScopeCTA:
			return e.r.cl == a.cl && c.rankOf(e.slot) == a.rank
		case ScopeCluster:
			return e.r.cl == a.cl
		}
		return true
	}
	return inc(e.m.scope) && inc(a.scope)
}

// conflicts reports whether a's access conflicts with the earlier access
// h: a does not know of it, and (when strong may excuse it) they are not
// morally strong, and the pair is not benign.
func (c *Cluster) conflicts(h uint32, a *actor, strong bool) bool {
	if c.knowsH(a, h) {
		return false
	}
	e := c.G.decode(h)
	if !a.write && e.m.flags&fWrite == 0 {
		return false // two reads (the write handle may hold a sealed read: record)
	}
	if strong && c.morallyStrong(e, a) {
		return false
	}
	return !benign(e, a)
}

// check applies actor a's access to a word (or byte) whose write handle
// is w and read handle r. It returns the conflicting earlier access's
// handle, or 0.
func (c *Cluster) check(w, r uint32, a *actor) uint32 {
	if w != 0 && c.conflicts(w, a, true) {
		return w
	}
	var rr *rare
	if r&tag != 0 {
		rr = c.G.rare.at(r &^ tag)
		if rr.weak != 0 && c.conflicts(rr.weak, a, false) {
			return rr.weak
		}
	}
	if a.async && !a.write && w != 0 {
		if e := c.G.decode(w); e.m.flags&(fAsync|fWrite) == fWrite && e.r.cl == a.cl && !c.proxyFenced(e, a) {
			return w
		}
	}
	if !a.write {
		if rr != nil {
			// Atomic writes no later atomic ordered (kept with the
			// reads): a weak read must know each of them.
			for _, h := range rr.reads {
				if h&tag != 0 && c.conflicts(h&^tag, a, true) {
					return h &^ tag
				}
			}
		}
		return 0
	}
	if rr == nil {
		if r != 0 && c.conflicts(r, a, true) {
			return r
		}
		return 0
	}
	for _, h := range rr.reads {
		if h == 0 {
			break
		}
		if c.conflicts(h&^tag, a, true) {
			return h &^ tag
		}
	}
	return 0
}

// benign reports the unordered pairs that are not data races:
//   - two stores of one warp-instruction (the lanes of one st to one
//     address: one of the values is stored, CUDA C++ Programming Guide
//     §5.4.3 / PTX ISA §8.7 treats them as one instruction's accesses);
//   - a weak load and an atom.cas: the load of a compare-and-swap loop
//     reads a guess that the atom.cas validates (the CUDA C++
//     Programming Guide's atomicAdd for double). Other atomics (add,
//     red, inc, ...) against a weak load race: nothing validates the
//     value the load read.
func benign(e epoch, a *actor) bool {
	m := e.m
	if m.inst == a.inst && m.inst != 0 && e.r.cl == a.cl {
		return true
	}
	if m.flags&fCAS != 0 && !a.write && a.scope == ScopeNone {
		return true
	}
	return m.flags&fWrite == 0 && m.scope == ScopeNone && a.cas
}

// sameEpoch reports whether the word already holds an access like a's by
// the same thread in the same epoch (FastTrack's fast path): a read that
// is the last read, or a write that is the last write with no read
// since. Nothing that could race with a came in between, or the handle
// would have been replaced.
func (c *Cluster) sameEpoch(w, r uint32, a *actor) bool {
	h := r
	if a.write {
		if r != 0 {
			return false
		}
		h = w
	}
	if h == 0 || h&tag != 0 {
		return false
	}
	e := c.G.decode(h)
	return e.slot == a.self && e.clk == a.clk && e.r.cl == a.cl && e.m.scope == a.scope &&
		(e.m.flags&fRMW != 0) == a.rmw && (e.m.flags&fWrite != 0) == a.write && (e.m.flags&fCAS != 0) == a.cas &&
		(e.m.flags&fAsync != 0) == a.async
}

// record notes a's access in the word (or byte) whose handles are at wp
// and rp, after check.
func (c *Cluster) record(wp, rp *uint32, a *actor) {
	h := c.handle(a)
	if a.write {
		c.recordWrite(wp, rp, a, h)
		return
	}
	g := c.G
	r := *rp
	switch {
	case r == 0:
		*rp = h
	case r&tag == 0:
		if r>>laneBits == a.rec {
			// Another lane of the same warp-instruction: one handle
			// stands for the lanes of a warp, which know the same
			// (docs/race.md).
			return
		}
		if c.knowsH(a, r) {
			*rp = h
			return
		}
		if g.sealed(g.recs.at(r>>laneBits).cl) && g.unwritten(*wp) {
			// A read of a sealed cluster in a word no one wrote: it
			// moves to the write handle (one read stands for all of
			// sealed clusters: a later write races with each), and
			// the new read takes the read handle.
			if *wp == 0 {
				*wp = g.sealedRep(r)
			}
			*rp = h
			return
		}
		i := g.rare.take()
		*g.rare.at(i) = rare{reads: [maxReads]uint32{r, h}}
		*rp = i | tag
	default:
		rr := g.rare.at(r &^ tag)
		c.addRead(wp, rr, a, h)
		if rr.weak == 0 && rr.reads[1] == 0 && rr.reads[0]&tag == 0 {
			*rp = rr.reads[0]
			g.rare.free(r &^ tag)
		}
	}
}

// recordWrite notes a's write (handle h): the reads since the last write
// are forgotten, a weak write that an atomic overwrites is kept aside, and
// so are the atomic writes an atomic overwrites without knowing them
// (atomics need not be ordered with each other, but a later weak access
// must be ordered after every one of them).
func (c *Cluster) recordWrite(wp, rp *uint32, a *actor, h uint32) {
	g := c.G
	old, r := *wp, *rp
	if old != 0 && old&tag == 0 && g.meta[old>>laneBits].flags&fWrite == 0 {
		old = 0 // a sealed read (record), which check saw
	}
	if a.scope == ScopeNone {
		if r&tag != 0 {
			g.rare.free(r &^ tag)
		}
		*rp = 0
		*wp = h
		return
	}
	var kept [maxReads]uint32 // unordered atomic writes to keep
	n := 0
	var weak uint32
	if r&tag != 0 {
		rr := g.rare.at(r &^ tag)
		weak = rr.weak
		for _, x := range rr.reads {
			if x&tag != 0 && !c.knowsH(a, x&^tag) {
				kept[n] = x
				n++
			}
		}
	}
	if old != 0 {
		switch {
		case g.meta[old>>laneBits].scope == ScopeNone:
			// Atomics do not order a later thread after the weak write.
			weak, kept = old, [maxReads]uint32{}
		case !c.knowsH(a, old) && n < maxReads:
			kept[n] = old | tag
		case !c.knowsH(a, old):
			kept[a.inst%maxReads] = old | tag
		}
	}
	switch {
	case weak == 0 && kept[0] == 0:
		if r&tag != 0 {
			g.rare.free(r &^ tag)
		}
		*rp = 0
	default:
		i := r &^ tag
		if r&tag == 0 {
			i = g.rare.take()
			*rp = i | tag
		}
		*g.rare.at(i) = rare{weak: weak, reads: kept}
	}
	*wp = h
}

// addRead adds a's read (handle h) to the unordered reads of rr, the rare
// entry of the word whose write handle is at wp. Reads a knows of are
// dropped (a write that races with one races with the new read too);
// atomic writes in the set are kept. When no one wrote the word, reads of
// sealed clusters move out of the set: one of them goes to the write
// handle, where it stands for all (record).
func (c *Cluster) addRead(wp *uint32, rr *rare, a *actor, h uint32) {
	n := 0
	for n < maxReads && rr.reads[n] != 0 {
		n++
	}
	if n > 0 && rr.reads[n-1]>>laneBits == a.rec {
		return
	}
	g := c.G
	k := 0
	for _, x := range rr.reads[:n] {
		if x&tag == 0 {
			cl := g.recs.items[x>>laneBits].cl
			if cl != a.cl && g.sealed(cl) && rr.weak == 0 && g.unwritten(*wp) {
				if *wp == 0 {
					*wp = g.sealedRep(x)
				}
				continue
			}
			if c.knowsH(a, x) {
				continue
			}
		}
		rr.reads[k] = x
		k++
	}
	if k < maxReads {
		rr.reads[k] = h
		k++
	} else {
		rr.reads[a.inst%maxReads] = h
	}
	for j := k; j < maxReads; j++ {
		rr.reads[j] = 0
	}
}

// proxyFenced reports whether a generic-proxy write e is ordered before
// the async-proxy access of a by a fence.proxy.async: the writing thread
// fenced after the write, and that fence happened before a (or the
// issuing thread itself fenced with the write known to it).
func (c *Cluster) proxyFenced(e epoch, a *actor) bool {
	if int(e.slot) >= c.T {
		return true
	}
	t, _ := c.SlotThread(e.slot)
	w := c.warpOf(t)
	for _, f := range w.proxy[t.Lane] {
		if f > e.clk && a.knowsAt(e.r.cl, e.slot, f) {
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

// word applies actor a to the word with handles at wp and rp; at is the
// byte a conflict is reported at.
func (c *Cluster) word(wp, rp *uint32, a *actor, at, off uint64) *Race {
	w, r := *wp, *rp
	if c.sameEpoch(w, r, a) {
		return nil
	}
	if h := c.check(w, r, a); h != 0 {
		return c.race(h, a, at, off)
	}
	c.record(wp, rp, a)
	return nil
}

// bytesOf applies a to the bytes in mask of the word with handles at wp
// and rp (b its first byte), splitting the word first.
func (c *Cluster) bytesOf(wp, rp *uint32, mask uint8, a *actor, b, off uint64) *Race {
	g := c.G
	if *wp&tag == 0 {
		i := g.split.take()
		s := g.split.at(i)
		for k := range s {
			s[k] = cell{w: *wp, r: c.dupRead(*rp, k)}
		}
		*wp, *rp = i|tag, 0
	}
	i := *wp &^ tag
	s := g.split.at(i)
	for k := range 4 {
		if mask>>k&1 != 0 {
			if r := c.word(&s[k].w, &s[k].r, a, b+uint64(k), off); r != nil {
				return r
			}
		}
	}
	if mask == 0xf && a.write && c.joinable(s, a) {
		*wp, *rp = s[0].w, 0 // one thread's write covers the word again
		g.split.free(i)
	}
	return nil
}

// joinable reports whether after a's whole-word write the bytes of split
// s hold no read and only writes of a's thread in a's epoch.
func (c *Cluster) joinable(s *[4]cell, a *actor) bool {
	for k := range s {
		if s[k].r != 0 || s[k].w != s[0].w && !c.sameEpoch(s[k].w, 0, a) {
			return false
		}
	}
	return true
}

// dupRead returns byte k's copy of a word's read handle r when the word
// is split: a rare entry is copied for bytes 1-3.
func (c *Cluster) dupRead(r uint32, k int) uint32 {
	if r&tag == 0 || k == 0 {
		return r
	}
	g := c.G
	i := g.rare.take()
	*g.rare.at(i) = *g.rare.at(r &^ tag)
	return i | tag
}

// run applies actor a to the bytes [off, off+n) of page p, whose first
// byte is at base.
func (c *Cluster) run(p *page, base, off uint64, n int, a *actor) *Race {
	g := c.G
	for b := off &^ 3; b < off+uint64(n); b += 4 {
		i := (b - base) >> 2
		wp, rp := &g.scratchW, &g.scratchR
		if p.w != nil {
			wp = &p.w[i]
		}
		if p.r != nil {
			rp = &p.r[i]
		}
		mask := byteMask(b, off, n)
		var r *Race
		if mask == 0xf && *wp&tag == 0 {
			r = c.word(wp, rp, a, max(b, off), off)
		} else {
			r = c.bytesOf(wp, rp, mask, a, b, off)
		}
		if g.scratchW != 0 {
			p.w = g.newArray(p)
			p.w[i], g.scratchW = g.scratchW, 0
		}
		if g.scratchR != 0 {
			p.r = g.newArray(p)
			p.r[i], g.scratchR = g.scratchR, 0
		}
		if r != nil {
			return r
		}
	}
	return nil
}

// newArray returns a new page array for p (a spare one when there is).
func (g *Global) newArray(p *page) *[pageWords]uint32 {
	if p.w == nil && p.r == nil {
		g.shadowed += 4 * pageWords
	}
	if n := len(g.spare); n > 0 {
		a := g.spare[n-1]
		g.spare = g.spare[:n-1]
		return a
	}
	g.arrays++
	g.note()
	return new([pageWords]uint32)
}

// byteMask returns the bytes of word b that [off, off+n) covers.
func byteMask(b, off uint64, n int) uint8 {
	lo, hi := max(b, off), min(b+4, off+uint64(n))
	return uint8((1<<(hi-b) - 1) &^ (1<<(lo-b) - 1))
}

// race describes the conflict of a's access at byte at (of an access
// starting at off) with the earlier access h.
func (c *Cluster) race(h uint32, a *actor, at, off uint64) *Race {
	e := c.G.decode(h)
	r := &Race{Prev: c.access(e), Proxy: a.async && e.m.flags&fAsync == 0 && a.knows(e), Offset: int(at - off)}
	r.Cur = Access{Cluster: a.cl, PC: a.pc, Write: a.write, Scope: a.scope}
	r.Cur.Thread, r.Cur.Agent = c.SlotThread(a.self)
	if l := c.issuerLane(a); l != 0 {
		r.Cur.Thread.Lane = int(l) - 1
	}
	return r
}

// sharedPages returns the shadow pages of rank's shared memory (size
// bytes).
func (c *Cluster) sharedPages(rank, size int) []page {
	if c.shared[rank] == nil {
		c.shared[rank] = make([]page, (size+4*pageWords-1)/(4*pageWords))
	}
	return c.shared[rank]
}

func (c *Cluster) sharedActor(a *actor, rank int, off uint32, n, size int) *Race {
	ps := c.sharedPages(rank, size)
	addr, start := uint64(off), uint64(off)
	for n > 0 {
		pn := addr >> 2 >> pageBits
		if pn >= uint64(len(ps)) {
			return nil
		}
		base := pn << pageBits << 2
		end := min(addr+uint64(n), base+4*pageWords)
		if r := c.run(&ps[pn], base, addr, int(end-addr), a); r != nil {
			r.Offset += int(addr - start)
			return r
		}
		n -= int(end - addr)
		addr = end
	}
	return nil
}

// globalActor applies a to n bytes of global memory at addr, page by page.
func (c *Cluster) globalActor(a *actor, addr uint64, n int) *Race {
	start := addr
	for n > 0 {
		pn := addr >> 2 >> pageBits
		base := pn << pageBits << 2
		end := min(addr+uint64(n), base+4*pageWords)
		if r := c.run(c.G.page(pn), base, addr, int(end-addr), a); r != nil {
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
	// CAS marks atom.cas: a weak load it conflicts with
	// is the guess of a compare-and-swap loop, not a race.
	CAS   bool
	Scope Scope // ScopeNone: weak
	PC    int32
	// Async marks an access of the async proxy (bulk copies, and a
	// thread's wgmma.mma_async reading its shared-memory operands); its
	// reads of generic-proxy writes need fence.proxy.async.
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

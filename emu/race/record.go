package race

import "math/bits"

// Access records. A shadow cell does not hold its accesses: it holds
// 32-bit handles, each naming one lane of one record. A record is one
// warp-instruction's execution (or one asynchronous operation's landing):
// who (cluster, the warp's first thread slot or the agent slot), when
// (the lanes' clocks: one clock when they agree, else a vector of 32 in
// the vector table), where in the program (pc), which instance, and how
// (strong scope, proxy, write, read-modify-write). The lanes of one
// warp-instruction share it, so a coalesced access costs one record for
// up to 128 words, and a cell costs 8 bytes (docs/race.md, "What is
// shadowed").
//
// Records and vectors are reclaimed by a mark-and-sweep over the shadow
// (Global.collect) when their tables fill.

type record struct {
	cl   int32
	slot uint32 // the thread slot of lane 0 of the warp, or the agent slot
	clk  uint32 // every lane's clock, when vec is 0
	vec  uint32 // the lanes' clocks (Global.vecs), or pairTag|a pair (Global.pairs), or 0
}

// recMeta is the rest of a record, kept apart (Global.meta, same index)
// so that the clock checks of the hot path read 16-byte records.
type recMeta struct {
	pc    int32
	inst  uint32 // the warp-instruction instance (Cluster.begin); 0 for operations
	scope Scope
	flags uint8
	// issuer is 1 + the lane of the thread that issued an operation whose
	// agent is another lane's (a warp's tcgen05.mma run on the agent of
	// its last lane, tmem.go), or 0: the report names that thread.
	issuer uint8
}

const (
	fAsync uint8 = 1 << iota // made by the async proxy (an asynchronous operation's agent)
	fWrite
	fRMW // a read-modify-write (atom, red)
	fCAS // atom.cas: may validate a weak load's guess
)

// A handle names lane (low laneBits bits) of a record. The top bit tags a
// cell's write handle as the index of its per-byte split, and a cell's
// read handle as the index of its rare entry.
const (
	laneBits = 5
	tag      = uint32(1) << 31
)

// slab is a table of fixed-size entries named by index (entry 0 is never
// handed out), with a bitmap of the entries in use. It grows by chunks;
// growing may move the entries, so no pointer to one is kept across a
// take.
type slab[T any] struct {
	items  []T
	used   []uint64
	cursor uint32
	inUse  int
	limit  int // entries before the next collection
}

const slabChunk = 256

func (s *slab[T]) at(i uint32) *T { return &s.items[i] }

func (s *slab[T]) cap() uint32 { return uint32(len(s.items)) }

// take returns a free entry's index, or 0 when the slab is at its limit.
func (s *slab[T]) take() uint32 {
	for {
		n := s.cap()
		for s.cursor < n {
			wi := s.cursor >> 6
			free := ^s.used[wi] &^ (1<<(s.cursor&63) - 1)
			if free == 0 {
				s.cursor = (wi + 1) << 6
				continue
			}
			i := wi<<6 | uint32(bits.TrailingZeros64(free))
			s.used[wi] |= 1 << (i & 63)
			s.cursor = i + 1
			s.inUse++
			return i
		}
		if n > 0 && int(n) >= s.limit {
			return 0
		}
		s.items = append(s.items, make([]T, slabChunk)...)
		s.used = append(s.used, make([]uint64, slabChunk/64)...)
		if n == 0 {
			s.used[0] = 1 // entry 0 means none
			s.cursor = 1
		}
	}
}

// free gives entry i back.
func (s *slab[T]) free(i uint32) {
	s.used[i>>6] &^= 1 << (i & 63)
	s.inUse--
	s.cursor = min(s.cursor, i)
}

// bytes is the memory the slab holds.
func (s *slab[T]) bytes(entry int) int { return cap(s.items)*entry + cap(s.used)*8 }

// sweepStart forgets which entries are used, before a marking pass.
func (s *slab[T]) sweepStart() {
	clear(s.used)
	if len(s.used) > 0 {
		s.used[0] = 1
	}
	s.inUse, s.cursor = 0, 1
}

func (s *slab[T]) mark(i uint32) bool {
	w, b := i>>6, uint64(1)<<(i&63)
	if s.used[w]&b != 0 {
		return false
	}
	s.used[w] |= b
	s.inUse++
	return true
}

// sweepEnd sets the next collection's limit: twice what survived, and at
// least floor.
func (s *slab[T]) sweepEnd(floor int) {
	s.limit = max(2*s.inUse, floor)
}

// minRecords is the least number of records (and clock vectors) between
// collections; the limit also grows with the shadow (collectFloor), so
// that a collection's walk over the shadow is paid for by the records
// made since the last one.
const minRecords = 1 << 12

// collectFloor is the least limit of the record and vector tables after
// a collection: one per 16 words shadowed.
func (g *Global) collectFloor() int { return max(minRecords, g.shadowed/4/16) }

// newRecord returns a new record's index for actor a, which it fills.
func (c *Cluster) newRecord(a *actor) uint32 {
	g := c.G
	vec, clk := uint32(0), a.clk
	if w := a.w; w != nil {
		clk = w.clk[0]
		if w.uni == 0 {
			w.uni = -1
			if uniform(&w.clk) {
				w.uni = 1
			}
		}
		if w.uni < 0 {
			// before the record: pairOf and vecOf may collect
			if p := c.pairOf(w); p != 0 {
				vec = pairTag | p
			} else {
				vec, clk = c.vecOf(w), 0
			}
		}
	}
	i := g.recs.take()
	if i == 0 {
		g.collect()
		i = g.recs.take()
	}
	r := g.recs.at(i)
	var f uint8
	if a.async {
		f |= fAsync
	}
	if a.rmw {
		f |= fRMW
	}
	if a.write {
		f |= fWrite
	}
	if a.cas {
		f |= fCAS
	}
	*r = record{cl: a.cl, slot: a.self - a.lane, clk: clk, vec: vec}
	if n := len(g.recs.items); len(g.meta) < n {
		g.meta = append(g.meta, make([]recMeta, n-len(g.meta))...)
	}
	g.meta[i] = recMeta{pc: a.pc, inst: a.inst, scope: a.scope, flags: f, issuer: c.issuerLane(a)}
	return i
}

// issuerLane is recMeta.issuer for actor a: an agent's access whose
// issuing thread (a.extra) is another thread of the agent's warp.
func (c *Cluster) issuerLane(a *actor) uint8 {
	if int(a.self) < c.T || int(a.extra) >= c.T {
		return 0
	}
	at, _ := c.SlotThread(a.self)
	it, _ := c.SlotThread(a.extra)
	if at.Rank != it.Rank || at.Warp != it.Warp || at.Lane == it.Lane {
		return 0
	}
	return uint8(it.Lane + 1)
}

func uniform(v *[32]uint32) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}

// pairTag marks a record's vec as a pair: the lanes' clocks take two
// values, the record's clk and the pair's second value for the lanes in
// its mask (a warp whose lanes released different numbers of times, say an
// elected lane, is the common non-uniform case: 8 bytes, not a 128-byte
// vector).
const pairTag = uint32(1) << 31

// pairOf returns the index of a pair describing w's lane clocks (lane 0's
// clock is the record's clk), shared by the records made until the clocks
// change, or 0 when they take more than two values.
func (c *Cluster) pairOf(w *warp) uint32 {
	if w.pair != 0 || w.noPair {
		return w.pair
	}
	base, other, mask := w.clk[0], uint32(0), uint32(0)
	for l, x := range w.clk {
		if x == base {
			continue
		}
		if mask != 0 && x != other {
			w.noPair = true
			return 0
		}
		other, mask = x, mask|1<<l
	}
	g := c.G
	i := g.pairs.take()
	if i == 0 {
		g.collect()
		i = g.pairs.take()
	}
	*g.pairs.at(i) = [2]uint32{mask, other}
	w.pair = i
	return i
}

// laneClk returns lane l's clock in record r.
func (g *Global) laneClk(r *record, l uint32) uint32 {
	switch v := r.vec; {
	case v == 0:
		return r.clk
	case v&pairTag != 0:
		if p := &g.pairs.items[v&^pairTag]; p[0]>>l&1 != 0 {
			return p[1]
		}
		return r.clk
	}
	return g.vecs.items[r.vec][l]
}

// vecOf returns the index of a vector holding w's lane clocks, shared by
// the records made until the clocks change.
func (c *Cluster) vecOf(w *warp) uint32 {
	if w.vec != 0 {
		return w.vec
	}
	g := c.G
	i := g.vecs.take()
	if i == 0 {
		g.collect()
		i = g.vecs.take()
	}
	*g.vecs.at(i) = w.clk
	w.vec = i
	return i
}

// handle returns a's handle, making the record of its instance first.
func (c *Cluster) handle(a *actor) uint32 {
	if a.rec == 0 {
		a.rec = c.readRecord(a)
		if a.rec == 0 {
			a.rec = c.newRecord(a)
			if !a.write && a.w != nil {
				a.w.rdRec[a.pc&7] = a.rec
			}
		}
	}
	return a.rec<<laneBits | a.lane
}

// readRecord returns the record an earlier instance of a's read
// instruction made, when it describes a's read too: same pc and kind, and
// the warp's clocks unchanged since (a loop that reads without
// synchronising makes one record, not one per iteration), or 0. Only
// reads share records across instances: the same-instruction rule for
// stores (benign) needs the instance.
func (c *Cluster) readRecord(a *actor) uint32 {
	w := a.w
	if a.write || w == nil {
		return 0
	}
	i := w.rdRec[a.pc&7]
	if i == 0 || c.G.meta[i].pc != a.pc || !c.recordFits(i, a) {
		return 0
	}
	if w.uni == 0 {
		w.uni = -1
		if uniform(&w.clk) {
			w.uni = 1
		}
	}
	r := c.G.recs.at(i)
	if w.uni > 0 {
		if r.vec == 0 && r.clk == w.clk[0] {
			return i
		}
		return 0
	}
	if r.vec != 0 && (r.vec == w.vec || r.vec == pairTag|w.pair && r.clk == w.clk[0]) {
		return i
	}
	return 0
}

// epoch is a decoded handle.
type epoch struct {
	r    *record
	m    *recMeta
	slot uint32
	clk  uint32
}

func (g *Global) decode(h uint32) epoch {
	r := g.recs.at(h >> laneBits)
	l := h & (1<<laneBits - 1)
	e := epoch{r: r, m: &g.meta[h>>laneBits], slot: r.slot + l, clk: g.laneClk(r, l)}
	return e
}

// knowsH reports whether actor a knows the access of handle h (the
// clock is looked up only when a could know it).
func (c *Cluster) knowsH(a *actor, h uint32) bool {
	g := c.G
	r := &g.recs.items[h>>laneBits]
	if r.cl != a.cl && a.k.Foreign == nil {
		return false
	}
	l := h & (1<<laneBits - 1)
	return a.knowsAt(r.cl, r.slot+l, g.laneClk(r, l))
}

// collect marks the records and vectors that the shadow and the live
// clusters still name, and frees the others.
func (g *Global) collect() {
	g.recs.sweepStart()
	g.vecs.sweepStart()
	g.pairs.sweepStart()
	for _, p := range g.pages {
		g.markPage(p)
	}
	for _, c := range g.clusters {
		for _, ps := range c.shared {
			for i := range ps {
				g.markPage(&ps[i])
			}
		}
		for _, ps := range c.tmem {
			for i := range ps {
				g.markPage(&ps[i])
			}
		}
		for i := range c.warps {
			if v := c.warps[i].vec; v != 0 {
				g.vecs.mark(v)
			}
			if p := c.warps[i].pair; p != 0 {
				g.pairs.mark(p)
			}
			c.warps[i].rdRec = [8]uint32{}
		}
		if c.act.rec != 0 {
			g.markRec(c.act.rec)
		}
		c.opRecs = [opRecs]opRec{}
	}
	clear(g.canon)
	g.recs.sweepEnd(g.collectFloor())
	g.vecs.sweepEnd(g.collectFloor())
	g.pairs.sweepEnd(g.collectFloor())
	g.Collections++
}

func (g *Global) markPage(p *page) {
	if p.w != nil {
		for _, h := range p.w {
			if h&tag != 0 {
				for _, b := range g.split.at(h &^ tag) {
					g.markH(b.w)
					g.markR(b.r)
				}
				continue
			}
			g.markH(h)
		}
	}
	if p.r != nil {
		for _, h := range p.r {
			g.markR(h)
		}
	}
}

func (g *Global) markR(h uint32) {
	if h&tag == 0 {
		g.markH(h)
		return
	}
	rr := g.rare.at(h &^ tag)
	g.markH(rr.weak)
	for _, x := range rr.reads {
		g.markH(x &^ tag) // tagged: an atomic write
	}
}

func (g *Global) markH(h uint32) {
	if h != 0 {
		g.markRec(h >> laneBits)
	}
}

func (g *Global) markRec(i uint32) {
	if g.recs.mark(i) {
		if v := g.recs.at(i).vec; v&pairTag != 0 {
			g.pairs.mark(v &^ pairTag)
		} else if v != 0 {
			g.vecs.mark(v)
		}
	}
}

package mm

import "sort"

// orders enumerates the fence-SC order (§8.9.3: a total order over the
// fence.sc operations, synchronizing morally strong pairs) and the arrival
// order at counted barriers, and checks the axioms for each.
func (c *checker) orders(rf rel) error {
	groups, quorumHang := c.barrierGroups()
	mb, mbHang := c.mbarrierSync()
	quorumHang = quorumHang || mbHang
	if quorumHang && !c.liveness {
		return nil
	}
	if len(c.scFences) > maxOrdered {
		return ErrTooLarge
	}
	for _, g := range groups {
		if g.quorum > 0 && len(g.events) > maxOrdered {
			return ErrTooLarge
		}
	}
	seen := map[string]bool{}
	keys := map[string]bool{}
	var err error
	permute(c.scFences, func(scOrder []int) bool {
		sf := newRel(c.n)
		for i, a := range scOrder {
			for _, b := range scOrder[i+1:] {
				if c.ms.has(a, b) {
					sf.set(a, b)
				}
			}
		}
		return permuteGroups(groups, func() bool {
			c.budget--
			if c.budget < 0 {
				err = ErrTooLarge
				return false
			}
			sb := c.barrierSync(groups).union(mb)
			hang := quorumHang
			if c.deadlocked(groups, sb) {
				if !c.liveness {
					return true
				}
				hang = true
			}
			k := coKeyString(sf) + "|" + coKeyString(sb)
			if seen[k] {
				return true
			}
			seen[k] = true
			err = c.checkAxioms(rf, sf, sb, keys, hang)
			return err == nil
		})
	})
	return err
}

// maxOrdered bounds the fence.sc operations, and the arrivals at one
// counted barrier, whose orders are enumerated.
const maxOrdered = 6

// maxCoWrites bounds the writes to one location whose partial coherence
// orders are enumerated.
const maxCoWrites = 7

// permute calls f with every permutation of xs (in place) until f returns
// false.
func permute(xs []int, f func([]int) bool) bool {
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(xs) {
			return f(xs)
		}
		for i := k; i < len(xs); i++ {
			xs[k], xs[i] = xs[i], xs[k]
			ok := rec(k + 1)
			xs[k], xs[i] = xs[i], xs[k]
			if !ok {
				return false
			}
		}
		return true
	}
	return rec(0)
}

// barGroup is the set of barrier operations that meet at one barrier: same
// CTA, same instance, same barrier id. Only counted barriers have an
// arrival order to choose.
type barGroup struct {
	events []int
	quorum int // 0: every member of the group
}

// barrierGroups collects the barrier groups and reports whether some
// counted barrier can never complete (fewer arrivals than its count).
func (c *checker) barrierGroups() ([]*barGroup, bool) {
	type key struct {
		gpu, cta, ins int
		id            int64
	}
	byKey := map[key]*barGroup{}
	var order []key
	for i := range c.ev {
		e := &c.ev[i]
		if e.Kind != EvBarrier {
			continue
		}
		th := &c.prog.Threads[e.Thread]
		base := c.off[e.Thread]
		id := e.barID.evalWith(func(l int) int64 { return c.vals[base+l] })
		k := key{th.GPU, th.CTA, e.BarIns, id}
		g := byKey[k]
		if g == nil {
			g = &barGroup{}
			byKey[k] = g
			order = append(order, k)
		}
		g.events = append(g.events, i)
		if e.BarCnt > g.quorum {
			g.quorum = e.BarCnt
		}
	}
	var gs []*barGroup
	hang := false
	for _, k := range order {
		g := byKey[k]
		if g.quorum > 0 && len(g.events) < g.quorum {
			for _, e := range g.events {
				if !c.ev[e].Arrive {
					hang = true
				}
			}
		}
		gs = append(gs, g)
	}
	return gs, hang
}

func permuteGroups(gs []*barGroup, f func() bool) bool {
	if len(gs) == 0 {
		return f()
	}
	g := gs[0]
	if g.quorum == 0 {
		return permuteGroups(gs[1:], f)
	}
	return permute(g.events, func([]int) bool { return permuteGroups(gs[1:], f) })
}

// barrierSync is the barrier synchronization of §8.9.4: every arrival
// counted before a waiting operation completes synchronizes with it. An
// uncounted barrier completes when the whole group has arrived; a counted
// one when `quorum` arrivals are in, arrivals after that pass at once and
// see the arrivals before them.
func (c *checker) barrierSync(gs []*barGroup) rel {
	sb := newRel(c.n)
	for _, g := range gs {
		for pb, b := range g.events {
			if c.ev[b].Arrive {
				continue
			}
			last := len(g.events) - 1
			if g.quorum > 0 {
				last = max(g.quorum-1, pb)
			}
			for pa, a := range g.events {
				if a != b && pa <= last {
					sb.set(a, b)
				}
			}
		}
	}
	return sb
}

// deadlocked reports whether the barrier and mbarrier waits cannot all
// complete: each barrier operation arrives, then completes once the
// arrivals it synchronizes with are in (an mbarrier wait once every
// arrive-on of its phase is in); program order runs from a completion to the
// next arrival, and a counted barrier's arrivals come in the chosen order.
// A cycle among these steps is a deadlock (no finished execution).
func (c *checker) deadlocked(gs []*barGroup, sb rel) bool {
	var bars []int
	node := map[int]int{}
	add := func(e int) {
		node[e] = len(bars)
		bars = append(bars, e)
	}
	for _, g := range gs {
		for _, e := range g.events {
			add(e)
		}
	}
	for i := range c.ev {
		if c.ev[i].Kind == EvArrive || c.ev[i].Kind == EvWait {
			add(i)
		}
	}
	if len(bars) == 0 || 2*len(bars) > maxEvents {
		return false
	}
	arr := func(e int) int { return 2 * node[e] }
	cmp := func(e int) int { return 2*node[e] + 1 }
	g := newRel(2 * len(bars))
	for _, a := range bars {
		g.set(arr(a), cmp(a))
		for _, b := range bars {
			if c.po.has(a, b) {
				g.set(cmp(a), arr(b))
			}
			// A barrier waits for the arrivals it synchronizes with; an
			// mbarrier wait for every arrival of its phase.
			if sb.has(a, b) || c.ev[a].Kind == EvArrive && c.ev[b].Kind == EvWait && c.ev[a].mbar == c.ev[b].mbar {
				g.set(arr(a), cmp(b))
			}
		}
	}
	for _, gr := range gs {
		if gr.quorum > 0 {
			for k := 1; k < len(gr.events); k++ {
				g.set(arr(gr.events[k-1]), arr(gr.events[k]))
			}
		}
	}
	return !g.acyclic()
}

// causeParts holds the relations of §8.9 for one execution.
type causeParts struct {
	sw    rel // synchronizes-with
	base  rel // base causality order
	cause rel // causality order
}

// causality computes base causality and causality order (§8.9.5):
// synchronizes-with is release patterns observed by acquire patterns
// (§8.8, §8.9.4), fence-SC order and barriers; base causality is
// (po? ; sw)+ ; po? ; causality adds observation order first.
func (c *checker) causality(rf, sf, sb rel) causeParts {
	msrf := rf.inter(c.ms)
	obs := msrf.seq(c.rmw.seq(msrf).plus().withID())
	sync := c.releasePatterns().seq(obs).seq(c.acquirePatterns()).inter(c.ms)
	sw := sync.union(sf).union(sb)
	poq := c.po.withID()
	base := poq.seq(sw.seq(poq).plus())
	if c.model == PTXv60 {
		return causeParts{sw, base, base.union(obs.seq(base.union(c.poLoc)))}
	}
	base = base.union(c.po)
	pp := c.proxyPreserved(base)
	return causeParts{sw, base, pp.union(obs.seq(pp))}
}

// releasePatterns relates the first operation of each release pattern
// (§8.8) to its final strong write: a release write followed by a strong
// write to the same location, or a release fence followed by a strong
// write.
func (c *checker) releasePatterns() rel {
	r := newRel(c.n)
	for w := range c.ev {
		e := &c.ev[w]
		if e.Kind != EvWrite || !e.strong() {
			continue
		}
		if e.Sem == Release || e.Sem == AcqRel {
			r.set(w, w)
		}
		for a := range c.ev {
			x := &c.ev[a]
			if c.po.has(a, w) && (x.Kind == EvWrite && (x.Sem == Release || x.Sem == AcqRel) && c.poLoc.has(a, w) || x.acqRelFence()) {
				r.set(a, w)
			}
		}
	}
	return r
}

// acquirePatterns relates the strong read of each acquire pattern (§8.8)
// to its last operation: an acquire read, a strong read followed by an
// acquire read of the same location, or a strong read followed by an
// acquire fence.
func (c *checker) acquirePatterns() rel {
	r := newRel(c.n)
	for rd := range c.ev {
		e := &c.ev[rd]
		if e.Kind != EvRead || !e.strong() {
			continue
		}
		if e.Sem == Acquire {
			r.set(rd, rd)
		}
		for b := range c.ev {
			x := &c.ev[b]
			if c.po.has(rd, b) && (x.Kind == EvRead && x.Sem == Acquire && c.poLoc.has(rd, b) || x.acqRelFence()) {
				r.set(rd, b)
			}
		}
	}
	return r
}

// checkAxioms checks the axioms of §8.10 for one fence-SC and barrier
// order, enumerating coherence per location, and records the allowed
// executions in keys.
func (c *checker) checkAxioms(rf, sf, sb rel, keys map[string]bool, hang bool) error {
	cp := c.causality(rf, sf, sb)
	cause := cp.cause
	// Fence-SC (§8.10.2): fence-SC order does not contradict causality.
	for _, a := range c.scFences {
		for _, b := range c.scFences {
			if a != b && cp.base.has(a, b) && !sf.has(a, b) {
				return nil
			}
		}
	}
	// Causality (§8.10.6), reads-from half: no read reads a causally later write.
	for _, r := range c.reads {
		if cause.has(r, c.rf[r]) {
			return nil
		}
	}
	perLoc := make([][]coChoice, len(c.byLoc))
	for p := range c.byLoc {
		if len(c.byLoc[p]) > maxCoWrites {
			return ErrTooLarge
		}
		perLoc[p] = c.coherence(p, cause)
		if c.budget < 0 {
			return ErrTooLarge
		}
		if len(perLoc[p]) == 0 {
			return nil
		}
	}
	c.sw = cp.sw
	c.record(perLoc, keys, hang)
	return nil
}

// coChoice is one allowed coherence order of one location.
type coChoice struct {
	key     uint64
	edges   [][2]int
	maximal uint64 // writes with no coherence successor
	co      rel    // the order itself
	final   int64
	defined bool // the co-maximal writes agree on the final value
}

// coherence enumerates the coherence orders of physical location p allowed
// by the axioms that involve coherence: Coherence (§8.10.1: causality
// order between overlapping writes is coherence order; morally strong
// writes are ordered), Atomicity (§8.10.3), the coherence half of
// Causality (§8.10.6) and SC per location (§8.10.5).
//
// Coherence order is partial (§8.9.6): writes in a data race may be
// unordered. The initial write precedes every other.
func (c *checker) coherence(p int, cause rel) []coChoice {
	ws := c.byLoc[p]
	type pair struct{ a, b int }
	var pairs []pair
	var forced []int8 // 1: a<b, -1: b<a, 0 free
	for i := 1; i < len(ws); i++ {
		for j := i + 1; j < len(ws); j++ {
			a, b := ws[i], ws[j]
			f := int8(0)
			if cause.has(a, b) {
				f = 1
			}
			if cause.has(b, a) {
				if f == 1 {
					return nil
				}
				f = -1
			}
			pairs = append(pairs, pair{a, b})
			forced = append(forced, f)
		}
	}
	var out []coChoice
	choice := make([]int8, len(pairs))
	var rec func(k int)
	rec = func(k int) {
		if c.budget < 0 {
			return
		}
		if k == len(pairs) {
			c.budget--
			co := newRel(c.n)
			for _, w := range ws[1:] {
				co.set(ws[0], w)
			}
			var key uint64
			for i, pr := range pairs {
				switch choice[i] {
				case 1:
					co.set(pr.a, pr.b)
				case -1:
					co.set(pr.b, pr.a)
				}
				key |= uint64(choice[i]+1) << uint(2*i)
			}
			if !co.plus().irreflexive() || !sameRel(co.plus(), co) {
				return
			}
			if cc, ok := c.checkCO(p, co, cause); ok {
				cc.key = key
				out = append(out, cc)
			}
			return
		}
		opts := []int8{1, -1, 0}
		if forced[k] != 0 {
			opts = []int8{forced[k]}
		} else if c.ms.has(pairs[k].a, pairs[k].b) {
			opts = []int8{1, -1}
		}
		for _, o := range opts {
			choice[k] = o
			rec(k + 1)
		}
	}
	rec(0)
	return out
}

func sameRel(a, b rel) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkCO checks the coherence-dependent axioms at one location.
func (c *checker) checkCO(p int, co, cause rel) (coChoice, bool) {
	ws := c.byLoc[p]
	fr := newRel(c.n)
	for _, r := range c.reads {
		if c.phys[r] != p {
			continue
		}
		fr[r] = co[c.rf[r]]
		// Causality: no read of a value overwritten by a causally earlier write.
		for _, w := range ws {
			if fr.has(r, w) && cause.has(w, r) {
				return coChoice{}, false
			}
		}
		// Atomicity: no morally strong write between an RMW's read and write.
		if w := c.ev[r].Pair; w >= 0 {
			for _, x := range ws {
				if fr.has(r, x) && co.has(x, w) && c.ms.has(r, x) && c.ms.has(x, w) {
					return coChoice{}, false
				}
			}
		}
	}
	// SC per location: morally strong communication does not contradict program order.
	com := newRel(c.n)
	for _, r := range c.reads {
		if c.phys[r] == p {
			com.set(c.rf[r], r)
		}
	}
	com = com.union(co).union(fr).inter(c.ms).union(c.poLoc)
	if !com.acyclic() {
		return coChoice{}, false
	}
	cc := coChoice{defined: true, co: co}
	first := true
	for _, w := range ws {
		if co[w] != 0 {
			continue
		}
		cc.maximal |= 1 << uint(w)
		if first {
			cc.final, first = c.vals[w], false
		} else if c.vals[w] != cc.final {
			cc.defined = false
		}
	}
	for _, a := range ws {
		for row := co[a]; row != 0; row &= row - 1 {
			cc.edges = append(cc.edges, [2]int{a, trailing(row)})
		}
	}
	return cc, true
}

// record adds the executions of the current reads-from choice: every
// combination of per-location coherence orders.
func (c *checker) record(perLoc [][]coChoice, keys map[string]bool, hang bool) {
	idx := make([]int, len(perLoc))
	regs := make([]map[string]int64, len(c.combo))
	for t := range c.combo {
		regs[t] = c.regs(t)
	}
	for {
		ks := make([]uint64, len(perLoc))
		for p, i := range idx {
			ks[p] = perLoc[p][i].key
		}
		k := coKeyString(ks)
		if !keys[k] {
			keys[k] = true
			if c.liveness {
				c.count++
				c.observeProgress(perLoc, idx, regs, hang)
			} else if c.observe(perLoc, idx, regs) {
				c.count++
			}
		}
		p := 0
		for ; p < len(idx); p++ {
			idx[p]++
			if idx[p] < len(perLoc[p]) {
				break
			}
			idx[p] = 0
		}
		if p == len(idx) {
			return
		}
	}
}

// observe evaluates the witness on one execution.
// It reports false for an execution the test's filter excludes.
func (c *checker) observe(perLoc [][]coChoice, idx []int, regs []map[string]int64) bool {
	o := Outcome{Regs: regs, Mem: make([]int64, len(c.prog.Locs))}
	undefined := false
	for l, loc := range c.prog.Locs {
		cc := &perLoc[loc.Phys][idx[loc.Phys]]
		if !cc.defined && c.condUses(l) {
			undefined = true
		}
		o.Mem[l] = cc.final
	}
	if c.prog.Filter != nil && !c.prog.Filter.eval(&o) {
		return false
	}
	if undefined {
		return true
	}
	holds := witnessHolds(c.prog, &o)
	if oc := c.tallyOutcome(&o, holds); oc.Example == nil && c.wantWitness {
		oc.Example = c.snapshot(perLoc, idx, o)
	}
	if holds {
		c.reached = true
		c.keepWitness(perLoc, idx, o)
	}
	return true
}

func (c *checker) keepWitness(perLoc [][]coChoice, idx []int, o Outcome) {
	if c.witness == nil && c.wantWitness {
		c.witness = c.snapshot(perLoc, idx, o)
	}
}

// snapshot copies the execution being recorded.
func (c *checker) snapshot(perLoc [][]coChoice, idx []int, o Outcome) *Execution {
	x := &Execution{Events: append([]Event(nil), c.ev...), RF: append([]int(nil), c.rf...), Values: append([]int64(nil), c.vals...), Outcome: o}
	for a, row := range c.sw {
		for ; row != 0; row &= row - 1 {
			x.SW = append(x.SW, [2]int{a, trailing(row)})
		}
	}
	for p, i := range idx {
		x.CO = append(x.CO, perLoc[p][i].edges...)
	}
	sort.Slice(x.CO, func(i, j int) bool {
		return x.CO[i][0] < x.CO[j][0] || x.CO[i][0] == x.CO[j][0] && x.CO[i][1] < x.CO[j][1]
	})
	return x
}

// condUses reports whether the condition reads location l's final value.
func (c *checker) condUses(l int) bool {
	return condMentions(c.prog.Cond, l)
}

func condMentions(x Cond, l int) bool {
	switch x := x.(type) {
	case *cmpCond:
		return x.l.IsLoc && x.l.Loc == l || x.r.IsLoc && x.r.Loc == l
	case *notCond:
		return condMentions(x.x, l)
	case *binCond:
		return condMentions(x.l, l) || condMentions(x.r, l)
	}
	return false
}

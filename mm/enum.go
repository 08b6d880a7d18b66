package mm

import (
	"math/bits"
	"strings"
)

// checker enumerates the candidate executions of a program.
type checker struct {
	prog  *Program
	model Model
	paths [][]*path

	// The current combination of thread paths.
	combo []*path
	ev    []Event
	n     int
	off   []int // first global event of each thread
	phys  []int // physical location of each event, -1 for non-memory events
	reads []int
	byLoc [][]int // writes per physical location, initial write first

	po, poLoc, ms, rmw, dep rel
	scFences                []int

	// The current reads-from choice.
	rf   []int
	vals []int64
	memo []uint8

	sw rel // synchronizes-with of the execution being recorded

	// Results.
	wantWitness bool
	reached     bool
	count       int
	witness     *Execution
	liveness    bool // decide termination instead of the condition
	budget      int  // candidate executions left to examine
	outcomes    map[string]*OutcomeCount
	terms       []Term
}

// enumBudget bounds the candidate executions examined for one program.
const enumBudget = 50_000

func newChecker(prog *Program, m Model) (*checker, error) {
	c := &checker{prog: prog, model: m, budget: enumBudget}
	for t := range prog.Threads {
		ps, err := threadPaths(prog, t)
		if err != nil {
			return nil, err
		}
		c.paths = append(c.paths, ps)
	}
	return c, nil
}

// run enumerates every combination of thread paths.
func (c *checker) run() error {
	c.combo = make([]*path, len(c.paths))
	return c.combine(0)
}

func (c *checker) combine(t int) error {
	if t == len(c.paths) {
		return c.execute()
	}
	for _, p := range c.paths[t] {
		if p.blocked && !c.liveness {
			continue
		}
		c.combo[t] = p
		if err := c.combine(t + 1); err != nil {
			return err
		}
	}
	return nil
}

// execute builds the events of the current path combination and enumerates
// its reads-from choices.
func (c *checker) execute() error {
	c.budget--
	if c.budget < 0 {
		return ErrTooLarge
	}
	if err := c.buildEvents(); err != nil {
		return err
	}
	c.buildStatic()
	c.rf = make([]int, c.n)
	for i := range c.rf {
		c.rf[i] = -1
	}
	return c.chooseRF(0)
}

func (c *checker) buildEvents() error {
	prog := c.prog
	c.ev = c.ev[:0]
	for p := range prog.PhysNames {
		loc := 0
		for i, l := range prog.Locs {
			if l.Phys == p {
				loc = i
				break
			}
		}
		c.ev = append(c.ev, Event{Kind: EvWrite, Thread: -1, Loc: loc, Pair: -1, mbar: -1, val: constExpr(prog.PhysInit[p])})
	}
	c.off = c.off[:0]
	for _, p := range c.combo {
		base := len(c.ev)
		c.off = append(c.off, base)
		for _, e := range p.events {
			if e.Pair >= 0 {
				e.Pair += base
			}
			c.ev = append(c.ev, e)
		}
	}
	c.n = len(c.ev)
	if c.n > maxEvents {
		return ErrTooLarge
	}
	c.phys = make([]int, c.n)
	c.reads = c.reads[:0]
	c.byLoc = make([][]int, len(prog.PhysNames))
	for i, e := range c.ev {
		c.phys[i] = -1
		if e.Loc >= 0 && (e.Kind == EvRead || e.Kind == EvWrite) {
			c.phys[i] = prog.Locs[e.Loc].Phys
		}
		switch e.Kind {
		case EvRead:
			c.reads = append(c.reads, i)
		case EvWrite:
			c.byLoc[c.phys[i]] = append(c.byLoc[c.phys[i]], i)
		}
	}
	return nil
}

// sameCTA reports whether two events run in the same CTA.
func (c *checker) sameCTA(a, b int) bool {
	ta, tb := c.ev[a].Thread, c.ev[b].Thread
	if ta < 0 || tb < 0 {
		return false
	}
	x, y := &c.prog.Threads[ta], &c.prog.Threads[tb]
	return x.CTA == y.CTA && x.GPU == y.GPU
}

// inScope reports whether the scope of event a includes the thread of b
// (§8.5, Table 21).
func (c *checker) inScope(a, b int) bool {
	ta, tb := c.ev[a].Thread, c.ev[b].Thread
	x, y := &c.prog.Threads[ta], &c.prog.Threads[tb]
	switch c.ev[a].Scope {
	case ScopeCTA:
		return x.CTA == y.CTA && x.GPU == y.GPU
	case ScopeCluster:
		return x.cluster() == y.cluster() && x.GPU == y.GPU
	case ScopeGPU:
		return x.GPU == y.GPU
	case ScopeSys:
		return true
	}
	return false
}

func (e *Event) isMem() bool { return e.Kind == EvRead || e.Kind == EvWrite }
func (e *Event) strong() bool {
	return e.Kind == EvFence || e.isMem() && e.Sem != Weak && e.Thread >= 0
}
func (e *Event) isSCFence() bool { return e.Kind == EvFence && e.Fence == FenceSC }

// acqRelFence: fence.acq_rel and fence.sc both act as release and acquire
// fences in the patterns of §8.8.
func (e *Event) acqRelFence() bool {
	return e.Kind == EvFence && (e.Fence == FenceSC || e.Fence == FenceAcqRel)
}

// buildStatic computes the relations that depend only on the paths:
// program order, same-location program order, morally strong (§8.7),
// rmw and dependencies.
func (c *checker) buildStatic() {
	n := c.n
	c.po, c.poLoc, c.ms, c.rmw, c.dep = newRel(n), newRel(n), newRel(n), newRel(n), newRel(n)
	c.scFences = c.scFences[:0]
	for i := range c.ev {
		a := &c.ev[i]
		if a.isSCFence() {
			c.scFences = append(c.scFences, i)
		}
		if a.Kind == EvRead && a.Pair >= 0 {
			c.rmw.set(i, a.Pair)
		}
		if a.Thread >= 0 {
			for d := c.ev[i].dep; d != 0; d &= d - 1 {
				c.dep.set(c.off[a.Thread]+trailing(d), i)
			}
		}
		for j := range c.ev {
			b := &c.ev[j]
			if i == j {
				continue
			}
			if a.Thread >= 0 && a.Thread == b.Thread && i < j && (!a.async || b.async && a.Instr == b.Instr) {
				c.po.set(i, j)
				if a.isMem() && b.isMem() && c.sameLocation(i, j) {
					c.poLoc.set(i, j)
				}
			}
			if c.morallyStrong(i, j) {
				c.ms.set(i, j)
			}
		}
	}
}

// sameLocation: same physical location under v6.0, which has no aliases;
// same virtual address under v7.5 (the "overlap" of §8.7 is per address,
// aliases being related only through proxy-preserved causality, §8.9.5).
func (c *checker) sameLocation(i, j int) bool {
	if c.model == PTXv60 {
		return c.phys[i] == c.phys[j]
	}
	return c.prog.Locs[c.ev[i].Loc].Virt == c.prog.Locs[c.ev[j].Loc].Virt
}

// morallyStrong implements §8.7: related in program order, or both strong
// with each scope including the other's thread; performed through the same
// proxy (v7.5); and, for two memory operations, to the same location.
func (c *checker) morallyStrong(i, j int) bool {
	a, b := &c.ev[i], &c.ev[j]
	if a.Thread < 0 || b.Thread < 0 {
		return false
	}
	if a.Kind >= EvBarrier || b.Kind >= EvBarrier {
		return false
	}
	if a.Thread != b.Thread && !(a.strong() && b.strong() && c.inScope(i, j) && c.inScope(j, i)) {
		return false
	}
	if c.model != PTXv60 && a.Proxy != b.Proxy {
		return false
	}
	if a.isMem() && b.isMem() {
		return c.sameLocation(i, j)
	}
	return true
}

// trailing is the index of the lowest set bit of x.
func trailing(x uint64) int { return bits.TrailingZeros64(x) }

// chooseRF assigns a source write to each read, then checks the execution.
func (c *checker) chooseRF(k int) error {
	if k == len(c.reads) {
		return c.checkRF()
	}
	r := c.reads[k]
	for _, w := range c.byLoc[c.phys[r]] {
		if c.po.has(r, w) || c.ev[r].Pair == w || c.overwrittenInThread(w, r) {
			continue
		}
		c.rf[r] = w
		if err := c.chooseRF(k + 1); err != nil {
			return err
		}
	}
	c.rf[r] = -1
	return nil
}

// overwrittenInThread reports a source that SC per location (§8.10.5)
// rules out before coherence is chosen: a read cannot read a po-later write
// (nor its own RMW's write), and cannot read the initial write or an
// earlier write of its own thread when a morally strong write of its
// thread to the same address lies between (that write is coherence-later,
// and reading past it closes a cycle of program order and from-read).
func (c *checker) overwrittenInThread(w, r int) bool {
	for _, x := range c.byLoc[c.phys[r]] {
		if x == w || !c.poLoc.has(x, r) || !c.ms.has(x, r) {
			continue
		}
		if c.ev[w].Thread < 0 || c.poLoc.has(w, x) && c.ms.has(w, x) {
			return true
		}
	}
	return false
}

// rfRel returns rf as a relation from writes to reads.
func (c *checker) rfRel() rel {
	r := newRel(c.n)
	for _, rd := range c.reads {
		r.set(c.rf[rd], rd)
	}
	return r
}

// value returns the value event i reads or writes under the current rf.
// The caller has checked rf ∪ dep acyclic, so the recursion ends.
func (c *checker) value(i int) int64 {
	if c.memo[i] == 2 {
		return c.vals[i]
	}
	var v int64
	e := &c.ev[i]
	if e.Kind == EvRead {
		v = c.value(c.rf[i])
	} else if e.val != nil {
		base := 0
		if e.Thread >= 0 {
			base = c.off[e.Thread]
		}
		v = e.val.evalWith(func(local int) int64 { return c.value(base + local) })
	}
	c.vals[i], c.memo[i] = v, 2
	return v
}

// evalWith evaluates e, asking read for the value of each read it uses.
//
// Registers may share subexpressions (add r1, r1, r1 doubles the tree), so
// operations are evaluated once each.
func (e *expr) evalWith(read func(int) int64) int64 {
	switch e.kind {
	case exprConst:
		return e.val
	case exprRead:
		return read(e.read)
	}
	return e.evalMemo(read, map[*expr]int64{})
}

func (e *expr) evalMemo(read func(int) int64, memo map[*expr]int64) int64 {
	switch e.kind {
	case exprConst:
		return e.val
	case exprRead:
		return read(e.read)
	}
	if v, ok := memo[e]; ok {
		return v
	}
	v := arith(e.op, e.l.evalMemo(read, memo), e.r.evalMemo(read, memo))
	memo[e] = v
	return v
}

// checkRF checks one reads-from choice: no thin air (§8.10.4: rf ∪ dep is
// acyclic), values consistent with the paths' branch decisions, then the
// remaining axioms for each fence-SC and barrier order.
func (c *checker) checkRF() error {
	c.budget--
	if c.budget < 0 {
		return ErrTooLarge
	}
	rf := c.rfRel()
	if !rf.union(c.dep).acyclic() {
		return nil
	}
	c.vals = make([]int64, c.n)
	c.memo = make([]uint8, c.n)
	for i := range c.ev {
		c.value(i)
	}
	for t, p := range c.combo {
		base := c.off[t]
		get := func(local int) int64 { return c.vals[base+local] }
		for _, k := range p.cons {
			if compare(k.cmp, k.l.evalWith(get), k.r.evalWith(get)) != k.want {
				return nil
			}
		}
	}
	return c.orders(rf)
}

// regs returns the final registers of thread t.
func (c *checker) regs(t int) map[string]int64 {
	base := c.off[t]
	get := func(local int) int64 { return c.vals[base+local] }
	m := map[string]int64{}
	for r, e := range c.combo[t].regs {
		m[r] = e.evalWith(get)
	}
	return m
}

func coKeyString(keys []uint64) string {
	var b strings.Builder
	for _, k := range keys {
		for s := 0; s < 64; s += 8 {
			b.WriteByte(byte(k >> uint(s)))
		}
	}
	return b.String()
}

package mm

// CheckTermination decides whether the program can fail to terminate under
// fair scheduling: some allowed execution in which a thread spins forever
// in a loop or waits forever at a barrier. Reachable reports such an
// execution; Pass is its absence.
//
// Loops are unrolled once. A thread spins forever when its last iteration
// takes the backward jump after reading, at every read of that iteration,
// a write that is maximal in coherence order: under fair scheduling every
// write eventually reaches every thread, so only reads of final values can
// repeat forever (docs/litmus.md, "Liveness"). The iteration must also be a
// fixed point: each write it makes stores the location's final value, so
// running it again changes nothing (the read of an RMW in the loop reads
// the write just before its own, which puts back the value it read). A barrier waits forever when
// fewer threads than its count arrive, or when barrier waits form a cycle.
func CheckTermination(prog *Program, m Model) (*Result, error) {
	c, err := newChecker(prog, m)
	if err != nil {
		return nil, err
	}
	c.liveness, c.wantWitness = true, true
	if err := c.run(); err != nil {
		return nil, err
	}
	return &Result{Model: m, Reachable: c.reached, Pass: !c.reached, Executions: c.count, Witness: c.witness}, nil
}

// observeProgress records an execution that does not terminate.
func (c *checker) observeProgress(perLoc [][]coChoice, idx []int, regs []map[string]int64, hang bool) {
	stuck := hang
	for t, p := range c.combo {
		if !p.blocked {
			continue
		}
		final := true
		for _, local := range p.spin {
			r := c.off[t] + local
			w := c.rf[r]
			if !c.readsFinal(&perLoc[c.phys[r]][idx[c.phys[r]]], r, w) {
				final = false
			}
		}
		for _, local := range p.spinW {
			w := c.off[t] + local
			if !c.rewritesFinal(&perLoc[c.phys[w]][idx[c.phys[w]]], w) {
				final = false
			}
		}
		if !final {
			return // this thread leaves the loop under fair scheduling
		}
		stuck = true
	}
	if !stuck {
		return
	}
	c.reached = true
	c.keepWitness(perLoc, idx, Outcome{Regs: regs, Mem: make([]int64, len(c.prog.Locs))})
}

// readsFinal reports whether read r, reading write w, reads the final value
// of its location and would read it again: w is coherence-maximal, or r
// belongs to an RMW whose write is maximal, immediately follows w and
// writes w's value back, so that the next iteration reads the same value.
func (c *checker) readsFinal(cc *coChoice, r, w int) bool {
	if cc.maximal>>uint(w)&1 != 0 {
		return true
	}
	own := c.ev[r].Pair
	return own >= 0 && cc.maximal>>uint(own)&1 != 0 && cc.co[w] == 1<<uint(own) && c.vals[own] == c.vals[w]
}

// rewritesFinal reports whether write w stores the final value of its
// location, so that repeating it leaves memory as it is.
func (c *checker) rewritesFinal(cc *coChoice, w int) bool {
	for m := cc.maximal; m != 0; m &= m - 1 {
		if c.vals[trailing(m)] != c.vals[w] {
			return false
		}
	}
	return true
}

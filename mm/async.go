package mm

import (
	"fmt"
	"strings"
)

// The asynchronous-proxy extension: st.async, cp.async.bulk, and mbarrier
// arrive and wait operations in the litmus dialect. docs/litmus.md gives
// each rule with its source in the PTX ISA.
//
//	st.async x, v, mbar                  weak store of v to x; on completion a
//	                                     complete-tx on mbar with .release at
//	                                     .cluster scope (§9.7.9.12)
//	cp.async.bulk dst, src, mbar         async-proxy read of src and write of
//	                                     dst, outside program order
//	                                     (§8.9.1.1), then complete-tx on mbar
//	mbarrier.arrive[.sem.scope] mbar     arrive-on; default .release.cta
//	mbarrier.try_wait[.sem.scope] r, mbar  waits for the phase; default
//	                                     .acquire.cta; r = 1
//	fence.proxy.async                    proxy fence between the generic and
//	                                     async proxies (§8.6)
//
// Phase 0 of each mbarrier completes when every arrive-on and complete-tx
// operation of the test on it has happened.

// mbarIndex returns the index of the named mbarrier, declaring it.
func (p *Program) mbarIndex(name string) int {
	for i, m := range p.Mbars {
		if m == name {
			return i
		}
	}
	p.Mbars = append(p.Mbars, name)
	return len(p.Mbars) - 1
}

func parseAsync(prog *Program, parts, args []string) (Instr, error) {
	op := strings.Join(parts, ".")
	switch {
	case op == "st.async":
		if len(args) != 3 || !isIdent(args[0]) || !isIdent(args[2]) {
			return Instr{}, fmt.Errorf("st.async needs a location, a value and an mbarrier")
		}
		v, err := parseOperand(args[1])
		if err != nil {
			return Instr{}, err
		}
		prog.addLoc(args[0])
		prog.mbarIndex(args[2])
		return Instr{Op: OpStAsync, Loc: args[0], Args: []Operand{v}, Mbar: args[2], Sem: Weak}, nil
	case op == "cp.async.bulk":
		if len(args) != 3 || !isIdent(args[0]) || !isIdent(args[1]) || !isIdent(args[2]) {
			return Instr{}, fmt.Errorf("cp.async.bulk needs a destination, a source and an mbarrier")
		}
		prog.addLoc(args[0])
		prog.addLoc(args[1])
		prog.mbarIndex(args[2])
		return Instr{Op: OpBulkCopy, Loc: args[0], Loc2: args[1], Mbar: args[2], Proxy: Async}, nil
	case len(parts) >= 2 && parts[0] == "mbarrier" && (parts[1] == "arrive" || parts[1] == "try_wait"):
		return parseMbarrier(prog, parts, args)
	}
	return Instr{}, fmt.Errorf("unknown instruction %q", op)
}

// parseMbarrier reads mbarrier.arrive and mbarrier.try_wait; .sem and
// .scope appear together, defaulting to .release.cta and .acquire.cta
// (§9.7.13.15.13, §9.7.13.15.16).
func parseMbarrier(prog *Program, parts, args []string) (Instr, error) {
	wait := parts[1] == "try_wait"
	in := Instr{Op: OpMbarArrive, Sem: Release, Scope: ScopeCTA}
	allowed := Release
	if wait {
		in = Instr{Op: OpMbarWait, Sem: Acquire, Scope: ScopeCTA}
		allowed = Acquire
	}
	q := parts[2:]
	if len(q) == 1 || len(q) > 2 {
		return in, fmt.Errorf(".sem and .scope go together on %s", strings.Join(parts, "."))
	}
	if len(q) == 2 {
		sem, ok1 := semByName[q[0]]
		sc, ok2 := scopeByName[q[1]]
		if !ok1 || !ok2 || sem != allowed && sem != Relaxed || sc != ScopeCTA && sc != ScopeCluster {
			return in, fmt.Errorf("bad qualifiers .%s", strings.Join(q, "."))
		}
		in.Sem, in.Scope = sem, sc
	}
	if wait {
		if len(args) != 2 || !isRegName(args[0]) || !isIdent(args[1]) {
			return in, fmt.Errorf("mbarrier.try_wait needs a register and an mbarrier")
		}
		in.Dst, args = args[0], args[1:]
	}
	if len(args) != 1 || !isIdent(args[0]) {
		return in, fmt.Errorf("%s needs an mbarrier", strings.Join(parts, "."))
	}
	in.Mbar = args[0]
	prog.mbarIndex(in.Mbar)
	return in, nil
}

// asyncStep adds the events of an asynchronous-proxy instruction.
func (b *pathBuilder) asyncStep(p *path, pc int, in *Instr, base Event, ctrl *uint64) bool {
	mbar := b.prog.mbarIndex(in.Mbar)
	complete := Event{Kind: EvArrive, Thread: b.th, Instr: pc, Loc: -1, Pair: -1, mbar: mbar, Sem: Release, Scope: ScopeCluster}
	switch in.Op {
	case OpStAsync:
		// A weak store in the generic proxy, in program order; its completion
		// is a complete-tx with .release at .cluster scope (§9.7.9.12).
		w := base
		w.Kind, w.Loc, w.val, w.Sem, w.Scope = EvWrite, b.prog.LocIndex(in.Loc), p.operand(in.Args[0]), Weak, NoScope
		p.add(w, *ctrl)
		p.add(complete, *ctrl)
	case OpBulkCopy:
		// Async-proxy read and write, outside program order (§8.9.1.1); the
		// completion carries an implicit generic-async proxy fence and
		// signals complete-tx on the mbarrier.
		r := base
		r.Kind, r.Loc, r.Sem, r.Scope, r.async = EvRead, b.prog.LocIndex(in.Loc2), Weak, NoScope, true
		ri := p.add(r, *ctrl)
		w := r
		w.Kind, w.Loc, w.val = EvWrite, b.prog.LocIndex(in.Loc), p.readExpr(ri)
		p.add(w, *ctrl)
		f := Event{Kind: EvFence, Thread: b.th, Instr: pc, Loc: -1, Pair: -1, mbar: -1, Fence: FenceProxy, Proxy: Async, async: true}
		p.add(f, *ctrl)
		complete.async = true
		p.add(complete, *ctrl)
	case OpMbarArrive:
		ev := base
		ev.Kind, ev.mbar = EvArrive, mbar
		p.add(ev, *ctrl)
	case OpMbarWait:
		ev := base
		ev.Kind, ev.mbar = EvWait, mbar
		p.add(ev, *ctrl)
		p.regs[in.Dst] = constExpr(1)
	default:
		b.err = fmt.Errorf("P%d: unsupported instruction %q", b.th, in.Text)
		return false
	}
	return true
}

// mbarrierSync relates each release arrive-on or complete-tx to each
// acquire wait on the same mbarrier whose phase it completes, when each
// operation's scope includes the other's thread, as for morally strong
// operations (§8.7); the wait returns true only after every arrival of the
// phase (§9.7.13.15.16). It reports whether some wait has no arrival to
// wait for, which never completes.
func (c *checker) mbarrierSync() (rel, bool) {
	sw := newRel(c.n)
	arrivals := map[int]int{}
	for i := range c.ev {
		if c.ev[i].Kind == EvArrive {
			arrivals[c.ev[i].mbar]++
		}
	}
	hang := false
	for w := range c.ev {
		ew := &c.ev[w]
		if ew.Kind != EvWait {
			continue
		}
		if arrivals[ew.mbar] == 0 {
			hang = true
		}
		for a := range c.ev {
			ea := &c.ev[a]
			if ea.Kind == EvArrive && ea.mbar == ew.mbar && ea.Sem == Release && ew.Sem == Acquire && c.inScope(a, w) && c.inScope(w, a) {
				sw.set(a, w)
			}
		}
	}
	return sw, hang
}

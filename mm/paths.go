package mm

import "fmt"

// expr is a symbolic value: a constant, the value returned by a read of the
// same thread, or an operation on two expressions.
type expr struct {
	kind uint8 // exprConst, exprRead, exprBin
	val  int64
	read int // thread-local event index of the read
	op   string
	l, r *expr
	deps uint64 // thread-local reads the value depends on
}

const (
	exprConst uint8 = iota
	exprRead
	exprBin
)

func constExpr(v int64) *expr { return &expr{kind: exprConst, val: v} }

func binExpr(op string, l, r *expr) *expr {
	if l.kind == exprConst && r.kind == exprConst {
		return constExpr(arith(op, l.val, r.val))
	}
	return &expr{kind: exprBin, op: op, l: l, r: r, deps: l.deps | r.deps}
}

// arith applies a register or RMW operation. Division by zero yields 0,
// as a total function keeps every candidate execution well defined.
func arith(op string, a, b int64) int64 {
	switch op {
	case "add", "inc":
		return a + b
	case "sub", "dec":
		return a - b
	case "mul":
		return a * b
	case "div":
		if b == 0 {
			return 0
		}
		return a / b
	case "and":
		return a & b
	case "or":
		return a | b
	case "xor":
		return a ^ b
	case "min":
		return min(a, b)
	case "max":
		return max(a, b)
	case "exch":
		return b
	case "seteq", "setne", "setlt", "setgt", "setle", "setge":
		if compare(op[3:], a, b) {
			return 1
		}
		return 0
	}
	panic("mm: unknown operation " + op)
}

func compare(cmp string, a, b int64) bool {
	switch cmp {
	case "eq":
		return a == b
	case "ne":
		return a != b
	case "lt":
		return a < b
	case "gt":
		return a > b
	case "le":
		return a <= b
	}
	return a >= b
}

// EventKind is the kind of a memory-model event (§8.2).
type EventKind uint8

// Event kinds.
const (
	EvRead EventKind = iota
	EvWrite
	EvFence
	EvBarrier
	EvArrive // an arrive-on or complete-tx operation on an mbarrier
	EvWait   // an mbarrier wait that returns true
)

// Event is one operation of a candidate execution.
type Event struct {
	Kind   EventKind
	Thread int // -1 for an initial write
	Instr  int // index of the instruction in its thread
	Loc    int // virtual location, -1 for fences and barriers
	Sem    Sem
	Scope  Scope
	Proxy  Proxy
	Fence  FenceKind
	Pair   int // the other half of an RMW (thread-local index), -1 otherwise
	val    *expr
	dep    uint64 // thread-local reads this event depends on (data and control)

	BarIns, BarCnt int
	barID          *expr
	Arrive         bool

	mbar  int  // mbarrier of an EvArrive or EvWait, -1 otherwise
	async bool // part of an asynchronous operation, outside program order (§8.9.1.1)
}

// constraint is a branch decision a path relies on.
type constraint struct {
	cmp  string
	l, r *expr
	want bool
}

// path is one control path through a thread, loops unrolled once.
type path struct {
	events  []Event
	regs    map[string]*expr
	cons    []constraint
	blocked bool  // stopped at a backward jump: a spin loop would iterate again
	spin    []int // reads of the iteration that would repeat (liveness)
	spinW   []int // writes of that iteration
}

// maxPaths bounds the control paths of one thread.
const maxPaths = 4096

type pathBuilder struct {
	prog   *Program
	th     int
	labels map[string]int
	out    []*path
	err    error
}

// threadPaths enumerates the control paths of thread th. A backward jump
// ends the path as blocked: with the loop unrolled once, an execution that
// would run the body again does not finish (§ "Loops" in docs/litmus.md).
func threadPaths(prog *Program, th int) ([]*path, error) {
	b := &pathBuilder{prog: prog, th: th, labels: map[string]int{}}
	for i, in := range prog.Threads[th].Code {
		if in.Op == OpLabel {
			b.labels[in.Label] = i
		}
	}
	p := &path{regs: map[string]*expr{}}
	for r, v := range prog.Threads[th].RegInit {
		p.regs[r] = constExpr(v)
	}
	b.walk(p, 0, 0, map[string]int{})
	return b.out, b.err
}

func (p *path) clone() *path {
	q := &path{events: append([]Event(nil), p.events...), regs: make(map[string]*expr, len(p.regs)), cons: append([]constraint(nil), p.cons...)}
	for k, v := range p.regs {
		q.regs[k] = v
	}
	return q
}

func (p *path) reg(name string) *expr {
	if e, ok := p.regs[name]; ok {
		return e
	}
	return constExpr(0)
}

func (p *path) operand(o Operand) *expr {
	if o.Reg != "" {
		return p.reg(o.Reg)
	}
	return constExpr(o.Val)
}

func (p *path) add(ev Event, ctrl uint64) int {
	ev.dep |= ctrl
	if ev.val != nil {
		ev.dep |= ev.val.deps
	}
	if ev.barID != nil {
		ev.dep |= ev.barID.deps
	}
	p.events = append(p.events, ev)
	return len(p.events) - 1
}

func (p *path) readExpr(idx int) *expr {
	return &expr{kind: exprRead, read: idx, deps: 1 << uint(idx)}
}

func (b *pathBuilder) emit(p *path) {
	if len(b.out) >= maxPaths {
		b.err = fmt.Errorf("thread P%d has more than %d control paths", b.th, maxPaths)
		return
	}
	if len(p.events) > 60 {
		b.err = fmt.Errorf("thread P%d has more than 60 events on one path", b.th)
		return
	}
	b.out = append(b.out, p)
}

// walk interprets the thread from pc; ctrl is the set of reads the current
// position depends on; seen maps a label to the event count when it was
// last passed.
func (b *pathBuilder) walk(p *path, pc int, ctrl uint64, seen map[string]int) {
	code := b.prog.Threads[b.th].Code
	for ; pc < len(code) && b.err == nil; pc++ {
		in := &code[pc]
		switch in.Op {
		case OpLabel:
			seen[in.Label] = len(p.events)
		case OpGoto:
			if b.jump(p, pc, in.Label, seen) {
				return
			}
			pc = b.labels[in.Label]
		case OpBranch:
			l, r := p.operand(in.Args[0]), p.operand(in.Args[1])
			if l.kind == exprConst && r.kind == exprConst {
				if compare(in.Cmp, l.val, r.val) {
					if b.jump(p, pc, in.Label, seen) {
						return
					}
					pc = b.labels[in.Label]
				}
				continue
			}
			dep := ctrl | l.deps | r.deps
			taken := p.clone()
			taken.cons = append(taken.cons, constraint{in.Cmp, l, r, true})
			if !b.jump(taken, pc, in.Label, seen) {
				b.walk(taken, b.labels[in.Label]+1, dep, copySeen(seen))
			}
			p.cons = append(p.cons, constraint{in.Cmp, l, r, false})
			ctrl = dep
		default:
			if !b.step(p, pc, in, &ctrl, seen) {
				return
			}
		}
	}
	if b.err == nil {
		b.emit(p)
	}
}

func copySeen(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// jump handles a jump from pc to label: a backward jump ends the path as
// blocked, recording the reads of the iteration it would repeat, and
// reports true.
func (b *pathBuilder) jump(p *path, pc int, label string, seen map[string]int) bool {
	if b.labels[label] > pc {
		return false
	}
	p.blocked = true
	for i := seen[label]; i < len(p.events); i++ {
		switch p.events[i].Kind {
		case EvRead:
			p.spin = append(p.spin, i)
		case EvWrite:
			p.spinW = append(p.spinW, i)
		}
	}
	b.emit(p)
	return true
}

// step executes one non-control instruction; it reports false when the
// path forked and the caller's copy is finished.
func (b *pathBuilder) step(p *path, pc int, in *Instr, ctrl *uint64, seen map[string]int) bool {
	locOf := func(name string) int { return b.prog.LocIndex(name) }
	base := Event{Thread: b.th, Instr: pc, Loc: -1, Pair: -1, mbar: -1, Sem: in.Sem, Scope: in.Scope, Proxy: in.Proxy}
	switch in.Op {
	case OpMove:
		p.regs[in.Dst] = p.operand(in.Args[0])
	case OpArith:
		p.regs[in.Dst] = binExpr(in.RMW, p.operand(in.Args[0]), p.operand(in.Args[1]))
	case OpLoad:
		ev := base
		ev.Kind, ev.Loc = EvRead, locOf(in.Loc)
		i := p.add(ev, *ctrl)
		p.regs[in.Dst] = p.readExpr(i)
	case OpStore:
		ev := base
		ev.Kind, ev.Loc, ev.val = EvWrite, locOf(in.Loc), p.operand(in.Args[0])
		p.add(ev, *ctrl)
	case OpRMW:
		return b.rmw(p, pc, in, base, ctrl, seen)
	case OpFence:
		ev := base
		ev.Kind, ev.Fence = EvFence, in.Fence
		if in.Fence == FenceAlias {
			ev.Proxy = Generic
		}
		p.add(ev, *ctrl)
	case OpBar:
		ev := base
		ev.Kind, ev.BarIns, ev.BarCnt, ev.Arrive, ev.barID = EvBarrier, in.BarIns, in.BarCnt, in.Arrive, p.operand(in.BarID)
		p.add(ev, *ctrl)
	default:
		return b.asyncStep(p, pc, in, base, ctrl)
	}
	return true
}

// rmwSems splits an atomic's semantics over its read and write (§8.4: the
// acquire half is the read, the release half the write).
func rmwSems(s Sem) (Sem, Sem) {
	switch s {
	case Acquire:
		return Acquire, Relaxed
	case Release:
		return Relaxed, Release
	case AcqRel:
		return Acquire, Release
	}
	return Relaxed, Relaxed
}

func (b *pathBuilder) rmw(p *path, pc int, in *Instr, base Event, ctrl *uint64, seen map[string]int) bool {
	loc := b.prog.LocIndex(in.Loc)
	rs, ws := rmwSems(in.Sem)
	r := base
	r.Kind, r.Loc, r.Sem = EvRead, loc, rs
	ri := p.add(r, *ctrl)
	old := p.readExpr(ri)
	if in.Dst != "" {
		p.regs[in.Dst] = old
	}
	w := base
	w.Kind, w.Loc, w.Sem, w.Pair = EvWrite, loc, ws, ri
	if in.RMW != "cas" {
		w.val = binExpr(in.RMW, old, p.operand(in.Args[0]))
		p.events[ri].Pair = p.add(w, *ctrl)
		return true
	}
	// cas writes only when the old value equals the comparand.
	cmpv := p.operand(in.Args[0])
	fail := p.clone()
	fail.cons = append(fail.cons, constraint{"eq", old, cmpv, false})
	b.walk(fail, pc+1, *ctrl, copySeen(seen))
	p.cons = append(p.cons, constraint{"eq", old, cmpv, true})
	w.val = p.operand(in.Args[1])
	w.dep |= cmpv.deps | old.deps
	p.events[ri].Pair = p.add(w, *ctrl)
	return true
}

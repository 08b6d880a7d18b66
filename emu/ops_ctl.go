package emu

import (
	"fmt"
	"github.com/ptxkit/ptxkit/isa"
	"math/bits"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

func init() {
	RegisterOpcode("bra", decodeBra)
	RegisterOpcode("brx", decodeBrx)
	RegisterOpcode("exit", decodeSimple(execExit))
	RegisterOpcode("ret", decodeSimple(execRet))
	RegisterOpcode("call", decodeCall)
	RegisterOpcode("bar", decodeBar)
	RegisterOpcode("barrier", decodeBar)
	for _, op := range []string{"nop", "prefetch", "prefetchu", "discard", "applypriority", "pmevent", "trap", "brkpt"} {
		RegisterOpcode(op, decodeNop)
	}
}

// fillSpecial writes the value of special slot s into its 32 lanes,
// computing a value that is the same for every lane once.
func (w *Warp) fillSpecial(s specialSlot, dst *[32]uint64) {
	switch s.kind {
	case spTid:
		// lane 0's coordinates, then one step of a counter per lane
		b := w.CTA.cluster.cfg.Block
		t := w.Index * 32
		x := [3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])}
		if s.comp >= 3 {
			*dst = [32]uint64{}
			return
		}
		for l := range dst {
			dst[l] = uint64(x[s.comp])
			if x[0]++; x[0] == b[0] {
				x[0] = 0
				if x[1]++; x[1] == b[1] {
					x[1] = 0
					x[2]++
				}
			}
		}
		return
	case spLaneid, spLanemaskEq, spLanemaskLt, spLanemaskLe, spLanemaskGt, spLanemaskGe:
		for l := range dst {
			dst[l] = w.special(s, l)
		}
		return
	}
	v := w.special(s, 0)
	for l := range dst {
		dst[l] = v
	}
}

// special computes the value of a per-CTA slot for lane l (§10).
func (w *Warp) special(s specialSlot, l int) uint64 {
	c := w.CTA
	cl := c.cluster
	cfg := cl.cfg
	t := w.Index*32 + l
	b := cfg.Block
	comp := func(v [3]int) uint64 {
		if s.comp < 3 {
			return uint64(v[s.comp])
		}
		return 0
	}
	nranks := cfg.Cluster[0] * cfg.Cluster[1] * cfg.Cluster[2]
	switch s.kind {
	case spTid:
		return comp([3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])})
	case spNtid:
		return comp(b)
	case spCtaid:
		return comp(c.ID)
	case spNctaid:
		return comp(cfg.Grid)
	case spLaneid:
		return uint64(l)
	case spWarpid:
		return uint64(w.Index)
	case spNwarpid:
		return uint64(len(c.Warps))
	case spClusterid:
		return comp(cl.ID)
	case spNclusterid:
		return comp([3]int{cfg.Grid[0] / cfg.Cluster[0], cfg.Grid[1] / cfg.Cluster[1], cfg.Grid[2] / cfg.Cluster[2]})
	case spClusterCtaid:
		return comp([3]int{c.ID[0] % cfg.Cluster[0], c.ID[1] % cfg.Cluster[1], c.ID[2] % cfg.Cluster[2]})
	case spClusterNctaid:
		return comp(cfg.Cluster)
	case spClusterCtarank:
		return uint64(c.Rank)
	case spClusterNctarank:
		return uint64(nranks)
	case spIsExplicitCluster:
		if w.prog.Explicit || nranks > 1 {
			return 1
		}
		return 0
	case spSmid:
		return uint64((cl.Index*nranks + c.Rank) % numSMs)
	case spNsmid:
		return numSMs
	case spGridid:
		return 1
	case spLanemaskEq:
		return 1 << uint(l)
	case spLanemaskLt:
		return 1<<uint(l) - 1
	case spLanemaskLe:
		return 1<<uint(l+1) - 1
	case spLanemaskGt:
		return uint64(^uint32(0) << uint(l+1))
	case spLanemaskGe:
		return uint64(^uint32(0) << uint(l))
	case spSharedAddr:
		return uint64(c.Rank+1)<<sharedRankShift + s.off
	case spDynSmem:
		return uint64(cfg.SharedBytes)
	case spTotalSmem:
		return uint64(userSmemBytes(w.prog, cfg))
	}
	if v, ok := w.specialDriver(s); ok {
		return v
	}
	return 0 // %clock and friends: time does not pass in the emulator
}

// numSMs is the %nsmid the emulator reports (an H100 SXM has 132).
const numSMs = 132

func decodeSimple(fn ExecFunc) DecodeFunc {
	return func(d *Decoder, in *ast.Instruction, out *Inst) error {
		out.Exec = fn
		return nil
	}
}

func decodeNop(d *Decoder, in *ast.Instruction, out *Inst) error {
	out.Exec = execNop
	if in.Opcode == "trap" {
		out.Exec = execTrap
	}
	return nil
}

func execNop(w *Warp, in *Inst) Status { return Continue }

func execTrap(w *Warp, in *Inst) Status {
	return w.Fault(lane(w.Exec), "trap", "PTX ISA §9.7.19.3 (trap)", "trap executed")
}

func decodeBra(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "bra takes one label")
	}
	out.Exec = execBra
	return d.Label(in.Operands[0])
}

// execBra branches; lanes whose guard failed continue at pc+1, so a
// divergent branch splits the active group (min-PC reconvergence).
func execBra(w *Warp, in *Inst) Status {
	if w.Exec == w.active {
		w.Next = in.Target
		return Continue
	}
	w.MoveLanes(w.Exec, in.Target)
	return Continue
}

func execExit(w *Warp, in *Inst) Status {
	w.exitLanes(w.Exec)
	return Continue
}

// execRet returns from a .func (or exits at kernel level).
func execRet(w *Warp, in *Inst) Status {
	w.materialize()
	var exits uint32
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		if w.depth[l] == 0 {
			exits |= 1 << uint(l)
			continue
		}
		w.depth[l]--
		w.tpc[l] = w.retpc[int(w.depth[l])*32+l]
		w.sp[l] = w.retsp[int(w.depth[l])*32+l] // frees the callee's frame and allocas
	}
	if moved := w.Exec &^ exits; moved != 0 {
		w.active &^= moved
		w.resched = true
	}
	if exits != 0 {
		w.exitLanes(exits)
	}
	return Continue
}

// callInfo is the Ext of a call: the callee and the argument copies.
type callInfo struct {
	callee   *funcInfo // nil for indirect calls
	indirect bool
	ptr      int32       // slot of the function address of an indirect call
	args     []paramCopy // caller .param -> callee parameter, before the jump
	rets     []paramCopy // callee return parameter -> caller .param, after return
}

type paramCopy struct {
	from, to     uint64     // local-frame addresses (offsets in a frame when the frame is set)
	fromFr, toFr *frameInfo // activation frames of recursive functions, nil for the static frame
	size         int
}

// decodeCall lowers "call{.uni} (ret), f, (args);" into a call step and a
// copy-back step that runs when the callee returns.
func decodeCall(d *Decoder, in *ast.Instruction, out *Inst) error {
	var rets, args []ast.Expr
	var target ast.Expr
	for _, op := range in.Operands {
		switch x := op.(type) {
		case *ast.ParenList:
			if target == nil {
				rets = x.Elems
			} else {
				args = x.Elems
			}
		default:
			if target == nil {
				target = op
			}
			// a later name is the .callprototype or .calltargets label of
			// an indirect call: the target's own parameters decide the copies
		}
	}
	if target == nil {
		return d.Errorf(in, "call without a target")
	}
	if name, ok := d.systemCall(target); ok {
		return d.decodeSystemCall(in, out, name, rets, args)
	}
	ci := &callInfo{}
	if _, direct := target.(*ast.Ident); direct {
		callee, err := d.calleeOf(target)
		if err != nil {
			return err
		}
		f := callee.fn
		if len(args) != len(f.Params) || len(rets) != len(f.Returns) {
			return d.Errorf(in, "call of %s passes %d arguments and %d results; it declares %d and %d", f.Name.Name, len(args), len(rets), len(f.Params), len(f.Returns))
		}
		ci.callee = callee
	} else {
		var err error
		if ci.ptr, err = d.Src(target, TU64); err != nil {
			return err
		}
		ci.indirect = true
	}
	// The callee's parameters are laid out when it is lowered, so the
	// copies are resolved after lowering (resolveCalls) or, for indirect
	// calls, when the call executes.
	for _, a := range args {
		s, err := d.paramVar(a)
		if err != nil {
			return err
		}
		ci.args = append(ci.args, paramCopy{from: s.addr, fromFr: s.frame, size: s.size})
	}
	for _, r := range rets {
		s, err := d.paramVar(r)
		if err != nil {
			return err
		}
		ci.rets = append(ci.rets, paramCopy{to: s.addr, toFr: s.frame, size: s.size})
	}
	out.Exec = execCall
	if ci.indirect {
		out.Exec = execCallIndirect
	}
	out.Ext = ci
	back := blankInst()
	back.Guard, back.GuardNeg = out.Guard, out.GuardNeg
	back.Pos, back.Opcode = out.Pos, out.Opcode+" (return values)"
	back.Exec = execCallReturn
	if ci.indirect {
		back.Exec = execCallReturnIndirect
	}
	back.Ext = ci
	d.Emit(back)
	return nil
}

// paramVar resolves a call argument naming a .param variable.
func (d *Decoder) paramVar(e ast.Expr) (*symbol, error) {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil, d.Errorf(e, "the emulator passes call arguments only through .param variables")
	}
	s := d.lookup(id)
	if s == nil || s.kind != symVar || s.space != SpaceParamFunc {
		return nil, d.Errorf(e, "%s is not a .param variable of the caller", id.Name)
	}
	return s, nil
}

// resolveCalls fills call targets and parameter addresses once every
// callee has been lowered.
func (d *Decoder) resolveCalls() {
	for i := range d.prog.Insts {
		in := &d.prog.Insts[i]
		ci, ok := in.Ext.(*callInfo)
		if !ok || in.Exec == nil || ci.indirect {
			continue
		}
		in.Target = ci.callee.start
		for j := range ci.args {
			if j < len(ci.callee.params) {
				ci.args[j].to, ci.args[j].toFr = ci.callee.params[j].addr, ci.callee.params[j].frame
				ci.args[j].size = min(ci.args[j].size, ci.callee.params[j].size)
			}
		}
		for j := range ci.rets {
			if j < len(ci.callee.returns) {
				ci.rets[j].from, ci.rets[j].fromFr = ci.callee.returns[j].addr, ci.callee.returns[j].frame
				ci.rets[j].size = min(ci.rets[j].size, ci.callee.returns[j].size)
			}
		}
	}
}

func (w *Warp) frame(l int) []byte {
	f := w.prog.localFrame
	return w.CTA.local[(w.Index*32+l)*f : (w.Index*32+l+1)*f]
}

func execCall(w *Warp, in *Inst) Status {
	ci := in.Ext.(*callInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		if w.depth[l] >= maxCallDepth {
			return w.callTooDeep(l)
		}
		w.retsp[int(w.depth[l])*32+l] = w.sp[l]
		if !w.passArgs(l, ci.args, ci.callee.frame) {
			return Fault
		}
		w.retpc[int(w.depth[l])*32+l] = w.pc + 1
		w.depth[l]++
	}
	if w.Exec == w.active {
		w.Next = in.Target
	} else {
		w.MoveLanes(w.Exec, in.Target)
	}
	return Continue
}

// passArgs copies the arguments of lane l into the callee's parameters,
// entering the callee's activation frame first when it is recursive (the
// arguments are read before: a recursive caller's frame base changes).
func (w *Warp) passArgs(l int, args []paramCopy, callee *frameInfo) bool {
	if callee == nil {
		fr := w.frame(l)
		for _, c := range args {
			from, to := w.frameBase(l, c.fromFr)+c.from, w.frameBase(l, c.toFr)+c.to
			copy(fr[to:to+uint64(c.size)], fr[from:from+uint64(c.size)])
		}
		return true
	}
	var from [16]uint64
	for i, c := range args {
		if i < len(from) {
			from[i] = w.frameBase(l, c.fromFr) + c.from
		}
	}
	if len(args) > len(from) {
		w.Fault(l, RuleUnsupported, specCall, "a recursive call with more than %d arguments", len(from))
		return false
	}
	if !w.enterFrame(l, callee) {
		return false
	}
	fr := w.frame(l)
	for i, c := range args {
		to := w.frameBase(l, c.toFr) + c.to
		copy(fr[to:to+uint64(c.size)], fr[from[i]:from[i]+uint64(c.size)])
	}
	return true
}

// takeResults copies the return values of lane l into the caller's
// .param variables, leaving the callee's activation frame when it is
// recursive (the values are read before, from the callee's frame).
func (w *Warp) takeResults(l int, rets []paramCopy, callee *frameInfo) {
	fr := w.frame(l)
	if callee == nil {
		for _, c := range rets {
			from, to := w.frameBase(l, c.fromFr)+c.from, w.frameBase(l, c.toFr)+c.to
			copy(fr[to:to+uint64(c.size)], fr[from:from+uint64(c.size)])
		}
		return
	}
	var buf [64]byte
	vals := buf[:0]
	for _, c := range rets {
		from := w.frameBase(l, c.fromFr) + c.from
		vals = append(vals, fr[from:from+uint64(c.size)]...)
	}
	w.leaveFrame(l, callee)
	for _, c := range rets {
		to := w.frameBase(l, c.toFr) + c.to
		copy(fr[to:to+uint64(c.size)], vals[:c.size])
		vals = vals[c.size:]
	}
}

func execCallReturn(w *Warp, in *Inst) Status {
	ci := in.Ext.(*callInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		w.takeResults(lane(m), ci.rets, ci.callee.frame)
	}
	return Continue
}

// barKind selects the barrier instruction.
const (
	barSync = iota
	barArrive
	barClusterArrive
	barClusterWait
)

// decodeBar lowers bar{.cta}.sync/arrive, barrier{.cta}.sync/arrive
// {.aligned} a{, b} and barrier.cluster.arrive/wait (§9.7.13.1-9.7.13.4).
func decodeBar(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if in.Opcode == "bar" || q.Has(isa.QAligned) {
		out.Flags |= FlagX // every thread of the warp executes the same instruction (§9.7.13.1)
	}
	switch {
	case q.Has(isa.QWarp): // bar.warp.sync: lanes of a warp already run in lock-step groups
		out.Exec = execBarWarp
		return nil
	case q.Has(isa.QCluster):
		out.Exec = execClusterBarrier
		out.Imm = barClusterArrive
		if q.Has(isa.QWait) {
			out.Imm = barClusterWait
		}
		return nil
	case q.Has(isa.QRed):
		return decodeBarRed(d, in, out, &q)
	case q.Has(isa.QArrive):
		out.Imm = barArrive
	default:
		out.Imm = barSync // .sync, or bare "bar 0" on old targets
	}
	if len(in.Operands) < 1 || len(in.Operands) > 2 {
		return d.Errorf(in, "%s takes a barrier number and an optional thread count", in.FullOpcode())
	}
	var err error
	if out.A, err = d.Src(in.Operands[0], TU32); err != nil {
		return err
	}
	if len(in.Operands) == 2 {
		if out.B, err = d.Src(in.Operands[1], TU32); err != nil {
			return err
		}
	}
	out.Exec = execBar
	return nil
}

func execBar(w *Warp, in *Inst) Status {
	l := lane(w.Exec)
	id := w.R[in.A+int32(l)] & 0xffffffff
	if id >= 16 {
		return w.Fault(l, ruleBadBarrier, "PTX ISA §9.7.13.1 (bar)", "barrier number %d (must be 0..15)", id)
	}
	if in.Flags&FlagX != 0 && w.partialAtBarrier(int(id)) {
		return w.Fault(lane(w.live&^w.Exec), ruleBarDivergent, "PTX ISA §9.7.13.1 (bar, barrier: .aligned)",
			"%s reached by part of a warp: %d of its %d live threads execute it (lanes %#08x); the .aligned form (every bar) needs the whole warp, barrier.sync without .aligned allows divergence",
			in.Opcode, bits.OnesCount32(w.Exec), bits.OnesCount32(w.live), w.Exec)
	}
	c := w.CTA
	bar := &c.bars[id]
	cnt := 0
	if in.B >= 0 {
		cnt = int(w.R[in.B+int32(l)] & 0xffffffff)
		if cnt%32 != 0 || cnt == 0 {
			return w.Fault(l, ruleBadBarrier, "PTX ISA §9.7.13.1 (bar)", "barrier thread count %d is not a positive multiple of the warp size", cnt)
		}
	}
	if bar.arrived == 0 && w.barArr[id] == 0 {
		bar.expected = cnt
	}
	if in.Imm == barSync {
		w.MoveLanes(w.Exec, w.pc+1)
		w.Block(w.Exec)
		w.barWait[id] |= w.Exec
		w.WaitPC = w.pc
	}
	w.barArr[id] |= w.Exec
	if c.cluster.race != nil {
		w.raceBarArrive(int(id))
	}
	w.warpArrival(int(id))
	return Continue
}

// partialAtBarrier reports whether part of the warp executes an .aligned
// barrier instruction while other live threads skip it: a guard predicate
// that splits the executing group, or threads of the same call depth
// already past it (a branch around the barrier, a loop some threads left)
// that have not executed it. Threads still inside a called function are
// not at fault: the emulator's reconvergence may bring the groups to the
// barrier one after the other.
func (w *Warp) partialAtBarrier(id int) bool {
	if w.Exec == w.live {
		return false
	}
	if w.active == w.live {
		return true
	}
	if w.allValid {
		return false
	}
	d := w.depth[lane(w.Exec)]
	for m := w.live &^ w.active &^ w.barArr[id]; m != 0; m &= m - 1 {
		if l := lane(m); w.depth[l] == d && w.tpc[l] > w.pc {
			return true
		}
	}
	return false
}

// warpArrival counts the warp at barrier b once every non-exited lane has
// executed it: barriers count arrivals per warp, in units of the warp size
// (§9.7.13.1: a thread waits for the non-exited threads of its warp, and
// the warp's arrival is marked).
func (w *Warp) warpArrival(b int) {
	if m := w.barArr[b]; m == 0 || m&w.live != w.live {
		return
	}
	w.barArr[b] = 0
	w.CTA.bars[b].arrived += 32
	w.CTA.tryRelease(b)
}

func execClusterBarrier(w *Warp, in *Inst) Status {
	cl := w.CTA.cluster
	if in.Imm == barClusterArrive {
		m := w.Exec &^ w.cbArrived
		w.cbArrived |= m
		if cl.race != nil {
			cl.race.ClusterArrive(w.CTA.Rank, w.Index, m, !w.raceInfo().relaxed)
		}
		for x := m; x != 0; x &= x - 1 {
			w.cbPhase[lane(x)] = cl.cbPhase
		}
		cl.cbCount += bits.OnesCount32(m)
		cl.tryReleaseCluster()
		return Continue
	}
	var wait uint32
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		if w.cbArrived&(1<<uint(l)) == 0 || w.cbPhase[l] == cl.cbPhase {
			wait |= 1 << uint(l)
		}
	}
	w.cbArrived &^= w.Exec &^ wait
	if cl.race != nil && w.Exec&^wait != 0 {
		cl.race.ClusterWait(w.CTA.Rank, w.Index, !w.raceInfo().relaxed)
	}
	if wait != 0 {
		w.MoveLanes(wait, w.pc+1)
		w.Block(wait)
		w.cbWait |= wait
		w.WaitPC = w.pc
	}
	return Continue
}

// waitDescription says where a waiting warp waits, for deadlock reports.
func (w *Warp) waitDescription() string {
	c := w.CTA
	for b, m := range w.barWait {
		if m != 0 {
			bar := &c.bars[b]
			want := bar.expected
			if want == 0 {
				want = 32 * c.liveWarps()
			}
			return fmt.Sprintf("bar.sync %d (%d of %d threads arrived)", b, bar.arrived, want)
		}
	}
	if w.cbWait != 0 {
		cl := c.cluster
		return fmt.Sprintf("barrier.cluster.wait (%d of %d threads arrived)", cl.cbCount, cl.live)
	}
	if w.WaitWhat != "" {
		return w.WaitWhat
	}
	if w.WaitWhy != nil {
		return w.WaitWhy(w)
	}
	return "a wait that cannot complete"
}

// barRed records where a warp's lanes waiting in bar.red want the result.
type barRed struct {
	dst int32 // slot base, -1 when the lanes did not execute bar.red
	op  uint8
}

const (
	redPopc = iota
	redAnd
	redOr
)

func redResult(op uint8, popc, threads uint32) uint64 {
	switch op {
	case redAnd:
		return b2u(popc == threads)
	case redOr:
		return b2u(popc != 0)
	}
	return uint64(popc)
}

// decodeBarRed lowers bar{.cta}.red.popc.u32 d, a{, b}, {!}c and
// bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c (§9.7.13.1): a bar.sync that
// also reduces a predicate over the participating threads.
func decodeBarRed(d *Decoder, in *ast.Instruction, out *Inst, q *Quals) error {
	switch {
	case q.Has(isa.QPopc):
		out.Cmp = redPopc
	case q.Has(isa.QAnd):
		out.Cmp = redAnd
	case q.Has(isa.QOr):
		out.Cmp = redOr
	default:
		return d.Errorf(in, "bar.red needs .popc, .and or .or")
	}
	ops := in.Operands
	if len(ops) != 3 && len(ops) != 4 {
		return d.Errorf(in, "bar.red takes a destination, a barrier, an optional thread count and a predicate")
	}
	var err error
	if out.D, err = d.Dst(ops[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(ops[1], TU32); err != nil {
		return err
	}
	if len(ops) == 4 {
		if out.B, err = d.Src(ops[2], TU32); err != nil {
			return err
		}
	}
	c := ops[len(ops)-1]
	if u, ok := c.(*ast.UnaryExpr); ok && u.Op == "!" {
		out.Flags |= FlagNeg
		c = u.X
	}
	if out.C, err = d.Src(c, TPred); err != nil {
		return err
	}
	out.Imm = barSync
	out.Exec = execBarRed
	return nil
}

// execBarRed adds the executing lanes' predicates to the barrier's
// reduction, then behaves as bar.sync; the result reaches every waiting
// lane when the barrier completes.
func execBarRed(w *Warp, in *Inst) Status {
	l := lane(w.Exec)
	id := w.R[in.A+int32(l)] & 0xffffffff
	if id >= 16 {
		return w.Fault(l, ruleBadBarrier, "PTX ISA §9.7.13.1 (bar)", "barrier number %d (must be 0..15)", id)
	}
	bar := &w.CTA.bars[id]
	for m := w.Exec; m != 0; m &= m - 1 {
		p := w.R[in.C+int32(lane(m))] & 1
		if in.Flags&FlagNeg != 0 {
			p ^= 1
		}
		bar.popc += uint32(p)
		bar.threads++
	}
	w.barRed[id] = barRed{dst: in.D, op: in.Cmp}
	return execBar(w, in)
}

const specCall = "PTX ISA §9.7.12.7 (call)"

// calleeAt returns the function an indirect call's address names.
func (w *Warp) calleeAt(l int, a uint64) (int, bool) {
	t := w.prog.funcTable
	i := (a - funcWindow) / 16
	if a < funcWindow || (a-funcWindow)%16 != 0 || i >= uint64(len(t)) {
		w.Fault(l, ruleWrongWindow, specCall, "indirect call through %#x, which is not the address of a function", a)
		return 0, false
	}
	return int(i), true
}

// execCallIndirect calls through a function address; lanes may call
// different functions (each group jumps to its own target).
func execCallIndirect(w *Warp, in *Inst) Status {
	ci := in.Ext.(*callInfo)
	t := w.prog.funcTable
	var targets [32]int32
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		idx, ok := w.calleeAt(l, w.R[ci.ptr+int32(l)])
		if !ok {
			return Fault
		}
		if w.depth[l] >= maxCallDepth {
			return w.callTooDeep(l)
		}
		c := &t[idx]
		if len(c.params) != len(ci.args) || len(c.returns) != len(ci.rets) {
			return w.Fault(l, RuleUnsupported, specCall, "indirect call of %s passes %d arguments and %d results; it declares %d and %d",
				c.name, len(ci.args), len(ci.rets), len(c.params), len(c.returns))
		}
		var buf [8]paramCopy
		args := buf[:0]
		for i, a := range ci.args {
			args = append(args, paramCopy{from: a.from, fromFr: a.fromFr, to: c.params[i].addr, toFr: c.params[i].frame, size: min(a.size, c.params[i].size)})
		}
		w.retsp[int(w.depth[l])*32+l] = w.sp[l]
		if !w.passArgs(l, args, c.frame) {
			return Fault
		}
		w.retpc[int(w.depth[l])*32+l] = w.pc + 1
		w.callee[int(w.depth[l])*32+l] = int32(idx)
		w.depth[l]++
		targets[l] = c.start
	}
	w.materialize()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		w.tpc[l] = targets[l]
	}
	w.active &^= w.Exec
	w.resched = true
	return Continue
}

func execCallReturnIndirect(w *Warp, in *Inst) Status {
	ci := in.Ext.(*callInfo)
	t := w.prog.funcTable
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c := &t[w.callee[int(w.depth[l])*32+l]]
		var buf [8]paramCopy
		rets := buf[:0]
		for i, r := range ci.rets {
			rets = append(rets, paramCopy{from: c.returns[i].addr, fromFr: c.returns[i].frame, to: r.to, toFr: r.toFr, size: min(r.size, c.returns[i].size)})
		}
		w.takeResults(l, rets, c.frame)
	}
	return Continue
}

// decodeBrx lowers brx.idx{.uni} index, table, where table labels a
// .branchtargets list (§9.7.12.3).
func decodeBrx(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 2 {
		return d.Errorf(in, "brx.idx takes an index and a .branchtargets label")
	}
	names := d.tables[d.labelOf(in.Operands[1])]
	if len(names) == 0 {
		return d.Errorf(in.Operands[1], "brx.idx needs the label of a .branchtargets list declared before it")
	}
	var err error
	if out.A, err = d.Src(in.Operands[0], TU32); err != nil {
		return err
	}
	targets := make([]int32, len(names))
	for i, n := range names {
		d.fixups = append(d.fixups, labelFixup{table: targets, slot: i, inst: d.inst, label: d.labelOf(n), name: n.Name, node: in.Operands[1]})
	}
	out.Ext = targets
	out.Exec = execBrx
	return nil
}

func execBrx(w *Warp, in *Inst) Status {
	targets := in.Ext.([]int32)
	w.materialize()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		i := w.R[in.A+int32(l)] & 0xffffffff
		if i >= uint64(len(targets)) {
			return w.Fault(l, ruleOutOfBounds, "PTX ISA §9.7.12.3 (brx.idx)", "brx.idx index %d outside its %d targets", i, len(targets))
		}
		w.tpc[l] = targets[i]
	}
	w.active &^= w.Exec
	w.resched = true
	return Continue
}

// callTooDeep reports a call beyond maxCallDepth levels. PTX sets no
// nesting limit (a GPU's is its per-thread stack size), so the report is
// an unsupported feature of the emulator, not undefined behaviour.
func (w *Warp) callTooDeep(l int) Status {
	return w.Fault(l, RuleUnsupported, "", "call nesting deeper than %d levels: the emulator does not support deeper call chains (the PTX program may be valid)", maxCallDepth)
}

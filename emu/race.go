package emu

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/race"
	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// The emulator's side of `ptxkit run --race` (emu/race holds the
// detector): what each access and synchronising instruction tells it, and
// the report of a race. Every hook is a no-op unless Config.Race is set.

// ruleDataRace reports two conflicting accesses that no ordering relates.
const ruleDataRace = "data-race"

const specRace = "PTX ISA §8 (memory consistency model: data races, §8.7; causality order, §8.9)"

func init() {
	RegisterOpcode("fence", decodeFence)
	RegisterOpcode("membar", decodeFence)
}

// raceLaunch is the launch-wide state of the detector.
type raceLaunch struct {
	g    *race.Global
	info []raceInfo // per pc: the memory semantics of the instruction, decoded on first use
	// boxes are the boxes of the tensor copies (TMA) in flight: their
	// global side is checked element by element as they land.
	boxes map[asyncgroup.OpID]*tensorBox
	// skip is the warp-level hook's note for the per-lane path after a
	// race (race_warp.go).
	skip raceSkip
}

// raceTensorBox notes the box of tensor copy id (cp.async.bulk.tensor,
// cp.reduce.async.bulk.tensor) issued by w: as it lands, its global
// accesses are the box's in-bound elements, not the range around them
// (the rows of a box are a stride apart, and the bytes between belong
// to other tiles).
func (w *Warp) raceTensorBox(id asyncgroup.OpID, b *tensorBox) {
	rl := w.CTA.cluster.cfg.obs.race
	if rl == nil {
		return
	}
	if rl.boxes == nil {
		rl.boxes = map[asyncgroup.OpID]*tensorBox{}
	}
	rl.boxes[id] = b
}

// raceMapAt returns the global address of lane l's tensor map under
// --race, or 0 when the map is a kernel parameter (not shadowed).
func (w *Warp) raceMapAt(l int, in *Inst, op *tmaOp) uint64 {
	if w.CTA.cluster.race == nil {
		return 0
	}
	a := w.R[in.B+int32(l)] + uint64(op.mapOff)
	if op.mapSpace == SpaceGlobal || op.mapSpace == SpaceGeneric && a >= globalBase && genericSpace(a) == SpaceGlobal {
		return a
	}
	return 0
}

// raceTensorMapRead checks tensor copy id's read of its tensor map at
// global address at (0: none) as it lands: the map is read through the
// tensormap proxy, with what the issuing thread knew at issue, so generic
// stores to it need fence.proxy.tensormap::generic (release by the writer,
// acquire by the user) before the copy is issued.
func (c *Cluster) raceTensorMapRead(id, at uint64) *Report {
	if at == 0 {
		return nil
	}
	r := c.race.OpGlobal(id, at, tensormap.Size, race.Kind{Async: true})
	if r == nil {
		return nil
	}
	rep := c.raceReport(r, fmt.Sprintf("global address %#x (a tensor map)", at+uint64(r.Offset)))
	if r.Proxy {
		rep.Message = fmt.Sprintf("data race on global address %#x: a tensor copy reads its tensor map (tensormap proxy), written by %s at %s (%s) through the generic proxy without fence.proxy.tensormap::generic between them",
			at+uint64(r.Offset), c.raceWho(r.Prev), c.racePos(r.Prev.PC), c.prog.Insts[r.Prev.PC].Opcode)
		rep.Waits[len(rep.Waits)-1] = "fix: after writing the tensor map, execute fence.proxy.tensormap::generic.release (or tensormap.cp_fenceproxy) and, in the thread that issues the copy, fence.proxy.tensormap::generic.acquire on the map's address before the copy"
	}
	t := r.Cur.Thread
	rep.Thread = c.CTAs[t.Rank].Warps[t.Warp].threadID(t.Lane)
	return rep
}

// raceBoxRuns applies k to the in-bound elements of box b for operation
// id, a run of consecutive elements at a time.
func (c *Cluster) raceBoxRuns(id uint64, b *tensorBox, k race.Kind) *Report {
	var rep *Report
	lo, hi := uint64(0), uint64(0)
	flush := func() {
		if rep == nil && hi > lo {
			rep = c.raceOpRange(id, asyncgroup.Range{Lo: lo, Hi: hi}, k)
		}
	}
	es := uint64(b.m.Type.ElemSize())
	b.m.ForEach(b.coords, 0, func(e tensormap.Elem) {
		if !e.InBounds {
			return
		}
		if e.Global != hi {
			flush()
			lo = e.Global
		}
		hi = e.Global + es
	})
	flush()
	return rep
}

// raceInfo is what the detector needs of an instruction's qualifiers.
type raceInfo struct {
	done    bool
	scope   race.Scope // strong operations: their scope; race.ScopeNone for weak ones
	sem     race.Sem
	rmw     bool // atom: reads and writes
	red     bool // red: a read-modify-write without a result
	cas     bool // atom.cas
	relaxed bool // barrier.cluster.arrive/wait.relaxed, mbarrier ....relaxed

	// kinds are the detector's kinds of the instruction's reads ([0]) and
	// writes ([1]), made once: the per-lane hooks pass them by reference.
	kinds [2]race.Kind
}

// infoOf decodes the semantics of instruction in from its opcode.
func infoOf(in *Inst) raceInfo {
	qs := strings.Split(in.Opcode, ".")
	ri := raceInfo{done: true}
	op := qs[0]
	sem, scope, strong := "", "", false
	for _, q := range qs[1:] {
		switch q {
		case "acquire", "release", "acq_rel", "relaxed", "sc":
			sem, strong = q, true
		case "volatile", "mmio":
			strong = true
			if scope == "" {
				scope = "sys"
			}
		case "cta", "cluster", "gpu", "sys":
			scope = q
		case "gl":
			scope = "gpu"
		case "cas":
			ri.cas = op == "atom"
		}
	}
	if op == "atom" || op == "red" {
		strong, ri.rmw, ri.red = true, op == "atom", op == "red"
	}
	if op == "membar" {
		strong, sem = true, "sc"
		if scope == "" {
			scope = "cta"
		}
	}
	ri.relaxed = sem == "relaxed"
	if !strong {
		return ri
	}
	switch scope {
	case "cta":
		ri.scope = race.ScopeCTA
	case "cluster":
		ri.scope = race.ScopeCluster
	case "sys":
		ri.scope = race.ScopeSys
	default:
		ri.scope = race.ScopeGPU
	}
	switch sem {
	case "acquire":
		ri.sem = race.SemAcquire
	case "release":
		ri.sem = race.SemRelease
	case "acq_rel", "sc":
		ri.sem = race.SemAcqRel
	}
	return ri
}

// kind returns the detector's kind of the instruction's reads or writes.
func (ri *raceInfo) kind(write bool) *race.Kind {
	if write {
		return &ri.kinds[1]
	}
	return &ri.kinds[0]
}

func (w *Warp) raceInfo() *raceInfo {
	rl := w.CTA.cluster.cfg.obs.race
	ri := &rl.info[w.pc]
	if !ri.done {
		*ri = infoOf(&w.prog.Insts[w.pc])
		for i, write := range []bool{false, true} {
			ri.kinds[i] = race.Kind{Write: write || ri.rmw, RMW: ri.rmw || ri.red, CAS: ri.cas, Scope: ri.scope, PC: w.pc}
		}
		// wgmma.mma_async reads its shared-memory operands through the
		// async proxy (PTX ISA §9.7.15, wgmma.mma_async): generic
		// stores to them need fence.proxy.async before it.
		ri.kinds[0].Async = strings.HasPrefix(w.prog.Insts[w.pc].Opcode, "wgmma.mma_async")
	}
	return ri
}

// startRace gives a starting cluster its detector state.
func (c *Cluster) startRace() {
	rl := c.cfg.obs.race
	if rl == nil {
		c.race = nil
		return
	}
	if rl.info == nil {
		rl.info = make([]raceInfo, len(c.prog.Insts))
	}
	nt := c.cfg.Block[0] * c.cfg.Block[1] * c.cfg.Block[2]
	if !c.cfg.Cooperative {
		// Clusters run one at a time under --race (launch.go): the
		// ones before have finished. A cooperative launch starts every
		// cluster at once and runs them together: none is retired while
		// they run (their shared memory stays shadowed, and no reads are
		// summarised as a finished cluster's).
		rl.g.RetireAll()
	}
	c.race = race.NewCluster(rl.g, int32(c.Index), len(c.CTAs), nt)
}

func (w *Warp) raceThread(l int) race.Thread {
	return race.Thread{Rank: w.CTA.Rank, Warp: w.Index, Lane: l}
}

// raceShared checks lane l's access to n bytes at offset off of c's shared
// memory; false means a race was reported.
func (w *Warp) raceShared(l int, c *CTA, off uint32, n int, write bool) bool {
	rc := w.CTA.cluster.race
	if rc.Landing {
		return true
	}
	ri := w.raceInfo()
	t := w.raceThread(l)
	if r := rc.CheckShared(t, c.Rank, off, n, len(c.Shared), ri.kind(write)); r != nil {
		w.raceFault(l, r, c.Rank, uint64(off))
		return false
	}
	if ri.scope != race.ScopeNone {
		rc.Strong(t, false, race.MbarKey(c.Rank, off), !write || ri.rmw, write, ri.sem, ri.scope)
	}
	return true
}

// raceGlobal is raceShared for global memory.
func (w *Warp) raceGlobal(l int, a uint64, n int, write bool) bool {
	rc := w.CTA.cluster.race
	if rc.Landing {
		return true
	}
	if w.raceDirect(l) {
		return false
	}
	ri := w.raceInfo()
	t := w.raceThread(l)
	if r := rc.CheckGlobal(t, a, n, ri.kind(write)); r != nil {
		w.raceFault(l, r, -1, a)
		return false
	}
	if rc.G.Full() {
		w.Fault(l, RuleUnsupported, "", "the race detector's shadow of global memory is full: the launch touched more than %d MiB of global memory; run it on smaller buffers or without --race",
			race.MaxGlobalCells*4>>20)
		return false
	}
	if ri.scope != race.ScopeNone {
		rc.Strong(t, true, a, !write || ri.rmw, write, ri.sem, ri.scope)
	}
	return true
}

// sharedVar is a static .shared variable's place in a CTA's shared memory.
type sharedVar struct {
	name      string
	off, size uint64
}

// sharedVarAt names the static .shared variable whose bytes hold offset
// off, as " (name+0xN)", whatever variable the address was computed
// from: a store that runs past one array into the next is reported at
// the next one's bytes. Dynamic shared memory is " (dynamic shared
// memory+0xN)".
func (p *Program) sharedVarAt(off uint64) string {
	for _, v := range p.sharedVars {
		if off >= v.off && off < v.off+v.size {
			return fmt.Sprintf(" (%s+%#x)", v.name, off-v.off)
		}
	}
	if off >= uint64(p.sharedStatic) {
		return fmt.Sprintf(" (dynamic shared memory+%#x)", off-uint64(p.sharedStatic))
	}
	return ""
}

// raceFault stops the run with the report of race r at shared memory of
// CTA rank (or global memory when rank < 0) address a.
func (w *Warp) raceFault(l int, r *race.Race, rank int, a uint64) {
	cl := w.CTA.cluster
	where := fmt.Sprintf("global address %#x", a+uint64(r.Offset))
	if rank >= 0 {
		where = fmt.Sprintf("shared memory offset %#x of CTA rank %d", a+uint64(r.Offset), rank) + cl.prog.sharedVarAt(a+uint64(r.Offset))
		if rank != w.CTA.Rank {
			where = "distributed " + where
		}
	}
	rep := cl.raceReport(r, where)
	rep.Thread = w.threadID(l)
	cl.fail(rep)
}

// raceReport formats race r at where; the current access is the one the
// report leads with.
func (c *Cluster) raceReport(r *race.Race, where string) *Report {
	cur, prev := &c.prog.Insts[r.Cur.PC], &c.prog.Insts[r.Prev.PC]
	msg := fmt.Sprintf("data race on %s: %s %s %s by %s at %s (%s) with no ordering between them",
		where, raceKind(r.Cur), conflictVerb(r.Cur.Write), raceKind(r.Prev), c.raceWho(r.Prev), c.racePos(r.Prev.PC), prev.Opcode)
	if r.Proxy {
		msg = fmt.Sprintf("data race on %s: an asynchronous operation (async proxy) reads bytes written by %s at %s (%s) through the generic proxy without fence.proxy.async between them",
			where, c.raceWho(r.Prev), c.racePos(r.Prev.PC), prev.Opcode)
	}
	rep := &Report{Rule: ruleDataRace, File: c.prog.File, Pos: cur.Pos, Opcode: cur.Opcode, Spec: specRace, Message: msg}
	if src := c.prog.sourceLine(r.Cur.PC); src != "" {
		rep.Waits = append(rep.Waits, "this access is at "+src+" in the source (.loc)")
	}
	rep.Waits = append(rep.Waits, "fix: "+raceFix(r))
	return rep
}

// racePos names the PTX position of instruction pc, and its source line
// when .loc gives one.
func (c *Cluster) racePos(pc int32) string {
	s := token.Position{File: c.prog.File, Pos: c.prog.Insts[pc].Pos}.String()
	if src := c.prog.sourceLine(pc); src != "" {
		s += " [" + src + "]"
	}
	return s
}

func conflictVerb(write bool) string {
	if write {
		return "overwrites"
	}
	return "reads what was written by"
}

func raceKind(a race.Access) string {
	s := "load"
	if a.Write {
		s = "store"
	}
	if a.Agent {
		s = "an asynchronous " + s
	} else {
		s = "a " + s
	}
	if a.Scope != race.ScopeNone {
		s = strings.Replace(s, " ", " strong "+a.Scope.String()+" ", 1)
	}
	return s
}

// raceWho names the thread of an access (of this cluster or another).
func (c *Cluster) raceWho(a race.Access) string {
	t := a.Thread
	who := ""
	if a.Agent {
		who = "the operation issued by "
	}
	if a.Cluster != int32(c.Index) {
		return fmt.Sprintf("%sthread %d of warp %d of CTA rank %d of cluster %d", who, t.Lane, t.Warp, t.Rank, a.Cluster)
	}
	w := c.CTAs[t.Rank].Warps[t.Warp]
	return who + w.threadID(t.Lane).String()
}

// raceFix suggests the ordering that is missing.
func raceFix(r *race.Race) string {
	switch {
	case r.Proxy:
		return "execute fence.proxy.async (fence.proxy.async.shared::cta for shared memory) after the generic-proxy writes and before the asynchronous operation is issued (after the barrier that publishes them)"
	case r.Prev.Agent || r.Cur.Agent:
		return "observe the asynchronous operation's completion (cp.async.wait_group / cp.async.bulk.wait_group, or a wait on the mbarrier it signals) in every thread that touches its bytes, or order them after the observing thread with a barrier"
	case r.Prev.Cluster != r.Cur.Cluster:
		return "threads of different clusters synchronise only through memory: publish with a .release (or fence + strong store) at .gpu scope and read the flag with .acquire at .gpu scope"
	case r.Prev.Thread.Rank != r.Cur.Thread.Rank:
		return "synchronise the CTAs: barrier.cluster.arrive.release / barrier.cluster.wait.acquire, an mbarrier, or release/acquire at .cluster scope or wider (a .cta-scoped release does not reach another CTA)"
	case r.Prev.Thread.Warp == r.Cur.Thread.Warp:
		return "threads of one warp are not ordered without bar.warp.sync (__syncwarp) between the accesses; an elected lane's release covers only its own accesses"
	}
	return "put bar.sync (__syncthreads) between the accesses, or make the writer release (st.release, mbarrier.arrive) and the reader acquire what it released"
}

// raceBarArrive records lanes arriving at named barrier b.
func (w *Warp) raceBarArrive(b int) {
	w.CTA.cluster.race.BarArrive(w.CTA.Rank, w.Index, b, w.Exec)
}

// decodeFence lowers fence{.sem}{.scope}, fence.proxy.*, fence.mbarrier_init
// and membar.{cta,gl,sys}: memory is sequentially consistent, so they have
// no functional effect; under --race they order the thread's accesses.
func decodeFence(d *Decoder, in *ast.Instruction, out *Inst) error {
	out.Exec = execFence
	return nil
}

func execFence(w *Warp, in *Inst) Status {
	rc := w.CTA.cluster.race
	if rc == nil {
		return Continue
	}
	if strings.Contains(in.Opcode, ".proxy.") {
		// fence.proxy.tensormap::generic orders generic writes for the
		// tensormap proxy (the tensor map a TMA copy reads) as
		// fence.proxy.async does for the async proxy; both are kept as
		// one proxy fence (docs/race.md).
		if strings.Contains(in.Opcode, ".async") || strings.Contains(in.Opcode, ".tensormap") {
			for m := w.Exec; m != 0; m &= m - 1 {
				rc.ProxyFence(w.raceThread(lane(m)))
			}
		}
		return Continue
	}
	ri := *w.raceInfo()
	if strings.Contains(in.Opcode, "mbarrier_init") {
		ri.sem, ri.scope = race.SemRelease, race.ScopeCluster
	}
	if ri.scope == race.ScopeNone { // fence with no qualifier: fence.sc.gpu
		ri.sem, ri.scope = race.SemAcqRel, race.ScopeGPU
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		rc.Fence(w.raceThread(lane(m)), ri.sem, ri.scope)
	}
	return Continue
}

// execBarWarp is bar.warp.sync: lanes of a warp already run in lock-step
// groups; under --race the participating lanes order their accesses.
func execBarWarp(w *Warp, in *Inst) Status {
	if rc := w.CTA.cluster.race; rc != nil {
		rc.WarpSync(w.CTA.Rank, w.Index, w.Exec)
	}
	return Continue
}

// racePhases returns the phases the mbarrier at off of c has completed
// (0 without --race).
func racePhases(w *Warp, c *CTA, off uint32) uint64 {
	if w.CTA.cluster.race == nil {
		return 0
	}
	p, _ := asyncCTA(c).bars.Phases(uint64(off))
	return p
}

// raceMbInit forgets the clocks of an initialised mbarrier. The init is
// a plain (weak) write of the object's 8 bytes: another thread's
// mbarrier operation must happen after it. False means a race was
// reported.
func (w *Warp) raceMbInit(l int, c *CTA, off uint32) bool {
	rc := w.CTA.cluster.race
	rc.MbarInit(race.MbarKey(c.Rank, off))
	return w.raceMbAccess(l, c, off, race.Kind{Write: true, PC: w.pc})
}

// raceMbAccess checks an access of lane l to the mbarrier object at off
// of c: arrivals are atomic read-modify-writes and waits atomic reads of
// the object, so only an unordered init conflicts with them.
func (w *Warp) raceMbAccess(l int, c *CTA, off uint32, k race.Kind) bool {
	if r := w.CTA.cluster.race.Shared(w.raceThread(l), c.Rank, off, 8, len(c.Shared), k); r != nil {
		w.raceFault(l, r, c.Rank, uint64(off))
		return false
	}
	return true
}

// raceMbarrier records an arrival (release) or a complete-tx by a thread
// (relaxed) of lane l on the mbarrier at off of c, which had completed p0
// phases before it.
func (w *Warp) raceMbarrier(l int, c *CTA, off uint32, p0 uint64, release bool) bool {
	if !w.raceMbAccess(l, c, off, race.Kind{Write: true, RMW: true, Scope: race.ScopeCluster, PC: w.pc}) {
		return false
	}
	p1, _ := asyncCTA(c).bars.Phases(uint64(off))
	w.CTA.cluster.race.MbarArrive(w.raceThread(l), race.MbarKey(c.Rank, off), release && !w.raceInfo().relaxed, p1 != p0)
	return true
}

// raceMbWait is a wait of lane l that observed a completed phase of the
// mbarrier at off of c.
func (w *Warp) raceMbWait(l int, c *CTA, off uint32) bool {
	if !w.raceMbAccess(l, c, off, race.Kind{Scope: race.ScopeCluster, PC: w.pc}) {
		return false
	}
	w.CTA.cluster.race.MbarWait(w.raceThread(l), race.MbarKey(c.Rank, off), !w.raceInfo().relaxed)
	return true
}

// raceSignal is the complete-tx (or arrive-on) of landed operation id on
// the mbarrier at off of c, which had completed phase phases before it.
func (c *Cluster) raceSignal(id asyncgroup.OpID, cta *CTA, off uint32, phase uint64) {
	if c.race == nil {
		return
	}
	p1, _ := asyncCTA(cta).bars.Phases(uint64(off))
	c.race.MbarSignal(uint64(id), race.MbarKey(cta.Rank, off), p1 != phase)
}

// raceLand checks and records the accesses of operation id as it lands:
// it writes its destination and reads its source.
func (c *Cluster) raceLand(cs *clusterAsync, id asyncgroup.OpID) *Report {
	op := cs.tracker.Get(id)
	if op == nil {
		return nil
	}
	// Bulk copies run in the async proxy; cp.async, st.async and
	// red.async in the generic proxy (PTX ISA §8.2, §9.7.9.25).
	proxy := strings.HasPrefix(op.Name, "cp.async.bulk") || strings.HasPrefix(op.Name, "cp.reduce.async.bulk")
	dst := race.Kind{Write: true, Async: proxy}
	switch {
	case strings.HasPrefix(op.Name, "red.async"):
		dst = race.Kind{Write: true, RMW: true, Scope: race.ScopeCluster}
	case strings.HasPrefix(op.Name, "cp.reduce"):
		dst = race.Kind{Write: true, RMW: true, Scope: race.ScopeGPU, Async: true}
	}
	src := race.Kind{Async: proxy}
	rl := c.cfg.obs.race
	if b := rl.boxes[id]; b != nil {
		delete(rl.boxes, id)
		if r := c.raceTensorMapRead(uint64(id), b.mapAt); r != nil {
			return r
		}
		if b.global == nil {
			return nil
		}
		// A tensor copy: the shared side is the whole box, the global
		// side its in-bound elements.
		if genericSpace(op.Dst.Lo) == SpaceSharedCluster {
			if r := c.raceOpRange(uint64(id), op.Dst, dst); r != nil {
				return r
			}
			return c.raceBoxRuns(uint64(id), b, src)
		}
		if r := c.raceBoxRuns(uint64(id), b, dst); r != nil {
			return r
		}
		return c.raceOpRange(uint64(id), op.Src, src)
	}
	if r := c.raceOpRange(uint64(id), op.Dst, dst); r != nil {
		return r
	}
	return c.raceOpRange(uint64(id), op.Src, src)
}

func (c *Cluster) raceOpRange(id uint64, rg asyncgroup.Range, k race.Kind) *Report {
	n := int(rg.Hi - rg.Lo)
	if n <= 0 {
		return nil
	}
	a := rg.Lo
	var r *race.Race
	var where func() string // formatted only for a report
	if genericSpace(a) == SpaceSharedCluster {
		s := a - sharedWindow
		rank, off := int(s>>sharedRankShift)-1, uint32(s&sharedOffMask)
		if rank < 0 || rank >= len(c.CTAs) {
			return nil
		}
		r = c.race.OpShared(id, rank, off, n, len(c.CTAs[rank].Shared), k)
		where = func() string {
			at := uint64(off) + uint64(rOff(r))
			return fmt.Sprintf("shared memory offset %#x of CTA rank %d", at, rank) + c.prog.sharedVarAt(at)
		}
	} else {
		r = c.race.OpGlobal(id, a, n, k)
		where = func() string { return fmt.Sprintf("global address %#x", a+uint64(rOff(r))) }
	}
	if r == nil {
		return nil
	}
	rep := c.raceReport(r, where())
	t := r.Cur.Thread
	rep.Thread = c.CTAs[t.Rank].Warps[t.Warp].threadID(t.Lane)
	return rep
}

func rOff(r *race.Race) int {
	if r == nil {
		return 0
	}
	return r.Offset
}

// newRaceLaunch returns the detector's state for one launch.
func newRaceLaunch() *raceLaunch {
	return &raceLaunch{g: race.NewGlobal()}
}

// raceTmem checks a warp's tcgen05.st (write) or tcgen05.ld of form x.form
// at acc's taddr; false means a race was reported.
func (w *Warp) raceTmem(acc *tmem.WarpAccess, x *tcInst, write bool) bool {
	lanes, cols := x.form.Extent()
	base := acc.Taddr[0]
	r := w.CTA.cluster.race.TmemAccess(w.CTA.Rank, w.Index, base.Lane(), lanes, base.Column(), cols, write, w.pc)
	if r == nil {
		return true
	}
	cl := w.CTA.cluster
	rep := cl.raceReport(r, fmt.Sprintf("Tensor Memory lane %d column %d of CTA rank %d", r.Offset>>16, r.Offset&0xffff, w.CTA.Rank))
	rep.Waits[len(rep.Waits)-1] = "fix: " + tmemFix(r)
	rep.Thread = w.threadID(0)
	cl.fail(rep)
	return false
}

// tmemFix suggests the ordering a Tensor Memory race misses.
func tmemFix(r *race.Race) string {
	if r.Prev.Thread.Rank == r.Cur.Thread.Rank && r.Prev.Thread.Warp == r.Cur.Thread.Warp {
		return "wait for the warp's earlier tcgen05.st (tcgen05.wait::st) or tcgen05.ld (tcgen05.wait::ld) before touching the same cells again"
	}
	return "the writing warp waits (tcgen05.wait::st / wait::ld), executes tcgen05.fence::before_thread_sync and synchronises (bar.sync, mbarrier); the other warp executes tcgen05.fence::after_thread_sync after that synchronisation and before its tcgen05 access"
}

// raceTcCommit returns what the landing of lane l's tcgen05.commit does
// under --race: its arrive-on on the mbarrier at off of each target CTA
// (which had completed p0 phases) releases the warp's tcgen05 operations
// and what the thread knew at the commit.
func (w *Warp) raceTcCommit(l int) func(t *CTA, off uint32, p0 uint64) {
	rc := w.CTA.cluster.race
	if rc == nil {
		return func(*CTA, uint32, uint64) {}
	}
	th := w.raceThread(l)
	s, agent, mma := rc.TmemCommitIssue(th)
	return func(t *CTA, off uint32, p0 uint64) {
		p1, _ := asyncCTA(t).bars.Phases(uint64(off))
		rc.TmemCommit(th, race.MbarKey(t.Rank, off), s, agent, mma, p1 != p0)
	}
}

// raceTcMMA returns what landing op does: it computes D and, under
// --race, writes D's Tensor Memory cells as an asynchronous operation of
// the issuing warp, ordered for other accesses only through the warp's
// tcgen05.commit.
func (w *Warp) raceTcMMA(op *tcMMAOp, l int) func() {
	rc := w.CTA.cluster.race
	if rc == nil {
		return op.compute
	}
	rop := rc.TmemIssue(w.raceThread(l), w.pc)
	if !w.raceTcOperands(rop, op, l) {
		return op.compute
	}
	return func() {
		op.compute()
		cl := w.CTA.cluster
		if cl.race != rc || cl.report != nil {
			return
		}
		for _, g := range op.dRegions() {
			rank := w.CTA.Rank
			if op.pair != nil {
				rank = rank&^1 + g.pair
			}
			if r := rc.TmemOpWrite(rop, rank, g.lane, g.lanes, g.col, g.cols); r != nil {
				rep := cl.raceReport(r, fmt.Sprintf("Tensor Memory lane %d column %d of CTA rank %d", r.Offset>>16, r.Offset&0xffff, rank))
				rep.Waits[len(rep.Waits)-1] = "fix: wait on the mbarrier that the MMA's tcgen05.commit signals (and execute tcgen05.fence::after_thread_sync) before touching its D in Tensor Memory; before issuing the MMA, order earlier accesses of D by other warps with tcgen05.fence::before_thread_sync, a barrier and tcgen05.fence::after_thread_sync"
				rep.Thread = w.threadID(l) // the issuing thread
				cl.fail(rep)
				return
			}
		}
	}
}

// raceTcOperands checks the shared-memory operands of lane l's
// tcgen05.mma (A unless in Tensor Memory, and B, through their
// descriptors) as reads of the async proxy; false means a race was
// reported.
func (w *Warp) raceTcOperands(rop *race.TmemOp, op *tcMMAOp, l int) bool {
	x, id := op.x, op.id
	type operand struct {
		desc    uint64
		rows, k int
		f       tensorcore.Format
	}
	ops := []operand{{w.R[x.b+int32(l)], id.n, id.k, id.b}}
	if !x.aTMEM {
		ops = append(ops, operand{w.R[x.a+int32(l)], id.m, id.k, id.a})
	}
	rc, c := w.CTA.cluster.race, w.CTA
	for _, o := range ops {
		size := o.f.Bits() / 8
		for r := range o.rows {
			for kk := range o.k {
				off := uint32(descAddr(o.desc, r, kk*size) & sharedOffMask)
				if rr := rc.TmemOpOperand(rop, c.Rank, off, size, len(c.Shared)); rr != nil {
					w.raceFault(l, rr, c.Rank, uint64(off))
					return false
				}
			}
		}
	}
	return true
}

// raceTcFence is tcgen05.fence::before_thread_sync or ::after_thread_sync.
func (w *Warp) raceTcFence(in *Inst) {
	w.CTA.cluster.race.TmemFence(w.CTA.Rank, w.Index, strings.Contains(in.Opcode, "before"))
}

// raceFast checks lane l's access to the n bytes at a (offset off in the
// window) that a fast handler is about to make. On a race it records the
// report and returns false; the lane then takes the checked path, which
// finds the same race and stops.
func (w *Warp) raceFast(f *fastWindow, l int32, a, off uint64, n int) bool {
	if checked, ok := w.raceSkipped(l); ok {
		return checked
	}
	if f.space == SpaceShared {
		return w.raceShared(int(l), w.CTA, uint32(off), n, f.write)
	}
	return w.raceGlobal(int(l), a, n, f.write)
}

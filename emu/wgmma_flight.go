package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// The asynchronous register semantics of wgmma (PTX ISA §9.7.15.7.3,
// wgmma.wait_group): the accumulator registers of a wgmma.mma_async, and
// the registers that hold its A fragment, may not be accessed until a
// wgmma.wait_group has waited on a wgmma-group that contains it; doing so
// is undefined behaviour. The exception is a chain of wgmma.mma_async of
// one shape on the same accumulator, which the hardware orders.
//
// The emulator computes D when the instruction issues, so a program that
// breaks the rule would see final values here and stale or torn ones on
// hardware. The check: each warp keeps its wgmma.mma_async operations in
// flight (their D and A registers and their wgmma-group); commit_group
// closes the open group, wait_group N retires every group but the N most
// recent. Any other instruction that names one of those registers, and a
// wgmma.mma_async that writes a register another one in flight reads or
// accumulates into with another shape, is reported with rule
// wgmma-in-flight. Reading the same A registers from two operations in
// flight is not reported (neither writes them).
//
// The other half of the contract (§9.7.15.7.1, wgmma.fence): a register
// access and a later wgmma.mma_async that uses the same register as its
// accumulator or A fragment must have a wgmma.fence between them (again
// except a chain of one shape, whose wgmma.mma_async accesses are not
// counted). Each warp records, per register, the fence epoch and the
// instruction of its last access by any other instruction; wgmma.fence
// starts a new epoch, and a wgmma.mma_async whose D or A registers were
// touched in the current epoch is reported with rule wgmma-fence.
//
// The registers an instruction names come from its operands at decode
// (wgmmaWatch); the check wraps the handlers of a program that contains
// wgmma.mma_async, so other programs pay nothing.

const (
	ruleWgmmaInFlight = "wgmma-in-flight"
	ruleWgmmaFence    = "wgmma-fence"
)

const specWgmmaFence = "PTX ISA §9.7.15.7.1 (wgmma.fence)"

const specWgmmaWait = "PTX ISA §9.7.15.7.3 (wgmma.wait_group)"

var ctaWgmmaKey = NewCTAKey(func(*CTA) any { return &ctaWgmma{} })

// ctaWgmma is the wgmma.mma_async operations in flight of each warp of a CTA.
type ctaWgmma struct {
	warps []*warpWgmma
}

func (c *ctaWgmma) warp(i int) *warpWgmma {
	for len(c.warps) <= i {
		c.warps = append(c.warps, &warpWgmma{busy: map[int32]wgmmaUse{}, epoch: 1})
	}
	return c.warps[i]
}

// warpWgmma is one warp's operations in flight.
type warpWgmma struct {
	ops     []wgmmaOp
	commits int                // wgmma-groups committed so far (numbered from 1)
	busy    map[int32]wgmmaUse // the registers of ops, by slot
	epoch   int32              // wgmma.fence instructions executed, plus one
	touched []regTouch         // by slot/32: the last access by a non-wgmma instruction
}

// regTouch is the last access to a register: the fence epoch it fell in
// and the instruction's pc.
type regTouch struct {
	epoch, pc int32
}

// wgmmaOp is one wgmma.mma_async in flight.
type wgmmaOp struct {
	pc    int32
	shape string // the instruction's shape and types, for the chain exception
	d, a  []int32
	group int // 0 until a commit_group takes it
}

// wgmmaUse is how an operation in flight uses a register.
type wgmmaUse struct {
	op  int32 // pc of the operation
	acc bool  // accumulator (else A)
}

func (ww *warpWgmma) rebuild() {
	clear(ww.busy)
	for _, op := range ww.ops {
		for _, s := range op.a {
			ww.busy[s] = wgmmaUse{op: op.pc}
		}
		for _, s := range op.d {
			ww.busy[s] = wgmmaUse{op: op.pc, acc: true}
		}
	}
}

func warpFlight(w *Warp) *warpWgmma {
	return w.CTA.Ext(ctaWgmmaKey).(*ctaWgmma).warp(w.Index)
}

// wgmmaIssue checks a wgmma.mma_async against the operations in flight
// and adds it to them.
func wgmmaIssue(w *Warp, in *Inst, x *wgmmaInst) Status {
	ww := warpFlight(w)
	for i, s := range x.d {
		if st := ww.unfenced(w, s, nameAt(x.dNames, i), "accumulator"); st != Continue {
			return st
		}
	}
	for i, s := range x.a {
		if st := ww.unfenced(w, s, nameAt(x.aNames, i), "A fragment"); st != Continue {
			return st
		}
	}
	for i, s := range x.d {
		if u, ok := ww.busy[s]; ok && (!u.acc || ww.shapeOf(u.op) != x.shape) {
			return wgmmaHazard(w, nameAt(x.dNames, i), u)
		}
	}
	for i, s := range x.a {
		if u, ok := ww.busy[s]; ok && u.acc {
			return wgmmaHazard(w, nameAt(x.aNames, i), u)
		}
	}
	ww.ops = append(ww.ops, wgmmaOp{pc: w.pc, shape: x.shape, d: x.d, a: x.a})
	for _, s := range x.a {
		if _, ok := ww.busy[s]; !ok {
			ww.busy[s] = wgmmaUse{op: w.pc}
		}
	}
	for _, s := range x.d {
		ww.busy[s] = wgmmaUse{op: w.pc, acc: true}
	}
	return Continue
}

// nameAt is names[i], or the first name when a whole vector register
// stands for the list.
func nameAt(names []string, i int) string {
	switch {
	case i < len(names):
		return names[i]
	case len(names) > 0:
		return names[0]
	}
	return "a register"
}

func (ww *warpWgmma) shapeOf(pc int32) string {
	for _, op := range ww.ops {
		if op.pc == pc {
			return op.shape
		}
	}
	return ""
}

// unfenced reports register slot s, which the wgmma.mma_async at w.pc
// uses as role, when an instruction touched it after the last wgmma.fence.
func (ww *warpWgmma) unfenced(w *Warp, s int32, reg, role string) Status {
	i := int(s >> 5)
	if i >= len(ww.touched) || ww.touched[i].epoch != ww.epoch {
		return Continue
	}
	at := w.prog.Insts[ww.touched[i].pc].Pos
	return w.Fault(lane(w.Exec), ruleWgmmaFence, specWgmmaFence,
		"%s, the %s of this wgmma.mma_async, was accessed at %s after the last wgmma.fence: a wgmma.fence must order that access before the wgmma.mma_async",
		reg, role, token.Position{File: w.prog.File, Pos: at})
}

// wgmmaFence starts a new fence epoch.
func wgmmaFence(w *Warp) { warpFlight(w).epoch++ }

// wgmmaCommit closes the open wgmma-group.
func wgmmaCommit(w *Warp) {
	ww := warpFlight(w)
	ww.commits++
	for i := range ww.ops {
		if ww.ops[i].group == 0 {
			ww.ops[i].group = ww.commits
		}
	}
}

// wgmmaWait retires every committed group but the n most recent.
func wgmmaWait(w *Warp, n int) {
	ww := warpFlight(w)
	keep := ww.ops[:0]
	for _, op := range ww.ops {
		if op.group == 0 || op.group > ww.commits-n {
			keep = append(keep, op)
		}
	}
	if len(keep) != len(ww.ops) {
		ww.ops = keep
		ww.rebuild()
	}
}

func wgmmaHazard(w *Warp, reg string, u wgmmaUse) Status {
	role := "the A fragment"
	if u.acc {
		role = "the accumulator"
	}
	at := w.prog.Insts[u.op].Pos
	return w.Fault(lane(w.Exec), ruleWgmmaInFlight, specWgmmaWait,
		"%s is %s of the wgmma.mma_async at %s, still in flight: a wgmma.wait_group that retires its wgmma-group must come first",
		reg, role, token.Position{File: w.prog.File, Pos: at})
}

// wgmmaWatch is the registers one instruction names.
type wgmmaWatch struct {
	slots []int32
	names []string
	exec  ExecFunc
}

// hasWgmmaMMA reports whether any function of m issues wgmma.mma_async.
func hasWgmmaMMA(m *ast.Module) bool {
	var inBlock func([]ast.Stmt) bool
	inBlock = func(stmts []ast.Stmt) bool {
		for _, st := range stmts {
			switch x := st.(type) {
			case *ast.Instruction:
				if x.Opcode == "wgmma" && len(x.Quals) > 0 && isa.LookupQual(x.Quals[0].Name) == isa.QMma_Async {
					return true
				}
			case *ast.Block:
				if inBlock(x.Stmts) {
					return true
				}
			}
		}
		return false
	}
	for _, s := range m.Stmts {
		if f, ok := s.(*ast.Function); ok && f.Body != nil && inBlock(f.Body.Stmts) {
			return true
		}
	}
	return false
}

// watchWgmmaRegs wraps the handlers of the instructions lowered from x
// (d.prog.Insts[from:]) with the in-flight check when the program issues
// wgmma.mma_async and x names registers.
func (d *Decoder) watchWgmmaRegs(from int, x *ast.Instruction) {
	if !d.wgmma || x.Opcode == "wgmma" || from == len(d.prog.Insts) {
		return
	}
	var wt wgmmaWatch
	add := func(slot int32, name string) {
		wt.slots = append(wt.slots, slot)
		wt.names = append(wt.names, name)
	}
	for _, op := range x.Operands {
		ast.Inspect(op, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			switch r := e.(type) {
			case *ast.Reg, *ast.Ident:
				s := d.lookup(e)
				if s == nil || s.kind != symReg || s.typ == TPred {
					return true
				}
				name := ast.NameOf(e)
				if reg, ok := r.(*ast.Reg); ok && reg.Comp != "" {
					if slot, _, err := d.regSlotOf(reg, s); err == nil {
						add(slot, name+"."+reg.Comp)
					}
					return true
				}
				step := int32(32)
				if s.typ == TB128 {
					step = 64
				}
				for c := range max(1, s.vec) {
					add(s.slot+int32(c)*step, name)
				}
			}
			return true
		})
	}
	if len(wt.slots) == 0 {
		return
	}
	for i := from; i < len(d.prog.Insts); i++ {
		in := &d.prog.Insts[i]
		if in.Exec == nil {
			continue
		}
		watch := wt
		watch.exec = in.Exec
		in.Exec = watch.run
	}
}

// run is the wrapped handler: the in-flight check, the record of the
// access for the fence check, then the instruction.
func (wt *wgmmaWatch) run(w *Warp, in *Inst) Status {
	ww := warpFlight(w)
	if len(ww.busy) > 0 {
		for i, s := range wt.slots {
			if u, ok := ww.busy[s]; ok {
				return wgmmaHazard(w, wt.names[i], u)
			}
		}
	}
	if ww.touched == nil {
		ww.touched = make([]regTouch, w.prog.numSlots)
	}
	for _, s := range wt.slots {
		if i := int(s >> 5); i < len(ww.touched) {
			ww.touched[i] = regTouch{epoch: ww.epoch, pc: w.pc}
		}
	}
	return wt.exec(w, in)
}

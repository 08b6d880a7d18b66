package emu

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Register slot sharing. PTX registers are virtual and compilers declare
// many more than are live at once (nvcc's "%r<249>" in a kernel that never
// holds more than a few dozen values), and every declared register costs a
// slot of 32 lanes in every warp. Before a function is lowered, the decoder
// computes the registers' live ranges over the function's control-flow
// graph (per thread: a register holds one lane's value and only that
// lane's own path writes it) and gives registers whose ranges never
// overlap the same slot, so the warp state shrinks to what the program
// holds at once. The sharing is exact for every value the program reads:
// a register is live from each write to each read it reaches, a write
// under a guard does not end the previous value's range, and a register
// read before any write is live from the function's start, so no other
// register is written into its slot before that read.
//
// Registers keep slots of their own where the analysis would have to
// guess: vector and .b128 registers, operands of instructions that write
// registers after they issue (wgmma, tcgen05), and every register of a
// function with an indirect branch. Functions too large for the analysis's
// bounds keep one slot per register.

// shareSlots turns the sharing on; tests turn it off to compare.
var shareSlots = true

// regKey names one scalar register: its declaration and, for "%r<N>",
// the element.
type regKey struct {
	decl *ast.VarDecl
	elem int32
}

// regUse is one instruction's effect on the registers of the analysis.
type regUse struct {
	uses   []int32 // registers read, and registers written without the analysis being sure the write is whole
	kills  []int32 // registers written over entirely
	writes []int32 // registers written, entirely or not
	succ   []int32 // successor instructions (-1: none beyond the function)
}

// maxColoredRegs and maxColoredWork bound the analysis (registers, and
// registers x instructions for the liveness sets).
const (
	maxColoredRegs = 1 << 14
	maxColoredWork = 1 << 29
)

// regColoring is the result for one function: the slot offset of each
// colored register, and how many slots the colors take.
type regColoring struct {
	color  map[regKey]int32
	colors int
}

// colorRegisters computes the slot sharing of f's scalar registers, or
// nil when f keeps one slot per register.
func (d *Decoder) colorRegisters(f *ast.Function) *regColoring {
	if f.Body == nil {
		return nil
	}
	a := regAnalysis{d: d, ids: map[regKey]int32{}, labels: map[*ast.Label]int32{}}
	a.flatten(f.Body.Stmts)
	if !a.build() || len(a.keys) == 0 || len(a.keys) > maxColoredRegs ||
		len(a.keys)*len(a.insts) > maxColoredWork {
		return nil
	}
	adj := a.interference()
	return a.color(adj)
}

// regAnalysis holds the state of colorRegisters.
type regAnalysis struct {
	d        *Decoder
	insts    []*ast.Instruction
	labels   map[*ast.Label]int32 // label -> index of the instruction it marks
	pending  []*ast.Label
	ids      map[regKey]int32
	keys     []regKey
	excluded []bool
	eff      []regUse
}

// flatten lists the instructions of stmts in order, recording where each
// label points.
func (a *regAnalysis) flatten(stmts []ast.Stmt) {
	for _, s := range stmts {
		switch x := s.(type) {
		case *ast.Label:
			a.labels[x] = int32(len(a.insts))
		case *ast.Instruction:
			a.insts = append(a.insts, x)
		case *ast.Block:
			a.flatten(x.Stmts)
		}
	}
}

// asyncWriters are the opcodes whose register operands may be written
// after the instruction issues: their registers keep their own slots.
func asyncWriter(op string) bool {
	return op == "wgmma" || op == "tcgen05"
}

// build computes each instruction's uses, kills and successors. It
// returns false when the function's control flow cannot be followed.
func (a *regAnalysis) build() bool {
	a.eff = make([]regUse, len(a.insts))
	for i, in := range a.insts {
		e := &a.eff[i]
		if !a.successors(int32(i), in, e) {
			return false
		}
		if in.Guard != nil {
			a.collect(in.Guard.Reg, e, regRead, in.Opcode)
		}
		// A register an instruction writes without the analysis being
		// sure it writes it entirely (a guarded write, an operand no form
		// describes) counts as read: its old value stays live.
		kinds, known := a.operandKinds(in)
		for j, x := range in.Operands {
			eff := regMayWrite
			if known {
				eff = regRead
				switch kinds[j] {
				case isa.OpdDst, isa.OpdPredDst:
					eff = regWrite
				case isa.OpdAny:
					eff = regMayWrite
				}
			}
			if eff == regWrite && in.Guard != nil {
				eff = regMayWrite
			}
			a.collect(x, e, eff, in.Opcode)
		}
	}
	return true
}

// operandKinds returns the operand classes of in's form and true, or
// false when no form describes its operands (every register may then be
// read and written). The store table's family reads every operand.
func (a *regAnalysis) operandKinds(in *ast.Instruction) ([]isa.OperandClass, bool) {
	form, store := operandForm(in)
	if store {
		kinds := make([]isa.OperandClass, len(in.Operands))
		for i := range kinds {
			kinds[i] = isa.OpdSrc
		}
		return kinds, true
	}
	if form == nil || form.AnyOperands {
		return nil, false
	}
	// The written operands line up with the form's only when every
	// operand left out is a trailing optional one.
	ops := form.Operands
	if len(in.Operands) > len(ops) {
		return nil, false
	}
	kinds := make([]isa.OperandClass, len(in.Operands))
	for i, o := range ops {
		if i < len(in.Operands) {
			if o.Optional && len(in.Operands) != len(ops) {
				return nil, false
			}
			kinds[i] = o.Kind
		} else if !o.Optional {
			return nil, false
		}
	}
	return kinds, true
}

// successors sets e.succ for instruction i; false when in is an indirect
// branch or names a label the function does not have.
func (a *regAnalysis) successors(i int32, in *ast.Instruction, e *regUse) bool {
	next := i + 1
	if int(next) >= len(a.insts) {
		next = -1
	}
	unguarded := in.Guard == nil
	switch in.Opcode {
	case "brx":
		return false
	case "bra":
		if len(in.Operands) == 0 {
			return false
		}
		l := a.d.labelOf(in.Operands[0])
		t, ok := a.labels[l]
		if l == nil || !ok {
			return false
		}
		if int(t) >= len(a.insts) {
			t = -1
		}
		e.succ = append(e.succ, t)
		if !unguarded {
			e.succ = append(e.succ, next)
		}
		return true
	case "ret", "exit", "trap":
		if !unguarded {
			e.succ = append(e.succ, next)
		}
		return true
	}
	e.succ = append(e.succ, next)
	return true
}

// regEffect is what an instruction does to an operand's registers.
type regEffect uint8

const (
	regRead     regEffect = iota
	regWrite              // written entirely
	regMayWrite           // perhaps written, perhaps in part: read and written
)

// collect records the registers that x names with effect eff.
func (a *regAnalysis) collect(x ast.Expr, e *regUse, eff regEffect, opcode string) {
	ast.Inspect(x, func(n ast.Node) bool {
		r, ok := n.(*ast.Reg)
		if !ok {
			return true
		}
		id := a.id(r)
		if id < 0 {
			return false
		}
		if asyncWriter(opcode) {
			a.excluded[id] = true
		}
		if eff == regWrite && r.Sel != 0 { // a video selector writes part of the register
			eff = regMayWrite
		}
		switch eff {
		case regWrite:
			e.kills = append(e.kills, id)
			e.writes = append(e.writes, id)
		case regMayWrite:
			e.uses = append(e.uses, id)
			e.writes = append(e.writes, id)
		default:
			e.uses = append(e.uses, id)
		}
		return false
	})
}

// id returns the analysis number of the scalar register r names, or -1
// when it is not one (a special register, a vector register, .b128).
func (a *regAnalysis) id(r *ast.Reg) int32 {
	sym := a.d.symbolOf(r)
	if sym == nil || sym.Decl == nil || sym.Decl.Space != ".reg" {
		return -1
	}
	v := sym.Decl
	k := regKey{decl: v, elem: -1}
	if v.Count >= 0 {
		name, prefix := r.Name, v.Name.Name
		if !strings.HasPrefix(name, prefix) {
			return -1
		}
		n, err := strconv.Atoi(name[len(prefix):])
		if err != nil || n < 0 || int64(n) >= v.Count {
			return -1
		}
		k.elem = int32(n)
	}
	if id, ok := a.ids[k]; ok {
		return id
	}
	id := int32(len(a.keys))
	a.ids[k] = id
	a.keys = append(a.keys, k)
	t, _ := ParseType(v.Type)
	a.excluded = append(a.excluded, v.Vector > 1 || t == TB128 || r.Comp != "")
	return id
}

// bitset is a set of register numbers.
type bitset []uint64

func (s bitset) has(i int32) bool { return s[i>>6]>>(uint(i)&63)&1 != 0 }
func (s bitset) set(i int32)      { s[i>>6] |= 1 << (uint(i) & 63) }
func (s bitset) clear(i int32)    { s[i>>6] &^= 1 << (uint(i) & 63) }

// interference computes live ranges by backward data flow and returns
// the interference sets: two registers interfere when one is written
// (entirely or perhaps in part) while the other is live after the
// instruction, or both are operands of one instruction that writes one.
func (a *regAnalysis) interference() []bitset {
	n, w := len(a.insts), (len(a.keys)+63)/64
	in := make([]bitset, n)
	for i := range in {
		in[i] = make(bitset, w)
	}
	out := make(bitset, w)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			a.liveOut(i, in, out)
			if a.transfer(i, out, in[i]) {
				changed = true
			}
		}
	}
	adj := make([]bitset, len(a.keys))
	for i := range adj {
		adj[i] = make(bitset, w)
	}
	for i := range a.insts {
		a.liveOut(i, in, out)
		e := &a.eff[i]
		for _, k := range e.writes {
			for j, word := range out {
				for word != 0 {
					b := int32(j*64 + bits.TrailingZeros64(word))
					word &= word - 1
					if b != k {
						adj[k].set(b)
						adj[b].set(k)
					}
				}
			}
			// A destination never shares a slot with a source of the same
			// instruction: handlers of cross-lane instructions (match,
			// shfl, mma) write one lane's destination before they read
			// another lane's sources.
			for _, k2 := range append(e.writes, e.uses...) {
				if k2 != k {
					adj[k].set(k2)
					adj[k2].set(k)
				}
			}
		}
	}
	return adj
}

// liveOut sets out to the union of instruction i's successors' live-in
// sets.
func (a *regAnalysis) liveOut(i int, in []bitset, out bitset) {
	clear(out)
	for _, s := range a.eff[i].succ {
		if s < 0 {
			continue
		}
		for j, v := range in[s] {
			out[j] |= v
		}
	}
}

// transfer sets live to (out - kills) + uses and reports whether it
// changed.
func (a *regAnalysis) transfer(i int, out, live bitset) bool {
	e := &a.eff[i]
	changed := false
	for _, k := range e.kills {
		out.clear(k)
	}
	for _, u := range e.uses {
		out.set(u)
	}
	for j, v := range out {
		if live[j] != v {
			live[j] = v
			changed = true
		}
	}
	return changed
}

// color gives each register that is not excluded the lowest color none of
// its interfering registers has, in order of first appearance.
func (a *regAnalysis) color(adj []bitset) *regColoring {
	rc := &regColoring{color: map[regKey]int32{}}
	colors := make([]int32, len(a.keys))
	var taken []bool
	for i := range a.keys {
		colors[i] = -1
		if a.excluded[i] {
			continue
		}
		taken = taken[:0]
		for j, word := range adj[i] {
			for word != 0 {
				b := j*64 + bits.TrailingZeros64(word)
				word &= word - 1
				if c := colors[b]; c >= 0 {
					for int(c) >= len(taken) {
						taken = append(taken, false)
					}
					taken[c] = true
				}
			}
		}
		c := int32(0)
		for int(c) < len(taken) && taken[c] {
			c++
		}
		colors[i] = c
		rc.color[a.keys[i]] = c
		rc.colors = max(rc.colors, int(c)+1)
	}
	return rc
}

// slotOf returns the color of element elem of register declaration v
// (-1: v is not an array), when rc gives it one.
func (rc *regColoring) slotOf(v *ast.VarDecl, elem int32) (int32, bool) {
	if rc == nil {
		return 0, false
	}
	c, ok := rc.color[regKey{decl: v, elem: elem}]
	return c, ok
}

package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// maxProgramInsts bounds the decoded instructions of a kernel and the
// functions it calls (the largest compiled kernels have a few hundred
// thousand), so that the decoded program stays within about 200 MiB.
const maxProgramInsts = 1 << 20

// programInstLimit is maxProgramInsts; tests lower it.
var programInstLimit = maxProgramInsts

// lowerFunc lowers one function body into d.prog.Insts.
func (d *Decoder) lowerFunc(fi *funcInfo) {
	f := fi.fn
	d.cur = fi
	d.loc = srcLoc{}
	fi.start = int32(len(d.prog.Insts))
	if d.rec[f] {
		fi.frame = &frameInfo{slotLo: int32(d.nslots) * 32}
		fi.frame.base = d.NewSlot()
		defer func() { fi.frame.slotHi = int32(d.nslots) * 32 }()
	}
	if fi.entry {
		for i, p := range f.Params {
			if p.Name != nil && i < len(d.prog.Params) {
				pr := d.prog.Params[i]
				d.vars[p] = &symbol{kind: symVar, space: SpaceParam, addr: uint64(pr.Offset), size: pr.Size}
			}
		}
	} else {
		for _, list := range [][]*ast.VarDecl{f.Returns, f.Params} {
			for _, p := range list {
				s := d.funcParam(p)
				if s == nil {
					return
				}
				if len(list) == len(f.Returns) && &list[0] == &f.Returns[0] {
					fi.returns = append(fi.returns, s)
				} else {
					fi.params = append(fi.params, s)
				}
			}
		}
	}
	if f.Body == nil {
		d.errorf(f, "emu-decode", "function %s has no body", f.Name.Name)
		return
	}
	d.colors, d.colorBase = nil, int32(d.nslots)
	if shareSlots {
		d.colors = d.colorRegisters(f)
	}
	if d.colors != nil {
		d.nslots += d.colors.colors
	}
	d.lowerBlock(f.Body.Stmts)
	d.colors = nil
	// Falling off the end returns (or exits the kernel).
	d.append(Inst{Exec: execRet, Pos: f.Body.End(), Opcode: "ret (end of " + f.Name.Name + ")", Guard: -1})
}

// funcParam declares a .func parameter in per-thread local memory.
func (d *Decoder) funcParam(p *ast.VarDecl) *symbol {
	if p.Name == nil {
		return nil
	}
	if sp := isa.LookupQual(p.Space); sp != isa.QParam && sp != isa.QParamFunc {
		d.errorf(p, "emu-unsupported", "the emulator passes .func arguments only in .param space (got %s)", p.Space)
		return nil
	}
	size, elem, err := d.varSize(p)
	if err != nil {
		d.errorf(p, "emu-decode", "%v", err)
		return nil
	}
	s := d.allocVar(SpaceParamFunc, size, max(int(p.Align), elem))
	d.vars[p] = s
	return s
}

func (d *Decoder) lowerBlock(stmts []ast.Stmt) {
	var lastLabel *ast.Label
	for _, st := range stmts {
		switch x := st.(type) {
		case *ast.VarDecl:
			for _, v := range declNames(x) {
				d.declare(v)
			}
		case *ast.Label:
			d.labels[x] = int32(len(d.prog.Insts))
			lastLabel = x
			continue
		case *ast.Directive:
			d.noteLoc(x)
			if x.Name == ".branchtargets" && lastLabel != nil {
				var names []*ast.Ident
				for _, a := range x.Args {
					if id, ok := a.(*ast.Ident); ok {
						names = append(names, id)
					}
				}
				d.tables[lastLabel] = names
			}
		case *ast.Instruction:
			if len(d.prog.Insts) >= programInstLimit {
				if !d.tooLong {
					d.tooLong = true
					d.errorf(x, "emu-unsupported", "the kernel and the functions it calls have more than %d instructions; the emulator supports at most that many", programInstLimit)
				}
				return
			}
			from := len(d.prog.Insts)
			d.lowerInst(x)
			d.placeLoc(from)
			d.watchWgmmaRegs(from, x)
			lastLabel = nil
		case *ast.Block:
			d.lowerBlock(x.Stmts)
		case *ast.BadStmt:
			d.errorf(x, "emu-decode", "unparsed statement")
		}
	}
}

// declare handles a declaration inside a function body.
func (d *Decoder) declare(v *ast.VarDecl) {
	if v.Name == nil {
		return
	}
	if v.Space == ".reg" {
		d.declareReg(v)
		return
	}
	sp, ok := parseSpace(v.Space)
	if !ok {
		d.errorf(v, "emu-unsupported", "declaration in %s space", v.Space)
		return
	}
	size, elem, err := d.varSize(v)
	if err != nil {
		d.errorf(v, "emu-decode", "%v", err)
		return
	}
	switch sp {
	case SpaceShared, SpaceSharedCluster:
		d.vars[v] = &symbol{kind: symVar, space: SpaceShared, addr: d.shared[v], size: size}
	case SpaceLocal:
		d.vars[v] = d.allocVar(SpaceLocal, size, max(int(v.Align), elem))
		if v.Init != nil {
			d.errorf(v, "emu-unsupported", "initialized .local variable")
		}
	case SpaceParam, SpaceParamFunc:
		d.vars[v] = d.allocVar(SpaceParamFunc, size, max(int(v.Align), elem))
	default:
		d.errorf(v, "emu-unsupported", "%s variable declared inside a function", v.Space)
	}
}

// declareReg allocates the slots of a register declaration (PTX ISA
// §5.1.1), one per component (two per .b128 component); "%r<N>" declares
// N registers (§5.4.6).
func (d *Decoder) declareReg(v *ast.VarDecl) {
	t, ok := ParseType(v.Type)
	if !ok {
		d.errorf(v, "emu-decode", "register %s has unknown type %q", v.Name.Name, v.Type)
		return
	}
	per := max(1, v.Vector)
	if t == TB128 {
		per *= 2
	}
	mk := func(s *symbol, elem int32) {
		if c, ok := d.colors.slotOf(v, elem); ok {
			*s = symbol{kind: symReg, typ: t, vec: v.Vector, slot: (d.colorBase + c) * 32}
			return
		}
		*s = symbol{kind: symReg, typ: t, vec: v.Vector, slot: d.NewSlot()}
		for range per - 1 {
			d.NewSlot()
		}
	}
	if v.Count < 0 {
		s := new(symbol)
		mk(s, -1)
		d.vars[v] = s
		return
	}
	if v.Count > int64(maxRegisterSlots-d.nslots)/int64(per) {
		d.errorf(v, "emu-unsupported", "too many registers (%d; the emulator supports %d register slots per kernel)", v.Count, maxRegisterSlots)
		return
	}
	s := &symbol{kind: symReg, typ: t, vec: v.Vector, elems: make([]symbol, v.Count)}
	for i := range s.elems {
		mk(&s.elems[i], int32(i))
	}
	d.vars[v] = s
}

func (d *Decoder) append(in Inst) int {
	d.prog.Insts = append(d.prog.Insts, in)
	return len(d.prog.Insts) - 1
}

// Emit appends an extra instruction after the one being decoded (for
// opcodes that lower to several steps). It returns its index.
func (d *Decoder) Emit(in Inst) int {
	if in.Guard == 0 && in.D == 0 && in.A == 0 {
		in.Guard, in.D, in.A, in.B, in.C, in.D2 = -1, -1, -1, -1, -1, -1
	}
	return d.append(in)
}

func blankInst() Inst {
	in := Inst{Guard: -1, D: -1, A: -1, B: -1, C: -1, D2: -1, Vec: 1, Target: -1}
	for i := range in.V {
		in.V[i] = -1
	}
	return in
}

// lowerInst decodes one instruction with its registered DecodeFunc.
func (d *Decoder) lowerInst(in *ast.Instruction) {
	in = d.expandRegImm(in)
	if !d.decodeISA(in) {
		return
	}
	dec := decoderFor(in, d.isa.quals)
	if dec == nil {
		d.errorf(in, "emu-unsupported", "the emulator does not implement %s", in.FullOpcode())
		return
	}
	out := blankInst()
	out.Pos = in.Pos()
	out.Opcode = in.FullOpcode()
	if in.Guard != nil {
		s, err := d.Src(in.Guard.Reg, TPred)
		if err != nil {
			d.report(err)
			return
		}
		out.Guard, out.GuardNeg = s, in.Guard.Negate
	}
	idx := d.append(out)
	d.inst = idx
	if err := d.safeDecode(dec, in, &out); err != nil {
		d.report(err)
		return
	}
	if out.Exec == nil {
		d.errorf(in, "emu-decode", "decoder for %s set no handler", in.Opcode)
		return
	}
	d.prog.Insts[idx] = out
}

func (d *Decoder) report(err error) {
	if e, ok := err.(*decodeError); ok {
		d.errorf(e.node, "emu-unsupported", "%s", e.msg)
		return
	}
	d.errs.Errorf(d.prog.File, d.prog.Insts[len(d.prog.Insts)-1].Pos, d.prog.Insts[len(d.prog.Insts)-1].Pos, "emu-unsupported", "%v", err)
}

// Label records that field Target of the instruction being decoded is the
// pc of label e (resolved when the function is complete).
func (d *Decoder) Label(e ast.Expr) error {
	if _, ok := e.(*ast.Ident); !ok {
		return d.Errorf(e, "expected a label")
	}
	d.fixups = append(d.fixups, labelFixup{inst: d.inst, label: d.labelOf(e), name: ast.NameOf(e), node: e})
	return nil
}

// calleeOf resolves a call target, queueing the callee for lowering.
func (d *Decoder) calleeOf(e ast.Expr) (*funcInfo, error) {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil, d.Errorf(e, "indirect calls are not supported by the emulator")
	}
	f := d.funcOf(id)
	if f == nil || f.Body == nil {
		return nil, d.Errorf(e, "call to %s, which has no body in this module", id.Name)
	}
	if f.Kind != ".func" {
		return nil, d.Errorf(e, "call to %s, which is not a .func", id.Name)
	}
	return d.enqueue(f), nil
}

func (d *Decoder) resolveFixups() {
	for _, fx := range d.fixups {
		pc, ok := d.labels[fx.label]
		if !ok {
			d.errorf(fx.node, "emu-decode", "undefined label %s", fx.name)
			continue
		}
		if fx.table != nil {
			fx.table[fx.slot] = pc
			continue
		}
		d.prog.Insts[fx.inst].Target = pc
	}
}

// specialKinds says how the emulator computes each special register of
// isa's table (PTX ISA §10). The performance-monitoring counters (%pm*),
// the clocks, the global timer and %current_graph_exec read 0 (spClock);
// %envreg0-31 are set by the driver.
var specialKinds = map[isa.SRegKind]specialKind{
	isa.SRegTid: spTid, isa.SRegNtid: spNtid, isa.SRegCtaid: spCtaid, isa.SRegNctaid: spNctaid,
	isa.SRegLaneid: spLaneid, isa.SRegWarpid: spWarpid, isa.SRegNwarpid: spNwarpid,
	isa.SRegClusterid: spClusterid, isa.SRegNclusterid: spNclusterid,
	isa.SRegClusterCtaid: spClusterCtaid, isa.SRegClusterNctaid: spClusterNctaid,
	isa.SRegClusterCtarank: spClusterCtarank, isa.SRegClusterNctarank: spClusterNctarank,
	isa.SRegIsExplicitCluster: spIsExplicitCluster, isa.SRegSmid: spSmid, isa.SRegNsmid: spNsmid,
	isa.SRegGridid: spGridid, isa.SRegLanemaskEq: spLanemaskEq, isa.SRegLanemaskLt: spLanemaskLt,
	isa.SRegLanemaskLe: spLanemaskLe, isa.SRegLanemaskGt: spLanemaskGt, isa.SRegLanemaskGe: spLanemaskGe,
	isa.SRegDynamicSmemSize: spDynSmem, isa.SRegTotalSmemSize: spTotalSmem,
	isa.SRegClock: spClock, isa.SRegClock64: spClock, isa.SRegClockHi: spClock, isa.SRegGlobaltimer: spClock,
	isa.SRegGlobaltimerLo: spClock, isa.SRegGlobaltimerHi: spClock,
	isa.SRegReservedSmemBegin: spReservedBegin, isa.SRegReservedSmemEnd: spReservedEnd,
	isa.SRegReservedSmemCap: spReservedCap, isa.SRegReservedSmem0: spReserved0,
	isa.SRegReservedSmem1: spReserved1, isa.SRegAggrSmemSize: spTotalSmem, isa.SRegCurrentGraphExec: spClock,
	isa.SRegEnvreg: spEnvreg, isa.SRegPM: spClock, isa.SRegPM64: spClock,
}

// specialOf returns the special register that the operand r names (as
// resolve binds it) and how the emulator computes it; ok is false when r
// names none or the emulator does not model it.
func (d *Decoder) specialOf(r *ast.Reg) (sr *isa.SReg, k specialKind, ok bool) {
	if sym := d.symbolOf(r); sym != nil && sym.Special != nil {
		sr = sym.Special.SReg
		k, ok = specialKinds[sr.Kind]
	}
	return sr, k, ok
}

func compIndex(c string) int {
	switch c {
	case "y", "g":
		return 1
	case "z", "b":
		return 2
	case "w", "a":
		return 3
	}
	return 0
}

// regSlot resolves a register operand to its slot base.
func (d *Decoder) regSlot(r *ast.Reg) (int32, Type, error) {
	if err := d.noSelector(r); err != nil {
		return 0, 0, err
	}
	s := d.lookup(r)
	if s == nil {
		return d.specialSlot(r)
	}
	return d.regSlotOf(r, s)
}

// noSelector refuses a video selector (PTX ISA 9.7.19) on r outside the
// operands of a video instruction, whose decoders read it (ops_video.go).
func (d *Decoder) noSelector(r *ast.Reg) error {
	if r.Sel != 0 && !d.videoOperands {
		return d.Errorf(r, "selector .%s: only the video instructions take operand selectors", r.Sel)
	}
	return nil
}

// regSlotOf returns the slot base of the register operand r, of storage
// s, and its type.
func (d *Decoder) regSlotOf(r *ast.Reg, s *symbol) (int32, Type, error) {
	if s.kind != symReg {
		return 0, 0, d.Errorf(r, "undeclared register %s", r.Name)
	}
	slot := s.slot
	if r.Comp != "" {
		c := compIndex(r.Comp)
		if c >= max(1, s.vec) {
			return 0, 0, d.Errorf(r, "register %s has no component .%s", r.Name, r.Comp)
		}
		if s.typ == TB128 {
			c *= 2
		}
		slot += int32(c) * 32
	}
	return slot, s.typ, nil
}

// specialSlot resolves the special register operand r (PTX ISA §10) to
// the slot that holds its value.
func (d *Decoder) specialSlot(r *ast.Reg) (int32, Type, error) {
	sr, k, ok := d.specialOf(r)
	if !ok {
		if sr != nil {
			return 0, 0, d.Errorf(r, "the emulator does not model special register %s", r.Name)
		}
		return 0, 0, d.Errorf(r, "undeclared register %s", r.Name)
	}
	off := uint64(0)
	if k == spEnvreg {
		off = uint64(sr.Index)
	}
	if k >= spReservedBegin && k <= spReserved1 {
		d.prog.reservedSmem = true
	}
	return d.special(k, compIndex(r.Comp), off), TU32, nil
}

// Dst resolves a destination operand: a register (slot base) or "_" (-1).
func (d *Decoder) Dst(e ast.Expr) (int32, error) {
	switch x := e.(type) {
	case *ast.Sink:
		return -1, nil
	case *ast.Reg:
		if err := d.noSelector(x); err != nil {
			return 0, err
		}
		s := d.lookup(x)
		if s == nil {
			if _, _, ok := d.specialOf(x); ok {
				return 0, d.Errorf(x, "special register %s is read-only", x.Name)
			}
			_, _, err := d.specialSlot(x)
			return 0, err
		}
		slot, _, err := d.regSlotOf(x, s)
		return slot, err
	case *ast.Ident:
		if s := d.lookup(x); s != nil && s.kind == symReg {
			return s.slot, nil
		}
	}
	return 0, d.Errorf(e, "expected a destination register")
}

// Src resolves a source operand read as type t to a slot base: registers,
// special registers, immediates and symbol addresses all become slots.
func (d *Decoder) Src(e ast.Expr, t Type) (int32, error) {
	switch x := e.(type) {
	case *ast.Reg:
		s, _, err := d.regSlot(x)
		return s, err
	case *ast.Ident:
		return d.srcName(x)
	case *ast.ParenExpr:
		return d.Src(x.X, t)
	case *ast.Sink:
		return 0, d.Errorf(x, "\"_\" cannot be a source operand")
	}
	v, ok := d.constValue(e, t)
	if !ok {
		return 0, d.Errorf(e, "operand the emulator cannot evaluate")
	}
	return d.Const(v), nil
}

// srcName resolves a source operand that is a name: a register, the
// address of a variable or of a function, or the constant WARP_SZ (PTX
// ISA §4.4).
func (d *Decoder) srcName(x *ast.Ident) (int32, error) {
	if s := d.lookup(x); s != nil {
		if s.kind == symReg {
			return s.slot, nil
		}
		return d.symAddr(s, 0), nil
	}
	sym := d.symbolOf(x)
	switch {
	case sym != nil && sym.Kind == resolve.Constant:
		return d.Const(uint64(sym.Value)), nil
	case sym == nil || sym.Kind != resolve.Function:
		return 0, d.Errorf(x, "undefined name %s", x.Name)
	}
	if a, ok := d.funcAddr(d.funcOf(x)); ok {
		return d.Const(a), nil
	}
	return 0, d.Errorf(x, "%s is a function without a body or an entry; its address cannot be taken", x.Name)
}

// symAddr returns a slot holding the address of variable s plus off in
// its own state space.
func (d *Decoder) symAddr(s *symbol, off int64) int32 {
	if s.frame != nil {
		return d.frameSymAddr(s)
	}
	if s.space == SpaceShared {
		return d.special(spSharedAddr, 0, s.addr+uint64(off))
	}
	return d.Const(s.addr + uint64(off))
}

// Addr resolves an address operand ([reg+off], [sym+off], [imm], sym[i])
// to a base slot and displacement. sp is the space of a named variable
// (SpaceGeneric when the base is a register or an absolute address).
func (d *Decoder) Addr(e ast.Expr) (base int32, off int64, sp Space, err error) {
	switch x := e.(type) {
	case *ast.Address:
		if len(x.Index) > 0 {
			return 0, 0, 0, d.Errorf(x, "address with a vector index is not supported here")
		}
		switch b := x.Base.(type) {
		case nil:
			return d.Const(0), x.Offset, SpaceGeneric, nil
		case *ast.Reg:
			s, _, err := d.regSlot(b)
			return s, x.Offset, SpaceGeneric, err
		case *ast.Ident:
			s := d.lookup(b)
			if s == nil {
				if d.funcOf(b) != nil {
					return 0, 0, 0, d.Errorf(b, "%s is not a variable", b.Name)
				}
				return 0, 0, 0, d.Errorf(b, "undefined name %s", b.Name)
			}
			if s.kind == symReg {
				return s.slot, x.Offset, SpaceGeneric, nil
			}
			if s.space == SpaceShared {
				return d.symAddr(s, 0), x.Offset, SpaceShared, nil
			}
			if s.frame != nil {
				return s.frame.base, int64(s.addr) + x.Offset, s.space, nil
			}
			return d.Const(0), int64(s.addr) + x.Offset, s.space, nil
		case *ast.IndexExpr:
			return d.Addr(b)
		}
		return 0, 0, 0, d.Errorf(x, "unsupported address base")
	case *ast.IndexExpr:
		id, ok := x.X.(*ast.Ident)
		idx, ok2 := parser.ConstValue(x.Index)
		if !ok || !ok2 {
			return 0, 0, 0, d.Errorf(x, "array index must be a constant")
		}
		s := d.lookup(id)
		if s == nil || s.kind != symVar {
			return 0, 0, 0, d.Errorf(x, "undefined variable %s", id.Name)
		}
		if s.space == SpaceShared {
			return d.symAddr(s, 0), idx, SpaceShared, nil
		}
		if s.frame != nil {
			return s.frame.base, int64(s.addr) + idx, s.space, nil
		}
		return d.Const(0), int64(s.addr) + idx, s.space, nil
	}
	return 0, 0, 0, d.Errorf(e, "expected an address operand [..]")
}

// Vector resolves a brace-enclosed operand list (elements may be "_").
func (d *Decoder) Vector(e ast.Expr, t Type, dst bool) ([]int32, error) {
	if s := d.vectorReg(e); s != nil { // a whole vector register: %v for {%v.x, %v.y, ...}
		out := make([]int32, s.vec)
		step := int32(32)
		if s.typ == TB128 {
			step = 64
		}
		for i := range out {
			out[i] = s.slot + int32(i)*step
		}
		return out, nil
	}
	v, ok := e.(*ast.VectorExpr)
	if !ok {
		return nil, d.Errorf(e, "expected a vector operand {...}")
	}
	out := make([]int32, len(v.Elems))
	for i, x := range v.Elems {
		var err error
		if _, sink := x.(*ast.Sink); sink {
			out[i] = -1
			continue
		}
		if dst {
			out[i], err = d.Dst(x)
		} else {
			out[i], err = d.Src(x, t)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// safeDecode runs a decoder, turning a panic on malformed operands into a
// diagnostic: every input gets an error, never a crash.
func (d *Decoder) safeDecode(dec DecodeFunc, in *ast.Instruction, out *Inst) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = d.Errorf(in, "cannot decode %s: malformed operands (%v)", in.FullOpcode(), r)
		}
	}()
	return dec(d, in, out)
}

// vectorReg returns the vector register a bare operand names, or nil.
func (d *Decoder) vectorReg(e ast.Expr) *symbol {
	switch x := e.(type) {
	case *ast.Reg:
		if x.Comp != "" {
			return nil
		}
	case *ast.Ident:
	default:
		return nil
	}
	if s := d.lookup(e); s != nil && s.kind == symReg && s.vec > 1 {
		return s
	}
	return nil
}

package mm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// ThreadSpec places one thread of a kernel run as a litmus test.
type ThreadSpec struct {
	CTA, Tid, Cluster int // Cluster -1: the CTA is its own cluster
}

// ParseThreadSpecs reads a comma-separated list of threads, each
// CTA[/TID][@CLUSTER]: %ctaid.x, %tid.x (default 0) and the cluster id
// (default: the CTA alone).
func ParseThreadSpecs(s string) ([]ThreadSpec, error) {
	var out []ThreadSpec
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		t := ThreadSpec{Cluster: -1}
		var err error
		if rest, cl, ok := strings.Cut(f, "@"); ok {
			if t.Cluster, err = strconv.Atoi(cl); err != nil || t.Cluster < 0 {
				return nil, fmt.Errorf("bad cluster in thread %q", f)
			}
			f = rest
		}
		cta, tid, hasTid := strings.Cut(f, "/")
		if t.CTA, err = strconv.Atoi(cta); err != nil || t.CTA < 0 {
			return nil, fmt.Errorf("bad CTA in thread %q", f)
		}
		if hasTid {
			if t.Tid, err = strconv.Atoi(tid); err != nil || t.Tid < 0 {
				return nil, fmt.Errorf("bad thread id in thread %q", f)
			}
		}
		out = append(out, t)
	}
	if len(out) == 0 || len(out) > maxThreads {
		return nil, fmt.Errorf("want 1 to %d threads", maxThreads)
	}
	return out, nil
}

// ParsePTXKernel turns a PTX kernel into a litmus test: each thread of
// specs runs the module's first .entry with %ctaid.x and %tid.x set as
// given. Module-scope .global and .shared scalars are the locations (their
// initializers the initial values); the condition is a comment line
// "//@ exists (P1:%r2 == 0)" (also ~exists, forall) naming registers by
// thread. Addresses must be variable names ([x]); the supported
// instructions are mov, add, sub, mul, setp, bra, ret, exit, ld, st, atom,
// red, fence, membar, bar.sync/barrier.sync, and for the asynchronous
// proxy st.async, cp.async.bulk and the mbarrier operations.
func ParsePTXKernel(name string, src []byte, specs []ThreadSpec) (*Program, error) {
	mod, errs := parser.ParseFile(name, src)
	if errs.HasErrors() {
		for _, d := range errs {
			if d.Severity == diag.Error {
				return nil, &ParseError{Line: int(d.Pos.Line), Col: int(d.Pos.Col), Msg: fmt.Sprintf("%s [%s]", d.Message, d.Rule)}
			}
		}
	}
	prog := &Program{Name: strings.TrimSuffix(name, ".ptx"), initRegs: map[string]map[string]int64{}}
	// Names are bound once, by resolve; a name it leaves unbound is
	// reported where the kernel uses it as a location.
	info, _ := resolve.Module(mod)
	locs := map[*ast.VarDecl]string{}
	var entry *ast.Function
	for _, st := range mod.Stmts {
		switch st := st.(type) {
		case *ast.VarDecl:
			if err := kernelVar(prog, st, locs); err != nil {
				return nil, err
			}
		case *ast.Function:
			if entry == nil && st.Kind == ".entry" && st.Body != nil {
				entry = st
				prog.Name = st.Name.Name
			}
		}
	}
	if entry == nil {
		return nil, parseErr(1, "no .entry kernel with a body")
	}
	for k, sp := range specs {
		th := Thread{Name: fmt.Sprintf("P%d", k), CTA: sp.CTA, Cluster: sp.Cluster}
		r := &kernelReader{prog: prog, info: info, locs: locs, sp: sp}
		code, err := r.code(entry.Body)
		if err != nil {
			return nil, err
		}
		th.Code = code
		prog.Threads = append(prog.Threads, th)
	}
	line, text, ok := kernelCondition(src)
	if !ok {
		return nil, parseErr(1, `missing the condition comment ("//@ exists (P1:%r1 == 0)")`)
	}
	q, rest, _ := cutQuantifier(text)
	return parseFinal(prog, q, rest, nil, line)
}

func kernelCondition(src []byte) (int, string, bool) {
	for i, l := range strings.Split(string(src), "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "//@"); ok {
			t = strings.TrimSpace(t)
			if _, _, ok := cutQuantifier(t); ok {
				return i + 1, t, true
			}
		}
	}
	return 0, "", false
}

// kernelReader translates the kernel for one thread of the test. It reads
// names through resolve's binding of each use: an address names a
// location by the declaration it resolves to, an operand a special
// register by resolve's Special.
type kernelReader struct {
	prog *Program
	info *resolve.Info
	locs map[*ast.VarDecl]string // the location each module-scope scalar declares
	sp   ThreadSpec
	bars int // barrier instructions read so far
}

// kernelVar makes a module-scope .global or .shared scalar d a location
// and records it in locs.
func kernelVar(prog *Program, d *ast.VarDecl, locs map[*ast.VarDecl]string) error {
	if !strings.HasPrefix(d.Space, ".global") && !strings.HasPrefix(d.Space, ".shared") {
		return nil
	}
	if len(d.Dims) > 0 || d.Vector != 0 {
		return parseErr(int(d.Pos().Line), fmt.Sprintf("%s: only scalar variables can be litmus locations", d.Name.Name))
	}
	i := prog.addLoc(d.Name.Name)
	locs[d] = d.Name.Name
	if lit, ok := d.Init.(*ast.IntLit); ok {
		prog.PhysInit[prog.Locs[i].Phys] = int64(lit.Value)
	}
	return nil
}

// code translates the kernel body for the thread.
func (k *kernelReader) code(body *ast.Block) ([]Instr, error) {
	var code []Instr
	for _, st := range body.Stmts {
		switch st := st.(type) {
		case *ast.Label:
			code = append(code, Instr{Op: OpLabel, Label: st.Name, Line: int(st.Pos().Line), Text: st.Name + ":"})
		case *ast.Instruction:
			ins, err := k.instr(st)
			if err != nil {
				return nil, parseErr(int(st.Pos().Line), err.Error())
			}
			for i := range ins {
				ins[i].Line = int(st.Pos().Line)
				ins[i].Text = instrText(st)
			}
			code = append(code, ins...)
		case *ast.VarDecl, *ast.Directive:
		default:
			return nil, parseErr(int(st.Pos().Line), "unsupported statement")
		}
		if len(code) > maxInstrs {
			return nil, parseErr(int(st.Pos().Line), fmt.Sprintf("more than %d instructions", maxInstrs))
		}
	}
	return append(code, Instr{Op: OpLabel, Label: kernelEnd, Text: kernelEnd + ":"}), nil
}

const kernelEnd = "__end"

func instrText(in *ast.Instruction) string {
	var b strings.Builder
	b.WriteString(in.Opcode)
	for _, q := range in.Quals {
		b.WriteString(q.Name)
	}
	for i, o := range in.Operands {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(printer.String(o))
	}
	return b.String()
}

// operand reads a register or an immediate; special registers take the
// thread's values.
func (k *kernelReader) operand(e ast.Expr) (Operand, error) {
	switch e := e.(type) {
	case *ast.Reg:
		if sym := k.info.Symbol(e); sym != nil && sym.Special != nil {
			return specialOperand(e, sym.Special.SReg, k.sp)
		}
		if e.Comp != "" {
			return Operand{}, fmt.Errorf("unsupported special register %s", printer.String(e))
		}
		return Operand{Reg: e.Name}, nil
	case *ast.IntLit:
		return Operand{Val: int64(e.Value)}, nil
	case *ast.UnaryExpr:
		if lit, ok := e.X.(*ast.IntLit); ok && e.Op == "-" {
			return Operand{Val: -int64(lit.Value)}, nil
		}
	}
	return Operand{}, fmt.Errorf("unsupported operand %s", printer.String(e))
}

// specialOperand reads special register r (PTX ISA §10) for thread sp:
// %ctaid.x and %tid.x are the thread's place; the cluster registers are
// given with --threads CTA@CLUSTER instead, and no other is modelled.
func specialOperand(e *ast.Reg, r *isa.SReg, sp ThreadSpec) (Operand, error) {
	x := e.Comp == "x"
	switch {
	case r.Kind == isa.SRegCtaid && x:
		return Operand{Val: int64(sp.CTA)}, nil
	case r.Kind == isa.SRegTid && x:
		return Operand{Val: int64(sp.Tid)}, nil
	case r.Kind == isa.SRegClusterCtarank && e.Comp == "", r.Kind == isa.SRegClusterid && x:
		return Operand{}, fmt.Errorf("%s is not supported; give clusters with --threads CTA@CLUSTER", e.Name)
	}
	return Operand{}, fmt.Errorf("unsupported special register %s", printer.String(e))
}

// address reads [x], the only address form a litmus location has: x
// resolves to a location's declaration.
func (k *kernelReader) address(e ast.Expr) (string, error) {
	a, ok := e.(*ast.Address)
	if ok && !a.HasOffset {
		if sym := k.info.Symbol(a.Base); sym != nil && sym.Decl != nil {
			if loc, ok := k.locs[sym.Decl]; ok {
				return loc, nil
			}
		}
	}
	return "", fmt.Errorf("address %s: only [variable] of a module-scope .global or .shared scalar is supported", printer.String(e))
}

// cmpOps maps setp's comparisons to the litmus comparison they perform.
var cmpOps = map[isa.Qual]string{isa.QEq: "eq", isa.QNe: "ne", isa.QLt: "lt", isa.QLe: "le", isa.QGt: "gt", isa.QGe: "ge",
	isa.QLo: "lt", isa.QLs: "le", isa.QHi: "gt", isa.QHs: "ge"}

// semOf and scopeOf map the ordering and scope qualifiers (PTX ISA §8.4,
// §8.5) to the model's.
var (
	semOf = map[isa.Qual]Sem{isa.QWeak: Weak, isa.QRelaxed: Relaxed, isa.QAcquire: Acquire,
		isa.QRelease: Release, isa.QAcqRel: AcqRel, isa.QSc: SC}
	scopeOf = map[isa.Qual]Scope{isa.QCta: ScopeCTA, isa.QCluster: ScopeCluster, isa.QGpu: ScopeGPU, isa.QSys: ScopeSys}
)

// kernelQuals splits memory-instruction qualifiers into semantics, scope
// and the remaining ones (operation, state space, type, cache hints),
// spelled without their dot.
func kernelQuals(in *ast.Instruction, def Sem) (Sem, Scope, []string) {
	sem, scope := def, NoScope
	var rest []string
	for i, q := range kernelQualsOf(in) {
		switch {
		case q == isa.QVolatile:
			sem, scope = Relaxed, ScopeSys // §8.4.2: .volatile is .relaxed.sys
		case q == isa.QMmio:
			sem = Relaxed
		case semOf[q] != 0 || q == isa.QWeak:
			sem = semOf[q]
		case scopeOf[q] != 0:
			scope = scopeOf[q]
		default:
			rest = append(rest, strings.TrimPrefix(in.Quals[i].Name, "."))
		}
	}
	if sem != Weak && scope == NoScope {
		scope = ScopeGPU
	}
	return sem, scope, rest
}

func (k *kernelReader) instr(in *ast.Instruction) ([]Instr, error) {
	ops := in.Operands
	if in.Guard != nil && in.Opcode != "bra" {
		return nil, fmt.Errorf("a guard is supported on bra only")
	}
	operands := func(from int) ([]Operand, error) {
		var out []Operand
		for _, e := range ops[from:] {
			o, err := k.operand(e)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		return out, nil
	}
	dst := func() (string, error) {
		if len(ops) == 0 {
			return "", fmt.Errorf("%s needs a destination", in.Opcode)
		}
		r, ok := ops[0].(*ast.Reg)
		if !ok || r.Comp != "" {
			return "", fmt.Errorf("%s: bad destination %s", in.Opcode, printer.String(ops[0]))
		}
		return r.Name, nil
	}
	switch in.Opcode {
	case "ret", "exit":
		return []Instr{{Op: OpGoto, Label: kernelEnd}}, nil
	case "bra":
		if len(ops) != 1 {
			return nil, fmt.Errorf("bra needs a label")
		}
		id, ok := ops[0].(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("bra needs a label")
		}
		if in.Guard == nil {
			return []Instr{{Op: OpGoto, Label: id.Name}}, nil
		}
		cmp := "ne"
		if in.Guard.Negate {
			cmp = "eq"
		}
		return []Instr{{Op: OpBranch, Cmp: cmp, Args: []Operand{{Reg: in.Guard.Reg.Name}, {Val: 0}}, Label: id.Name}}, nil
	case "mov", "add", "sub", "mul", "setp":
		d, err := dst()
		if err != nil {
			return nil, err
		}
		args, err := operands(1)
		if err != nil {
			return nil, err
		}
		if in.Opcode == "mov" {
			if len(args) != 1 {
				return nil, fmt.Errorf("mov needs one source")
			}
			return []Instr{{Op: OpMove, Dst: d, Args: args}}, nil
		}
		if len(args) != 2 {
			return nil, fmt.Errorf("%s needs two sources", in.Opcode)
		}
		op := in.Opcode
		if op == "setp" {
			qs := kernelQualsOf(in)
			if len(qs) == 0 || cmpOps[qs[0]] == "" {
				return nil, fmt.Errorf("setp needs a comparison")
			}
			op = "set" + cmpOps[qs[0]]
		}
		return []Instr{{Op: OpArith, RMW: op, Dst: d, Args: args}}, nil
	case "ld", "st":
		if in.Opcode == "st" && len(in.Quals) > 0 && isa.LookupQual(in.Quals[0].Name) == isa.QAsync {
			return k.stAsync(in, operands)
		}
		return k.mem(in, dst, operands)
	case "cp":
		return k.bulkCopy(in)
	case "mbarrier":
		return k.mbarrier(in, dst)
	case "atom", "red":
		return k.rmw(in, dst, operands)
	case "fence", "membar":
		return kernelFence(in)
	case "bar", "barrier":
		return k.bar(in)
	}
	return nil, fmt.Errorf("%s is not supported in a litmus kernel", in.Opcode)
}

func (k *kernelReader) mem(in *ast.Instruction, dst func() (string, error), operands func(int) ([]Operand, error)) ([]Instr, error) {
	sem, scope, _ := kernelQuals(in, Weak)
	if len(in.Operands) != 2 {
		return nil, fmt.Errorf("%s needs two operands", in.Opcode)
	}
	if in.Opcode == "ld" {
		d, err := dst()
		if err != nil {
			return nil, err
		}
		loc, err := k.address(in.Operands[1])
		if err != nil {
			return nil, err
		}
		return []Instr{{Op: OpLoad, Sem: sem, Scope: scope, Dst: d, Loc: loc}}, nil
	}
	loc, err := k.address(in.Operands[0])
	if err != nil {
		return nil, err
	}
	v, err := operands(1)
	if err != nil {
		return nil, err
	}
	return []Instr{{Op: OpStore, Sem: sem, Scope: scope, Loc: loc, Args: v}}, nil
}

func (k *kernelReader) rmw(in *ast.Instruction, dst func() (string, error), operands func(int) ([]Operand, error)) ([]Instr, error) {
	sem, scope, rest := kernelQuals(in, Relaxed)
	op := ""
	for _, q := range rest {
		if rmwOps[q] {
			op = q
		}
	}
	if op == "" {
		return nil, fmt.Errorf("%s: unsupported operation", in.Opcode)
	}
	res := Instr{Op: OpRMW, Sem: sem, Scope: scope, RMW: op}
	first := 0
	if in.Opcode == "atom" {
		d, err := dst()
		if err != nil {
			return nil, err
		}
		res.Dst, first = d, 1
	}
	if len(in.Operands) < first+2 {
		return nil, fmt.Errorf("%s needs an address and a value", in.Opcode)
	}
	loc, err := k.address(in.Operands[first])
	if err != nil {
		return nil, err
	}
	res.Loc = loc
	if res.Args, err = operands(first + 1); err != nil {
		return nil, err
	}
	if want := map[bool]int{true: 2, false: 1}[op == "cas"]; len(res.Args) != want {
		return nil, fmt.Errorf("%s.%s needs %d value operand(s)", in.Opcode, op, want)
	}
	return []Instr{res}, nil
}

func kernelFence(in *ast.Instruction) ([]Instr, error) {
	q := kernelQualsOf(in)
	switch {
	case in.Opcode == "membar":
		sc := map[isa.Qual]Scope{isa.QCta: ScopeCTA, isa.QGl: ScopeGPU, isa.QSys: ScopeSys}
		if len(q) == 1 && sc[q[0]] != 0 {
			return []Instr{{Op: OpFence, Fence: FenceSC, Sem: SC, Scope: sc[q[0]]}}, nil
		}
	case len(q) >= 2 && q[0] == isa.QProxy:
		switch {
		case q[1] == isa.QAlias:
			return []Instr{{Op: OpFence, Fence: FenceAlias}}, nil
		// The .async::space variants are spellings isa does not decode.
		case q[1] == isa.QAsync || strings.HasPrefix(in.Quals[1].Name, ".async::"):
			return []Instr{{Op: OpFence, Fence: FenceProxy, Proxy: Async}}, nil
		}
	case len(q) == 1 && scopeOf[q[0]] != 0:
		return []Instr{{Op: OpFence, Fence: FenceAcqRel, Sem: AcqRel, Scope: scopeOf[q[0]]}}, nil
	case len(q) == 2 && scopeOf[q[1]] != 0 && (q[0] == isa.QSc || q[0] == isa.QAcqRel):
		if q[0] == isa.QSc {
			return []Instr{{Op: OpFence, Fence: FenceSC, Sem: SC, Scope: scopeOf[q[1]]}}, nil
		}
		return []Instr{{Op: OpFence, Fence: FenceAcqRel, Sem: AcqRel, Scope: scopeOf[q[1]]}}, nil
	}
	return nil, fmt.Errorf("unsupported fence %s", instrText(in))
}

// bar reads bar.sync / barrier.sync a{, b}: the barrier instance is the
// instruction's position among the kernel's barriers, so threads meet at
// the same barrier instruction.
func (k *kernelReader) bar(in *ast.Instruction) ([]Instr, error) {
	arrive := false
	for _, q := range kernelQualsOf(in) {
		switch q {
		case isa.QSync, isa.QAligned, isa.QCta:
		case isa.QArrive:
			arrive = true
		default:
			return nil, fmt.Errorf("unsupported barrier %s", instrText(in))
		}
	}
	if len(in.Operands) < 1 || len(in.Operands) > 2 {
		return nil, fmt.Errorf("bar needs a barrier id and an optional count")
	}
	id, err := k.operand(in.Operands[0])
	if err != nil {
		return nil, err
	}
	res := Instr{Op: OpBar, BarIns: k.bars, BarID: id, Arrive: arrive, Scope: ScopeCTA}
	k.bars++
	if len(in.Operands) == 2 {
		lit, ok := in.Operands[1].(*ast.IntLit)
		if !ok || lit.Value == 0 || lit.Value > 1024 {
			return nil, fmt.Errorf("the barrier count must be a constant from 1 to 1024")
		}
		res.BarCnt = int(lit.Value)
	}
	return []Instr{res}, nil
}

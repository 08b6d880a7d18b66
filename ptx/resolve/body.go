package resolve

import (
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// What an operand names where it is used.
const (
	ctxNone     uint8 = iota
	ctxLabel          // a branch target (bra, brx, .branchtargets)
	ctxFunction       // a call target (call, .calltargets, .alias)
)

// function resolves the parameters and body of f (PTX ISA §11.2).
func (r *Resolver) function(f *ast.Function) {
	r.beginFunction(f)
	if f.Body != nil {
		r.block(f.Body)
	}
	r.endFunction()
}

// beginFunction opens the scope of f and declares its parameters.
func (r *Resolver) beginFunction(f *ast.Function) {
	r.fn = f
	r.stmt = r.stmt[:0]
	if !r.keep && r.bodyKept {
		r.bodySyms.detach()
		r.bodyKept = false
	}
	t := &r.t
	t.open()
	params := FuncParam
	if f.Kind == ".entry" {
		params = KernelParam
	}
	for _, d := range f.Returns {
		r.declareVar(t, d, f, FuncReturn)
	}
	for _, d := range f.Params {
		r.declareVar(t, d, f, params)
	}
}

// endFunction closes the scope of the function being resolved.
func (r *Resolver) endFunction() {
	t := &r.t
	t.close()
	r.fn = nil
	if r.keep {
		r.bodyKept = true
		return
	}
	// Drop the function's scope: nothing may point into its body now.
	clear(r.stmt[:cap(r.stmt)])
	r.stmt = r.stmt[:0]
	r.bodySyms.recycle()
	t.cache.invalidate()
}

// collectLabels declares the labels of a block, whose statements are
// stmts, in the innermost scope. A label is visible in its whole block,
// before and after it, and in nested blocks, but not outside its block (as
// ptxas does; sibling blocks may reuse a label).
func (r *Resolver) collectLabels(stmts []ast.Stmt) {
	for i, s := range stmts {
		l, ok := s.(*ast.Label)
		if !ok {
			continue
		}
		sym := Symbol{Kind: Label, Label: l, Owner: r.fn}
		if i+1 < len(stmts) {
			if d, ok := stmts[i+1].(*ast.Directive); ok && d.Proto != nil {
				sym.Kind, sym.Func = Prototype, d.Proto
			}
		}
		if prev := r.t.declareLabel(l.Name, r.bodySyms.new(sym)); prev != nil {
			r.errorf(l, RuleDuplicate, "label %s redefined (previous definition at %s)", l.Name, prev.Label.Pos())
		}
	}
}

// block resolves b in a new scope. A declaration is visible from the
// statement after it to the end of its block.
func (r *Resolver) block(b *ast.Block) {
	t := &r.t
	t.open()
	r.collectLabels(b.Stmts)
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ast.Instruction:
			r.instruction(s)
		case *ast.VarDecl:
			r.resolveInits(s)
			r.declareVar(t, s, r.fn, NoRole)
		case *ast.Block:
			r.block(s)
		case *ast.Directive:
			r.directive(s)
		}
	}
	t.close()
}

// directive resolves the operands of the directives that name labels or
// functions: .branchtargets (labels), .calltargets (functions) (PTX ISA
// §11.3).
func (r *Resolver) directive(d *ast.Directive) {
	switch d.Name {
	case ".callprototype":
		if d.Proto != nil {
			r.prototype(d.Proto)
		}
	case ".branchtargets":
		r.exprs(d.Args, ctxLabel)
	case ".calltargets":
		r.exprs(d.Args, ctxFunction)
	}
}

// prototype checks a .callprototype's parameter list for duplicates.
func (r *Resolver) prototype(p *ast.Function) {
	t := &r.pt
	t.open()
	for _, d := range p.Returns {
		r.declareVar(t, d, r.fn, NoRole)
	}
	for _, d := range p.Params {
		r.declareVar(t, d, r.fn, NoRole)
	}
	t.close()
}

func (r *Resolver) instruction(in *ast.Instruction) {
	r.stmt = r.stmt[:0] // stale entries are overwritten, and all cleared at the function's end
	r.stmtSel = false
	if g := in.Guard; g != nil && g.Reg != nil {
		r.reg(g.Reg, ctxNone)
	}
	r.opFrom = len(r.stmt)
	switch in.Opcode {
	case "bra", "brx":
		r.exprs(in.Operands, ctxLabel)
	case "call":
		for i, op := range in.Operands {
			ctx := ctxNone
			if isCallTarget(in, i) {
				ctx = ctxFunction
			}
			r.expr(op, ctx)
		}
		r.noteCall(in)
	default:
		r.exprs(in.Operands, ctxNone)
	}
}

// HasSelector reports whether a register of the instruction resolved
// last, anywhere in its operands, carries a video selector (ast.Reg.Sel),
// so that a later phase need not walk the operands to find out.
func (r *Resolver) HasSelector() bool { return r.stmtSel }

// OperandUse returns the symbol of x when it is the k-th name use among
// the operands of the instruction resolved last, nil otherwise. The uses
// are recorded in operand order, after the guard's, so a caller walking
// operands that are registers or constants reads each register's symbol
// without a search: x is the k-th use when the k registers before it
// resolved.
func (r *Resolver) OperandUse(k int, x *ast.Reg) *Symbol {
	if i := r.opFrom + k; i < len(r.stmt) && r.stmt[i].at == &x.Span {
		return r.stmt[i].sym
	}
	return nil
}

// noteCall records the first direct call of a function: the call names
// it as its first operand after the optional return list.
func (r *Resolver) noteCall(in *ast.Instruction) {
	first := 0
	if len(in.Operands) > 0 {
		if _, ok := in.Operands[0].(*ast.ParenList); ok {
			first = 1
		}
	}
	if first >= len(in.Operands) {
		return
	}
	id, ok := in.Operands[first].(*ast.Ident)
	if !ok {
		return
	}
	if sym := r.Resolved(id); sym != nil && sym.Kind == Function && sym.CalledAt.From.Line == 0 {
		sym.CalledAt = id.Span
	}
}

// isCallTarget reports whether operand i of a call is the function (or
// the prototype): "call (ret), f, (args), proto;" or "call f, (args);".
func isCallTarget(in *ast.Instruction, i int) bool {
	first := 0
	if len(in.Operands) > 0 {
		if _, ok := in.Operands[0].(*ast.ParenList); ok {
			first = 1
		}
	}
	if i == first {
		return true
	}
	// The trailing prototype or jump-table operand of an indirect call.
	if i == len(in.Operands)-1 && i > first {
		_, isParen := in.Operands[i].(*ast.ParenList)
		return !isParen
	}
	return false
}

// expr resolves the names in e; ctx says what a name operand must be.
func (r *Resolver) expr(e ast.Expr, ctx uint8) {
	switch x := e.(type) {
	case *ast.Reg:
		r.reg(x, ctx)
	case *ast.Address:
		if b, ok := x.Base.(*ast.Reg); ok {
			r.reg(b, ctxNone)
		} else if x.Base != nil {
			r.expr(x.Base, ctxNone)
		}
		for _, y := range x.Index {
			r.expr(y, ctxNone)
		}
	case *ast.Ident:
		r.ident(x, ctx)
	case *ast.VectorExpr:
		r.exprs(x.Elems, ctx)
	case *ast.IndexExpr:
		r.expr(x.X, ctxNone)
		r.expr(x.Index, ctxNone)
	case *ast.InitList:
		r.exprs(x.Elems, ctxNone)
	case *ast.ParenList:
		r.exprs(x.Elems, ctxNone)
	case *ast.ParenExpr:
		r.expr(x.X, ctxNone)
	case *ast.UnaryExpr:
		r.expr(x.X, ctxNone)
	case *ast.BinaryExpr:
		r.expr(x.X, ctxNone)
		r.expr(x.Y, ctxNone)
	case *ast.CallExpr:
		r.exprs(x.Args, ctxNone)
	}
}

func (r *Resolver) exprs(es []ast.Expr, ctx uint8) {
	for _, e := range es {
		if x, ok := e.(*ast.Reg); ok { // most operands
			r.reg(x, ctx)
		} else {
			r.expr(e, ctx)
		}
	}
}

// reg resolves the use of the register (or name with a component) x. Most
// uses name a register already named in the function, whose symbol is in
// the cache.
func (r *Resolver) reg(x *ast.Reg, ctx uint8) {
	if x.Sel != 0 {
		r.stmtSel = true
	}
	sym, k, h := r.t.cache.hit(x.Name)
	if x.Comp == "" {
		if sym == nil {
			sym, _ = r.t.countedElement(x.Name)
			if sym != nil {
				r.t.cache.put(x.Name, k, h, sym)
			}
		}
		if sym != nil {
			r.use(x, &x.Span, sym)
			return
		}
	}
	r.name(x, x.Name, k, h, sym, x.Comp, ctx)
}

// ident resolves the use of the name x.
func (r *Resolver) ident(x *ast.Ident, ctx uint8) {
	sym, k, h := r.t.cache.hit(x.Name)
	if sym != nil {
		r.use(x, &x.Span, sym)
		return
	}
	r.name(x, x.Name, k, h, nil, "", ctx)
}

// name resolves the use n of name, of key k and hash h, with vector
// component comp ("" for none); sym is what the cache holds for name.
func (r *Resolver) name(n ast.Expr, name string, k uint64, h uint32, sym *Symbol, comp string, ctx uint8) {
	if sym == nil {
		if sym = r.lookup(n, name, h, ctx); sym == nil {
			return
		}
		r.t.cache.put(name, k, h, sym)
	}
	r.use(n, spanOf(n), sym)
	if comp != "" {
		if sym.Special != nil && !sym.Special.ValidComponent(comp) && r.laterLabelMayBe(n, name, comp, sym, 0) {
			return
		}
		r.checkComponent(n, name, comp, sym)
	}
}

// lookup finds what name, of hash b, refers to: a visible register,
// variable or parameter, label, function, predefined constant or special
// register, in that order. It reports the use n and returns nil when name
// is none of these.
func (r *Resolver) lookup(n ast.Expr, name string, b uint32, ctx uint8) *Symbol {
	sym, ok := r.t.lookup(name, b)
	if ok {
		return sym
	}
	if sym != nil {
		r.errorf(n, RuleRegisterRange, "%s is out of range: %s declares %s0 to %s%d",
			name, displayName(sym.Decl), sym.Decl.Name.Name, sym.Decl.Name.Name, sym.Decl.Count-1)
		if idx, ok := parseIndex(name[len(sym.Decl.Name.Name):]); ok {
			r.fix("declare %s<%d> to make %s valid", sym.Decl.Name.Name, idx+1, name)
		}
		return nil
	}
	if l := r.t.lookupLabel(name, b); l != nil {
		return l
	}
	if len(name) > 0 && (name[0] != '%' || r.pctFuncs > 0) { // "%tid" names no function unless one is so called
		if f := r.info.Functions[name]; f != nil {
			return f
		}
	}
	if c := LookupConstant(name); c != nil {
		return c
	}
	if strings.HasPrefix(name, "%") {
		if sp := LookupSpecial(name); sp != nil {
			return sp.sym
		}
	}
	if !r.laterLabelMayBe(n, name, "", nil, ctx) {
		r.undeclared(n, name, ctx)
	}
	return nil
}

func (r *Resolver) undeclared(n ast.Node, name string, ctx uint8) {
	if owner := r.ownerOf(name); owner != nil && owner != r.fn && owner.Name != nil {
		r.errorf(n, RuleRegisterOutside, "register %s is declared in function %s, not in %s; registers are local to their function",
			name, owner.Name.Name, r.fnName())
		return
	}
	switch {
	case ctx == ctxLabel:
		r.errorf(n, RuleUndeclaredLabel, "label %s is not defined in %s", name, r.fnName())
	case ctx == ctxFunction:
		r.errorf(n, RuleUndeclaredFunction, "function %s is not declared", name)
	case strings.HasPrefix(name, "%"):
		r.errorf(n, RuleUndeclaredRegister, "register %s is not declared", name)
		r.fix("declare it before its first use, e.g. \".reg .b32 %s;\"", name)
	default:
		r.errorf(n, RuleUndeclaredName, "%s is not declared", name)
	}
}

// checkComponent reports a vector component on a name that is not a
// vector (PTX ISA §5.4.2, §10): a scalar special register (%laneid.x) or a
// declared scalar (ptxas: "Unknown field").
func (r *Resolver) checkComponent(n ast.Node, name, comp string, sym *Symbol) {
	switch {
	case sym.Special != nil:
		if !sym.Special.ValidComponent(comp) {
			r.errorf(n, RuleSpecialComponent, "special register %s has no component .%s", name, comp)
		}
	case sym.Decl != nil && sym.Decl.Vector == 0:
		r.errorf(n, RuleVectorComponent, "%s is not a vector; it has no component .%s", name, comp)
	}
}

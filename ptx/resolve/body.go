package resolve

import (
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// function resolves the parameters and body of f.
func (r *resolver) function(f *ast.Function) {
	r.fn = f
	defer func() { r.fn = nil }()
	params := newScope(r.global)
	defer params.close()
	for _, d := range f.Returns {
		r.declareVar(params, d, f)
	}
	for _, d := range f.Params {
		r.declareVar(params, d, f)
	}
	if f.Body == nil {
		return
	}
	r.block(f.Body, params)
}

// collectLabels declares the labels of block b in sc. A label is visible
// in its whole block, before and after it, and in nested blocks, but not
// outside its block (as ptxas does; sibling blocks may reuse a label).
func (r *resolver) collectLabels(b *ast.Block, sc *scope) {
	for i, s := range b.Stmts {
		l, ok := s.(*ast.Label)
		if !ok {
			continue
		}
		sym := &Symbol{Kind: Label, Label: l, Owner: r.fn}
		if i+1 < len(b.Stmts) {
			if d, ok := b.Stmts[i+1].(*ast.Directive); ok && d.Proto != nil {
				sym.Kind, sym.Func = Prototype, d.Proto
			}
		}
		if prev := sc.declareLabel(l.Name, sym); prev != nil {
			r.errorf(l, RuleDuplicate, "label %s redefined (previous definition at %s)", l.Name, prev.Label.Pos())
		}
	}
}

// block resolves b in a new scope below parent. A declaration is visible
// from the statement after it to the end of its block.
func (r *resolver) block(b *ast.Block, parent *scope) {
	sc := newScope(parent)
	defer sc.close()
	r.collectLabels(b, sc)
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ast.VarDecl:
			r.resolveInits(s, sc)
			r.declareVar(sc, s, r.fn)
		case *ast.Instruction:
			r.instruction(s, sc)
		case *ast.Block:
			r.block(s, sc)
		case *ast.Directive:
			r.directive(s, sc)
		}
	}
}

// directive resolves the operands of the directives that name labels or
// functions: .branchtargets (labels), .calltargets (functions).
func (r *resolver) directive(d *ast.Directive, sc *scope) {
	switch d.Name {
	case ".callprototype":
		if d.Proto != nil {
			r.prototype(d.Proto)
		}
	case ".branchtargets":
		r.exprs(d.Args, sc, "label")
	case ".calltargets":
		r.exprs(d.Args, sc, "function")
	}
}

// prototype checks a .callprototype's parameter list for duplicates.
func (r *resolver) prototype(p *ast.Function) {
	sc := newScope(nil)
	for _, d := range p.Returns {
		r.declareVar(sc, d, r.fn)
	}
	for _, d := range p.Params {
		r.declareVar(sc, d, r.fn)
	}
}

func (r *resolver) instruction(in *ast.Instruction, sc *scope) {
	if in.Guard != nil && in.Guard.Reg != nil {
		r.name(in.Guard.Reg, in.Guard.Reg.Name, sc, "")
	}
	for i, op := range in.Operands {
		ctx := ""
		switch {
		case in.Opcode == "bra" || in.Opcode == "brx":
			ctx = "label"
		case in.Opcode == "call" && isCallTarget(in, i):
			ctx = "function"
		}
		r.expr(op, sc, ctx)
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

// expr resolves the names in e. ctx is "label" for branch targets,
// "function" for call targets and "" otherwise.
func (r *resolver) expr(e ast.Expr, sc *scope, ctx string) {
	switch x := e.(type) {
	case *ast.Reg:
		r.name(x, x.Name, sc, ctx)
	case *ast.Ident:
		r.name(x, x.Name, sc, ctx)
	case *ast.Address:
		if x.Base != nil {
			r.expr(x.Base, sc, "")
		}
		for _, y := range x.Index {
			r.expr(y, sc, "")
		}
	case *ast.IndexExpr:
		r.expr(x.X, sc, "")
		r.expr(x.Index, sc, "")
	case *ast.VectorExpr:
		r.exprs(x.Elems, sc, ctx)
	case *ast.InitList:
		r.exprs(x.Elems, sc, "")
	case *ast.ParenList:
		r.exprs(x.Elems, sc, "")
	case *ast.ParenExpr:
		r.expr(x.X, sc, "")
	case *ast.UnaryExpr:
		r.expr(x.X, sc, "")
	case *ast.BinaryExpr:
		r.expr(x.X, sc, "")
		r.expr(x.Y, sc, "")
	case *ast.CallExpr:
		r.exprs(x.Args, sc, "")
	}
}

func (r *resolver) exprs(es []ast.Expr, sc *scope, ctx string) {
	for _, e := range es {
		r.expr(e, sc, ctx)
	}
}

// name resolves one name use n spelled name.
func (r *resolver) name(n ast.Expr, name string, sc *scope, ctx string) {
	sym, ok := sc.lookup(name)
	if ok {
		r.info.add(n, sym)
		r.checkComponent(n, sym)
		return
	}
	if sym != nil {
		r.errorf(n, RuleRegisterRange, "%s is out of range: %s declares %s0 to %s%d",
			name, displayName(sym.Decl), sym.Decl.Name.Name, sym.Decl.Name.Name, sym.Decl.Count-1)
		if idx, ok := parseIndex(name[len(sym.Decl.Name.Name):]); ok {
			r.fix("declare %s<%d> to make %s valid", sym.Decl.Name.Name, idx+1, name)
		}
		return
	}
	if l := sc.lookupLabel(name); l != nil {
		r.info.add(n, l)
		return
	}
	if f := r.info.Functions[name]; f != nil {
		r.info.add(n, f)
		return
	}
	if c := LookupConstant(name); c != nil {
		r.info.add(n, c)
		return
	}
	if strings.HasPrefix(name, "%") {
		if sp := LookupSpecial(name); sp != nil {
			r.info.add(n, specialSymbol(sp))
			r.checkComponent(n, specialSymbol(sp))
			return
		}
	}
	r.undeclared(n, name, ctx)
}

func (r *resolver) undeclared(n ast.Expr, name, ctx string) {
	if owner := r.ownerOf(name); owner != nil && owner != r.fn && owner.Name != nil {
		r.errorf(n, RuleRegisterOutside, "register %s is declared in function %s, not in %s; registers are local to their function",
			name, owner.Name.Name, r.fnName())
		return
	}
	switch {
	case ctx == "label":
		r.errorf(n, RuleUndeclaredLabel, "label %s is not defined in %s", name, r.fnName())
	case ctx == "function":
		r.errorf(n, RuleUndeclaredFunction, "function %s is not declared", name)
	case strings.HasPrefix(name, "%"):
		r.errorf(n, RuleUndeclaredRegister, "register %s is not declared", name)
		r.fix("declare it before its first use, e.g. \".reg .b32 %s;\"", name)
	default:
		r.errorf(n, RuleUndeclaredName, "%s is not declared", name)
	}
}

// ownerOf returns the first function that declares register name, directly
// or as an element of a parameterized declaration.
func (r *resolver) ownerOf(name string) *ast.Function {
	if f := r.regOwner[name]; f != nil {
		return f
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	for j := i; j < len(name); j++ {
		if f := r.regOwner[name[:j]+"<>"]; f != nil {
			return f
		}
	}
	return nil
}

func (r *resolver) fnName() string {
	if r.fn != nil && r.fn.Name != nil {
		return r.fn.Name.Name
	}
	return "this function"
}

// checkComponent reports a vector component on a name that is not a
// vector: a scalar special register (%laneid.x) or a declared scalar
// (ptxas: "Unknown field").
func (r *resolver) checkComponent(n ast.Expr, sym *Symbol) {
	reg, ok := n.(*ast.Reg)
	if !ok || reg.Comp == "" {
		return
	}
	switch {
	case sym.Special != nil:
		if !sym.Special.ValidComponent(reg.Comp) {
			r.errorf(n, RuleSpecialComponent, "special register %s has no component .%s", reg.Name, reg.Comp)
		}
	case sym.Decl != nil && sym.Decl.Vector == 0:
		r.errorf(n, RuleVectorComponent, "%s is not a vector; it has no component .%s", reg.Name, reg.Comp)
	}
}

// specialSymbol returns the shared, read-only symbol of special register sp.
func specialSymbol(sp *Special) *Symbol { return sp.sym }

package check

import "github.com/ptxkit/ptxkit/ptx/ast"

// bodyState is the state of a function body checked statement by
// statement.
type bodyState struct {
	on    bool // a body is open
	depth int  // nesting of the innermost open block; 0 for the body
}

// BeginFunction starts checking the function f statement by statement,
// for callers that parse bodies a statement at a time
// (parser.StreamStatements): AddStmt, OpenBlock and CloseBlock for each
// piece of the body in source order, then EndFunction. f.Body need not
// hold the statements. The diagnostics are those of Add(f) on the whole
// function.
func (k *Checker) BeginFunction(f *ast.Function) {
	c := &k.c
	c.requireTarget(f.Pos())
	c.settle()
	c.declareFunction(f)
	k.body = bodyState{on: f.Body != nil}
	if k.body.on {
		c.beginFunction(f)
	}
}

// OpenBlock opens a nested block of the function body. It gets a scope
// of its own, as in checker.block, so that its declarations shadow the
// function's until CloseBlock.
func (k *Checker) OpenBlock() {
	c := &k.c
	k.body.depth++
	for len(c.blockScopes) < k.body.depth {
		c.blockScopes = append(c.blockScopes, newScope(nil))
	}
	inner := c.blockScopes[k.body.depth-1]
	inner.reset()
	inner.parent = c.fn
	c.fn = inner
}

// CloseBlock closes the innermost nested block.
func (k *Checker) CloseBlock() {
	c := &k.c
	if k.body.depth == 0 {
		return
	}
	inner := c.fn
	c.fn = inner.parent
	inner.reset()
	inner.parent = nil
	k.body.depth--
}

// AddStmt checks one statement of the body, in the innermost open block.
// The checker keeps nothing of it.
func (k *Checker) AddStmt(s ast.Stmt) {
	if !k.body.on {
		return
	}
	switch s := s.(type) {
	case *ast.Instruction:
		k.c.instruction(s)
	case *ast.VarDecl:
		k.c.declType(s)
		k.c.fn.declare(s, k.body.depth > 0)
	}
}

// AddStmts is AddStmt for each of ss in turn.
func (k *Checker) AddStmts(ss []ast.Stmt) {
	if !k.body.on {
		return
	}
	c := &k.c
	for _, s := range ss {
		switch s := s.(type) {
		case *ast.Instruction:
			c.instruction(s)
		case *ast.VarDecl:
			c.declType(s)
			c.fn.declare(s, k.body.depth > 0)
		}
	}
}

// EndFunction ends the function begun by BeginFunction.
func (k *Checker) EndFunction() {
	if k.body.on {
		k.c.endFunction()
	}
	k.body = bodyState{}
}

// Mark returns a position in the diagnostics found so far, for Drop.
func (k *Checker) Mark() int { return len(k.c.diags) }

// Drop forgets the diagnostics found since mark: a streaming caller that
// learns only at the end of a function that it had resolution errors
// withdraws what the validator said about it, as Module would not have
// validated it.
func (k *Checker) Drop(mark int) {
	if mark >= 0 && mark <= len(k.c.diags) {
		k.c.diags = k.c.diags[:mark]
	}
}

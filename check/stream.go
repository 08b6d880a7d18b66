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

// OpenBlock opens a nested block of the function body.
func (k *Checker) OpenBlock() { k.body.depth++ }

// CloseBlock closes the innermost nested block.
func (k *Checker) CloseBlock() { k.body.depth-- }

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

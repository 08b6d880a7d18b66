package check

import "github.com/ptxkit/ptxkit/ptx/ast"

// bodyState is the state of the function being checked.
type bodyState struct {
	on       bool // a body is open
	begun    bool // the header resolved cleanly: the function is validated
	checking bool // no resolution error yet in the function
	depth    int  // nesting of the innermost open block; 0 for the body
	before   int  // resolution diagnostics before the function
	mark     int  // validator diagnostics before the function
}

// BeginFunction starts resolving and checking the function f statement by
// statement, for callers that parse bodies a statement at a time
// (parser.StreamStatements): AddStmt, OpenBlock and CloseBlock for each
// piece of the body in source order, then EndFunction. f.Body need not
// hold the statements. The diagnostics are those of Add(f) on the whole
// function.
//
// Validation stops at the function's first resolution error, and what it
// said about the function is withdrawn at EndFunction when the function
// turns out to have one (an undeclared label is known only at its end):
// a function with resolution errors gets only those.
func (k *Checker) BeginFunction(f *ast.Function) { k.beginFunction(f, false) }

// beginFunction is BeginFunction; whole says that f.Body holds the whole
// body (resolve.Resolver.BeginWholeFunction).
func (k *Checker) beginFunction(f *ast.Function, whole bool) {
	c := &k.c
	c.passHeader(f.Pos())
	k.body = bodyState{on: f.Body != nil, before: len(k.res.Diagnostics())}
	if whole {
		k.res.BeginWholeFunction(f)
	} else {
		k.res.BeginFunction(f)
	}
	k.body.begun = !k.fresh() || k.lenient
	k.body.checking = k.body.begun
	k.body.mark = len(c.diags)
	if !k.body.begun {
		return
	}
	c.requireTarget(f.Pos())
	c.settle()
	k.body.mark = len(c.diags) // what the header says stays, whatever the body
	if k.body.on {
		c.beginFunction(f)
	}
}

// fresh reports whether the function being checked has resolution errors
// so far.
func (k *Checker) fresh() bool { return len(k.res.Diagnostics()) > k.body.before }

// OpenBlock opens a nested block of the function body: its declarations
// shadow the function's until CloseBlock.
func (k *Checker) OpenBlock() {
	k.body.depth++
	k.res.OpenBlock()
}

// CloseBlock closes the innermost nested block.
func (k *Checker) CloseBlock() {
	if k.body.depth == 0 {
		return
	}
	k.body.depth--
	k.res.CloseBlock()
}

// AddStmt resolves and checks one statement of the body, in the innermost
// open block. The checker keeps nothing of it.
func (k *Checker) AddStmt(s ast.Stmt) {
	if !k.body.on {
		return
	}
	k.res.AddStmt(s)
	if k.body.checking {
		k.check(s)
	}
}

// AddStmts is AddStmt for each of ss in turn (parser.Stream.NextStmts).
func (k *Checker) AddStmts(ss []ast.Stmt) {
	if !k.body.on {
		return
	}
	for _, s := range ss {
		if in, ok := s.(*ast.Instruction); ok { // most statements
			k.res.AddInstruction(in)
			if k.body.checking && k.stillChecking() {
				k.c.instruction(in)
			}
			continue
		}
		k.res.AddStmt(s)
		if k.body.checking {
			k.check(s)
		}
	}
}

// stillChecking reports whether the function is still validated: not
// once the resolver has reported an error in it (then only the
// resolver's diagnostics are kept).
func (k *Checker) stillChecking() bool {
	if k.fresh() && !k.lenient {
		k.body.checking = false
	}
	return k.body.checking
}

// check validates s, just resolved, unless it had resolution errors:
// then the function is no longer validated.
func (k *Checker) check(s ast.Stmt) {
	if !k.stillChecking() {
		return
	}
	switch s := s.(type) {
	case *ast.Instruction:
		k.c.instruction(s)
	case *ast.VarDecl:
		k.c.declType(s)
	case *ast.Directive:
		k.c.bodyDirective(s)
	}
}

// EndFunction ends the function begun by BeginFunction.
func (k *Checker) EndFunction() {
	k.res.EndFunction()
	if k.body.begun && k.body.on {
		k.c.endFunction()
	}
	if k.fresh() && !k.lenient && k.body.mark <= len(k.c.diags) {
		k.c.diags = k.c.diags[:k.body.mark]
	}
	k.body = bodyState{}
}

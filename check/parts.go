package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// A module checked in parts (cmd/ptxkit checks a large module on several
// goroutines): each part, a run of whole top-level statements, gets a
// Checker of its own. That Checker is first brought to the module scope
// the part begins in with Declare for every top-level statement before
// the part, then fed the part's statements as usual; Since returns what
// it reported about the part. The last part's Checker, once it has
// adopted the first calls the other parts found (AdoptCalls), ends the
// module (Finish).
//
// The concatenation of the parts' diagnostics, in the order of the parts,
// is what one Checker fed the whole module reports, in the same order, as
// long as no part has a resolution error (Since reports whether it did):
// a function's body changes no module-scope state the validator or name
// resolution read, except the first call of each function (read only at
// the end, by the unresolved-function rule: AdoptCalls) and which
// function declares a register name first (read only for the message of
// an undeclared register, a resolution error).

// A Mark is a point in a Checker's diagnostics (Checker.Mark).
type Mark struct{ res, diags int }

// Declare brings k's module scope up to date with the top-level statement
// s, written before the part k checks: a directive or variable as Add
// does, a function by declaring it (with its linkage, and as defined when
// it has a body) without resolving or validating its parameters or body.
// What Declare reports belongs to the part that holds s; Mark is taken
// after the last Declare.
func (k *Checker) Declare(s ast.TopStmt) {
	f, ok := s.(*ast.Function)
	if !ok {
		k.Add(s)
		return
	}
	k.c.passHeader(f.Pos())
	before := len(k.res.Diagnostics())
	k.res.DeclareFunction(f)
	if len(k.res.Diagnostics()) == before {
		k.c.requireTarget(f.Pos()) // as beginFunction does for a function that resolves
		k.c.settle()
	}
}

// Mark returns the current point in k's diagnostics.
func (k *Checker) Mark() Mark { return Mark{len(k.res.Diagnostics()), len(k.c.diags)} }

// Since returns the diagnostics k reported after m, in the order it
// reported them (not sorted), and whether name resolution reported none
// of them; when it reported some, the parts' diagnostics are not those of
// the whole module and the module must be checked whole.
func (k *Checker) Since(m Mark) (l diag.List, resolved bool) {
	if len(k.res.Diagnostics()) > m.res {
		return nil, false
	}
	return k.c.diags[m.diags:], true
}

// AdoptCalls takes, for every function k knows, the first direct call
// that the Checkers of the parts before k's (in source order) recorded,
// in place of the one k recorded itself: the first call in the module.
func (k *Checker) AdoptCalls(earlier []*Checker) {
	for _, sym := range k.res.Functions() {
		name := sym.Func.Name.Name
		for _, e := range earlier {
			if es := e.res.Function(name); es != nil && es.CalledAt.From.Line != 0 {
				sym.CalledAt = es.CalledAt
				break
			}
		}
	}
}

// Finish ends the module (End) and settles what Diagnostics would: the
// last part's Checker reports there what only the whole module decides.
func (k *Checker) Finish() {
	k.End()
	k.c.settle()
}

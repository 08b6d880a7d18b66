package parser

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A Stream parses a module one top-level statement at a time, for
// consumers that look at each statement once and in order (a validator, a
// linter), so that the whole tree never has to be held in memory.
//
// With ReuseBodies the nodes of each function body are recycled for the
// next one; see ReuseBodies for what stays valid. With StreamStatements
// the bodies themselves come one statement at a time (NextInBody), so
// that memory is bounded by the largest statement and the declarations
// and labels of one function, however long the function.
type Stream struct {
	p    parser
	body bodyState // with StreamStatements; see NextInBody
	done bool
	pipe *producer // the producing side of a Pipe, while it hands out pieces
}

// NewStream returns a Stream over src. filename is recorded in every
// diagnostic.
func NewStream(filename, src string, mode Mode) *Stream {
	s := &Stream{}
	s.p.init(filename, src, mode)
	return s
}

// NewStreamAt is NewStream for the part of a module that begins at at:
// src is the module up to the end of the part, and at the start of a
// line where a whole-module parse is between two top-level statements
// (after the '}' of a function, say). The statements get the positions
// they have in the module. A parse of the parts of a module that have no
// syntax error gives the statements of the whole module's parse.
func NewStreamAt(filename, src string, mode Mode, at token.Pos) *Stream {
	s := &Stream{}
	s.p.initAt(filename, src, mode, at)
	return s
}

// Next returns the next top-level statement: *ast.Directive,
// *ast.VarDecl, *ast.Function or *ast.BadStmt. At the end of the input it
// returns nil.
func (s *Stream) Next() ast.TopStmt {
	if s.done {
		return nil
	}
	s.skipBody()
	st := s.p.nextTop()
	if f, ok := st.(*ast.Function); ok {
		s.startBody(f)
	}
	if st == nil {
		s.done = true
		s.p.errs.Sort() // an unclosed '{' is found after the errors inside it
	}
	return st
}

// Errors returns the syntax errors found so far; once Next has returned
// nil they are in source order.
func (s *Stream) Errors() diag.List { return s.p.errs }

// Comments returns the comments read so far (with ParseComments), less
// those handed out by TakeComments.
func (s *Stream) Comments() []*ast.Comment { return s.p.comments }

// TakeComments returns the comments read since its last call (with
// ParseComments) and forgets them, for a consumer that handles comments
// as they come (printer.Streamer) in bounded memory. The slice is valid
// until the next call of Next, NextInBody or TakeComments.
func (s *Stream) TakeComments() []*ast.Comment {
	cs := s.p.comments
	clear(cs[len(cs):cap(cs)]) // comments taken before: no longer referenced
	s.p.comments = cs[:0]
	return cs
}

// End returns the position just past the end of the module, once Next
// has returned nil.
func (s *Stream) End() token.Pos { return s.p.end() }

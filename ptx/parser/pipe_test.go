package parser_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// comparePipe reads src through a Pipe and compares every piece, as it
// comes, with a whole-module parse, as compareStream does for a Stream:
// the same statements, block boundaries and ends, positions and errors;
// declarations and labels still intact at the end of their function.
// The pieces stop at the first one with a syntax error.
func comparePipe(name, src string) error {
	whole, werrs := parser.ParseStringMode(name, src, 0)
	st := parser.NewStream(name, src, parser.StreamStatements)
	pipe := st.Pipe()
	defer pipe.Close()
	var (
		stopped   bool // a piece with a syntax error came
		exhausted bool // the pipe ended inside a body
	)
	next := func() (*parser.Piece, bool) {
		pc, ok := pipe.Next()
		if ok {
			if stopped {
				return nil, false
			}
			stopped = !pc.Clean
		}
		return pc, ok
	}
	var (
		run   []ast.Stmt // the rest of the run being handed out
		ended bool       // the body's EndOfBody came
		fns   int
	)
	body := func() (ast.Stmt, parser.BodyEvent) {
		if len(run) > 0 {
			s := run[0]
			run = run[1:]
			return s, parser.Statement
		}
		if ended {
			return nil, parser.EndOfBody
		}
		pc, ok := next()
		if !ok {
			exhausted = true
			return &ast.BadStmt{}, parser.Statement // compareBody fails on it
		}
		switch {
		case pc.Top != nil:
			panic("a top-level statement inside a body")
		case pc.Event == parser.EndOfBody:
			ended = true
			if fns++; fns%8 == 0 {
				// A slow consumer: the parser runs ahead as far as it
				// may, and must not recycle what the body still uses.
				time.Sleep(100 * time.Microsecond)
			}
			return nil, parser.EndOfBody
		case pc.Event != parser.Statement && len(pc.Stmts) != 1, len(pc.Stmts) == 0:
			panic("a boundary must come alone; a run is never empty")
		}
		run = pc.Stmts[1:]
		return pc.Stmts[0], pc.Event
	}
	i := 0
	for pc, ok := next(); ok; pc, ok = next() {
		if pc.Top == nil {
			return fmt.Errorf("a body piece after statement %d", i)
		}
		if i >= len(whole.Stmts) {
			return fmt.Errorf("pipe has more than %d statements", len(whole.Stmts))
		}
		s, w := pc.Top, whole.Stmts[i]
		i++
		f, ok := s.(*ast.Function)
		if !ok || f.Body == nil {
			if !identical(s, w) {
				return fmt.Errorf("statement %d at %s differs from the whole-module parse", i-1, s.Pos())
			}
			continue
		}
		wf, ok := w.(*ast.Function)
		if !ok || wf.Body == nil || f.Body.From != wf.Body.From {
			return fmt.Errorf("statement %d at %s: a function body where the parse has none", i-1, s.Pos())
		}
		run, ended = nil, false
		if err := compareBody(body, f, wf, false); err != nil {
			if exhausted && stopped {
				break
			}
			return fmt.Errorf("function %d at %s: %v", i-1, s.Pos(), err)
		}
	}
	for _, ok := pipe.Next(); ok; _, ok = pipe.Next() {
		if !stopped {
			return fmt.Errorf("a piece after the end")
		}
	}
	if !stopped && i != len(whole.Stmts) {
		return fmt.Errorf("pipe gave %d statements, parse %d", i, len(whole.Stmts))
	}
	if !identical(st.Errors(), werrs) {
		return fmt.Errorf("errors differ:\n%v\n%v", st.Errors(), werrs)
	}
	if st.End() != whole.End() {
		return fmt.Errorf("end %v, parse %v", st.End(), whole.End())
	}
	return nil
}

// TestPipeMatchesParse checks a Pipe against a whole-module parse on the
// stream tests' modules, with batches from one statement (every run a
// batch, every function its own generation of declarations) to the
// default.
func TestPipeMatchesParse(t *testing.T) {
	srcs := streamSources(t)
	srcs["one-kernel"] = string(oneKernel(256 << 10))
	srcs["nested"] = ".version 8.5\n.target sm_90\n.entry k() {\n.reg .b32 %r<2>;\n{\nL: { mov.b32 %r0, 1; }\nbra L;\n}\n{ }\nret;\n}\n"
	srcs["unclosed"] = ".version 8.5\n.target sm_90\n.entry k() {\n{\nmov.b32 %r0, 1;\n"
	srcs["before"] = ".version 8.5\n.target sm_90\n.entry k() {\n{\nret;\n.entry j() { ret; }\n"
	srcs["late-error"] = string(benchModule(64<<10)) + "\n.entry bad() { mov.b32 %r1 1; }\n"
	for _, batch := range []int{1, 7, 300, 0} {
		if batch > 0 {
			defer parser.SetPipeBatch(parser.SetPipeBatch(batch))
		}
		for name, src := range srcs {
			if err := comparePipe(name, src); err != nil {
				t.Errorf("%s, batch %d: %v", name, batch, err)
			}
		}
	}
}

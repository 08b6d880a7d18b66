package parser_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// compareStream streams src with StreamStatements (plus extra modes) and
// compares every top-level statement, body statement, block boundary,
// error and comment with a whole-module parse, each piece as soon as it
// comes, reading bodies with NextInBody, or with NextStmts when batched.
// With skipEvery > 0 it abandons every skipEvery-th body half way (Next
// skips the rest).
func compareStream(name, src string, extra parser.Mode, skipEvery int, batched bool) error {
	whole, werrs := parser.ParseStringMode(name, src, extra&parser.ParseComments)
	st := parser.NewStream(name, src, parser.StreamStatements|extra)
	i, fns := 0, 0
	for s := st.Next(); s != nil; s = st.Next() {
		if i >= len(whole.Stmts) {
			return fmt.Errorf("stream has more than %d statements", len(whole.Stmts))
		}
		w := whole.Stmts[i]
		f, ok := s.(*ast.Function)
		if !ok || f.Body == nil {
			if !identical(s, w) {
				return fmt.Errorf("statement %d at %s differs from the whole-module parse", i, s.Pos())
			}
			i++
			continue
		}
		wf, ok := w.(*ast.Function)
		if !ok || wf.Body == nil || f.Body.From != wf.Body.From {
			return fmt.Errorf("statement %d at %s: a function body where the parse has none", i, s.Pos())
		}
		fns++
		skip := skipEvery > 0 && fns%skipEvery == 0
		if err := compareBody(pieces(st, batched), f, wf, skip); err != nil {
			return fmt.Errorf("function %d at %s: %v", i, s.Pos(), err)
		}
		if !identical(f.Name, wf.Name) || !identical(f.Params, wf.Params) ||
			!identical(f.Returns, wf.Returns) || !identical(f.Perf, wf.Perf) || f.Kind != wf.Kind {
			return fmt.Errorf("header of function %d differs", i)
		}
		i++
	}
	if i != len(whole.Stmts) {
		return fmt.Errorf("stream gave %d statements, parse %d", i, len(whole.Stmts))
	}
	if !identical(st.Errors(), werrs) {
		return fmt.Errorf("errors differ:\n%v\n%v", st.Errors(), werrs)
	}
	if st.End() != whole.End() {
		return fmt.Errorf("end %v, parse %v", st.End(), whole.End())
	}
	if !identical(st.Comments(), whole.Comments) {
		return fmt.Errorf("comments differ")
	}
	return nil
}

// compareBody walks the body of f piece by piece against wf's. The
// declarations and labels handed out are compared again at the end of the
// body: they must stay valid for the whole function.
func compareBody(next func() (ast.Stmt, parser.BodyEvent), f, wf *ast.Function, skip bool) error {
	type level struct {
		b   *ast.Block
		idx int
	}
	stack := []level{{wf.Body, 0}}
	var kept, keptWant []ast.Stmt
	for n := 0; ; n++ {
		if skip && n == 3 {
			return nil // Next skips the rest
		}
		s, ev := next()
		top := &stack[len(stack)-1]
		switch ev {
		case parser.EndOfBody:
			if len(stack) != 1 || top.idx != len(wf.Body.Stmts) {
				return fmt.Errorf("body ended after %d of %d statements at depth %d", top.idx, len(top.b.Stmts), len(stack))
			}
			if f.To != wf.To || f.Body.To != wf.Body.To {
				return fmt.Errorf("body ends at %v (function %v), parse %v (%v)", f.Body.To, f.To, wf.Body.To, wf.To)
			}
			for i := range kept {
				if !identical(kept[i], keptWant[i]) {
					return fmt.Errorf("declaration or label at %s changed before the end of its function", keptWant[i].Pos())
				}
			}
			if s2, ev2 := next(); s2 != nil || ev2 != parser.EndOfBody {
				return fmt.Errorf("NextInBody after EndOfBody gives %v", ev2)
			}
			return nil
		case parser.BlockEnd:
			if len(stack) == 1 {
				return fmt.Errorf("block end at %s outside any nested block", s.Pos())
			}
			b := s.(*ast.Block)
			if top.idx != len(top.b.Stmts) || b.From != top.b.From || b.To != top.b.To {
				return fmt.Errorf("block %v-%v closed after %d statements; parse %v-%v with %d", b.From, b.To, top.idx, top.b.From, top.b.To, len(top.b.Stmts))
			}
			stack = stack[:len(stack)-1]
			stack[len(stack)-1].idx++
			continue
		}
		if top.idx >= len(top.b.Stmts) {
			return fmt.Errorf("extra statement at %s", s.Pos())
		}
		w := top.b.Stmts[top.idx]
		if ev == parser.BlockStart {
			wb, ok := w.(*ast.Block)
			b := s.(*ast.Block)
			if !ok || b.From != wb.From || len(b.Stmts) != 0 {
				return fmt.Errorf("block start at %s where the parse has %T at %s", s.Pos(), w, w.Pos())
			}
			stack = append(stack, level{wb, 0})
			continue
		}
		if _, isBlock := s.(*ast.Block); isBlock || !identical(s, w) {
			return fmt.Errorf("statement at %s differs from the parse's at %s", s.Pos(), w.Pos())
		}
		switch s.(type) {
		case *ast.VarDecl, *ast.Label:
			kept, keptWant = append(kept, s), append(keptWant, w)
		}
		top.idx++
	}
}

// pieces returns a function that hands out the pieces of the open body
// one by one: NextInBody, or the runs of NextStmts taken apart.
func pieces(st *parser.Stream, batched bool) func() (ast.Stmt, parser.BodyEvent) {
	if !batched {
		return st.NextInBody
	}
	var run []ast.Stmt
	return func() (ast.Stmt, parser.BodyEvent) {
		if len(run) == 0 {
			ss, ev := st.NextStmts()
			if ev != parser.Statement {
				if ev != parser.EndOfBody && len(ss) != 1 || ev == parser.EndOfBody && ss != nil {
					panic("NextStmts: a boundary must come alone")
				}
				if ss == nil {
					return nil, ev
				}
				return ss[0], ev
			}
			if len(ss) == 0 {
				panic("NextStmts: an empty run")
			}
			run = ss
		}
		s := run[0]
		run = run[1:]
		return s, parser.Statement
	}
}

// TestStreamStatementsMatchesParse checks that a Stream with
// StreamStatements gives the statements, block boundaries, positions,
// errors and comments of a whole-module parse, on the test modules, the
// error files, a module of many kernels and one of a single long kernel.
func TestStreamStatementsMatchesParse(t *testing.T) {
	srcs := streamSources(t)
	srcs["one-kernel"] = string(oneKernel(256 << 10))
	for name, src := range srcs {
		for _, mode := range []parser.Mode{0, parser.ParseComments} {
			for _, skip := range []int{0, 2} {
				for _, batched := range []bool{false, true} {
					if err := compareStream(name, src, mode, skip, batched); err != nil {
						t.Errorf("%s mode %d skip %d batched %v: %v", name, mode, skip, batched, err)
					}
				}
			}
		}
	}
}

// TestStreamStatementsNesting checks block boundaries, unclosed blocks
// and blocks deeper than MaxDepth.
func TestStreamStatementsNesting(t *testing.T) {
	deep := ".version 8.5\n.target sm_90\n.entry k() {\n"
	for i := 0; i < parser.MaxDepth+5; i++ {
		deep += "{\n"
	}
	srcs := map[string]string{
		"nested":   ".version 8.5\n.target sm_90\n.entry k() {\n.reg .b32 %r<2>;\n{\nL: { mov.b32 %r0, 1; }\nbra L;\n}\n{ }\nret;\n}\n",
		"unclosed": ".version 8.5\n.target sm_90\n.entry k() {\n{\nmov.b32 %r0, 1;\n",
		"before":   ".version 8.5\n.target sm_90\n.entry k() {\n{\nret;\n.entry j() { ret; }\n",
		"deep":     deep,
	}
	for name, src := range srcs {
		for _, batched := range []bool{false, true} {
			if err := compareStream(name, src, 0, 0, batched); err != nil {
				t.Errorf("%s batched %v: %v", name, batched, err)
			}
		}
	}
}

// TestStreamStatementsBounded checks that StreamStatements recycles
// statements: one long kernel streams allocating a small fraction of what
// ReuseBodies (the whole body at once) allocates.
func TestStreamStatementsBounded(t *testing.T) {
	src := string(oneKernel(1 << 20))
	drain := func(mode parser.Mode) func() {
		return func() {
			st := parser.NewStream("one.ptx", src, mode)
			for s := st.Next(); s != nil; s = st.Next() {
				for _, ev := st.NextInBody(); ev != parser.EndOfBody; _, ev = st.NextInBody() {
				}
			}
		}
	}
	stmts, bodies := allocatedBytes(drain(parser.StreamStatements)), allocatedBytes(drain(parser.ReuseBodies))
	if stmts*10 > bodies {
		t.Errorf("StreamStatements allocated %d bytes, ReuseBodies %d: statements not recycled?", stmts, bodies)
	}
}

// oneKernel returns a module of about n bytes that is one kernel of
// loads, arithmetic and stores, with a label and a branch now and then.
func oneKernel(n int) []byte {
	b := []byte(".version 8.5\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n" +
		"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\tld.param.u64 %rd1, [p];\n")
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "L%d:\n\tld.global.u32 %%r1, [%%rd1+%d];\n\tadd.s32 %%r2, %%r1, %d;\n"+
			"\tsetp.lt.s32 %%p1, %%r2, 7;\n\t@%%p1 bra L%d;\n\tst.global.u32 [%%rd1+%d], %%r2;\n", i, 4*(i%1024), i, i+1, 4*(i%1024))
	}
	return append(b, "L_end:\n\tret;\n}\n"...)
}

// FuzzStreamStatements checks that a Stream with StreamStatements yields,
// piece by piece, exactly what a whole-module parse does.
func FuzzStreamStatements(f *testing.F) {
	for _, dir := range []string{"hand", "llc", "errors"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*"))
		for _, s := range m {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, skip := range []int{0, 2} {
			for _, batched := range []bool{false, true} {
				if err := compareStream("fuzz.ptx", string(src), parser.ParseComments, skip, batched); err != nil {
					t.Fatalf("skip %d batched %v: %v", skip, batched, err)
				}
			}
		}
	})
}

// TestCorpusStreamedPrint checks, on every instruction of the conformance
// corpus in its kernel, that printing statement by statement
// (printer.FprintStream) gives the whole tree's printed form.
func TestCorpusStreamedPrint(t *testing.T) {
	rows := readCorpus(t)
	for _, r := range rows {
		src := wrapInstruction(r.instr)
		name := fmt.Sprintf("stores.tsv:%d", r.line)
		m, errs := parser.ParseStringMode(name, src, parser.ParseComments)
		if errs.HasErrors() {
			continue
		}
		var out bytes.Buffer
		st := parser.NewStream(name, src, parser.StreamStatements|parser.ParseComments)
		if err := printer.FprintStream(&out, st); err != nil {
			t.Fatal(err)
		}
		if want := printer.String(m); out.String() != want {
			t.Errorf("%s: streamed print\n%s\nwhole tree\n%s", name, out.String(), want)
		}
	}
}

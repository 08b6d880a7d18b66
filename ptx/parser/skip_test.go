package parser_test

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// skipSources returns streamSources and variants of them with CRLF and
// CR-only line breaks, and a module whose bodies hold braces, strings
// and comments of every kind.
func skipSources(t *testing.T) map[string]string {
	srcs := streamSources(t)
	const tricky = ".version 8.5\n.target sm_90\n.address_size 64\n" +
		".visible .entry a()\n{\n\t// } a brace in a line comment {\r\n\t/* { a block\r comment\r\n with } braces\n */\n" +
		"\t{\n\t\t.reg .b32 %r<2>;\n\t\tmov.b32 %r1, 1; // \"\n\t}\n\t.pragma \"nounroll { }\";\n\tret;\n}\n" +
		".global .b32 g = 4/2;\n" +
		".visible .func f()\n{ ret; }/* after */ .visible .entry b() { { { } } ret; }\n"
	srcs["tricky"] = tricky
	for name, src := range streamSources(t) {
		if strings.Contains(name, "errors") {
			continue
		}
		srcs[name+" crlf"] = strings.ReplaceAll(src, "\n", "\r\n")
		srcs[name+" cr"] = strings.ReplaceAll(src, "\n", "\r")
	}
	srcs["tricky crlf"] = strings.ReplaceAll(tricky, "\n", "\r\n")
	return srcs
}

// TestSkipBodiesMatchesParse checks that a SkipBodies stream yields the
// top-level statements of a whole-module parse, with the same positions,
// the same headers, and bodies that span what the parse's bodies span;
// and the same syntax errors where the module has none inside a body.
func TestSkipBodiesMatchesParse(t *testing.T) {
	for name, src := range skipSources(t) {
		whole, werrs := parser.ParseString(name, src)
		st := parser.NewStream(name, src, parser.SkipBodies)
		i := 0
		for s := st.Next(); s != nil; s = st.Next() {
			if werrs.HasErrors() {
				continue
			}
			if i >= len(whole.Stmts) {
				t.Fatalf("%s: more than %d statements", name, len(whole.Stmts))
			}
			w := whole.Stmts[i]
			i++
			f, ok := s.(*ast.Function)
			if !ok {
				if !identical(s, w) {
					t.Fatalf("%s: statement at %s differs", name, s.Pos())
				}
				continue
			}
			wf := w.(*ast.Function)
			if (f.Body == nil) != (wf.Body == nil) || f.Pos() != wf.Pos() || f.End() != wf.End() {
				t.Fatalf("%s: function at %s: span %s-%s, parse %s-%s", name, f.Pos(), f.Pos(), f.End(), wf.Pos(), wf.End())
			}
			if f.Body != nil && (f.Body.From != wf.Body.From || f.Body.To != wf.Body.To || len(f.Body.Stmts) != 0) {
				t.Fatalf("%s: body of the function at %s: %s-%s, parse %s-%s", name, f.Pos(), f.Body.From, f.Body.To, wf.Body.From, wf.Body.To)
			}
			fh, wh := *f, *wf
			fh.Body, wh.Body = nil, nil
			if !identical(&fh, &wh) {
				t.Fatalf("%s: header of the function at %s differs", name, f.Pos())
			}
		}
		if werrs.HasErrors() {
			continue
		}
		if i != len(whole.Stmts) {
			t.Fatalf("%s: %d statements, parse %d", name, i, len(whole.Stmts))
		}
		if len(st.Errors()) > 0 {
			t.Fatalf("%s: errors %v", name, st.Errors())
		}
	}
}

// TestStreamAtMatchesParse checks that a stream begun after any
// function's '}' that ends a line yields the statements of the
// whole-module parse from there on, positions included.
func TestStreamAtMatchesParse(t *testing.T) {
	for name, src := range skipSources(t) {
		whole, werrs := parser.ParseString(name, src)
		if werrs.HasErrors() {
			continue
		}
		tried := 0
		for k, s := range whole.Stmts {
			f, ok := s.(*ast.Function)
			if !ok || f.Body == nil {
				continue
			}
			end := int(f.End().Offset)
			var at token.Pos
			switch {
			case strings.HasPrefix(src[end:], "\r\n"):
				at = token.Pos{Offset: int32(end + 2), Line: f.End().Line + 1, Col: 1}
			case strings.HasPrefix(src[end:], "\n"), strings.HasPrefix(src[end:], "\r"):
				at = token.Pos{Offset: int32(end + 1), Line: f.End().Line + 1, Col: 1}
			default:
				continue
			}
			if tried++; tried > 4 {
				break
			}
			st := parser.NewStreamAt(name, src, 0, at)
			i := k + 1
			for s := st.Next(); s != nil; s = st.Next() {
				if i >= len(whole.Stmts) || !identical(s, whole.Stmts[i]) {
					t.Fatalf("%s from %s: statement %d at %s differs from the parse", name, at, i, s.Pos())
				}
				i++
			}
			if i != len(whole.Stmts) || len(st.Errors()) > 0 {
				t.Fatalf("%s from %s: ended at statement %d of %d, errors %v", name, at, i, len(whole.Stmts), st.Errors())
			}
		}
	}
}

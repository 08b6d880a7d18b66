package parser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// FuzzParse checks that no input makes the parser, resolver or printer
// panic or hang, that every diagnostic and node has a valid position inside
// the input, and that an input without syntax errors survives the print/parse
// round trip.
func FuzzParse(f *testing.F) {
	var seeds []string
	for _, dir := range []string{"hand", "llc", "errors", "printer"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*"))
		seeds = append(seeds, m...)
	}
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("{{{{[[[(((---~~~"))
	f.Add([]byte(".reg .b32 %r<99999999999999999999>;"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, errs := parser.ParseFile("fuzz.ptx", src)
		if m == nil {
			t.Fatal("nil module")
		}
		for _, d := range errs {
			if !d.Pos.IsValid() || int(d.Pos.Offset) > len(src) {
				t.Fatalf("diagnostic with bad position: %s (input %d bytes)", d, len(src))
			}
		}
		checkSpans(t, "fuzz.ptx", string(src), m, false)
		if !parseBothWays(string(src)) {
			t.Fatalf("the operand fast paths build a different tree or errors for %q", src)
		}
		_, _ = resolve.Module(m)
		out := printer.Bytes(m)
		if errs.HasErrors() {
			return
		}
		m2, errs2 := parser.ParseFile("printed.ptx", out)
		if errs2.HasErrors() {
			t.Fatalf("printed form does not parse: %v\ninput:\n%q\nprinted:\n%s", errs2.Err(), src, out)
		}
		if !ast.Equal(m, m2) {
			t.Fatalf("round trip changed the tree\ninput:\n%q\nprinted:\n%s", src, out)
		}
		if out2 := printer.Bytes(m2); !bytes.Equal(out, out2) {
			t.Fatalf("printing is not idempotent:\n%s\nthen:\n%s", out, out2)
		}
		// The formatter keeps comments.
		mc, _ := parser.ParseFileMode("fuzz.ptx", src, parser.ParseComments)
		outc := printer.Bytes(mc)
		mc2, errs3 := parser.ParseFileMode("formatted.ptx", outc, parser.ParseComments)
		if errs3.HasErrors() {
			t.Fatalf("formatted form does not parse: %v\ninput:\n%q\nformatted:\n%s", errs3.Err(), src, outc)
		}
		if !ast.Equal(mc, mc2) {
			t.Fatalf("formatting changed the tree or comments\ninput:\n%q\nformatted:\n%s", src, outc)
		}
		if again := printer.Bytes(mc2); !bytes.Equal(outc, again) {
			t.Fatalf("formatting is not idempotent:\n%s\nthen:\n%s", outc, again)
		}
	})
}

// FuzzStream checks that a Stream with recycled bodies yields, statement
// by statement, exactly what a whole-module parse does, and that what
// stays valid (module-scope statements, function headers) is not
// overwritten by later bodies.
func FuzzStream(f *testing.F) {
	for _, dir := range []string{"hand", "llc", "errors"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*"))
		for _, s := range m {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		whole, werrs := parser.ParseFile("fuzz.ptx", src)
		st := parser.NewStream("fuzz.ptx", string(src), parser.ReuseBodies)
		var got []ast.TopStmt
		for s := st.Next(); s != nil; s = st.Next() {
			if len(got) >= len(whole.Stmts) || !identical(s, whole.Stmts[len(got)]) {
				t.Fatalf("statement %d differs from the whole-module parse", len(got))
			}
			got = append(got, s)
		}
		if len(got) != len(whole.Stmts) || !identical(st.Errors(), werrs) {
			t.Fatalf("stream: %d statements, %d errors; parse: %d, %d", len(got), len(st.Errors()), len(whole.Stmts), len(werrs))
		}
		for i, s := range got {
			f, ok := s.(*ast.Function)
			if !ok {
				if !identical(s, whole.Stmts[i]) {
					t.Fatalf("module statement %d changed after later statements", i)
				}
				continue
			}
			wf := whole.Stmts[i].(*ast.Function)
			if !identical(f.Name, wf.Name) || !identical(f.Params, wf.Params) ||
				!identical(f.Returns, wf.Returns) || !identical(f.Perf, wf.Perf) {
				t.Fatalf("header of function %d changed after later statements", i)
			}
		}
	})
}

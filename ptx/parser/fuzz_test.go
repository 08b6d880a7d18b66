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

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

// testdataPTX lists the valid PTX files under testdata/ptx (hand-written
// kernels accepted by ptxas and llc output).
func testdataPTX(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"hand", "llc"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*.ptx"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no testdata PTX files found")
	}
	return files
}

// roundTrip checks that src parses without errors and that its printed
// form parses to an equal tree.
func roundTrip(t *testing.T, name string, src []byte) *ast.Module {
	t.Helper()
	m, errs := parser.ParseFile(name, src)
	for _, d := range errs {
		t.Errorf("%s", d)
	}
	out := printer.Bytes(m)
	m2, errs2 := parser.ParseFile(name+".printed", out)
	for _, d := range errs2 {
		t.Errorf("printed form: %s", d)
	}
	if !ast.Equal(m, m2) {
		t.Errorf("%s: tree changed after print and parse; printed:\n%s", name, out)
	}
	// The formatter's path: comments kept, output a fixed point.
	mc, _ := parser.ParseFileMode(name, src, parser.ParseComments)
	outc := printer.Bytes(mc)
	mc2, errs3 := parser.ParseFileMode(name+".formatted", outc, parser.ParseComments)
	for _, d := range errs3 {
		t.Errorf("formatted form: %s", d)
	}
	if !ast.Equal(mc, mc2) {
		t.Errorf("%s: tree or comments changed after formatting; formatted:\n%s", name, outc)
	}
	if again := printer.Bytes(mc2); !bytes.Equal(again, outc) {
		t.Errorf("%s: formatting is not a fixed point:\n%s\nthen:\n%s", name, outc, again)
	}
	if len(mc.Comments) == 0 && bytes.Contains(src, []byte("//")) {
		t.Errorf("%s: no comments recorded", name)
	}
	return m
}

func TestTestdataParsesAndRoundTrips(t *testing.T) {
	for _, f := range testdataPTX(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m := roundTrip(t, f, src)
			if _, rerrs := resolve.Module(m); rerrs.HasErrors() {
				for _, d := range rerrs {
					t.Errorf("%s", d)
				}
			}
			if len(m.Stmts) == 0 {
				t.Errorf("no statements parsed")
			}
		})
	}
}

func filepathGlob(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*.ptx"))
}

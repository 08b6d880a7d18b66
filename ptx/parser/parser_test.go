package parser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
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

// TestErrorsInSourceOrder checks that errors come sorted by position even
// when one is found after those that follow it in the text (an unclosed
// '{' is only known at the end of the file).
func TestErrorsInSourceOrder(t *testing.T) {
	src := ".version 8.0\n.target sm_90\n.entry k()\n{\n\tadd.u32 %r1 %r2;\n\tmov.u32 %r1, ;\n"
	_, errs := parser.ParseString("k.ptx", src)
	st := parser.NewStream("k.ptx", src, 0)
	for st.Next() != nil {
	}
	for name, l := range map[string]diag.List{"ParseString": errs, "Stream": st.Errors()} {
		var lines []int32
		for _, d := range l {
			lines = append(lines, d.Pos.Line)
		}
		if len(lines) != 3 || lines[0] != 4 || lines[1] != 5 || lines[2] != 6 {
			t.Errorf("%s: errors at lines %v, want [4 5 6]:\n%v", name, lines, l)
		}
	}
}

// TestArraySizeOverflow checks that an array whose size in bytes does not
// fit in 64 bits is an error, on the fast and the general path, instead of
// wrapping around (2^62+1 elements of 4 bytes would be 4 bytes).
func TestArraySizeOverflow(t *testing.T) {
	for _, decl := range []string{
		".global .b32 a[4611686018427387905];",
		".global .align 4 .b32 a[4611686018427387905];",
		".global .v4 .f32 a[1000000000000000000];",
		".global .b8 a[4294967296][4294967296];",
		".global .f16x2 a[3000000000000000000] = {0};",
	} {
		_, errs := parser.ParseString("k.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n"+decl+"\n")
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "array a is larger than a 64-bit address space") || errs[0].Pos.Line != 4 {
			t.Errorf("%s: %v", decl, errs)
		}
	}
	for _, decl := range []string{".global .b8 a[9223372036854775807];", ".global .b32 a[2305843009213693951];", ".global .b32 a[];"} {
		if _, errs := parser.ParseString("k.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n"+decl+"\n"); len(errs) != 0 {
			t.Errorf("%s: %v", decl, errs)
		}
	}
}

// TestDeclarationTypes checks the types a declaration may name, which
// come from isa (isa.DeclWord): ptxas 12.5 declares .e4m3 and .f16x2
// variables but no .bf16, .tf32 or packed .e4m3x2 ones.
func TestDeclarationTypes(t *testing.T) {
	for decl, bad := range map[string]bool{
		".reg .e4m3 %x;": false, ".reg .f16x2 %x;": false, ".shared .v4 .b32 s[2];": false, ".reg .pred %p<3>;": false,
		".shared::cta .b8 s[4];": false, ".global .texref t;": false,
		".reg .bf16 %x;": true, ".reg .bf16x2 %x;": true, ".reg .tf32 %x;": true, ".reg .e4m3x2 %x;": true, ".reg .u16x2 %x;": true,
	} {
		src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + decl + "\nret;\n}\n"
		_, errs := parser.ParseString("k.ptx", src)
		if got := len(errs) > 0; got != bad {
			t.Errorf("%s: errors %v, want errors %v", decl, errs, bad)
		}
		if bad && len(errs) > 0 && (errs[0].Pos.Line != 6 || !strings.Contains(errs[0].Message, "in a declaration")) {
			t.Errorf("%s: %v", decl, errs[0])
		}
	}
}

// TestSelectorB1024 checks that .b1024 after a register is a syntax error
// at its place, as in ptxas 12.5 ("Parsing error near '.b1024'"), on both
// the fast path and the general one, while .b1023 is a selector.
func TestSelectorB1024(t *testing.T) {
	for _, line := range []string{"vadd4.u32.u32.u32 %r1, %r2.b1024, %r3, %r4;", "vadd4.u32.u32.u32 %r1, %r2.b1024, %r3, %r4 + 1;"} {
		_, errs := parser.ParseString("v.ptx", ".entry k() {\n\t"+line+"\n}\n")
		if len(errs) != 1 || errs[0].Pos.Line != 2 || errs[0].Pos.Col != 28 || !strings.Contains(errs[0].Message, ".b1024") {
			t.Errorf("%s: want one error at 2:28 naming .b1024, got %v", line, errs)
		}
	}
	m, errs := parser.ParseString("v.ptx", ".entry k() {\n\tvadd4.u32.u32.u32 %r1, %r2.b1023, %r3, %r4;\n}\n")
	if len(errs) != 0 {
		t.Fatalf("b1023: %v", errs)
	}
	in := m.Stmts[0].(*ast.Function).Body.Stmts[0].(*ast.Instruction)
	if r, ok := in.Operands[1].(*ast.Reg); !ok || r.Sel.String() != "b1023" {
		t.Errorf("b1023: operand %#v", in.Operands[1])
	}
}

// TestVideoSelectors checks that a 'b' or 'h' selector after a register
// (PTX ISA 9.7.19, 9.7.20) is kept in Reg.Sel, a single letter stays a
// vector component, and other suffixes are syntax errors at their place.
func TestVideoSelectors(t *testing.T) {
	src := ".entry k() {\n\tvadd4.u32.u32.u32 %r1.b20, r2.b7654, %r3.h1, %v.b;\n\tvadd %r1.b12345;\n}\n"
	m, errs := parser.ParseString("v.ptx", src)
	if len(errs) != 1 || errs[0].Pos.Line != 3 || errs[0].Pos.Col != 10 {
		t.Fatalf("want one error at 3:10 for .b12345, got %v", errs)
	}
	in := m.Stmts[0].(*ast.Function).Body.Stmts[0].(*ast.Instruction)
	want := []struct{ name, comp, sel string }{{"%r1", "", "b20"}, {"r2", "", "b7654"}, {"%r3", "", "h1"}, {"%v", "b", ""}}
	for i, w := range want {
		r, ok := in.Operands[i].(*ast.Reg)
		if !ok || r.Name != w.name || r.Comp != w.comp || r.Sel.String() != w.sel {
			t.Errorf("operand %d: got %#v, want name %s comp %q sel %q", i, in.Operands[i], w.name, w.comp, w.sel)
		}
	}
	if r := in.Operands[0].(*ast.Reg); int(r.End().Col-r.Pos().Col) != len("%r1.b20") {
		t.Errorf("%%r1.b20 spans %v..%v", r.Pos(), r.End())
	}
	if out := string(printer.Bytes(m)); !strings.Contains(out, "%r1.b20, r2.b7654, %r3.h1, %v.b;") {
		t.Errorf("printed:\n%s", out)
	}
}

package printer_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// TestGolden prints each testdata/ptx/printer/*.input and compares the
// result with the matching .golden file; the golden output must be a fixed
// point of parse+print.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "printer", "*.input"))
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			m, errs := parser.ParseFileMode(in, src, parser.ParseComments)
			if errs.HasErrors() {
				t.Fatal(errs.Err())
			}
			got := printer.Bytes(m)
			golden := strings.TrimSuffix(in, ".input") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("printed output differs from %s:\n%s", golden, got)
			}
			m2, errs := parser.ParseFileMode(golden, want, parser.ParseComments)
			if errs.HasErrors() {
				t.Fatal(errs.Err())
			}
			if again := printer.Bytes(m2); !bytes.Equal(again, want) {
				t.Errorf("golden output is not a fixed point:\n%s", again)
			}
			if !ast.Equal(m, m2) {
				t.Errorf("tree of golden output differs from tree of input")
			}
		})
	}
}

// ptxas returns the path of NVIDIA's ptxas or skips the test.
func ptxas(t *testing.T) string {
	t.Helper()
	p := oracle.Ptxas()
	if p == "" {
		t.Skip(oracle.SkipMessage)
	}
	return p
}

// TestPrintedAcceptedByPtxas checks that ptxas accepts the canonical form
// of every valid testdata module, so that "ptxkit fmt" never breaks a file.
func TestPrintedAcceptedByPtxas(t *testing.T) {
	bin := ptxas(t)
	var files []string
	for _, dir := range []string{"hand", "llc"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*.ptx"))
		files = append(files, m...)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, errs := parser.ParseFileMode(f, src, parser.ParseComments)
			if errs.HasErrors() {
				t.Fatal(errs.Err())
			}
			out := filepath.Join(t.TempDir(), "printed.ptx")
			if err := os.WriteFile(out, printer.Bytes(m), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-arch=sm_90a", out, "-o", os.DevNull)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("ptxas rejects the printed form: %v\n%s", err, msg)
			}
		})
	}
}

// TestBuiltLiterals prints literals made by a program (no source text).
func TestBuiltLiterals(t *testing.T) {
	tests := []struct {
		e    ast.Expr
		want string
	}{
		{&ast.IntLit{Value: 42}, "42"},
		{&ast.IntLit{Value: 7, Unsigned: true}, "7U"},
		{&ast.IntLit{Value: 5, Text: "0b101"}, "0b101"},
		{&ast.FloatLit{Value: 1, Single: true}, "0f3F800000"},
		{&ast.FloatLit{Value: 2}, "0d4000000000000000"},
		{&ast.FloatLit{Hex: true, Bits: 0x3FF0000000000000, Value: 1}, "0d3FF0000000000000"},
	}
	for _, tt := range tests {
		if got := printer.String(tt.e); got != tt.want {
			t.Errorf("%+v printed %q, want %q", tt.e, got, tt.want)
		}
	}
}

package parser_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestDialects covers what compilers of every age write and ptxas 12.5
// accepts (or rejects at a given line); each verdict was taken from ptxas.
func TestDialects(t *testing.T) {
	const head = ".version 7.0\n.target sm_80\n.address_size 64\n"
	tests := []struct {
		name, src string
		err       string // "" for no error; else "LINE:COL: substring"
	}{
		{"CR-only line endings", ".version 7.0\r.target sm_80\r.address_size 64\r.visible .entry k()\r{\r  ret;\r}\r", ""},
		{"CRLF line endings", ".version 7.0\r\n.target sm_80\r\n.visible .entry k()\r\n{\r\n  ret;\r\n}\r\n", ""},
		{"trailing NUL bytes (OpenCL)", head + ".visible .entry k()\n{\n  ret;\n}\n\x00\x00\x00", ""},
		{"text after a NUL is ignored", head + "\x00garbage }}}", ""},
		{"declaration without ';' (nvcc 2.x)", head + ".func (.param .s32 r) f (.param .s32 a)\n\n.entry k (\n\t.param .u64 p)\n{\n\tret;\n}\n", ""},
		{"declaration without ';' at the end", head + ".func f ()\n", ""},
		{"header then instruction is still an error", head + ".func f ()\nret;\n", "5:1: expected '{' or ';' after function header"},
		{".file inside a body", head + ".visible .entry k()\n{\n  .file 2 \"b.cu\"\n  ret;\n}\n", "6:3: .file is not allowed inside a function body"},
		{"1000 nested blocks", head + ".visible .entry k()\n{\n" + strings.Repeat("{\n", 1000) + "ret;\n" + strings.Repeat("}\n", 1000) + "}\n", ""},
		{"dimension of 2^64-1", head + ".global .b8 big[18446744073709551615];\n", "4:17: array dimension 18446744073709551615 is too large"},
		{"negative dimension", head + ".global .b8 a[-1];\n", "4:15: negative array dimension"},
	}
	for _, tc := range tests {
		m, errs := parser.ParseString("t.ptx", tc.src)
		got := ""
		if len(errs) > 0 {
			d := errs[0]
			got = strconv.Itoa(int(d.Pos.Line)) + ":" + strconv.Itoa(int(d.Pos.Col)) + ": " + d.Message
		}
		switch {
		case tc.err == "" && got != "":
			t.Errorf("%s: unexpected error %s", tc.name, got)
		case tc.err != "" && !strings.HasPrefix(got, tc.err):
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.err)
		}
		if tc.err == "" && len(m.Stmts) == 0 {
			t.Errorf("%s: no statements parsed", tc.name)
		}
	}
}

// TestCROnlyPositions checks that CR-only line breaks count as lines.
func TestCROnlyPositions(t *testing.T) {
	m, errs := parser.ParseString("t.ptx", ".version 7.0\r.target sm_80\r.visible .entry k()\r{\r  ret;\r}\r")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	f := m.Stmts[len(m.Stmts)-1].(*ast.Function)
	if got := f.Body.Stmts[0].Pos(); got.Line != 5 || got.Col != 3 {
		t.Errorf("ret at %d:%d, want 5:3", got.Line, got.Col)
	}
}

package parser_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// checkSpans verifies that every node of m has a valid span inside its
// parent's, that offsets, lines and columns agree with src, and that names
// and qualifiers are found in the source where their positions say.
func checkSpans(t *testing.T, name, src string, m *ast.Module, valid bool) {
	t.Helper()
	lineStart := []int{0}
	for i := 0; i < len(src); i++ {
		// A line ends at '\n', or at a '\r' not followed by '\n' (CR-only
		// line endings, as the scanner counts them).
		if src[i] == '\n' || src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			lineStart = append(lineStart, i+1)
		}
	}
	consistent := func(p token.Pos) bool {
		if !p.IsValid() || int(p.Line) > len(lineStart) || int(p.Offset) > len(src) {
			return false
		}
		return int(p.Offset) == lineStart[p.Line-1]+int(p.Col)-1
	}
	var stack []ast.Node
	errors := 0
	fail := func(n ast.Node, format string, args ...any) {
		if errors++; errors <= 10 {
			t.Errorf("%s: %T at %s-%s: %s", name, n, n.Pos(), n.End(), fmt.Sprintf(format, args...))
		}
	}
	ast.Inspect(m, func(n ast.Node) bool {
		for len(stack) > 0 && !(stack[len(stack)-1].Pos().Offset <= n.Pos().Offset && n.Pos().Offset < stack[len(stack)-1].End().Offset) && stack[len(stack)-1] != n {
			stack = stack[:len(stack)-1]
		}
		if !consistent(n.Pos()) || !consistent(n.End()) {
			fail(n, "position does not match the source")
			return true
		}
		if n.End().Offset < n.Pos().Offset {
			fail(n, "ends before it starts")
			return true
		}
		if len(stack) > 0 {
			if p := stack[len(stack)-1]; n.Pos().Offset < p.Pos().Offset || n.End().Offset > p.End().Offset {
				fail(n, "outside its parent %T at %s-%s", p, p.Pos(), p.End())
			}
		}
		text := src[n.Pos().Offset:n.End().Offset]
		switch x := n.(type) {
		case *ast.Reg:
			if !strings.HasPrefix(text, x.Name) {
				fail(n, "text %q does not start with %s", text, x.Name)
			}
		case *ast.Ident:
			if text != x.Name && !strings.HasPrefix(x.Name, ".") {
				fail(n, "text %q is not %s", text, x.Name)
			}
		case *ast.Instruction:
			if valid && !strings.HasSuffix(text, ";") {
				fail(n, "instruction text %q does not end with ';'", text)
			}
			for _, q := range x.Quals {
				if got := src[q.Pos.Offset:q.End().Offset]; got != q.Name {
					fail(n, "qualifier %s at %s reads %q", q.Name, q.Pos, got)
				}
			}
			if got := src[x.OpPos.Offset:]; !strings.HasPrefix(got, x.Opcode) {
				fail(n, "opcode %s not at %s", x.Opcode, x.OpPos)
			}
		case *ast.VarDecl:
			if x.SpacePos.IsValid() && !strings.HasPrefix(src[x.SpacePos.Offset:], x.Space) {
				fail(n, "space %s not at %s", x.Space, x.SpacePos)
			}
			if x.TypePos.IsValid() && !strings.HasPrefix(src[x.TypePos.Offset:], x.Type) {
				fail(n, "type %s not at %s", x.Type, x.TypePos)
			}
		}
		stack = append(stack, n)
		return true
	})
}

// TestSpans checks the spans of every node of the valid test modules and
// of the syntax-error files (whose partial trees must be positioned too).
func TestSpans(t *testing.T) {
	files := testdataPTX(t)
	errFiles, _ := filepathGlob("errors")
	for _, f := range append(files, errFiles...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, errs := parser.ParseFile(f, src)
		checkSpans(t, f, string(src), m, !errs.HasErrors())
	}
	src := benchModule(32 << 10)
	m, _ := parser.ParseFile("bench.ptx", src)
	checkSpans(t, "bench.ptx", string(src), m, true)
}

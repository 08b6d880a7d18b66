package ast_test

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

func reg(name string, off int32) *ast.Reg {
	r := &ast.Reg{Name: name}
	r.From = token.Pos{Offset: off, Line: 1, Col: off + 1}
	r.To = r.From.Advance(name)
	return r
}

func store(off int32, base string, disp int64, hasOff bool, value string) *ast.Instruction {
	a := &ast.Address{Base: reg(base, off+10), Offset: disp, HasOffset: hasOff}
	return &ast.Instruction{
		Opcode:   "st",
		Quals:    []ast.Qual{{Pos: token.Pos{Offset: off + 2, Line: 1, Col: off + 3}, Name: ".global"}, {Name: ".u32"}},
		Operands: []ast.Expr{a, reg(value, off+20)},
	}
}

func TestEqual(t *testing.T) {
	a := store(0, "%rd1", 8, true, "%r1")
	tests := []struct {
		name string
		b    ast.Node
		want bool
	}{
		{"same text elsewhere", store(100, "%rd1", 8, true, "%r1"), true},
		{"other offset", store(0, "%rd1", 16, true, "%r1"), false},
		{"other base", store(0, "%rd2", 8, true, "%r1"), false},
		{"other value", store(0, "%rd1", 8, true, "%r2"), false},
		{"other qualifier", func() ast.Node { s := store(0, "%rd1", 8, true, "%r1"); s.Quals[1].Name = ".u64"; return s }(), false},
		{"extra operand", func() ast.Node {
			s := store(0, "%rd1", 8, true, "%r1")
			s.Operands = append(s.Operands, reg("%r3", 30))
			return s
		}(), false},
		{"guard added", func() ast.Node {
			s := store(0, "%rd1", 8, true, "%r1")
			s.Guard = &ast.Guard{Reg: reg("%p", 0)}
			return s
		}(), false},
		{"other node type", &ast.Label{Name: "st"}, false},
	}
	for _, tt := range tests {
		if got := ast.Equal(a, tt.b); got != tt.want {
			t.Errorf("%s: Equal = %v, want %v", tt.name, got, tt.want)
		}
	}
	// "[%rd1+0]" and "[%rd1]" are the same address.
	if !ast.Equal(store(0, "%rd1", 0, true, "%r1"), store(0, "%rd1", 0, false, "%r1")) {
		t.Error("zero offset with and without HasOffset differ")
	}
	if ast.Equal(store(0, "%rd1", 4, true, "%r1"), store(0, "%rd1", 4, false, "%r1")) {
		t.Error("HasOffset ignored for a non-zero offset")
	}
	m1 := &ast.Module{Filename: "a.ptx", Stmts: []ast.TopStmt{&ast.Directive{Name: ".version"}}}
	m2 := &ast.Module{Filename: "b.ptx", Stmts: []ast.TopStmt{&ast.Directive{Name: ".version"}}}
	if !ast.Equal(m1, m2) {
		t.Error("file names compared")
	}
}

func TestInspect(t *testing.T) {
	body := &ast.Block{Stmts: []ast.Stmt{
		&ast.Label{Name: "L"},
		store(0, "%rd1", 8, true, "%r1"),
		&ast.Block{Stmts: []ast.Stmt{store(50, "%rd2", 0, false, "%r2")}},
	}}
	f := &ast.Function{Kind: ".entry", Name: &ast.Ident{Name: "k"}, Body: body}
	m := &ast.Module{Stmts: []ast.TopStmt{f}}
	var seen []string
	ast.Inspect(m, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Reg:
			seen = append(seen, x.Name)
		case *ast.Block:
			if len(x.Stmts) == 1 {
				seen = append(seen, "skip")
				return false // prune the nested block
			}
		}
		return true
	})
	if got := strings.Join(seen, " "); got != "%rd1 %r1 skip" {
		t.Errorf("visited %q", got)
	}
	// Nil children (no body, no guard, no initializer) are not visited.
	n := 0
	ast.Inspect(&ast.Function{Kind: ".func"}, func(ast.Node) bool { n++; return true })
	if n != 1 {
		t.Errorf("visited %d nodes of an empty function", n)
	}
}

// TestIsSelector checks the shape the parser takes for a video operand
// selector: 'b' or 'h' and one to four digits.
func TestIsSelector(t *testing.T) {
	for s, want := range map[string]bool{"b0": true, "h1": true, "h10": true, "b7654": true, "b99": true,
		"b": false, "h": false, "x": false, "b01234": false, "b1024": false, "b1023": true, "h1024": true, "bx": false, "b1x": false, "": false, "w0": false} {
		if got := ast.IsSelector(s); got != want {
			t.Errorf("IsSelector(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestSelectorPacking checks that every selector IsSelector accepts packs
// into a Selector that gives its text back, and that nothing else packs.
func TestSelectorPacking(t *testing.T) {
	n := 0
	var gen func(s string)
	gen = func(s string) {
		if len(s) > 1 {
			sel := ast.MakeSelector(s)
			if ast.IsSelector(s) != (sel != 0) {
				t.Errorf("MakeSelector(%q) = %#x, IsSelector %v", s, uint32(sel), ast.IsSelector(s))
			}
			if sel != 0 && (sel.String() != s || sel.Len() != len(s)) {
				t.Errorf("MakeSelector(%q): String %q, Len %d", s, sel.String(), sel.Len())
			}
			n++
		}
		if len(s) == 5 {
			return
		}
		for d := '0'; d <= '9'; d++ {
			gen(s + string(d))
		}
	}
	gen("b")
	gen("h")
	if n != 2*(10+100+1000+10000) {
		t.Errorf("%d selectors tried", n)
	}
	for _, s := range []string{"", "b", "x1", "b01234", "b1024", "bx"} {
		if sel := ast.MakeSelector(s); sel != 0 || sel.String() != "" || sel.Len() != 0 {
			t.Errorf("MakeSelector(%q) = %#x", s, uint32(sel))
		}
	}
}

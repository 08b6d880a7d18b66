package resolve_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// TestSpecialRegisterTypes reads testdata/ptx/hand/specials.ptx (accepted by
// ptxas: every special register moved with its own type) and checks that
// each source operand resolves to a special register whose type matches
// the mov's type.
func TestSpecialRegisterTypes(t *testing.T) {
	f := filepath.Join("..", "..", "testdata", "ptx", "hand", "specials.ptx")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseFile(f, src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	info, rerrs := resolve.Module(m)
	if rerrs.HasErrors() {
		t.Fatal(rerrs.Err())
	}
	n := 0
	ast.Inspect(m, func(node ast.Node) bool {
		in, ok := node.(*ast.Instruction)
		if !ok || in.Opcode != "mov" {
			return true
		}
		reg := in.Operands[1].(*ast.Reg)
		sym := info.Symbol(reg)
		if sym == nil || sym.Kind != resolve.SpecialReg {
			t.Errorf("%s: %s is not a special register", reg.Pos(), reg.Name)
			return false
		}
		want := in.Quals[0].Name
		if got := sym.Type(); got != want && !(want == ".b32" && got == ".u32") {
			t.Errorf("%s: %s has type %s, mov uses %s", reg.Pos(), reg.Name, got, want)
		}
		if sym.Special.Vector != (reg.Comp != "") {
			t.Errorf("%s: %s vector = %v", reg.Pos(), reg.Name, sym.Special.Vector)
		}
		n++
		return false
	})
	if n < 100 {
		t.Errorf("only %d special registers checked", n)
	}
}

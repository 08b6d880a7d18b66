package resolve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
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

// TestSpecialsAreISAs resolves a read of every special register of isa's
// table: each binds to a SpecialReg symbol that carries that entry, with
// the entry's type.
func TestSpecialsAreISAs(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n")
	b.WriteString("\t.reg .b32 %r<2>;\n")
	for _, r := range isa.SRegs() {
		name := r.Name
		if r.Vector {
			name += ".y"
		}
		fmt.Fprintf(&b, "\tmov.b32 %%r1, %s;\n", name)
	}
	b.WriteString("\tret;\n}\n")
	m, errs := parser.ParseString("k.ptx", b.String())
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	info, _ := resolve.Module(m)
	var seen []*isa.SReg
	ast.Inspect(m, func(node ast.Node) bool {
		in, ok := node.(*ast.Instruction)
		if !ok || in.Opcode != "mov" {
			return true
		}
		reg := in.Operands[1].(*ast.Reg)
		sym := info.Symbol(reg)
		if sym == nil || sym.Kind != resolve.SpecialReg {
			t.Errorf("%s does not resolve to a special register", reg.Name)
			return false
		}
		if sym.Special.SReg != isa.LookupSReg(reg.Name) || sym.Type() != sym.Special.SReg.Type.String() {
			t.Errorf("%s resolves to %+v", reg.Name, sym.Special)
		}
		seen = append(seen, sym.Special.SReg)
		return false
	})
	if len(seen) != len(isa.SRegs()) {
		t.Errorf("resolved %d special registers, isa lists %d", len(seen), len(isa.SRegs()))
	}
}

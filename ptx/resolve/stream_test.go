package resolve_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// resolveByStatement resolves src as a parser hands it out statement by
// statement (BeginFunction, AddStmt, OpenBlock, CloseBlock, EndFunction),
// or in runs of statements (NextStmts, AddStmts) when runs is set.
func resolveByStatement(name, src string, runs bool) (*resolve.Info, diag.List) {
	st := parser.NewStream(name, src, parser.StreamStatements)
	r := resolve.NewResolver(name)
	r.KeepUses = false
	for s := st.Next(); s != nil; s = st.Next() {
		f, ok := s.(*ast.Function)
		if !ok {
			r.Add(s)
			continue
		}
		r.BeginFunction(f)
		if runs {
			for run, ev := st.NextStmts(); ev != parser.EndOfBody; run, ev = st.NextStmts() {
				switch ev {
				case parser.BlockStart:
					r.OpenBlock()
				case parser.BlockEnd:
					r.CloseBlock()
				default:
					r.AddStmts(run)
				}
			}
		} else {
			for n, ev := st.NextInBody(); ev != parser.EndOfBody; n, ev = st.NextInBody() {
				switch ev {
				case parser.BlockStart:
					r.OpenBlock()
				case parser.BlockEnd:
					r.CloseBlock()
				default:
					r.AddStmt(n)
				}
			}
		}
		r.EndFunction()
	}
	return r.Info(), r.Diagnostics()
}

// TestResolveByStatementMatchesModule checks that resolving function
// bodies statement by statement, one at a time and in runs (AddStmts),
// gives the diagnostics of Module (in
// position order) and the same module-scope symbols, on every PTX file in
// testdata, the error files included, and on forward references to
// labels in enclosing, sibling and nested blocks.
func TestResolveByStatementMatchesModule(t *testing.T) {
	srcs := map[string]string{
		"labels": ".version 8.5\n.target sm_90\n.entry k() {\n.reg .pred %p;\n.reg .b32 %r;\n@%p bra L;\n{\n@%p bra A;\n@%p bra M;\n" +
			"mov.u32 %r, %tid.w;\nM:\n}\n{\nA:\n%tid:\n}\nbra A;\nbra nowhere;\ncall later;\nL:\nret;\n}\n.func later() { ret; }\n",
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "*", "*.ptx"))
	if len(files) < 10 {
		t.Fatalf("found only %d testdata files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(b)
	}
	for name, src := range srcs {
		m, errs := parser.ParseString(name, src)
		if errs.HasErrors() {
			continue // only syntax errors are reported for these
		}
		info, want := resolve.Module(m)
		want.Sort()
		for _, runs := range []bool{false, true} {
			gotInfo, got := resolveByStatement(name, src, runs)
			got.Sort()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s (runs %v): statement by statement\n%v\nModule\n%v", name, runs, got, want)
			}
			if len(gotInfo.Globals) != len(info.Globals) || len(gotInfo.Functions) != len(info.Functions) {
				t.Errorf("%s (runs %v): %d globals and %d functions, Module %d and %d", name, runs,
					len(gotInfo.Globals), len(gotInfo.Functions), len(info.Globals), len(info.Functions))
			}
		}
	}
}

// TestOperandUse checks that OperandUse gives the symbol of each register
// operand by its position among the instruction's name uses, and nil for
// a node that is not that use.
func TestOperandUse(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	.reg .b64 %rd1;
	.reg .pred %p;
	@%p add.s32 %r1, %r2, %r3;
	add.s32 %r1, 7, %r3;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := resolve.NewResolver("t.ptx")
	var f *ast.Function
	for _, s := range m.Stmts {
		if fn, ok := s.(*ast.Function); ok {
			f = fn
			continue
		}
		r.Add(s)
	}
	r.BeginFunction(f)
	var got []string
	for _, s := range f.Body.Stmts {
		r.AddStmt(s)
		in, ok := s.(*ast.Instruction)
		if !ok {
			continue
		}
		line, k := in.Opcode, 0
		for _, e := range in.Operands {
			x, ok := e.(*ast.Reg)
			if !ok {
				line += " imm"
				continue
			}
			if r.OperandUse(k+1, x) != nil {
				t.Errorf("%s: use %d is not %s", in.Opcode, k+1, x.Name)
			}
			if sym := r.OperandUse(k, x); sym != nil {
				line += " " + sym.Decl.Name.Name
			} else {
				line += " -"
			}
			k++
		}
		got = append(got, line)
	}
	r.EndFunction()
	want := []string{"add %r %r %r", "add %r imm %r", "ret"}
	if !slices.Equal(got, want) {
		t.Errorf("OperandUse: %q, want %q", got, want)
	}
}

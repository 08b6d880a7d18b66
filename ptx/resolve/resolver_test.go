package resolve_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// resolverSources returns every PTX file under testdata/ptx and a
// generated module of many kernels.
func resolverSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "*", "*.ptx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	srcs := map[string]string{"bench": benchModule(256 << 10), "edge": edgeModule}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(b)
	}
	return srcs
}

// edgeModule has a resolution error of each kind, several across
// functions (redefinitions, registers of another function).
const edgeModule = `.version 8.5
.target sm_90
.address_size 64
.global .u32 g;
.global .u64 pg = generic(g);
.func f(.param .b32 a);
.func (.param .b32 r) f(.param .b32 a)
{
	.reg .b32 %x<2>;
	.reg .b32 %y;
	ld.param.b32 %y, [a];
	st.param.b32 [r], %y;
	ret;
}
.func f(.param .b32 a)
{
	ret;
}
.func g()
{
	ret;
}
.global .u32 f;
.func late(.param .b32 a, .param .b32 a);
.alias fa, f;
.alias fb, nothing;
.entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p;
	.reg .v4 .b32 %v;
	mov.u32 %x1, %y;
	mov.u32 %r1, %laneid.x;
	mov.u32 %r1, %r1.x;
	mov.u32 %r2, %v.y;
	mov.u32 %r1, %r5;
	mov.u32 %r1, %tid.w;
	mov.u32 %r1, WARP_SZ;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [g];
	@%p bra.uni NOWHERE;
	@!%p bra.uni L2;
	{
	.reg .b32 %r<2>;
	.reg .b32 %r1;
	mov.u32 %r3, %r1;
	L2:
	bra.uni L2;
	}
	{
	.param .b32 param0;
	call.uni f, (param0);
	call.uni late, (param0);
	call.uni nosuch, (param0);
	}
	prot: .callprototype ()_ (.param .b32 _, .param .b32 q, .param .b32 q);
	Ltab: .branchtargets L2, L3, L4;
	L3:
	L4:
	.reg .b32 %late1;
	mov.u32 %late1, %late2;
	ret;
}
.func late(.param .b32 a, .param .b32 b)
{
	ret;
}
`

// sameInfo reports whether a and b hold the same uses, globals and
// functions.
func sameInfo(a, b *resolve.Info) bool {
	if len(a.Uses) != len(b.Uses) {
		return false
	}
	for i := range a.Uses {
		if a.Uses[i].Node != b.Uses[i].Node || !reflect.DeepEqual(a.Uses[i].Sym, b.Uses[i].Sym) {
			return false
		}
	}
	return reflect.DeepEqual(a.Globals, b.Globals) && reflect.DeepEqual(a.Functions, b.Functions)
}

// TestResolverMatchesModule feeds a Resolver the statements of each test
// module one by one, with and without KeepUses, and compares the result
// with Module's.
func TestResolverMatchesModule(t *testing.T) {
	for name, src := range resolverSources(t) {
		m, _ := parser.ParseString(name, src)
		want, wantErrs := resolve.Module(m)
		for _, keep := range []bool{true, false} {
			r := resolve.NewResolver(name)
			r.KeepUses = keep
			for _, s := range m.Stmts {
				r.Add(s)
			}
			if got := r.Diagnostics(); !reflect.DeepEqual(got, wantErrs) {
				t.Errorf("%s KeepUses=%v: diagnostics differ from Module's:\n%v\n%v", name, keep, got, wantErrs)
			}
			info := r.Info()
			switch {
			case keep && !sameInfo(info, want):
				t.Errorf("%s: Info differs from Module's", name)
			case !keep && (len(info.Uses) != 0 || !reflect.DeepEqual(info.Globals, want.Globals) ||
				!reflect.DeepEqual(info.Functions, want.Functions)):
				t.Errorf("%s KeepUses=false: Info has %d uses or other globals or functions", name, len(info.Uses))
			}
		}
	}
}

// TestResolverSwitchesKeepUses turns KeepUses on and off between
// statements: the diagnostics are still Module's, and the uses are
// Module's uses in the statements added with KeepUses, with the same
// symbols.
func TestResolverSwitchesKeepUses(t *testing.T) {
	for name, src := range resolverSources(t) {
		m, _ := parser.ParseString(name, src)
		all, wantErrs := resolve.Module(m)
		r := resolve.NewResolver(name)
		var want []resolve.Use
		for i, s := range m.Stmts {
			r.KeepUses = i%3 != 1
			r.Add(s)
			if !r.KeepUses {
				continue
			}
			for _, u := range all.Uses {
				if off := u.Node.Pos().Offset; off >= s.Pos().Offset && off < s.End().Offset {
					want = append(want, u)
				}
			}
		}
		if got := r.Diagnostics(); !reflect.DeepEqual(got, wantErrs) {
			t.Errorf("%s: diagnostics differ from Module's:\n%v\n%v", name, got, wantErrs)
		}
		if !sameInfo(r.Info(), &resolve.Info{Uses: want, Globals: all.Globals, Functions: all.Functions}) {
			t.Errorf("%s: uses differ from Module's", name)
		}
	}
}

// TestResolverStream resolves the statements of a parser.Stream that
// recycles function bodies as they come: the diagnostics must be those of
// Module on the whole tree.
func TestResolverStream(t *testing.T) {
	for name, src := range resolverSources(t) {
		m, errs := parser.ParseString(name, src)
		if errs.HasErrors() {
			continue // a Stream recovers from syntax errors as the parser does, but the test is about resolution
		}
		_, want := resolve.Module(m)
		st := parser.NewStream(name, src, parser.ReuseBodies)
		r := resolve.NewResolver(name)
		r.KeepUses = false
		for s := st.Next(); s != nil; s = st.Next() {
			r.Add(s)
		}
		if got := r.Diagnostics(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: diagnostics differ from Module's:\n%v\n%v", name, got, want)
		}
	}
}

// scribble overwrites every node of b with garbage of the same type.
func scribble(b *ast.Block) {
	var nodes []ast.Node
	ast.Inspect(b, func(n ast.Node) bool {
		if n != nil {
			nodes = append(nodes, n)
		}
		return true
	})
	for _, n := range nodes {
		switch x := n.(type) {
		case *ast.Reg:
			*x = ast.Reg{Name: "%r1", Comp: "w"}
		case *ast.Ident:
			*x = ast.Ident{Name: "garbage"}
		case *ast.Label:
			*x = ast.Label{Name: "garbage"}
		case *ast.VarDecl:
			*x = ast.VarDecl{Name: &ast.Ident{Name: "%r"}, Space: ".reg", Count: 1}
		case *ast.Instruction:
			*x = ast.Instruction{Opcode: "bra"}
		case *ast.Directive:
			*x = ast.Directive{}
		case *ast.Block:
			*x = ast.Block{}
		case *ast.Function:
			*x = ast.Function{}
		}
	}
}

// TestResolverKeepsNoBody overwrites each function body right after Add
// returns: with KeepUses false the diagnostics of the rest of the module
// must not change.
func TestResolverKeepsNoBody(t *testing.T) {
	for name, src := range resolverSources(t) {
		m, _ := parser.ParseString(name, src)
		_, want := resolve.Module(m)
		scratch, _ := parser.ParseString(name, src)
		r := resolve.NewResolver(name)
		r.KeepUses = false
		for _, s := range scratch.Stmts {
			r.Add(s)
			if f, ok := s.(*ast.Function); ok && f.Body != nil {
				scribble(f.Body)
				f.Body = nil
			}
		}
		if got := r.Diagnostics(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: diagnostics differ from Module's after overwriting bodies:\n%v\n%v", name, got, want)
		}
	}
}

// TestResolverReleasesBody checks with weak pointers that the garbage
// collector can reclaim a function's body once Add has returned.
func TestResolverReleasesBody(t *testing.T) {
	r := resolve.NewResolver("k.ptx")
	r.KeepUses = false
	bodies := addKernels(t, r, 3)
	runtime.GC()
	runtime.GC()
	for i, b := range bodies {
		for j, p := range b {
			if p() {
				t.Errorf("kernel %d: body node %d is still reachable", i, j)
			}
		}
	}
	if errs := r.Diagnostics(); len(errs) != 1 || !strings.Contains(errs[0].Message, "%r9 is out of range") {
		t.Errorf("diagnostics: %v", errs)
	}
	runtime.KeepAlive(r)
}

// addKernels parses n small kernels, each in its own tree, adds them to r
// and drops their bodies. It returns, for each, functions that say whether
// nodes of the body are still alive.
func addKernels(t *testing.T, r *resolve.Resolver, n int) [][]func() bool {
	const src = `.version 8.5
.target sm_90
.entry kNAME()
{
	.reg .b32 %r<4>;
	{
	.reg .b32 %inner;
	mov.u32 %inner, %tid.x;
	}
	bra L;
L:
	mov.u32 %rDST, %r1;
	ret;
}
`
	var alive [][]func() bool
	for i := 0; i < n; i++ {
		dst := "3"
		if i == 0 {
			dst = "9" // out of range: one diagnostic
		}
		text := strings.NewReplacer("NAME", string(rune('0'+i)), "DST", dst).Replace(src)
		m, errs := parser.ParseString("k.ptx", text)
		if errs.HasErrors() {
			t.Fatal(errs.Err())
		}
		var f *ast.Function
		for _, s := range m.Stmts {
			r.Add(s)
			if fn, ok := s.(*ast.Function); ok {
				f = fn
			}
		}
		body := f.Body
		inner := body.Stmts[1].(*ast.Block)
		decl := inner.Stmts[0].(*ast.VarDecl)
		label := body.Stmts[3].(*ast.Label)
		in := body.Stmts[4].(*ast.Instruction)
		reg := in.Operands[1].(*ast.Reg)
		alive = append(alive, []func() bool{
			weakAlive(body), weakAlive(inner), weakAlive(decl), weakAlive(label), weakAlive(in), weakAlive(reg),
		})
		f.Body = nil
	}
	return alive
}

// weakAlive returns a function that reports whether p has not been
// reclaimed.
func weakAlive[T any](p *T) func() bool {
	w := weak.Make(p)
	return func() bool { return w.Value() != nil }
}

// TestPercentFunctionName checks that a function named like a register
// ("%helper", which ptxas 12.5 accepts) resolves as a call target, while
// special registers still resolve in a module without such a function.
func TestPercentFunctionName(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{".func %helper()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tcall %helper;\n\tret;\n}\n", "function"},
		{".visible .entry k()\n{\n\t.reg .b32 %r;\n\tmov.u32 %r, %laneid;\n\tret;\n}\n", "special register"},
	} {
		m, errs := parser.ParseString("t.ptx", ".version 8.5\n.target sm_90\n.address_size 64\n"+tc.src)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		info, rerrs := resolve.Module(m)
		if len(rerrs) > 0 {
			t.Fatalf("%v", rerrs)
		}
		found := false
		for _, u := range info.Uses {
			found = found || u.Sym.Kind.String() == tc.want && strings.HasPrefix(ast.NameOf(u.Node), "%")
		}
		if !found {
			t.Errorf("no %s use named with %% in %q", tc.want, tc.src)
		}
	}
}

package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// parseBody parses instructions inside a kernel and returns the body.
func parseBody(t *testing.T, body string) *ast.Block {
	t.Helper()
	src := ".version 8.5\n.target sm_90a\n.entry k()\n{\n" + body + "\n}\n"
	m, errs := parser.ParseString("t.ptx", src)
	if errs.HasErrors() {
		t.Fatalf("%s: %v", body, errs.Err())
	}
	return m.Stmts[len(m.Stmts)-1].(*ast.Function).Body
}

// describe renders an operand's structure compactly for comparisons.
func describe(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Reg:
		if x.Comp != "" {
			return "Reg(" + x.Name + "." + x.Comp + ")"
		}
		return "Reg(" + x.Name + ")"
	case *ast.Ident:
		return "Ident(" + x.Name + ")"
	case *ast.Sink:
		return "_"
	case *ast.IntLit:
		return fmt.Sprintf("Int(%d,%v)", x.Value, x.Unsigned)
	case *ast.FloatLit:
		return fmt.Sprintf("Float(%g,hex=%v)", x.Value, x.Hex)
	case *ast.Address:
		s := "Addr("
		if x.Base != nil {
			s += describe(x.Base)
		}
		s += fmt.Sprintf("%+d", x.Offset)
		for _, y := range x.Index {
			s += "," + describe(y)
		}
		return s + ")"
	case *ast.VectorExpr:
		return "Vec(" + describeList(x.Elems) + ")"
	case *ast.ParenList:
		return "List(" + describeList(x.Elems) + ")"
	case *ast.ParenExpr:
		return "Paren(" + describe(x.X) + ")"
	case *ast.IndexExpr:
		return "Index(" + describe(x.X) + "," + describe(x.Index) + ")"
	case *ast.UnaryExpr:
		return x.Op + describe(x.X)
	case *ast.BinaryExpr:
		return "(" + describe(x.X) + x.Op + describe(x.Y) + ")"
	case *ast.CallExpr:
		return x.Fun + "(" + describeList(x.Args) + ")"
	case *ast.InitList:
		return "Init(" + describeList(x.Elems) + ")"
	}
	return fmt.Sprintf("%T", e)
}

func describeList(es []ast.Expr) string {
	var s []string
	for _, e := range es {
		s = append(s, describe(e))
	}
	return strings.Join(s, ",")
}

func TestInstructionShapes(t *testing.T) {
	tests := []struct {
		src, opcode, quals, ops string
	}{
		{"st.global.v4.u32 [%rd1+16], {%r1, %r2, _, %r4};", "st", ".global .v4 .u32", "Addr(Reg(%rd1)+16) Vec(Reg(%r1),Reg(%r2),_,Reg(%r4))"},
		{"st.L1::no_allocate.relaxed.sys.global.u64 [%rd1], %rd2;", "st", ".L1::no_allocate .relaxed .sys .global .u64", "Addr(Reg(%rd1)+0) Reg(%rd2)"},
		{"st.global.u32 [%rd1+-8], %r1;", "st", ".global .u32", "Addr(Reg(%rd1)-8) Reg(%r1)"},
		{"st.global.u32 [ %rd1 + 0 ], %r1;", "st", ".global .u32", "Addr(Reg(%rd1)+0) Reg(%r1)"},
		{"st.global.u32 [gbuf+4], %r1;", "st", ".global .u32", "Addr(Ident(gbuf)+4) Reg(%r1)"},
		{"st.global.u32 [256], %r1;", "st", ".global .u32", "Addr(+256) Reg(%r1)"},
		{"st.global.u32 [%rd1+(2*8-1)], %r1;", "st", ".global .u32", "Addr(Reg(%rd1)+15) Reg(%r1)"},
		{"st.global.u32 [%rd1+16-1], %r1;", "st", ".global .u32", "Addr(Reg(%rd1)+15) Reg(%r1)"},
		{"ld.global.u32 %r1, arr[3];", "ld", ".global .u32", "Reg(%r1) Index(Ident(arr),Int(3,false))"},
		{"st.b16 [out_addr+4], x16_0.y;", "st", ".b16", "Addr(Ident(out_addr)+4) Reg(x16_0.y)"},
		{"mov.u32 %r1, %tid.x;", "mov", ".u32", "Reg(%r1) Reg(%tid.x)"},
		{"tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r1], 16, {%r2};", "tcgen05", ".st .sync .aligned .16x32bx2 .x1 .b32", "Addr(Reg(%r1)+0) Int(16,false) Vec(Reg(%r2))"},
		{"tcgen05.st.sync.aligned.16x64b.x128.unpack::16b.b32 [%r1], {%r2};", "tcgen05", ".st .sync .aligned .16x64b .x128 .unpack::16b .b32", "Addr(Reg(%r1)+0) Vec(Reg(%r2))"},
		{"tcgen05.wait::st.sync.aligned;", "tcgen05", ".wait::st .sync .aligned", ""},
		{"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r8, %r9}], [%r2];", "cp", ".async .bulk .tensor .2d .global .shared::cta .bulk_group", "Addr(Reg(%rd1)+0,Vec(Reg(%r8),Reg(%r9))) Addr(Reg(%r2)+0)"},
		{"call.uni (retval0), vprintf, (param0, param1);", "call", ".uni", "List(Ident(retval0)) Ident(vprintf) List(Ident(param0),Ident(param1))"},
		{"call (r), %rd7, (a), proto;", "call", "", "List(Ident(r)) Reg(%rd7) List(Ident(a)) Ident(proto)"},
		{"call f, ();", "call", "", "Ident(f) List()"},
		{"mov.u32 %r1, 0x7FU;", "mov", ".u32", "Reg(%r1) Int(127,true)"},
		{"mov.b32 %r1, 017;", "mov", ".b32", "Reg(%r1) Int(15,false)"},
		{"mov.b32 %r1, 0b101;", "mov", ".b32", "Reg(%r1) Int(5,false)"},
		{"mov.s32 %r1, -1;", "mov", ".s32", "Reg(%r1) -Int(1,false)"},
		{"mov.f32 %f1, 0f3F800000;", "mov", ".f32", "Reg(%f1) Float(1,hex=true)"},
		{"mov.f64 %fd1, 0d4000000000000000;", "mov", ".f64", "Reg(%fd1) Float(2,hex=true)"},
		{"mov.f32 %f1, 1.5e2;", "mov", ".f32", "Reg(%f1) Float(150,hex=false)"},
		{"setp.eq.s32 %p|%q, %r1, 0;", "setp", ".eq .s32", "(Reg(%p)|Reg(%q)) Reg(%r1) Int(0,false)"},
		{"add.s32 %r1, %r2, (1 + 2) * 3 << 1;", "add", ".s32", "Reg(%r1) Reg(%r2) ((Paren((Int(1,false)+Int(2,false)))*Int(3,false))<<Int(1,false))"},
		{"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;", "mbarrier", ".arrive .expect_tx .shared::cta .b64", "_ Addr(Ident(bar)+0) Int(16,false)"},
		{"foo.bar.baz %r1, [x], {a, b};", "foo", ".bar .baz", "Reg(%r1) Addr(Ident(x)+0) Vec(Ident(a),Ident(b))"},
		{"ret;", "ret", "", ""},
	}
	for _, tt := range tests {
		b := parseBody(t, tt.src)
		in, ok := b.Stmts[0].(*ast.Instruction)
		if !ok {
			t.Errorf("%s: got %T", tt.src, b.Stmts[0])
			continue
		}
		var qs []string
		for _, q := range in.Quals {
			qs = append(qs, q.Name)
		}
		var ops []string
		for _, o := range in.Operands {
			ops = append(ops, describe(o))
		}
		if in.Opcode != tt.opcode || strings.Join(qs, " ") != tt.quals || strings.Join(ops, " ") != tt.ops {
			t.Errorf("%s:\n got %s %s %s\nwant %s %s %s", tt.src, in.Opcode, strings.Join(qs, " "), strings.Join(ops, " "), tt.opcode, tt.quals, tt.ops)
		}
	}
}

func TestGuardAndPositions(t *testing.T) {
	b := parseBody(t, "\t@!%p1 st.global.u32 [%rd1+4], %r1;")
	in := b.Stmts[0].(*ast.Instruction)
	if in.Guard == nil || !in.Guard.Negate || in.Guard.Reg.Name != "%p1" {
		t.Fatalf("guard = %+v", in.Guard)
	}
	line := int32(5)
	at := func(col int32) token.Pos { return token.Pos{Line: line, Col: col} }
	checks := []struct {
		what     string
		pos, end token.Pos
		want     token.Pos
		wantEnd  token.Pos
	}{
		{"instruction", in.Pos(), in.End(), at(2), at(36)},
		{"guard", in.Guard.Pos(), in.Guard.End(), at(2), at(7)},
		{"opcode", in.OpPos, in.OpPos, at(8), at(8)},
		{"qual .global", in.Quals[0].Pos, in.Quals[0].End(), at(10), at(17)},
		{"address", in.Operands[0].Pos(), in.Operands[0].End(), at(22), at(30)},
		{"base", in.Operands[0].(*ast.Address).Base.Pos(), in.Operands[0].(*ast.Address).Base.End(), at(23), at(27)},
		{"value", in.Operands[1].Pos(), in.Operands[1].End(), at(32), at(35)},
	}
	for _, c := range checks {
		if c.pos.Line != c.want.Line || c.pos.Col != c.want.Col || c.end.Line != c.wantEnd.Line || c.end.Col != c.wantEnd.Col {
			t.Errorf("%s spans %s-%s, want %s-%s", c.what, c.pos, c.end, c.want, c.wantEnd)
		}
	}
}

func TestDeclarations(t *testing.T) {
	src := `.version 8.5
.target sm_90a, texmode_independent
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.global .align 8 .v2 .u32 pair[2][2] = {{1, 2}, {3, 4}};
.global .u64 gp = generic(pair);
.visible .func (.param .b32 r) f(.param .u64 .ptr .global .align 16 p, .reg .b32 x) .noreturn;
.entry k() .maxntid 128, 2, 1 .reqnctapercluster 2 {
	.reg .b32 %r<10>, a, b;
	.reg .v4 .f32 %v;
p0: .callprototype (.param .b32 _) _ (.param .b64 _);
}
`
	m, errs := parser.ParseString("d.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	target := m.Stmts[1].(*ast.Directive)
	if target.Name != ".target" || describeList(target.Args) != "Ident(sm_90a),Ident(texmode_independent)" {
		t.Errorf(".target args %s", describeList(target.Args))
	}
	dyn := m.Stmts[3].(*ast.VarDecl)
	if dyn.Linkage[0] != ".extern" || dyn.Space != ".shared" || dyn.Align != 16 || dyn.Type != ".b8" || len(dyn.Dims) != 1 || dyn.Dims[0] != -1 {
		t.Errorf("dyn = %+v", dyn)
	}
	pair := m.Stmts[4].(*ast.VarDecl)
	if pair.Vector != 2 || pair.Type != ".u32" || fmt.Sprint(pair.Dims) != "[2 2]" || describe(pair.Init) != "Init(Init(Int(1,false),Int(2,false)),Init(Int(3,false),Int(4,false)))" {
		t.Errorf("pair = %+v init %s", pair, describe(pair.Init))
	}
	if gp := m.Stmts[5].(*ast.VarDecl); describe(gp.Init) != "generic(Ident(pair))" {
		t.Errorf("gp init %s", describe(gp.Init))
	}
	f := m.Stmts[6].(*ast.Function)
	if f.Kind != ".func" || !f.HasRet || len(f.Returns) != 1 || f.Body != nil || len(f.Perf) != 1 || f.Perf[0].Name != ".noreturn" {
		t.Errorf("f = %+v", f)
	}
	p := f.Params[0]
	if p.Space != ".param" || p.Type != ".u64" || strings.Join(p.Attrs, " ") != ".ptr .global .align 16" || p.Align != 0 {
		t.Errorf("param p = %+v", p)
	}
	if x := f.Params[1]; x.Space != ".reg" || x.Name.Name != "x" {
		t.Errorf("param x = %+v", x)
	}
	k := m.Stmts[7].(*ast.Function)
	if len(k.Perf) != 2 || describeList(k.Perf[0].Args) != "Int(128,false),Int(2,false),Int(1,false)" {
		t.Errorf("perf = %+v", k.Perf)
	}
	regs := k.Body.Stmts[0].(*ast.VarDecl)
	if regs.Count != 10 || len(regs.ExtraNames) != 2 || regs.ExtraNames[1].Name.Name != "b" || regs.ExtraNames[1].Count != -1 || regs.ExtraNames[1].Type != ".b32" {
		t.Errorf("regs = %+v", regs)
	}
	if v := k.Body.Stmts[1].(*ast.VarDecl); v.Vector != 4 || v.Type != ".f32" {
		t.Errorf("vector reg = %+v", v)
	}
	if l := k.Body.Stmts[2].(*ast.Label); l.Name != "p0" {
		t.Errorf("label = %+v", l)
	}
	proto := k.Body.Stmts[3].(*ast.Directive)
	if proto.Proto == nil || len(proto.Proto.Returns) != 1 || len(proto.Proto.Params) != 1 || proto.Proto.Params[0].Type != ".b64" {
		t.Errorf("prototype = %+v", proto)
	}
}

// TestPartialTree checks that statements after syntax errors are kept.
func TestPartialTree(t *testing.T) {
	src := ".version 8.5\n.global .u32 ;\n.global .u32 ok;\n.entry k()\n{\n\tmov.u32 %r1, ;\n\tbad bad bad\n\tret;\n}\n"
	m, errs := parser.ParseString("p.ptx", src)
	if len(errs) != 3 {
		t.Fatalf("got %d errors, want 3: %v", len(errs), errs)
	}
	var kinds []string
	ast.Inspect(m, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.VarDecl, *ast.Instruction, *ast.BadExpr, *ast.BadStmt:
			kinds = append(kinds, fmt.Sprintf("%T", n))
		}
		return true
	})
	want := "*ast.VarDecl *ast.VarDecl *ast.Instruction *ast.BadExpr *ast.Instruction *ast.Instruction"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("nodes:\n got %s\nwant %s", got, want)
	}
}

// TestLimits checks that hostile input is bounded: deep nesting and
// floods of errors stop the parse with one clear diagnostic.
func TestLimits(t *testing.T) {
	deep := ".entry k() {" + strings.Repeat("{", 10000) + "}"
	_, errs := parser.ParseString("deep.ptx", deep)
	if !strings.Contains(errs.Err().Error(), "nesting too deep") {
		t.Errorf("deep blocks: %v", errs.Err())
	}
	_, errs = parser.ParseString("neg.ptx", ".entry k() { mov.u32 %r1, "+strings.Repeat("-(", 100000)+"1; }")
	if !strings.Contains(errs.Err().Error(), "nesting too deep") {
		t.Errorf("deep expression: %v", errs.Err())
	}
	_, errs = parser.ParseString("chain.ptx", ".entry k() { mov.u32 %r1, 1"+strings.Repeat("+1", 1000000)+"; }")
	if !strings.Contains(errs.Err().Error(), "expression too long") {
		t.Errorf("long chain: %v", errs.Err())
	}
	_, errs = parser.ParseString("flood.ptx", strings.Repeat("@ @ @\n", 10000))
	if len(errs) != parser.MaxErrors+1 || !strings.Contains(errs[len(errs)-1].Message, "too many") {
		t.Errorf("error flood: %d errors, last %v", len(errs), errs[len(errs)-1])
	}
}

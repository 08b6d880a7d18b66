package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// TestDecodeBlockScopes runs a kernel whose nested blocks redeclare a
// register and reuse a label name (PTX ISA §5.4: a name is visible to the
// end of its block; labels of sibling blocks are distinct, as ptxas has
// them): each use reaches the declaration resolve binds it to.
func TestDecodeBlockScopes(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<2>;
	.reg .b32 %a;
	ld.param.u64 %rd1, [out];
	mov.u32 %a, 1;
	{
		.reg .b32 %a;
		mov.u32 %a, 2;
		bra L;
		mov.u32 %a, 7;
	L:
		st.global.u32 [%rd1+4], %a;
	}
	{
		bra L;
		st.global.u32 [%rd1+8], %a;
	L:
		st.global.u32 [%rd1+12], %a;
	}
	st.global.u32 [%rd1], %a;
	ret;
}
`
	res := launch(t, src, Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1)}, buf(16))
	got := u32s(res.Buffers[0].Data)
	if want := []uint32{1, 2, 0, 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("out = %v, want %v", got, want)
	}
}

// TestDecodeUnresolvedNames decodes unchecked modules whose names resolve
// to nothing the emulator can use: each is reported at the name, never a
// panic.
func TestDecodeUnresolvedNames(t *testing.T) {
	for _, c := range []struct {
		module, body, at, want string
	}{
		{"", "mov.u32 %x, 1;", "%x", "undeclared register %x [emu-unsupported]"},
		{"", "mov.u32 %r2, 1;", "%r2", "undeclared register %r2 [emu-unsupported]"},
		{"", "mov.u32 %r1, %r0.y;", "%r0.y", "register %r0 has no component .y [emu-unsupported]"},
		{"", "mov.u32 %tid.x, 1;", "%tid.x", "special register %tid is read-only [emu-unsupported]"},
		{"", "bra L9;", "L9", "undefined label L9 [emu-decode]"},
		{"", "call f;", "f", "call to f, which has no body in this module [emu-unsupported]"},
		{"", "mov.u32 %r1, nothing;", "nothing", "undefined name nothing [emu-unsupported]"},
		{"", "ld.param.u32 %r1, [q];", "q", "undefined name q [emu-unsupported]"},
		{"", "brx.idx %r1, T;", "T", "brx.idx needs the label of a .branchtargets list declared before it [emu-unsupported]"},
		{".reg .b32 %m;\n", "mov.u32 %m, 1;", "%m", "undeclared register %m [emu-unsupported]"},
		{".func g()\n{\n\t.reg .b32 %y;\n\tret;\n}\n", "mov.u32 %y, 1;", "%y", "undeclared register %y [emu-unsupported]"},
		{".func g()\n{\n\tret;\n}\n", "ld.global.u32 %r1, [g];", "g", "g is not a variable [emu-unsupported]"},
	} {
		src := header + c.module + ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t" + c.body + "\n\tret;\n}\n"
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: parse: %v", c.body, errs.Err())
		}
		at := strings.LastIndex(src, c.at)
		line := strings.Count(src[:at], "\n") + 1
		col := at - strings.LastIndex(src[:at], "\n")
		want := fmt.Sprintf("t.ptx:%d:%d: error: %s", line, col, c.want)
		prog, derrs := Decode(m, "")
		if prog != nil || len(derrs) == 0 || derrs[0].String() != want {
			t.Errorf("%s: decode gave %v, %v; want %q", c.body, prog != nil, derrs, want)
		}
	}
}

// TestDecodeResolvedSharesResolution checks that a caller's resolution
// (DecodeResolved) yields the program Decode builds when it resolves the
// module itself: calls, labels, a .branchtargets table, an alias and
// "%r<N>" registers.
func TestDecodeResolvedSharesResolution(t *testing.T) {
	src := header + `.func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %t<2>;
	ld.param.b32 %t0, [x];
	add.s32 %t1, %t0, %t0;
	st.param.b32 [r], %t1;
	ret;
}
.func (.param .b32 r) twin(.param .b32 x);
.alias twin, twice;
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<4>;
	.param .b32 a;
	.param .b32 b;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r1, %r1, 1;
ts:	.branchtargets L0, L1;
	brx.idx %r1, ts;
L0:	mov.u32 %r2, 3;
	bra done;
L1:	mov.u32 %r2, 5;
done:
	st.param.b32 [a], %r2;
	call (b), twin, (a);
	ld.param.b32 %r3, [b];
	st.global.u32 [%rd1], %r3;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	info, rerrs := resolve.Module(m)
	if rerrs.HasErrors() {
		t.Fatal(rerrs.Err())
	}
	own, errs := Decode(m, "")
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	given, errs := DecodeResolved(m, info, "")
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	if a, b := programText(own), programText(given); a != b {
		t.Errorf("Decode:\n%s\nDecodeResolved:\n%s", a, b)
	}
	res, err := execute(given, Config{Grid: dims(1, 1, 1), Block: dims(2, 1, 1)}, []Arg{buf(4)})
	if err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	if got := u32s(res.Buffers[0].Data)[0]; got != 6 && got != 10 {
		t.Errorf("out = %d, want 6 (lane 0) or 10 (lane 1)", got)
	}
}

// programText lists the decoded instructions' operands and targets.
func programText(p *Program) string {
	var b strings.Builder
	fmt.Fprintf(&b, "slots %d, local %d\n", p.numSlots, p.localFrame)
	for _, in := range p.Insts {
		fmt.Fprintf(&b, "%s %d %d %d %d %d %d %v\n", in.Opcode, in.Guard, in.D, in.A, in.B, in.C, in.Target, in.V)
	}
	return b.String()
}

package resolve_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// frontEndCases are small kernels on which the front end (parser and
// resolver) must agree with ptxas 12.5: ok is whether ptxas accepts them.
// Each case is checked against the front end always and against ptxas
// when it is available, so the expectations are the oracle's.
var frontEndCases = []struct {
	name string
	ok   bool
	decl string // module-scope text before the kernel
	body string // kernel body
}{
	{"plain", true, "", "mov.u32 %r1, %tid.x;"},
	{"offset plus negative", true, "", "st.global.u32 [%rd1+-8], %r1;"},
	{"offset minus", false, "", "st.global.u32 [%rd1-8], %r1;"},
	{"offset expression after plus", true, "", "st.global.u32 [%rd1+16-1], %r1;"},
	{"offset with spaces", true, "", "st.global.u32 [ %rd1 + 0 ], %r1;"},
	{"symbol minus", false, ".global .u32 gw;", "st.global.u32 [gw-4], %r1;"},
	{"symbol plus negative", true, ".global .u32 gw;", "st.global.u32 [gw+-4], %r1;"},
	{"tid.w", true, "", "mov.u32 %r1, %tid.w;"},
	{"tid.r", true, "", "mov.u32 %r1, %tid.r;"},
	{"laneid.x", false, "", "mov.u32 %r1, %laneid.x;"},
	{"cluster special", true, "", "mov.u32 %r1, %cluster_ctarank;"},
	{"envreg31", true, "", "mov.u32 %r1, %envreg31;"},
	{"envreg32", false, "", "mov.u32 %r1, %envreg32;"},
	{"register in range", true, "", "mov.u32 %r3, 1;"},
	{"register out of range", false, "", "mov.u32 %r4, 1;"},
	{"undeclared register", false, "", "mov.u32 %x, 1;"},
	{"use before declaration", false, "", "mov.u32 %late, 1;\n\t.reg .b32 %late;"},
	{"duplicate register", false, "", ".reg .b32 %r<2>;"},
	{"duplicate element", false, "", ".reg .b32 %r2;"},
	{"shadow in block", true, "", "{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1;\n\t}"},
	{"name beyond a parameterized range", true, "", ".reg .b32 %r9;\n\tmov.u32 %r9, 1;"},
	{"outer range covers what inner does not", true, "", "{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r3, 1;\n\t}"},
	{"inner plain name shadows outer element", true, "", "{\n\t.reg .b64 %r1;\n\tmov.u64 %r1, 1;\n\t}"},
	{"block register not visible after", false, "", "{\n\t.reg .b32 %in;\n\t}\n\tmov.u32 %in, 1;"},
	{"label in nested block from outside", false, "", "bra L1;\n\t{\n\tL1: ret;\n\t}"},
	{"label in enclosing block from inside", true, "", "{\n\tbra L2;\n\t}\nL2: ret;"},
	{"same label in sibling blocks", true, "", "{\n\tL3: ret;\n\t}\n\t{\n\tL3: ret;\n\t}"},
	{"duplicate label", false, "", "L4: ret;\nL4: ret;"},
	{"forward branch", true, "", "bra L5;\nL5: ret;"},
	{"call declared function", true, ".func f() { ret; }", "call f, ();"},
	{"call later function", false, "", "call g, ();"},
	{"initializer with earlier variable", true, ".global .u32 a;\n.global .u64 pa = generic(a);", "ret;"},
	{"initializer with later variable", false, ".global .u64 pb = generic(b);\n.global .u32 b;", "ret;"},
	{"file with timestamp", true, `.file 1 "a.cu", 5`, "ret;"},
	{"file without commas", false, `.file 1 "a.cu" 1 2`, "ret;"},
	{"file with directory", false, `.file 1 "/src" "a.cu"`, "ret;"},
	{"prototype on its own line", true, "", "p0:\n\t.callprototype ()_ (.param .b64 _);"},
	{"float forms", true, "", "mov.f32 %f1, 1.;\n\tmov.f32 %f1, 0F3F800000;\n\tmov.f32 %f1, 1e-3;"},
	{"integer forms", true, "", "mov.s32 %r1, -0x1;\n\tmov.u32 %r1, 0b101;\n\tmov.u32 %r1, 017;\n\tmov.u32 %r1, 7U;"},
	{"missing semicolon", false, "", "mov.u32 %r1, 1\n\tmov.u32 %r2, 2;"},
	{"constant before base", false, "", "st.global.u32 [4+%rd1], %r1;"},
	{"negative constant before base", false, "", "st.global.u32 [-8+%rd1], %r1;"},
	{"empty statement", false, "", "mov.u32 %r1, 1;;"},
	{"guarded block", false, "", "@%r1 { mov.u32 %r1, 1; }"},
	{"trailing comma", false, "", "mov.u32 %r1, 1,;"},
	{"empty register range", true, "", ".reg .b32 %q<0>;"},
	{"component of a vector register", true, "", "{\n\t.reg .v4 .b32 %vv;\n\tmov.b32 %r1, %vv.y;\n\t}"},
	{"component of a scalar register", false, "", "mov.b32 %r1, %r2.y;"},
	{"WARP_SZ operand", true, "", "mov.u32 %r1, WARP_SZ;"},
	{"WARP_SZ declared", false, ".global .u32 WARP_SZ;", "ret;"},
	{"sink operand", true, ".shared .b64 bar;", "mbarrier.arrive.shared::cta.b64 _, [bar];"},
}

func frontEndOK(t *testing.T, src string) (bool, string) {
	m, errs := parser.ParseString("case.ptx", src)
	if !errs.HasErrors() {
		_, rerrs := resolve.Module(m)
		errs = append(errs, rerrs...)
	}
	if err := errs.Err(); err != nil {
		return false, err.Error()
	}
	return true, ""

}

func caseSource(decl, body string) string {
	return ".version 8.5\n.target sm_90a\n.address_size 64\n" + decl +
		"\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n\t" + body + "\n\tret;\n}\n"
}

func TestFrontEndAgreesWithPtxas(t *testing.T) {
	bin := oracle.Ptxas()
	for _, c := range frontEndCases {
		t.Run(c.name, func(t *testing.T) {
			src := caseSource(c.decl, c.body)
			if ok, errs := frontEndOK(t, src); ok != c.ok {
				t.Errorf("front end accepts = %v, want %v; diagnostics: %s\n%s", ok, c.ok, errs, src)
			}
			if bin == "" {
				return
			}
			f := filepath.Join(t.TempDir(), "case.ptx")
			if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-arch=sm_90a", f, "-o", os.DevNull).CombinedOutput()
			if (err == nil) != c.ok {
				t.Errorf("ptxas accepts = %v, table says %v: %s", err == nil, c.ok, strings.TrimSpace(string(out)))
			}
		})
	}
	if bin == "" {
		t.Log(oracle.SkipMessage + "; checked the front end only")
	}
}

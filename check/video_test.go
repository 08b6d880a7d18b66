package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
)

// videoLines are hand-written video instructions with operand selectors
// (PTX ISA 9.7.19, 9.7.20) and whether ptxas 12.5 rejects them (probed;
// TestVideoSelectorsPtxas asks it again where it is installed). For the
// rejected ones: the rule, column and message part ptxkit reports.
var videoLines = []struct {
	target, body string
	bad          bool
	rule         string
	col          int
	msg          string
}{
	{"sm_90", "vadd.s32.u32.s32.sat %Rb32_1, %Rb32_2.b0, %Rs32_3.h1;", false, "", 0, ""},
	{"sm_90", "vsub.u32.u32.u32.sat %Ru32_1.h1, %Rb32_2.b3, %Rb32_3, %Rb32_4;", false, "", 0, ""},
	{"sm_90", "vset.u32.s32.ne %Rb32_1.b2, %Rb32_2, %Rb32_3.h0, %Rb32_4;", false, "", 0, ""},
	{"sm_90", "vshr.s32.s32.u32.clamp %Rb32_1, %Rb32_2.h1, %Rb32_3.b1;", false, "", 0, ""},
	{"sm_90", "vmad.s32.s32.u32.sat %Rb32_1, -%Rb32_2.b1, %Rb32_3.h0, %Rb32_4;", false, "", 0, ""},
	{"sm_90", "vadd2.s32.u32.s32 %Rb32_1.h1, %Rb32_2.h03, %Rb32_3.h31, %Rb32_4;", false, "", 0, ""},
	{"sm_90", "vset4.u32.u32.ge.add %Rb32_1.b310, %Rb32_2.b7070, %Rb32_3.b6541, %Rb32_4;", false, "", 0, ""},
	{"sm_90", "vmin4.u32.u32.u32 %Rb32_1.b3210, %Rb32_2.b0123, %Rb32_3.b7654, %Rb32_4;", false, "", 0, ""},
	// byte pairs on a scalar destination: ptxas takes them for sm_70 and later
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1.b12, %Rb32_2, %Rb32_3, %Rb32_4;", false, "video-selector", 25, "not in the manual"},
	// a selector in a braced vector: ptxas accepts it
	{"sm_90", "st.global.v2.u32 [%Ru64_1], {%Ru32_1.b0, %Ru32_2};", false, "video-selector", 37, "in a vector"},
	// rejected
	{"sm_90", "ld.global.u32 %Ru32_1, [%Ru64_1.b0+4];", true, "video-selector", 32, "an address takes no selector"},
	{"sm_90", "add.u32 %Ru32_1, %Ru32_2.b0+1, 3;", true, "video-selector", 25, "an expression takes no selector"},
	{"sm_90", "add.u32 %Ru32_1, %Ru32_2.b0, %Ru32_3;", true, "video-selector", 25, "only the video instructions"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %Rb32_2.h2, %Rb32_3;", true, "video-selector", 34, "selector .h2 is not allowed on operand a"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %Rb32_2, %Rb32_3.b3210;", true, "video-selector", 43, "not allowed on operand b"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1.b0, %Rb32_2, %Rb32_3;", true, "video-selector", 25, "needs the merge form"},
	{"sm_90", "vadd.u32.u32.u32.add %Rb32_1.b0, %Rb32_2, %Rb32_3, %Rb32_4;", true, "video-selector", 29, "both a destination selector and a secondary operation"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %Rb32_2, %Rb32_3, %Rb32_4.b1;", true, "video-selector", 52, "operand c of vadd takes no selector"},
	{"sm_90", "vmad.u32.u32.u32 %Rb32_1.h0, %Rb32_2, %Rb32_3, %Rb32_4;", true, "video-selector", 25, "operand d of vmad takes no selector"},
	{"sm_90", "vadd2.u32.u32.u32 %Rb32_1.h01, %Rb32_2, %Rb32_3, %Rb32_4;", true, "video-selector", 26, "not allowed on operand d"},
	{"sm_90", "vadd2.u32.u32.u32 %Rb32_1, %Rb32_2.h4, %Rb32_3, %Rb32_4;", true, "video-selector", 35, "not allowed on operand a"},
	{"sm_90", "vadd4.u32.u32.u32 %Rb32_1.b01, %Rb32_2, %Rb32_3, %Rb32_4;", true, "video-selector", 26, "not allowed on operand d"},
	{"sm_90", "vadd4.u32.u32.u32 %Rb32_1, %Rb32_2.b10, %Rb32_3, %Rb32_4;", true, "video-selector", 35, "not allowed on operand a"},
	{"sm_90", "vadd4.u32.u32.u32 %Rb32_1, %Rb32_2, 5, %Rb32_4;", true, "operand-kind", 37, "must be a register"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %Rb64_2.b0, %Rb32_3;", true, "video-selector", 34, "needs a 32-bit register"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %laneid.b0, %Rb32_3;", true, "video-selector", 34, "needs a register"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %tid.x, %Rb32_3;", true, "operand-kind", 27, "takes no special register"},
	{"sm_90", "vadd.u32.u32.u32 %Rb32_1, %Rb32_2, %Rb32_3+1;", true, "operand-kind", 36, "register plus constant"},
	{"sm_90", "vmad.u32.u32.u32.po %Rb32_1, -%Rb32_2.b0, %Rb32_3, %Rb32_4;", true, "operand-kind", 1, "takes no negated operand"},
	{"sm_90", "vmad.s32.s32.s32 %Rb32_1, %Rb32_2, -%Rb32_3.h1, -%Rb32_4;", true, "operand-kind", 1, "the product a*b or c, not both"},
	{"sm_61", "vadd.u32.u32.u32 %Rb32_1.b23, %Rb32_2, %Rb32_3, %Rb32_4;", true, "video-selector", 25, "only for sm_70 and later"},
}

// TestVideoSelectorDiagnostics checks what ptxkit reports on each line of
// videoLines: nothing on the accepted ones (a warning at most), the rule
// at the column on the rejected ones.
func TestVideoSelectorDiagnostics(t *testing.T) {
	for _, c := range videoLines {
		l, first := checkSnippet(t, "8.5", c.target, c.body)
		if !c.bad && l.HasErrors() {
			t.Errorf("%s (%s): want no error, got %v", c.body, c.target, l)
		}
		if c.rule == "" {
			if len(l) > 0 {
				t.Errorf("%s: want no diagnostics, got %v", c.body, l)
			}
			continue
		}
		found := false
		for _, d := range l {
			sev := d.Severity == diag.Error
			if d.Rule == c.rule && int(d.Pos.Line) == first && int(d.Pos.Col) == c.col && strings.Contains(d.Message, c.msg) && sev == c.bad {
				found = true
			}
		}
		if !found {
			t.Errorf("%s (%s): want %s at column %d containing %q, got %v", c.body, c.target, c.rule, c.col, c.msg, l)
		}
	}
}

// TestVideoSelectorsPtxas asks ptxas 12.5 for its verdict on each line
// of videoLines, one line per module.
func TestVideoSelectorsPtxas(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skipf("ptxas 12.5: %s", oracle.SkipMessage)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "k.ptx")
	for _, c := range videoLines {
		// A module of one line: any failure is that line's. (Some
		// selectors make ptxas stop in its own built-in code, at a line
		// of that code.)
		if err := os.WriteFile(f, []byte(kernelHeader("8.5", c.target)+c.body+"\n"+kernelFooter), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ptxas, "-arch="+c.target, f, "-o", filepath.Join(dir, "k.cubin")).CombinedOutput()
		if got := err != nil; got != c.bad {
			t.Errorf("%s (%s): ptxas error=%v, the table says %v: %s", c.body, c.target, got, c.bad, out)
		}
	}
}

package lsp

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
)

// TestIgnoreComment checks that the server honours "// ptxkit:ignore RULE"
// as ptxkit check does: the named rule is silenced on its line, others
// are not.
func TestIgnoreComment(t *testing.T) {
	src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" +
		"\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n" +
		"\tst.global.relaxed.u32 [%rd1], %r1;\n" +
		"\t// ptxkit:ignore st-sem-scope\n\tst.global.relaxed.u32 [%rd1], %r1;\n" +
		"\tst.global.relaxed.u32 [%rd1], %r1; // ptxkit:ignore duplicate-qualifier\n\tret;\n}\n"
	var lines []int32
	for _, d := range analyze("k.ptx", src, check.Config{}).diags {
		if d.Rule == "st-sem-scope" {
			lines = append(lines, d.Pos.Line)
		}
	}
	if len(lines) != 2 || lines[0] != 9 || lines[1] != 12 {
		t.Errorf("st-sem-scope reported on lines %v, want 9 and 12 (11 is silenced)", lines)
	}
	if !strings.Contains(src, "ptxkit:ignore") {
		t.Fatal("test source lost its comment")
	}
}

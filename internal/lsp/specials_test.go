package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestHoverEverySpecialRegister hovers over a read of every special
// register of isa's table: each hover names the register, its type, its
// meaning, and the version, target and section that introduced it.
func TestHoverEverySpecialRegister(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n")
	b.WriteString("\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n")
	for _, r := range isa.SRegs() {
		name := r.Name
		if r.Vector {
			name += ".x"
		}
		switch r.Type {
		case isa.QPred:
			fmt.Fprintf(&b, "\tmov.pred %%p1, %s;\n", name)
		case isa.QU64:
			fmt.Fprintf(&b, "\tmov.u64 %%rd1, %s;\n", name)
		default:
			fmt.Fprintf(&b, "\tmov.u32 %%r1, %s;\n", name)
		}
	}
	b.WriteString("\tret;\n}\n")
	src := b.String()
	c := initialized(t, "utf-16")
	c.open(kernelURI, src)
	c.diagnostics(kernelURI)
	for _, r := range isa.SRegs() {
		needle := " " + r.Name + ";"
		if r.Vector {
			needle = " " + r.Name + ".x;"
		}
		h := hoverAt(t, c, at(t, src, needle, 0, 2, "utf-16"))
		for _, w := range []string{"**special register** `" + r.Name + "`", " " + r.Type.String(), r.Meaning,
			"PTX ISA " + r.PTX.String() + ", " + r.Arch.Minimal(), r.Section + ","} {
			if !strings.Contains(h.Contents.Value, w) {
				t.Errorf("hover on %s: %q lacks %q", r.Name, h.Contents.Value, w)
			}
		}
	}
}

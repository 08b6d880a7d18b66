package main

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestExplainEverySpecialRegister explains a mov from every special
// register of isa's table: the special-register section gives its type,
// meaning and requirement, and at the version and target that introduced
// it the instruction has no problem.
func TestExplainEverySpecialRegister(t *testing.T) {
	for _, r := range isa.SRegs() {
		name, typ := r.Name, r.Type.String()
		if r.Vector {
			name += ".z"
		}
		if r.Type == isa.QB32 {
			typ = ".u32"
		}
		inst := "mov" + typ + " %r1, " + name + ";"
		target := r.Arch.Minimal()
		if r.Arch.Min < 50 {
			target = "sm_50"
		}
		out, _, code := explain(t, inst, "--target", target, "--ptx", max(r.PTX, isa.V(4, 0)).String())
		sec := section(out, "special reg")
		for _, w := range []string{r.Name + "  ", r.Meaning, "requires PTX ISA " + r.PTX.String() + ", " + r.Arch.String(), r.Section} {
			if !strings.Contains(sec, w) {
				t.Errorf("explain %q: special register section %q lacks %q", inst, sec, w)
			}
		}
		if code != exitOK {
			t.Errorf("explain %q at its own version and target: exit %d\n%s", inst, code, out)
		}
	}
}

// TestExplainSpecialRegisterGate explains a read of %cluster_ctarank for
// sm_80: the problems name the target it needs (ptxas 12.5: "requires
// .target sm_90 or higher").
func TestExplainSpecialRegisterGate(t *testing.T) {
	out, _, code := explain(t, "mov.u32 %r1, %cluster_ctarank;", "--target", "sm_80", "--ptx", "7.8")
	if p := section(out, "problems"); code != exitFail || !strings.Contains(p, "%cluster_ctarank requires sm_90 or higher") || !strings.Contains(p, "[target]") {
		t.Errorf("exit %d, problems:\n%s", code, p)
	}
}

package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestEverySpecialRegisterReads reads every special register of isa's
// table (every component of the vector ones) in one kernel; the emulator
// computes each and refuses none.
func TestEverySpecialRegisterReads(t *testing.T) {
	var names []string
	for _, r := range isa.SRegs() {
		if _, ok := specialKinds[r.Kind]; !ok {
			t.Errorf("the emulator does not model %s", r.Name)
		}
		if !r.Vector {
			names = append(names, r.Name)
			continue
		}
		for _, c := range []string{"x", "y", "z"} {
			names = append(names, r.Name+"."+c)
		}
	}
	var b strings.Builder
	b.WriteString(header + ".visible .entry k(.param .u64 out)\n{\n\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n")
	b.WriteString("\tld.param.u64 %rd1, [out];\n\tmov.u64 %rd3, 0;\n\tmov.u32 %r3, 0;\n")
	for _, n := range names {
		switch isa.LookupSReg(strings.Split(n, ".")[0]).Type {
		case isa.QPred:
			fmt.Fprintf(&b, "\tmov.pred %%p1, %s;\n", n)
		case isa.QU64:
			fmt.Fprintf(&b, "\tmov.u64 %%rd2, %s;\n\tadd.u64 %%rd3, %%rd3, %%rd2;\n", n)
		default:
			fmt.Fprintf(&b, "\tmov.u32 %%r2, %s;\n\tadd.u32 %%r3, %%r3, %%r2;\n", n)
		}
	}
	b.WriteString("\tst.global.u64 [%rd1], %rd3;\n\tst.global.u32 [%rd1+8], %r3;\n\tret;\n}\n")
	launch(t, b.String(), Config{Block: dims(32, 1, 1)}, buf(16))
}

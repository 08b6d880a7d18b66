package check

import (
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestBlackwellGemmKernels: the Blackwell GEMM kernels the emulator runs
// end to end (emu/testdata: the 1-CTA kernel, its tf32 and f8f6f4
// instantiations, and the 2SM kernel) check without an error. ptxas 12.5
// cannot assemble sm_100a, so no ptxas verdict is compared here.
func TestBlackwellGemmKernels(t *testing.T) {
	one, err := os.ReadFile("../emu/testdata/tcgen05_gemm.ptx")
	if err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile("../emu/testdata/tcgen05_gemm_2sm.ptx")
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string]string{"gemm": string(one), "gemm_2sm": string(two)}
	for _, kind := range []string{"tf32", "f8f6f4"} {
		s := strings.Replace(string(one), ".kind::f16 [%r8]", ".kind::"+kind+" [%r8]", 1)
		if s == string(one) {
			t.Fatal("the kernel's tcgen05.mma line changed")
		}
		srcs["gemm_"+kind] = s
	}
	for name, src := range srcs {
		m, errs := parser.ParseString(name+".ptx", src)
		for _, x := range append(errs, Module(m, Config{})...) {
			if x.Severity == diag.Error {
				t.Errorf("%s: %v", name, x)
			}
		}
	}
}

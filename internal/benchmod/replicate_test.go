package benchmod_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestReplicateIsClean checks that copies of the functions of real
// compiler output make a module that checks as cleanly as the original:
// every copy's functions renamed consistently, qualifiers left alone.
func TestReplicateIsClean(t *testing.T) {
	for _, name := range []string{"../../testdata/ptx/nvcc/ops_sm_90a.ptx", "../../testdata/ptx/nvcc/ref_fp.ptx"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src, err := benchmod.Replicate(string(b), 3*len(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(src) < 3*len(b) || strings.Count(src, "_c2") == 0 {
			t.Fatalf("%s: %d bytes, want three copies at least", name, len(src))
		}
		m, errs := parser.ParseString(name, src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", name, errs)
		}
		if l := check.Module(m, check.Config{}); l.HasErrors() {
			t.Errorf("%s: the copies do not check cleanly: %v", name, l[0])
		}
	}
}

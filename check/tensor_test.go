package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// tensorImmCase is an instruction whose immediates check/tensor.go
// decides, and ptxas 12.5's verdict on it: "" (accepted) or the rule
// check must give.
type tensorImmCase struct {
	target, body, rule string
}

const (
	tWgF16   = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_0, %Rb64_1"
	tWgSpF16 = "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_0, %Rb64_1, %Rb32_0"
	tWgSpF8  = "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_0, %Rb64_1, %Rb32_0"
	tWgSpS8  = "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%Rs32_0, %Rs32_1, %Rs32_2, %Rs32_3}, %Rb64_0, %Rb64_1, %Rb32_0"
	tF4      = "{%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}"
	tB4      = "{%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}"
	tB2      = "{%Rb32_0, %Rb32_1}"
	tS4      = "{%Rs32_0, %Rs32_1, %Rs32_2, %Rs32_3}"
)

// The verdicts were ptxas 12.5's when this was written;
// TestTensorImmediatesPtxas asks it again when it is installed.
var tensorImmCases = []tensorImmCase{
	{"sm_90a", tWgF16 + ", 1, 1, 1, 0, 0;", ""},
	{"sm_90a", tWgF16 + ", %Rpred_0, -1, -1, 1, 1;", ""},
	{"sm_90a", tWgF16 + ", 1, 1, 1, 2, 0;", "operand-range"},
	{"sm_90a", tWgF16 + ", 1, 1, 1, 0, -1;", "operand-range"},
	{"sm_90a", tWgF16 + ", 1, 2, 1, 0, 0;", "operand-range"},
	{"sm_90a", tWgF16 + ", 1, 0, 1, 0, 0;", "operand-range"},
	{"sm_90a", tWgF16 + ", 2, 1, 1, 0, 0;", "operand-range"},
	{"sm_90a", tWgF16 + ", 1, %Rb32_0, 1, 0, 0;", "operand-kind"},
	{"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + tF4 + ", " + tB4 + ", %Rb64_1, 1, 1, 1, 2;", "operand-range"},
	{"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + tF4 + ", " + tB4 + ", %Rb64_1, 1, 1, -1, 1;", ""},
	{"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " + tF4 + ", %Rb64_0, %Rb64_1, 1, 1, 2;", "operand-range"},
	{"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 " + tS4 + ", %Rb64_0, %Rb64_1, 0;", ""},
	{"sm_90a", tWgSpF16 + ", 1, 1, 1, 1, 0, 0;", ""},
	{"sm_90a", tWgSpF16 + ", 2, 1, 1, 1, 0, 0;", "operand-range"},
	{"sm_90a", tWgSpF16 + ", %Rb32_1, 1, 1, 1, 0, 0;", "operand-kind"},
	{"sm_90a", tWgSpF8 + ", 0, 1, 1, 1;", ""},
	{"sm_90a", tWgSpF8 + ", 1, 1, 1, 1;", "operand-range"},
	{"sm_90a", tWgSpS8 + ", 1, 0;", "operand-range"},
	{"sm_90a", tWgSpS8 + ", 0, 1;", ""},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + tF4 + ", " + tB2 + ", " + tB2 + ", " + tF4 + ", %Rb32_0, 3;", ""},
	{"sm_80", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + tF4 + ", " + tB2 + ", " + tB2 + ", " + tF4 + ", %Rb32_0, 4;", "operand-range"},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + tF4 + ", " + tB2 + ", " + tB2 + ", " + tF4 + ", %Rb32_0, %Rb32_1;", "operand-kind"},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + tF4 + ", " + tB4 + ", " + tB4 + ", " + tF4 + ", %Rb32_0, 3;", ""},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 " + tF4 + ", " + tB2 + ", " + tB2 + ", " + tF4 + ", %Rb32_0, 3;", ""},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 " + tF4 + ", " + tB4 + ", " + tB4 + ", " + tF4 + ", %Rb32_0, 2;", "operand-range"},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 " + tS4 + ", " + tB2 + ", " + tB2 + ", " + tS4 + ", %Rb32_0, 1;", ""},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 " + tS4 + ", " + tB2 + ", " + tB2 + ", " + tS4 + ", %Rb32_0, 2;", "operand-range"},
	{"sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32 " + tS4 + ", " + tB4 + ", " + tB4 + ", " + tS4 + ", %Rb32_0, 1;", "operand-range"},
	{"sm_89", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 " + tF4 + ", " + tB4 + ", " + tB4 + ", " + tF4 + ", %Rb32_0, 1;", "operand-range"},
	{"sm_89", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 " + tF4 + ", " + tB4 + ", " + tB4 + ", " + tF4 + ", %Rb32_0, 0;", ""},
}

// TestTensorImmediates holds check to the recorded verdicts.
func TestTensorImmediates(t *testing.T) {
	for _, c := range tensorImmCases {
		l, _ := checkSnippet(t, "8.5", c.target, c.body)
		var got []string
		for _, d := range l {
			got = append(got, d.Rule)
		}
		switch {
		case c.rule == "" && len(l) != 0:
			t.Errorf("%s (%s): ptxas accepts it, check says %v", c.body, c.target, l)
		case c.rule != "" && !strings.Contains(strings.Join(got, " "), c.rule):
			t.Errorf("%s (%s): want %s, got %v", c.body, c.target, c.rule, l)
		}
	}
}

// TestTensorImmediatesPtxas asks ptxas 12.5 again for every case.
func TestTensorImmediatesPtxas(t *testing.T) {
	ptxas := oracle.Ptxas()
	if ptxas == "" {
		t.Skip(oracle.SkipMessage)
	}
	dir := t.TempDir()
	for i, c := range tensorImmCases {
		src := filepath.Join(dir, "t.ptx")
		if err := os.WriteFile(src, []byte(kernelHeader("8.5", c.target)+c.body+"\n"+kernelFooter), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ptxas, "-arch="+c.target, src, "-o", filepath.Join(dir, "t.cubin")).CombinedOutput()
		if accepted := err == nil; accepted != (c.rule == "") {
			t.Errorf("case %d %s (%s): ptxas accepted=%v, recorded rule %q\n%s", i, c.body, c.target, accepted, c.rule, out)
		}
	}
}

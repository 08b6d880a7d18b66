package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// halfSetGrid returns set instructions of every destination type with
// every source type where a half type takes part (PTX ISA 9.7.7.1), with
// an ordered, an unsigned, an unordered and the nan comparison, with and
// without .ftz and a BoolOp.
func halfSetGrid() []string {
	half := map[string]bool{"f16": true, "f16x2": true, "bf16": true, "bf16x2": true}
	reg := func(t string, i int) string {
		switch t {
		case "bf16":
			t = "b16"
		case "bf16x2":
			t = "b32"
		}
		return fmt.Sprintf("%%R%s_%d", t, i)
	}
	dts := []string{"u16", "s16", "u32", "s32", "f16", "f16x2", "bf16", "bf16x2", "f32", "b16", "u64", "f64"}
	sts := []string{"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64"}
	var l []string
	for _, d := range dts {
		for _, s := range sts {
			if !half[d] && !half[s] {
				continue
			}
			for _, c := range []string{".eq", ".lo", ".gtu", ".nan"} {
				for _, ftz := range []string{"", ".ftz"} {
					ops := reg(d, 0) + ", " + reg(s, 1) + ", " + reg(s, 2)
					l = append(l, "set"+c+ftz+"."+d+"."+s+" "+ops+";",
						"set"+c+".or"+ftz+"."+d+"."+s+" "+ops+", !%Rpred_3;")
				}
			}
		}
	}
	return l
}

// TestHalfSetGrid compares the checker with ptxas 12.5 line by line on
// halfSetGrid, on versions and targets on both sides of the gates of the
// half forms (PTX 6.5 for integer results of .f16, 7.8 and sm_90 for
// .bf16).
func TestHalfSetGrid(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skipf("ptxas 12.5: %s", oracle.SkipMessage)
	}
	dir := t.TempDir()
	lines := halfSetGrid()
	gates := [][2]string{{"8.5", "sm_90"}, {"7.8", "sm_89"}, {"6.4", "sm_75"}, {"6.5", "sm_53"}}
	if testing.Short() {
		gates = gates[:1]
	}
	for _, vt := range gates {
		header := opKernelHeader(vt[0], vt[1])
		first := strings.Count(header, "\n") + 1
		src := header + strings.Join(lines, "\n") + "\n" + kernelFooter
		theirs, crashed := ptxasVerdicts(t, ptxas, dir, vt[1], src)
		ours, diags := ourErrorLines(src, "")
		again, crashed2 := ptxasVerdicts(t, ptxas, dir, vt[1], acceptedOnly(src, first, len(lines), ours))
		if crashed || crashed2 {
			t.Fatalf("ptxas crashed on the grid (PTX %s %s)", vt[0], vt[1])
		}
		agree, valid := 0, 0
		for i, line := range lines {
			ln := first + i
			want := theirs[ln] || again[ln]
			if !want {
				valid++
			}
			if want == ours[ln] {
				agree++
				continue
			}
			var msgs []string
			for _, d := range diags {
				if int(d.Pos.Line) == ln {
					msgs = append(msgs, d.Message)
				}
			}
			t.Errorf("PTX %s %s: %s: ptxas error=%v, ptxkit error=%v %q", vt[0], vt[1], line, want, ours[ln], msgs)
		}
		t.Logf("PTX %s %s: %d/%d lines agree with ptxas 12.5 (%d accepted)", vt[0], vt[1], agree, len(lines), valid)
		if valid == 0 && vt[1] == "sm_90" {
			t.Errorf("ptxas accepts no line of the grid on %s", vt[1])
		}
	}
}

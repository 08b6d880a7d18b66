package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// sregModule reads every special register of isa's table, one per line,
// in a module of the given version and target. It returns the source and
// the line of each register.
func sregModule(version, target string) (string, map[int]*isa.SReg) {
	var b strings.Builder
	fmt.Fprintf(&b, ".version %s\n.target %s\n.address_size 64\n.visible .entry k()\n{\n", version, target)
	b.WriteString("\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n")
	line := 9
	at := map[int]*isa.SReg{}
	for _, r := range isa.SRegs() {
		name := r.Name
		if r.Vector {
			name += ".x"
		}
		switch r.Type {
		case isa.QPred:
			fmt.Fprintf(&b, "\tmov.pred %%p1, %s;\n", name)
			at[line] = r
			line++
			fmt.Fprintf(&b, "\t@%s mov.u32 %%r1, 0;\n", name) // as a guard
		case isa.QU64:
			fmt.Fprintf(&b, "\tmov.u64 %%rd1, %s;\n", name)
		default:
			fmt.Fprintf(&b, "\tmov.u32 %%r1, %s;\n", name)
		}
		at[line] = r
		line++
	}
	b.WriteString("\tret;\n}\n")
	return b.String(), at
}

// sregGateLines checks src and returns, per line, the rules of its
// errors.
func sregGateLines(t *testing.T, src string) map[int][]string {
	t.Helper()
	m, errs := parser.ParseString("k.ptx", src)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	got := map[int][]string{}
	for _, d := range Module(m, Config{}) {
		if d.Severity == diag.Error {
			got[int(d.Pos.Line)] = append(got[int(d.Pos.Line)], d.Rule)
		}
	}
	return got
}

// TestSpecialRegisterGates reads every special register at the version
// and target that introduced it (no error), one PTX version below (a
// ptx-version error) and one target below (a target error), as isa's
// table gives them.
func TestSpecialRegisterGates(t *testing.T) {
	for _, r := range isa.SRegs() {
		cases := []struct {
			version isa.Version
			sm      int
			want    string
		}{
			{max(r.PTX, isa.V(4, 0)), max(r.Arch.Min, 50), ""},
			{isa.V(8, 5), max(r.Arch.Min, 50), ""},
		}
		if r.PTX > isa.V(4, 0) {
			below := r.PTX - 1
			if below.Minor() > 9 {
				below = isa.V(r.PTX.Major()-1, 9)
			}
			cases = append(cases, struct {
				version isa.Version
				sm      int
				want    string
			}{below, max(r.Arch.Min, 50), "ptx-version"})
		}
		if r.Arch.Min > 50 {
			cases = append(cases, struct {
				version isa.Version
				sm      int
				want    string
			}{isa.V(8, 5), r.Arch.Min - 10, "target"})
		}
		for _, tc := range cases {
			src := fmt.Sprintf(".version %s\n.target sm_%d\n.address_size 64\n.visible .entry k()\n{\n"+
				"\t.reg .b32 %%r<2>;\n\t.reg .b64 %%rd<2>;\n\t.reg .pred %%p<2>;\n\t%s\n\tret;\n}\n",
				tc.version, tc.sm, readSReg(r))
			var rules []string
			for _, l := range sregGateLines(t, src)[9] {
				if l == "ptx-version" || l == "target" {
					rules = append(rules, l)
				}
			}
			got := strings.Join(rules, " ")
			if got != tc.want {
				t.Errorf("%s at PTX %s, sm_%d: gate errors %q, want %q", r.Name, tc.version, tc.sm, got, tc.want)
			}
		}
	}
}

// readSReg is an instruction that reads r.
func readSReg(r *isa.SReg) string {
	name := r.Name
	if r.Vector {
		name += ".x"
	}
	switch r.Type {
	case isa.QPred:
		return "mov.pred %p1, " + name + ";"
	case isa.QU64:
		return "mov.u64 %rd1, " + name + ";"
	}
	return "mov.u32 %r1, " + name + ";"
}

// TestSpecialRegistersAgreeWithPtxas reads every special register of
// isa's table in modules of several versions and targets and compares,
// line by line, where check and ptxas 12.5 report an error.
func TestSpecialRegistersAgreeWithPtxas(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skip(oracle.SkipMessage)
	}
	dir := t.TempDir()
	for _, cfg := range [][2]string{
		{"4.0", "sm_50"}, {"6.0", "sm_50"}, {"7.5", "sm_80"}, {"7.6", "sm_75"}, {"7.6", "sm_80"},
		{"7.7", "sm_86"}, {"7.8", "sm_80"}, {"7.8", "sm_90"}, {"8.0", "sm_90"}, {"8.1", "sm_89"},
		{"8.1", "sm_90"}, {"8.5", "sm_90a"},
	} {
		src, at := sregModule(cfg[0], cfg[1])
		theirs := ptxasErrorLines(t, ptxas, dir, cfg[1], src)
		ours := sregGateLines(t, src)
		for line, r := range at {
			if theirs[line] != (len(ours[line]) > 0) {
				t.Errorf("PTX %s %s: %s: ptxas error %v, check errors %v", cfg[0], cfg[1], r.Name, theirs[line], ours[line])
			}
		}
	}
}

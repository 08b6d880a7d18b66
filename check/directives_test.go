package check

import (
	"maps"
	"slices"
	"testing"
)

// directiveCase is a module and the line ptxas 12.5 stops at (0: it
// assembles the module).
type directiveCase struct {
	what, src string
	line      int
}

const directiveKernel = ".visible .entry k()\n{\n ret;\n}\n"

var directiveCases = []directiveCase{
	{"header", ".version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel, 0},
	{"two .target", ".version 7.0\n.target sm_70\n.target sm_70\n.address_size 64\n" + directiveKernel, 0},
	{"no .address_size", ".version 7.0\n.target sm_70\n" + directiveKernel, 0},
	{".pragma at module scope", ".version 7.0\n.target sm_70\n.address_size 64\n.pragma \"nounroll\";\n" + directiveKernel, 0},
	{".file and .pragma after a function", ".version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel + ".file 1 \"a.cu\"\n.pragma \"nounroll\";\n", 0},
	{".pragma and .loc in a body", ".version 7.0\n.target sm_70\n.address_size 64\n.file 1 \"a.cu\"\n.visible .entry k()\n{\n .pragma \"nounroll\";\n .loc 1 2 3\n ret;\n}\n", 0},
	{"second .version", ".version 7.0\n.version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel, 2},
	{".target first", ".target sm_70\n.version 7.0\n.address_size 64\n" + directiveKernel, 2},
	{".file before .version", ".file 1 \"a.cu\"\n.version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel, 1},
	{".address_size before .target", ".version 7.0\n.address_size 64\n.target sm_70\n" + directiveKernel, 2},
	{"second .address_size", ".version 7.0\n.target sm_70\n.address_size 64\n.address_size 64\n" + directiveKernel, 4},
	{".file between .target and .address_size", ".version 7.0\n.target sm_70\n.file 1 \"a.cu\"\n.address_size 64\n" + directiveKernel, 4},
	{".target after a function", ".version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel + ".target sm_70\n", 8},
	{".version after a function", ".version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel + ".version 7.0\n", 8},
	{".address_size after a function", ".version 7.0\n.target sm_70\n" + directiveKernel + ".address_size 64\n", 7},
	{".maxntid at module scope", ".version 7.0\n.target sm_70\n.address_size 64\n" + directiveKernel + ".maxntid 32\n", 8},
	{"unknown directive at module scope", ".version 7.0\n.target sm_70\n.address_size 64\n.foo 3;\n" + directiveKernel, 4},
	{".loc at module scope", ".version 7.0\n.target sm_70\n.address_size 64\n.loc 1 2 3\n" + directiveKernel, 4},
	{".maxntid in a body", ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n .maxntid 32;\n ret;\n}\n", 6},
	{"unknown directive in a body", ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n .foo 1;\n ret;\n}\n", 6},
}

// TestDirectivePlacement holds check to ptxas 12.5's reading of the module
// header (.version, then .target, then .address_size) and of where other
// directives may stand; with ptxas installed (and not -short) it asks it
// again.
func TestDirectivePlacement(t *testing.T) {
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	for _, c := range directiveCases {
		want := map[int]bool{}
		if c.line != 0 {
			want[c.line] = true
		}
		if ours, l := checkCommandErrorLines(c.src); !maps.Equal(ours, want) {
			t.Errorf("%s: check reports lines %v, want %v: %v", c.what, slices.Sorted(maps.Keys(ours)), c.line, l)
		}
		if ptxas == "" || testing.Short() {
			continue
		}
		// ptxas stops at the first of these (a fatal parsing error).
		lines, fatal := ptxasRun(t, ptxas, dir, "sm_70", c.src)
		if fatal > 0 {
			lines[fatal] = true
		}
		if !maps.Equal(lines, want) {
			t.Errorf("%s: ptxas 12.5 reports lines %v, recorded %d", c.what, slices.Sorted(maps.Keys(lines)), c.line)
		}
	}
}

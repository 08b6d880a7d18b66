package check

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const compilerDir = "../testdata/ptx/nvcc"

var (
	versionLine = regexp.MustCompile(`(?m)^\.version\s+(\d+\.\d+)`)
	targetLine  = regexp.MustCompile(`(?m)^\.target\s+(sm_\w+)`)
)

// readCompilerVerdicts reads testdata/ptx/nvcc/verdicts.txt: for each file,
// the lines ptxas 12.5 reports errors on.
func readCompilerVerdicts(t *testing.T) map[string][]int {
	b, err := os.ReadFile(filepath.Join(compilerDir, "verdicts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string][]int{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		name, lines, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("verdicts.txt: bad line %q", l)
		}
		v[name] = []int{}
		for _, f := range strings.Fields(lines) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("verdicts.txt: bad line number %q", f)
			}
			v[name] = append(v[name], n)
		}
	}
	return v
}

func sortedLines(m map[int]bool) []int {
	l := make([]int, 0, len(m))
	for n := range m {
		l = append(l, n)
	}
	slices.Sort(l)
	return l
}

// TestCompilerFiles checks real compiler output (testdata/ptx/nvcc): the
// checker reports errors on exactly the lines ptxas 12.5 does, as
// recorded, and, where ptxas 12.5 is installed, the record is ptxas's.
func TestCompilerFiles(t *testing.T) {
	want := readCompilerVerdicts(t)
	files, _ := filepath.Glob(filepath.Join(compilerDir, "*.ptx"))
	if len(files) < 8 {
		t.Fatalf("%d files in %s, want at least 8", len(files), compilerDir)
	}
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	for _, f := range files {
		name := filepath.Base(f)
		rec, ok := want[name]
		if !ok {
			t.Errorf("%s: no line in verdicts.txt", name)
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		ours, diags := checkCommandErrorLines(src)
		if got := sortedLines(ours); !slices.Equal(got, rec) {
			t.Errorf("%s: checker errors on lines %v, ptxas 12.5 on %v: %v", name, got, rec, diags)
		}
		if ptxas == "" {
			continue
		}
		m := targetLine.FindStringSubmatch(src)
		vm := versionLine.FindStringSubmatch(src)
		if m == nil || vm == nil {
			t.Fatalf("%s: no .version or .target", name)
		}
		if vm[1] > "8.5" {
			src = versionLine.ReplaceAllString(src, ".version 8.5") // ptxas 12.5 knows PTX ISA 8.5
		}
		if got := sortedLines(ptxasErrorLines(t, ptxas, dir, ptxasArch(m[1]), src)); !slices.Equal(got, rec) {
			t.Errorf("%s: ptxas 12.5 reports lines %v, verdicts.txt %v", name, got, rec)
		}
	}
	if ptxas == "" {
		t.Logf("ptxas 12.5 not found: the recorded verdicts were not checked against it")
	}
}

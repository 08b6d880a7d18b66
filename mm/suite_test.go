package mm

import (
	"bufio"
	"fmt"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// suiteRoot is the shared litmus suite, relative to this package.
var suiteRoot = testref.Path("litmus")

type suiteRow struct {
	path, name, cond string
	safety           [2]string // v6.0, v7.5: PASS, FAIL or -
	liveness         [2]string
}

func readExpected(t *testing.T) []suiteRow {
	t.Helper()
	f, err := os.Open(filepath.Join(suiteRoot, "expected.tsv"))
	if err != nil {
		t.Skipf("litmus suite not available (%v): the agreement test needs ../shared/litmus", err)
	}
	defer f.Close()
	var rows []suiteRow
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		if header {
			header = false
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 8 {
			t.Fatalf("bad expected.tsv row %q", sc.Text())
		}
		rows = append(rows, suiteRow{c[0], c[1], c[2], [2]string{c[4], c[5]}, [2]string{c[6], c[7]}})
	}
	return rows
}

// TestSuiteSafety runs every test of expected.tsv that has a safety verdict
// under each model and compares the verdict.
func TestSuiteSafety(t *testing.T) {
	rows := readExpected(t)
	type tally struct{ agree, total int }
	per := map[string]*tally{}
	var slowest time.Duration
	slowName := ""
	var mismatches []string
	for _, r := range rows {
		for mi, m := range []Model{PTXv60, PTXv75} {
			want := r.safety[mi]
			if want == "-" {
				continue
			}
			src, err := os.ReadFile(filepath.Join(suiteRoot, r.path))
			if err != nil {
				t.Fatal(err)
			}
			prog, err := ParseLitmus(src)
			if err != nil {
				t.Errorf("%s: %v", r.path, err)
				continue
			}
			start := time.Now()
			res, err := Check(prog, m)
			d := time.Since(start)
			if d > slowest {
				slowest, slowName = d, r.path
			}
			key := fmt.Sprintf("%s %s", m, filepath.Dir(r.path))
			if per[key] == nil {
				per[key] = &tally{}
			}
			per[key].total++
			if err != nil {
				mismatches = append(mismatches, fmt.Sprintf("%s %s: %v", m, r.path, err))
				continue
			}
			got := "FAIL"
			if res.Pass {
				got = "PASS"
			}
			if got == want {
				per[key].agree++
			} else {
				mismatches = append(mismatches, fmt.Sprintf("%s %s: got %s want %s (%d executions)", m, r.path, got, want, res.Executions))
			}
		}
	}
	var keys []string
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-28s %3d/%3d", k, per[k].agree, per[k].total)
	}
	t.Logf("slowest: %s %v", slowName, slowest)
	for _, m := range mismatches {
		t.Error(m)
	}
}

// TestSuiteLiveness runs every test of expected.tsv that has a termination
// verdict under each model and compares the verdict.
func TestSuiteLiveness(t *testing.T) {
	rows := readExpected(t)
	agree, total := [2]int{}, [2]int{}
	for _, r := range rows {
		for mi, m := range []Model{PTXv60, PTXv75} {
			want := r.liveness[mi]
			if want == "-" {
				continue
			}
			src, err := os.ReadFile(filepath.Join(suiteRoot, r.path))
			if err != nil {
				t.Fatal(err)
			}
			prog, err := ParseLitmus(src)
			if err != nil {
				t.Errorf("%s: %v", r.path, err)
				continue
			}
			total[mi]++
			res, err := CheckTermination(prog, m)
			if err != nil {
				t.Errorf("%s %s: %v", m, r.path, err)
				continue
			}
			got := "FAIL"
			if res.Pass {
				got = "PASS"
			}
			if got != want {
				t.Errorf("%s %s: got %s want %s", m, r.path, got, want)
				continue
			}
			agree[mi]++
		}
	}
	t.Logf("liveness agreement: ptx-v6.0 %d/%d, ptx-v7.5 %d/%d", agree[0], total[0], agree[1], total[1])
}

// TestSuiteAll decides every file of the suite, verdict or not, under both
// models and properties, and bounds the time of each: a file's time is the
// fastest of three runs of all four decisions, which the machine's load
// disturbs least.
func TestSuiteAll(t *testing.T) {
	var files []string
	err := filepath.Walk(filepath.Join(suiteRoot, "ptx"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".litmus") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Skipf("litmus suite not available (%v)", err)
	}
	type timing struct {
		file string
		d    time.Duration
	}
	var times []timing
	var total time.Duration
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := ParseLitmus(src)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		best := time.Duration(1 << 62)
		for range 3 {
			t0 := time.Now()
			for _, m := range []Model{PTXv60, PTXv75} {
				if _, err := Check(prog, m); err != nil {
					t.Errorf("%s %s safety: %v", f, m, err)
				}
				if _, err := CheckTermination(prog, m); err != nil {
					t.Errorf("%s %s termination: %v", f, m, err)
				}
			}
			best = min(best, time.Since(t0))
		}
		total += best
		times = append(times, timing{f, best})
	}
	sort.Slice(times, func(i, j int) bool { return times[i].d > times[j].d })
	t.Logf("%d files, both models and properties: %v (sum of per-file fastest of 3)", len(files), total)
	for _, x := range times[:min(3, len(times))] {
		t.Logf("  %v %s", x.d, x.file)
	}
	if len(times) > 0 && times[0].d > time.Second {
		t.Errorf("%s took %v, want under 1 s", times[0].file, times[0].d)
	}
}

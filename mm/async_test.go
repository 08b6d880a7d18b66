package mm

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsyncProxyLitmus decides the asynchronous-proxy tests of
// testdata/litmus against the verdicts derived from the manual's text
// (testdata/litmus/expected.tsv gives the rule behind each).
func TestAsyncProxyLitmus(t *testing.T) {
	dir := filepath.Join("..", "testdata", "litmus")
	f, err := os.Open(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	n := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		src, err := os.ReadFile(filepath.Join(dir, c[0]))
		if err != nil {
			t.Fatal(err)
		}
		prog, err := ParseLitmus(src)
		if err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		m, err := ParseModel(c[1])
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(prog, m)
		if err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		got := "unreachable"
		if res.Reachable {
			got = "reachable"
		}
		if got != c[2] {
			t.Errorf("%s: witness %s, want %s (%s)", c[0], got, c[2], c[3])
		}
		if !res.Pass {
			t.Errorf("%s: the test's own condition fails", c[0])
		}
		n++
	}
	if n < 9 {
		t.Errorf("only %d tests", n)
	}
}

// TestAsyncParseErrors checks the extension's operand rules.
func TestAsyncParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"st.async x, 1":                       "st.async needs a location, a value and an mbarrier",
		"cp.async.bulk x, y":                  "cp.async.bulk needs",
		"mbarrier.arrive.release bar":         ".sem and .scope go together",
		"mbarrier.try_wait.release.cta r0, b": "bad qualifiers",
		"mbarrier.try_wait.acquire.gpu r0, b": "bad qualifiers",
		"mbarrier.try_wait bar":               "needs a register and an mbarrier",
	} {
		_, err := parseInstr(&Program{}, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// TestMbarrierDeadlockTermination: the waits of mbarrier-deadlock never
// complete, so termination fails; with the arrivals before the waits, it
// holds.
func TestMbarrierDeadlockTermination(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "litmus", "mbarrier-deadlock.litmus"))
	if err != nil {
		t.Fatal(err)
	}
	swapped := strings.NewReplacer(
		" mbarrier.try_wait r0, bar1  | mbarrier.try_wait r1, bar2  ;\n mbarrier.arrive bar2        | mbarrier.arrive bar1        ;",
		" mbarrier.arrive bar2        | mbarrier.arrive bar1        ;\n mbarrier.try_wait r0, bar1  | mbarrier.try_wait r1, bar2  ;",
	).Replace(string(src))
	if swapped == string(src) {
		t.Fatal("the test file changed; update the replacement")
	}
	for text, hangs := range map[string]bool{string(src): true, swapped: false} {
		prog, err := ParseLitmus([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		res, err := CheckTermination(prog, PTXv75)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reachable != hangs {
			t.Errorf("non-termination reachable %v, want %v for\n%s", res.Reachable, hangs, text)
		}
	}
}

package mm

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// knownDisagreement is the one mixedproxy test whose expectation the PTX
// ISA's release-pattern rule contradicts (docs/litmus.md): st.release then
// st.relaxed to the same location is a release pattern (§8.8), so the
// reader that observes the second store through an acquire fence
// synchronizes with the writer, and the witness is unreachable.
const knownDisagreement = "mixedproxy/tests/Release_acquire_pattern.test"

// TestMixedProxyExpected decides every instance of mixedproxy-expected.tsv
// under ptx-v7.5 and compares reachability with the test's own command.
func TestMixedProxyExpected(t *testing.T) {
	f, err := os.Open(filepath.Join(suiteRoot, "mixedproxy-expected.tsv"))
	if err != nil {
		t.Skipf("litmus suite not available (%v): the test needs ../shared/litmus", err)
	}
	defer f.Close()
	parsed := map[string][]MixedProxyInstance{}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	agree, total := 0, 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		path, instance, expected := c[0], c[1], c[8]
		insts, ok := parsed[path]
		if !ok {
			src, err := os.ReadFile(filepath.Join(suiteRoot, path))
			if err != nil {
				t.Fatal(err)
			}
			if insts, err = ParseMixedProxy(src); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			parsed[path] = insts
		}
		k := 0
		if instance != "-" {
			k, _ = strconv.Atoi(instance)
			k--
		}
		if k < 0 || k >= len(insts) {
			t.Fatalf("%s: instance %s not found (%d parsed)", path, instance, len(insts))
		}
		in := insts[k]
		if in.Expected != expected {
			t.Errorf("%s#%s: parsed expectation %s, tsv says %s", path, instance, in.Expected, expected)
		}
		res, err := Check(in.Prog, PTXv75)
		if err != nil {
			t.Errorf("%s#%s: %v", path, instance, err)
			continue
		}
		got := "unreachable"
		if res.Reachable {
			got = "reachable"
		}
		total++
		switch {
		case got == expected:
			agree++
		case path == knownDisagreement && got == "unreachable":
			t.Logf("%s: unreachable under the manual's release pattern; mixedproxy expects reachable", path)
		default:
			t.Errorf("%s#%s: witness %s, test expects %s", path, instance, got, expected)
		}
	}
	t.Logf("mixedproxy agreement: %d/%d", agree, total)
}

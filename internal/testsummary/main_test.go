package main

import (
	"bytes"
	"strings"
	"testing"
)

const sampleJSON = `{"Action":"start","Package":"github.com/ptxkit/ptxkit/mm"}
{"Action":"run","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestSuite"}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestSuite","Output":"=== RUN   TestSuite\n"}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestSuite","Output":"    suite_test.go:20: litmus suite not available\n"}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestSuite","Output":"--- SKIP: TestSuite (0.00s)\n"}
{"Action":"skip","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestSuite","Elapsed":0}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestOther","Output":"    other_test.go:9: litmus suite not available\n"}
{"Action":"skip","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestOther","Elapsed":0}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestPtxas","Output":"    x_test.go:3: ptxas not found\n"}
{"Action":"skip","Package":"github.com/ptxkit/ptxkit/mm","Test":"TestPtxas","Elapsed":0}
{"Action":"pass","Package":"github.com/ptxkit/ptxkit/mm","Elapsed":1.5}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/emu","Test":"TestBad","Output":"    bad_test.go:7: wrong\n"}
{"Action":"output","Package":"github.com/ptxkit/ptxkit/emu","Test":"TestBad","Output":"--- FAIL: TestBad (0.01s)\n"}
{"Action":"fail","Package":"github.com/ptxkit/ptxkit/emu","Test":"TestBad","Elapsed":0.01}
{"Action":"fail","Package":"github.com/ptxkit/ptxkit/emu","Elapsed":9.25}
`

func TestSummary(t *testing.T) {
	s := newSummary()
	var out bytes.Buffer
	if err := s.read(strings.NewReader(sampleJSON), &out); err != nil {
		t.Fatal(err)
	}
	if !s.failed {
		t.Error("a failed package was not noticed")
	}
	for _, want := range []string{"ok  \tgithub.com/ptxkit/ptxkit/mm\t1.500s\n", "    bad_test.go:7: wrong\n--- FAIL: TestBad (0.01s)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	want := `skipped: 3 tests: 2 × "litmus suite not available" (mm.TestOther, mm.TestSuite); 1 × "ptxas not found" (mm.TestPtxas)`
	if got := s.skipLine(); got != want {
		t.Errorf("skip line\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	s.writeTiming(&out)
	if !strings.HasPrefix(out.String(), "package times (sum 10.8s):\n     9.2s  emu\n     1.5s  mm\n") {
		t.Errorf("timing:\n%s", out.String())
	}
}

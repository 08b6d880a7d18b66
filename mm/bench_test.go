package mm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

func suitePrograms(b *testing.B) []*Program {
	var progs []*Program
	err := filepath.Walk(filepath.Join(suiteRoot, "ptx"), func(p string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(p, ".litmus") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		prog, err := ParseLitmus(src)
		if err != nil {
			return err
		}
		progs = append(progs, prog)
		return nil
	})
	if err != nil {
		b.Skipf("litmus suite not available (%v)", err)
	}
	return progs
}

// BenchmarkSuiteSafety decides the condition of all 748 suite files under
// ptx-v7.5; one op is the whole suite.
func BenchmarkSuiteSafety(b *testing.B) {
	benchSuite(b, Check)
}

// BenchmarkSuiteTermination decides termination of all 748 suite files
// under ptx-v7.5; one op is the whole suite.
func BenchmarkSuiteTermination(b *testing.B) {
	benchSuite(b, CheckTermination)
}

// benchSuite decides every suite program per op and reports the CPU time
// per suite, which the machine's load disturbs less than wall time.
func benchSuite(b *testing.B, decide func(*Program, Model) (*Result, error)) {
	progs := suitePrograms(b)
	b.ReportAllocs()
	b.ResetTimer()
	start := benchmod.CPUTime()
	for i := 0; i < b.N; i++ {
		for _, p := range progs {
			if _, err := decide(p, PTXv75); err != nil {
				b.Fatal(err)
			}
		}
	}
	if d := benchmod.CPUTime() - start; start != 0 && d > 0 {
		b.ReportMetric(float64(d.Milliseconds())/float64(b.N), "cpu-ms/suite")
	}
}

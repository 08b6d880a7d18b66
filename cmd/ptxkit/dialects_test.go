package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// TestDialects checks ptxkit check on PTX in the dialects real files use
// (nvcc of every age, NVIDIA OpenCL, 32-bit modules, separate compilation)
// against golden diagnostics in testdata/dialects/*.golden, and, when
// ptxas 12.5 is installed, that each verdict is ptxas's.
func TestDialects(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "dialects", "*.ptx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dialect files: %v", err)
	}
	ptxas := oracle.Ptxas()
	if ptxas == "" {
		t.Logf("verdicts not compared with ptxas: %s", oracle.SkipMessage)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ptx")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"check", f}, nil, &stdout, &stderr)
			got := strings.ReplaceAll(stderr.String(), f, name+".ptx") + "exit " + strconv.Itoa(code) + "\n"
			golden := strings.TrimSuffix(f, ".ptx") + ".golden"
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if ptxas != "" {
				if accepts := ptxasAccepts(t, ptxas, f); accepts != (code == exitOK) {
					t.Errorf("ptxas 12.5 accepts: %v; ptxkit check exit %d", accepts, code)
				}
			}
		})
	}
}

// TestSeparateCompilation checks -c: calls to functions defined in another
// module are fine, as with ptxas -c.
func TestSeparateCompilation(t *testing.T) {
	f := filepath.Join("..", "..", "testdata", "dialects", "extern_unresolved.ptx")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "-c", f}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("check -c: exit %d\n%s", code, stderr.String())
	}
	if ptxas := oracle.Ptxas(); ptxas != "" && !ptxasAccepts(t, ptxas, f, "-c") {
		t.Errorf("ptxas -c rejects %s", f)
	}
}

func ptxasAccepts(t *testing.T, ptxas, file string, extra ...string) bool {
	args := append([]string{"-arch=sm_80", file, "-o", filepath.Join(t.TempDir(), "k.cubin")}, extra...)
	err := exec.Command(ptxas, args...).Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatal(err)
	}
	return err == nil
}

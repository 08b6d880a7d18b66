package main

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// TestCheckPipedMatchesSerial checks that checking a file with the parser
// on its own goroutine (checkPiped) reports exactly the diagnostics of the
// serial pipeline, on the test modules and on a many-kernel module with
// validator errors, resolution errors and a syntax error at places that
// fall in different batches.
func TestCheckPipedMatchesSerial(t *testing.T) {
	srcs := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "*", "*.ptx"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = b
	}
	mod := benchmod.Compiler(2 << 20)
	kernels := strings.SplitAfter(mod, "\n}\n")
	faulty := func(edit func(k int, s string) string) []byte {
		var b strings.Builder
		for k, s := range kernels {
			b.WriteString(edit(k, s))
		}
		return []byte(b.String())
	}
	srcs["compiler"] = []byte(mod)
	srcs["validator-errors"] = faulty(func(k int, s string) string {
		if k%97 == 5 {
			s = strings.Replace(s, "st.global.v4.f32", "st.global.v4.f16", 1)
		}
		if k%131 == 7 {
			s = strings.Replace(s, "fma.rn.f32", "fma.f32", 1)
		}
		return s
	})
	srcs["resolution-errors"] = faulty(func(k int, s string) string {
		if k%89 == 3 {
			s = strings.Replace(s, "%r4, %r1", "%r4, %q1", 1)
		}
		if k%101 == 4 {
			s = strings.Replace(s, "bra $L__BB0_2", "bra $L__nowhere", 1)
		}
		if k%61 == 9 {
			s = strings.Replace(s, "st.shared.u32", "st.shared.u64", 1)
		}
		return s
	})
	srcs["syntax-error"] = faulty(func(k int, s string) string {
		if k == len(kernels)*2/3 {
			s = strings.Replace(s, "%r2, %tid.x;", "%r2 %tid.x;", 1)
		}
		if k%71 == 2 {
			s = strings.Replace(s, "st.global.v4.f32", "st.global.v4.f16", 1)
		}
		return s
	})
	defer runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))) // the pipe runs only with two or more
	for name, src := range srcs {
		serial := checkFileHow(name, src, check.Config{}, checkWhole)
		piped := checkFileHow(name, src, check.Config{}, checkPipe)
		if !reflect.DeepEqual(serial, piped) {
			t.Errorf("%s: piped check gives %d diagnostics, serial %d:\n%v\n%v", name, len(piped), len(serial), piped, serial)
		}
		t.Logf("%s: %d diagnostics", name, len(serial))
		if strings.Contains(name, "errors") && len(serial) == 0 {
			t.Errorf("%s: no diagnostics; the test module lost its faults", name)
		}
	}
}

// TestCheckPipedTruncatedFile checks that a large mapped file truncated
// before it is checked is reported as a changed file, as the serial check
// reports it, instead of crashing the process. (Here the fault comes on
// the caller's goroutine, where the stream first scans the source;
// parser.TestPipeForwardsFaults covers a fault on the parser's.)
func TestCheckPipedTruncatedFile(t *testing.T) {
	defer runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	path := filepath.Join(t.TempDir(), "big.ptx")
	if err := os.WriteFile(path, []byte(benchmod.Compiler(2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := readSource(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err = guardFaults(path, func() { checkFile(path, src, check.Config{}) })
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("checking a truncated mapping: err = %v, want a changed-file error", err)
	}
}

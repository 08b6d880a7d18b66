package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunExampleTrace(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"run"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"cluster (2,1,1)",
		"[0] 101 102 103 104",
		"[4] 1 2 3 4",
		"asynchronous operations (6 events",
		"op   1 issued   st.async at line",
		"op   1 landed",
		"op   1 observed",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// The timeline of each operation is issued, landed, observed.
	if i, j, k := strings.Index(s, "op   2 issued"), strings.Index(s, "op   2 landed"), strings.Index(s, "op   2 observed"); !(i >= 0 && i < j && j < k) {
		t.Errorf("op 2 events out of order:\n%s", s)
	}
}

func TestRunTraceDeterministic(t *testing.T) {
	args := []string{"run", "../../testdata/emu/async/red_async.ptx", "--grid", "8", "--block", "32", "--cluster", "4",
		"--arg", "buf:32", "--async", "random", "--seed", "7", "--trace", "--jobs", "2"}
	var first string
	for i := 0; i < 3; i++ {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if i == 0 {
			first = out.String()
		} else if out.String() != first {
			t.Fatal("trace output differs between identical runs")
		}
	}
	if n := strings.Count(first, " issued "); n != 2*4*32*3 {
		t.Errorf("%d issued events, want %d", n, 2*4*32*3)
	}
}

func TestRunAsyncSanitizerExit(t *testing.T) {
	src, err := os.ReadFile("../../testdata/emu/async/cluster_exchange.ptx")
	if err != nil {
		t.Fatal(err)
	}
	// expect_tx announces 256 bytes; only 128 arrive.
	bad := strings.Replace(string(src), "_, [%r3], 128;", "_, [%r3], 256;", 1)
	f := filepath.Join(t.TempDir(), "wrong.ptx")
	if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"run", f, "--grid", "2", "--block", "32", "--cluster", "2", "--arg", "buf:256"}, strings.NewReader(""), &out, &errb)
	if code != exitSanitize {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitSanitize, out.String(), errb.String())
	}
	for _, want := range []string{"[deadlock]", "tx-count 128", "128 expected bytes never arrived"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestRunAsyncKernels runs every testdata/emu/async kernel through ptxkit
// run with the flags of its .args file (several with --trace) and compares
// stdout with its .golden file; regenerate with
// go test ./cmd/ptxkit -run TestRunAsyncKernels -update. The buffers are
// checked against Go references in emu/async_test.go.
func TestRunAsyncKernels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "emu", "async", "*.args"))
	if len(files) < 9 {
		t.Fatalf("found %d .args files", len(files))
	}
	for _, argsFile := range files {
		base := strings.TrimSuffix(argsFile, ".args")
		t.Run(filepath.Base(base), func(t *testing.T) {
			text, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", base + ".ptx"}, strings.Fields(string(text))...)
			var outs [2]string
			for i, jobs := range []string{"1", "2"} {
				var out, errb bytes.Buffer
				if code := run(append(args, "--jobs", jobs), strings.NewReader(""), &out, &errb); code != exitOK {
					t.Fatalf("exit %d: %s", code, errb.String())
				}
				outs[i] = out.String()
			}
			if outs[0] != outs[1] {
				t.Errorf("output differs between --jobs 1 and --jobs 2")
			}
			golden := base + ".golden"
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(outs[0]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if outs[0] != string(want) {
				t.Errorf("stdout differs from %s:\n%s", golden, outs[0])
			}
		})
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunDumpTMEM(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144",
		"--dump", "none", "--dump-tmem", "0"}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"Tensor Memory of CTA (0,0,0) at exit or where the run stopped:\ntensor memory: 0 allocation(s)\n",
		"lane\\col        0        1        2        3        4        5        6        7\n",
		"\n     127 0000319c 0000319d 0000319e 0000319f 000031a0 000031a1 000031a2 000031a3\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}

	out.Reset()
	if code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144",
		"--dump", "none", "--dump-tmem", "0,0,1"}, nil, &out, &errb); code != exitUsage {
		t.Fatalf("CTA outside the grid: exit %d", code)
	}
	if !strings.Contains(errb.String(), `launch: Tensor Memory dump: CTA (0,0,1) is outside the grid (1,1,1)`) {
		t.Errorf("CTA outside the grid: stderr %q", errb.String())
	}
	out.Reset()
	if code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--grid", "2", "--arg", "buf:6144",
		"--dump", "none", "--dump-tmem", "1"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "Tensor Memory of CTA (1,0,0) at exit") {
		t.Errorf("CTA 1: %s", out.String())
	}
	errb.Reset()
	if code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144", "--dump-tmem", "x"}, nil, &out, &errb); code != exitUsage {
		t.Fatalf("bad --dump-tmem: exit %d", code)
	}
	if !strings.Contains(errb.String(), `--dump-tmem "x"`) {
		t.Errorf("stderr %q", errb.String())
	}
}

// A run stopped by the sanitizer still shows the Tensor Memory as the CTA
// left it.
func TestRunDumpTMEMAfterReport(t *testing.T) {
	src, err := os.ReadFile("../../testdata/emu/tmem/lifecycle.ptx")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "\ttcgen05.wait::st.sync.aligned;\n", "", 1)
	path := filepath.Join(t.TempDir(), "unwaited.ptx")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"run", path, "--block", "128", "--arg", "buf:6144", "--dump", "none", "--dump-tmem", "0"}, nil, &out, &errb)
	if code != exitSanitize || !strings.Contains(errb.String(), "[tcgen05-ld-unwaited-st]") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "tensor memory: 1 allocation(s); columns 0..63 (.cta_group::1)") ||
		!strings.Contains(s, "\n      96 00002580 00002581 00002582 00002583 00002584 00002585 00002586 00002587\n") {
		t.Errorf("dump after the report:\n%s", s)
	}
}

package main

import (
	"bytes"
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
		"Tensor Memory of CTA (0,0,0) at exit:\ntensor memory: 0 allocation(s)\n",
		"lane\\col        0        1        2        3        4        5        6        7\n",
		"\n     127 0000319c 0000319d 0000319e 0000319f 000031a0 000031a1 000031a2 000031a3\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}

	out.Reset()
	if code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144",
		"--dump", "none", "--dump-tmem", "1"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "Tensor Memory of CTA (1,0,0): nothing to show") {
		t.Errorf("missing CTA: %s", out.String())
	}
	errb.Reset()
	if code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144", "--dump-tmem", "x"}, nil, &out, &errb); code != exitUsage {
		t.Fatalf("bad --dump-tmem: exit %d", code)
	}
	if !strings.Contains(errb.String(), `--dump-tmem "x"`) {
		t.Errorf("stderr %q", errb.String())
	}
}

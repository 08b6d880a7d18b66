package emu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// FuzzRun parses arbitrary text and, when it decodes, emulates it under
// step and memory bounds: two clusters of two CTAs of 40 threads, small
// buffers for pointer parameters. It must never panic or hang; sanitizer
// reports and decode errors are fine.
func FuzzRun(f *testing.F) {
	files, _ := filepath.Glob("../testdata/emu/*.ptx")
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(string(src))
		}
	}
	for _, c := range sanitizerCases {
		f.Add(kernel1(c.bad, c.extra))
		f.Add(kernel1(c.good, c.extra))
	}
	for _, c := range []storeCase{{".u32", 4}, {".b8", 2}, {".f64", 1}} {
		for _, r := range []string{"global", "shared", "generic-local"} {
			f.Add(c.kernel(r))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, errs := parser.ParseString("fuzz.ptx", src)
		if errs.HasErrors() {
			return
		}
		p, errs := Decode(m, "")
		if errs.HasErrors() {
			for _, d := range errs {
				if strings.Contains(d.Message, "malformed operands") {
					t.Fatalf("decoder panicked: %v", d)
				}
			}
			return
		}
		if p.numSlots > 4096 || p.localFrame > 1<<16 || p.moduleBytes() > 1<<20 || p.paramSize > 4096 {
			return // valid but too large to emulate thousands of times a second
		}
		args := make([]Arg, len(p.Params))
		for i, prm := range p.Params {
			if prm.Size == 8 {
				args[i] = Arg{IsBuffer: true, Buffer: make([]byte, 256)}
			} else if prm.Size <= 8 {
				args[i] = Arg{Value: 3}
			} else {
				return
			}
		}
		cfg := Config{Grid: dims(4, 1, 1), Block: dims(40, 1, 1), Cluster: dims(2, 1, 1), MaxSteps: 20000, Seed: 1, SharedBytes: 64}
		if _, err := execute(p, cfg, args); err != nil && !strings.Contains(err.Error(), "launch") {
			t.Fatalf("unexpected error: %v", err)
		}
	})
}

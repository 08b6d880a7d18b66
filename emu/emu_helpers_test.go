package emu

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// compile parses and decodes src, failing the test on any diagnostic.
func compile(t testing.TB, src string) *Program {
	t.Helper()
	m, errs := parser.ParseString("test.ptx", src)
	if errs.HasErrors() {
		t.Fatalf("parse: %v", errs.Err())
	}
	p, errs := Decode(m, "")
	if errs.HasErrors() {
		t.Fatalf("decode: %v", errs.Err())
	}
	return p
}

// launch runs src with cfg and args and fails on a sanitizer report.
func launch(t testing.TB, src string, cfg Config, args ...Arg) *Result {
	t.Helper()
	res := launchReport(t, src, cfg, args...)
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	return res
}

func launchReport(t testing.TB, src string, cfg Config, args ...Arg) *Result {
	t.Helper()
	p := compile(t, src)
	res, err := execute(p, cfg, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// execute runs one launch of p.
func execute(p *Program, cfg Config, args []Arg) (*Result, error) {
	l := Launch{Kernel: p, Config: cfg, Args: args}
	return l.Run()
}

func buf(n int) Arg           { return Arg{IsBuffer: true, Buffer: make([]byte, n)} }
func scalar(v uint64) Arg     { return Arg{Value: v} }
func dims(x, y, z int) [3]int { return [3]int{x, y, z} }
func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
	return out
}

// wantReport fails unless res stopped with rule, and the message holds each of frags.
func wantReport(t *testing.T, res *Result, rule string, frags ...string) {
	t.Helper()
	if res.Report == nil {
		t.Fatalf("no report; want %s", rule)
	}
	if res.Report.Rule != rule {
		t.Fatalf("report rule %s, want %s: %v", res.Report.Rule, rule, res.Report)
	}
	msg := res.Report.Error()
	for _, f := range frags {
		if !strings.Contains(msg, f) {
			t.Errorf("report %q lacks %q", msg, f)
		}
	}
}

const header = ".version 8.5\n.target sm_90\n.address_size 64\n"

func float32frombits(b uint32) float32 { return math.Float32frombits(b) }

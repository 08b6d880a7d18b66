package main

import (
	"math/rand"
	"strings"
	"testing"
)

// notInstructions are texts that hold no instruction: explain must say so
// on standard error and exit 2 (a usage error), without a panic.
var notInstructions = []string{
	"0", "1.5", "-7", "0x10", "0f3f800000", ";", ";;", ":", ",", "L1:", "L1: ;", "$L__BB0_1:",
	"", " ", "\t", "\n", "{", "}", "{}", "}{", "[", "]", "(", ")", "@", "@!", "@%p", "@!%p1",
	"%r1", "%r1;", `"x"`, "// comment", "/* comment */", "/*", ".reg .b32 %r;", ".version 8.0",
	".entry f() {", ".visible .func g()", ".pragma \"nounroll\";", ".loc 1 2 3",
	"\x00", "\xff\xfe", "é", "%", "%%", "[%rd1]", "{%r1, %r2}", "0, 1", "+", "-", "!",
}

func TestExplainNotAnInstruction(t *testing.T) {
	for _, text := range notInstructions {
		out, errs, code := explainNoPanic(t, text)
		if code != exitUsage {
			t.Errorf("explain %q: exit %d, want %d\nstdout: %s\nstderr: %s", text, code, exitUsage, out, errs)
			continue
		}
		if !strings.HasPrefix(errs, "ptxkit explain: no instruction in ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("explain %q: stderr %q, want one line naming the text", text, errs)
		}
		if out != "" {
			t.Errorf("explain %q: wrote %q to standard output", text, out)
		}
	}
}

// TestExplainPositionsTheProblem: the error names where in the text the
// parser stopped.
func TestExplainPositionsTheProblem(t *testing.T) {
	_, errs, _ := explainNoPanic(t, "0")
	if want := `no instruction in "0": 1:1: expected instruction, found "0"`; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	_, errs, _ = explainNoPanic(t, "@%p")
	if want := "1:4: expected opcode"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}

// TestExplainHostileFragments explains deterministic random joins of
// fragments of PTX: every one must end with exit 0, 1 or 2 and never panic.
func TestExplainHostileFragments(t *testing.T) {
	frags := []string{
		"st", ".global", ".v4", ".u32", "[", "]", "%rd1", "{", "}", "%r1", ",", ";", "@", "%p", "!", "0", "-1",
		"0x", "mov", "wgmma.mma_async", ".sync", ".aligned", "tcgen05.st", ".16x64b", ".x4", "L1:", "+", "(",
		")", "bra", "call", "_", "|", "vadd", ".b32", "ld", "//", "\"s\"", ".param", "ret", "{%r1,%r2}", "1.0",
	}
	rng := rand.New(rand.NewSource(20))
	n := 400
	if testing.Short() {
		n = 100
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.Intn(7) {
			b.WriteString(frags[rng.Intn(len(frags))])
			if rng.Intn(2) == 0 {
				b.WriteByte(' ')
			}
		}
		text := b.String()
		_, _, code := explainNoPanic(t, text)
		if code != exitOK && code != exitFail && code != exitUsage {
			t.Errorf("explain %q: exit %d", text, code)
		}
	}
}

// explainNoPanic runs explain and turns a panic into a test failure naming
// the text.
func explainNoPanic(t *testing.T, text string) (out, errs string, code int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("explain %q panicked: %v", text, r)
		}
	}()
	return explain(t, "--", text)
}

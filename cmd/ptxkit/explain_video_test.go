package main

import (
	"strings"
	"testing"
)

// TestExplainVideoSelectors checks the selectors section: what each
// written selector does (PTX ISA 9.7.19, 9.7.20), the SIMD defaults, and
// a selector the operand does not take.
func TestExplainVideoSelectors(t *testing.T) {
	out, _, code := explain(t, "vadd.s32.u32.s32.sat %r1.h1, %r2.b1, %r3, %r4;", "--target", "sm_90", "--ptx", "8.5")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	s := section(out, "selectors")
	for _, want := range []string{"d     .h1     result saturated (with .sat) to a half-word and merged into bits 16-31 of c",
		"a     .b1     byte 1 (bits 8-15), sign- or zero-extended"} {
		if !strings.Contains(s, want) {
			t.Errorf("selectors section lacks %q:\n%s", want, s)
		}
	}
	out, _, _ = explain(t, "vadd4.u32.u32.u32 %r1.b20, %r2, %r3.b0123, %r4;")
	s = section(out, "selectors")
	for _, want := range []string{"d     .b20    results kept in byte lanes 2, 0", "a     .b3210  (default) lane 3 = byte 3 of a",
		"b     .b0123  lane 3 = byte 0 of a, lane 2 = byte 1 of a"} {
		if !strings.Contains(s, want) {
			t.Errorf("selectors section lacks %q:\n%s", want, s)
		}
	}
	out, _, code = explain(t, "vadd2.u32.u32.u32 %r1, %r2.h4, %r3, %r4;")
	if s = section(out, "selectors"); code != exitFail || !strings.Contains(s, "a     .h4     not allowed here") {
		t.Errorf("exit %d, selectors section:\n%s", code, s)
	}
	if out, _, _ = explain(t, "add.u32 %r1, %r2, %r3;"); section(out, "selectors") != "" {
		t.Errorf("a selectors section for add:\n%s", out)
	}
}

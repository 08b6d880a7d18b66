package sass

import (
	"strings"
	"testing"
)

// TestHostileLongTokensClipped checks that messages quote at most
// maxQuoted bytes of an offending token, with a position.
func TestHostileLongTokensClipped(t *testing.T) {
	long := strings.Repeat("A", 1<<20)
	for _, src := range []string{
		long + " [R1], R2 ;",
		"STS [R1], R" + strings.Repeat("9", 1<<20) + " ;",
		"STS [R1+0x" + strings.Repeat("f", 1<<20) + "], R2 ;",
		"STS [R1], R2 " + strings.Repeat("x", 1<<20),
		"STS." + long + " [R1], R2 ;",
		"@" + long + " STS [R1], R2 ;",
	} {
		_, errs := Parse(src, Arch{90})
		if len(errs) != 1 {
			t.Fatalf("%.40q: %d errors, want 1", src, len(errs))
		}
		msg := errs[0].Error()
		if len(msg) > 300 || errs[0].Line != 1 || errs[0].Col < 1 {
			t.Errorf("%.40q: error at %d:%d, %d bytes: %.400s", src, errs[0].Line, errs[0].Col, len(msg), msg)
		}
		if !strings.Contains(msg, "...") {
			t.Errorf("%.40q: no clipped token in %q", src, msg)
		}
	}
	// A non-ASCII character is quoted whole, not as its first byte.
	_, errs := Parse(strings.Repeat("é", 1<<19)+" STS [R1], R2 ;", Arch{90})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `1:1: opcode: unknown opcode "é"`) {
		t.Errorf("non-ASCII opcode: %.300v", errs)
	}
	for _, arg := range []string{"0x" + strings.Repeat("f", 1<<20), strings.Repeat("g", 1<<20)} {
		_, err := ParseHex(arg, Arch{90})
		if err == nil || len(err.Error()) > 200 {
			t.Errorf("ParseHex(%.40q): %.300v", arg, err)
		}
	}
	if _, err := ParseArch(long); err == nil || len(err.Error()) > 300 {
		t.Errorf("ParseArch: %.400v", err)
	}
}

// TestHostileLowerTargets checks that LowerStore accepts only the
// targets its table covers.
func TestHostileLowerTargets(t *testing.T) {
	for _, a := range []string{"sm_50", "sm_70", "sm_86", "sm_90", "sm_90a", "SM_80", "sm_100a", "sm_120f", "sm_103"} {
		if err := CheckLowerTarget(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	for _, a := range []string{"", "sm_", "sm_49", "sm_99", "sm_101", "sm_100x", "100", "sm_9x", "sm_+80", "sm_-80", "sm_80abc", "sm_99999999999999999999"} {
		if err := CheckLowerTarget(a); err == nil {
			t.Errorf("%q accepted", a)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
)

// TestStdinIsNamedDash: standard input is "-" in check's text and JSON
// output and in the SASS commands' messages, as README.md says.
func TestStdinIsNamedDash(t *testing.T) {
	bad := ".version 8.0\n.target sm_90\n.address_size 64\nbogus;\n"
	code, _, errs := runCmd(t, bad, "check", "-")
	if code != exitFail || !strings.HasPrefix(errs, "-:4:1: error: ") {
		t.Errorf("check text: exit %d, stderr %q", code, errs)
	}
	code, out, _ := runCmd(t, bad, "check", "--format=json", "-")
	if code != exitFail || !strings.HasPrefix(out, `{"file":"-","line":4,`) {
		t.Errorf("check json: exit %d, stdout %q", code, out)
	}
	code, _, errs = runCmd(t, "STS [R1], R99x;\n", "sass", "asm", "--arch", "sm_90")
	if code != exitFail || !strings.HasPrefix(errs, "-:1:") {
		t.Errorf("sass asm: exit %d, stderr %q", code, errs)
	}
}

// TestLSPHelp: lsp --help and -h print the usage on standard output and
// exit 0 like every command; an unknown flag or an argument exits 2.
func TestLSPHelp(t *testing.T) {
	for _, h := range []string{"--help", "-h"} {
		code, out, errs := runCmd(t, "", "lsp", h)
		if code != exitOK || !strings.HasPrefix(out, "usage: ptxkit lsp [--stdio]") || errs != "" {
			t.Errorf("lsp %s: exit %d, stdout %q, stderr %q", h, code, out, errs)
		}
	}
	code, out, _ := runCmd(t, "", "help", "lsp")
	if code != exitOK || !strings.Contains(out, "-stdio") {
		t.Errorf("help lsp: exit %d, stdout %q", code, out)
	}
	for _, args := range [][]string{{"--bogus"}, {"file.ptx"}} {
		if code, _, errs := runCmd(t, "", append([]string{"lsp"}, args...)...); code != exitUsage || !strings.HasPrefix(errs, "ptxkit lsp: ") {
			t.Errorf("lsp %v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestRunUnsupportedExits3: a valid kernel that needs what the emulator
// does not implement stops the run early, exit 3 as README.md says, not 1
// (the program is valid: check accepts it); a decode error of an invalid
// program stays 1.
func TestRunUnsupportedExits3(t *testing.T) {
	k := writeFile(t, "multimem.ptx", `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [p];
	multimem.ld_reduce.relaxed.gpu.global.add.u32 %r1, [%rd1];
	st.global.u32 [%rd1], %r1;
	ret;
}
`)
	if code, _, errs := runCmd(t, "", "check", k); code != exitOK {
		t.Fatalf("check: exit %d\n%s", code, errs)
	}
	code, _, errs := runCmd(t, "", "run", k, "--arg", "buf:16")
	if code != exitSanitize || !strings.Contains(errs, "[emu-unsupported]") {
		t.Errorf("run: exit %d, want %d, stderr:\n%s", code, exitSanitize, errs)
	}
}

func TestDecodeStatus(t *testing.T) {
	unsupported := diag.Diagnostic{Severity: diag.Error, Rule: "emu-unsupported"}
	decode := diag.Diagnostic{Severity: diag.Error, Rule: "emu-decode"}
	note := diag.Diagnostic{Severity: diag.Note, Rule: "emu-decode"}
	for _, c := range []struct {
		errs diag.List
		want int
	}{
		{diag.List{unsupported}, exitSanitize},
		{diag.List{unsupported, note}, exitSanitize},
		{diag.List{unsupported, decode}, exitFail},
		{diag.List{decode}, exitFail},
	} {
		if got := decodeStatus(c.errs); got != c.want {
			t.Errorf("decodeStatus(%v) = %d, want %d", c.errs, got, c.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
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

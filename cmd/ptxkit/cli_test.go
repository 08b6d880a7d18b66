package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// cliCase is one command line with the exit status and the streams it
// must produce: out and errs are substrings of stdout and stderr, "" for a
// stream that must stay empty, and errLines the exact number of lines on
// stderr (0: not checked beyond errs).
type cliCase struct {
	args     []string
	code     int
	out      string
	errs     string
	errLines int
}

// cliTable covers, for every command, --help, -h, help CMD, an unknown
// flag and a bad flag value.
func cliTable(t *testing.T) []cliCase {
	k := writeFile(t, "k.ptx", validPTX)
	usage := func(cmd string, args ...string) []cliCase {
		want := "usage: ptxkit " + cmd
		full := append(strings.Fields(cmd), args...)
		return []cliCase{
			{args: append(full, "--help"), code: exitOK, out: want},
			{args: append(full, "-h"), code: exitOK, out: want},
			{args: append(full, "-help"), code: exitOK, out: want},
			{args: append([]string{"help"}, strings.Fields(cmd)...), code: exitOK, out: want},
			{args: append(full, "--no-such-flag"), code: exitUsage,
				errs: "ptxkit " + cmd + ": flag provided but not defined: -no-such-flag (ptxkit help " + cmd + " lists the flags)", errLines: 1},
		}
	}
	var cases []cliCase
	for _, cmd := range []string{"check", "explain", "fmt", "run", "sass asm", "sass disasm", "sass lower", "version"} {
		cases = append(cases, usage(cmd)...)
	}
	badTarget := `invalid value "sm_9x" for flag -target: want sm_XY, sm_XYa or sm_XYf, e.g. sm_90a`
	badPTX := `invalid value "12" for flag -ptx: want a PTX ISA version MAJOR.MINOR, e.g. 8.5`
	for _, cmd := range [][]string{{"check", k}, {"explain", "st.u32 [%rd1], %r1;"}, {"run", k}} {
		cases = append(cases,
			cliCase{args: append(cmd, "--target", "sm_9x"), code: exitUsage, errs: "ptxkit " + cmd[0] + ": " + badTarget, errLines: 1},
			cliCase{args: append(cmd, "--target=sm_9x"), code: exitUsage, errs: badTarget, errLines: 1},
			cliCase{args: append(cmd, "--ptx", "12"), code: exitUsage, errs: "ptxkit " + cmd[0] + ": " + badPTX, errLines: 1},
			cliCase{args: append([]string{cmd[0], "--ptx", "12"}, cmd[1:]...), code: exitUsage, errs: badPTX, errLines: 1},
			cliCase{args: append(cmd, "--target"), code: exitUsage, errs: "flag needs an argument: -target", errLines: 1},
		)
	}
	return append(cases,
		cliCase{args: []string{"check", "--format", "xml", k}, code: exitUsage, errs: `ptxkit check: invalid value "xml" for flag -format: want text, json or sarif`, errLines: 1},
		cliCase{args: []string{"fmt", "-w=maybe", k}, code: exitUsage, errs: `ptxkit fmt: invalid boolean value "maybe" for -w`, errLines: 1},
		cliCase{args: []string{"run", k, "--seed", "x"}, code: exitUsage, errs: `ptxkit run: invalid value "x" for flag -seed: parse error`, errLines: 1},
		cliCase{args: []string{"run", k, "--async", "later"}, code: exitUsage, errs: `ptxkit run: invalid value "later" for flag -async: want eager, delayed or random`, errLines: 1},
		cliCase{args: []string{"run", k, "--max-steps", "-1"}, code: exitUsage, errs: `ptxkit run: invalid value "-1" for flag -max-steps: want a number of warp-instructions (0: no limit)`, errLines: 1},
		cliCase{args: []string{"run", k, "--grid", "0"}, code: exitUsage, errs: `ptxkit run: --grid "0": dimensions are positive integers`, errLines: 1},
		cliCase{args: []string{"run", k, "--timeout", "soon"}, code: exitUsage, errs: `ptxkit run: invalid value "soon" for flag -timeout`, errLines: 1},
		cliCase{args: []string{"sass", "asm", "--arch", "sm_9x"}, code: exitUsage, errs: `ptxkit sass asm: invalid value "sm_9x" for flag -arch: want one of sm_50,`, errLines: 1},
		cliCase{args: []string{"sass", "disasm", "--arch", "sm_9x", "--hex", "0x0"}, code: exitUsage, errs: `ptxkit sass disasm: invalid value "sm_9x" for flag -arch`, errLines: 1},
		cliCase{args: []string{"sass", "lower", "--arch", "sm_9x", k}, code: exitUsage, errs: `ptxkit sass lower: invalid value "sm_9x" for flag -arch: want sm_50 to sm_90`, errLines: 1},
		cliCase{args: []string{"sass", "asm"}, code: exitUsage, errs: "ptxkit sass asm: --arch is required", errLines: 1},
		cliCase{args: []string{"sass", "--help"}, code: exitOK, out: "ptxkit sass asm --arch ARCH"},
		cliCase{args: []string{"sass", "frob"}, code: exitUsage, errs: `ptxkit sass: unknown subcommand "frob"`, errLines: 1},
		cliCase{args: []string{"help"}, code: exitOK, out: "usage: ptxkit COMMAND"},
		cliCase{args: []string{"--help"}, code: exitOK, out: "usage: ptxkit COMMAND"},
		cliCase{args: []string{"help", "help"}, code: exitOK, out: "usage: ptxkit COMMAND"},
		cliCase{args: []string{"-h"}, code: exitOK, out: "usage: ptxkit COMMAND"},
		cliCase{args: nil, code: exitUsage, errs: "usage: ptxkit COMMAND"},
		cliCase{args: []string{"frob"}, code: exitUsage, errs: `ptxkit: unknown command "frob"`, errLines: 1},
		cliCase{args: []string{"help", "frob"}, code: exitUsage, errs: `ptxkit help: unknown command "frob"`, errLines: 1},
		cliCase{args: []string{"version"}, code: exitOK, out: "ptxkit "},
		cliCase{args: []string{"--version"}, code: exitOK, out: "ptxkit "},
		cliCase{args: []string{"version", "extra"}, code: exitUsage, errs: `ptxkit version: takes no arguments, got "extra"`, errLines: 1},
	)
}

// TestCommandLine runs the table: exit status, the stream each message
// goes to, and the other stream left empty.
func TestCommandLine(t *testing.T) {
	for _, c := range cliTable(t) {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(t, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
			checkStream(t, "stdout", out, c.out, 0)
			checkStream(t, "stderr", errs, c.errs, c.errLines)
		})
	}
}

func checkStream(t *testing.T, name, got, want string, lines int) {
	t.Helper()
	switch {
	case want == "" && got != "":
		t.Errorf("%s = %q, want it empty", name, got)
	case !strings.Contains(got, want):
		t.Errorf("%s = %q, want it to contain %q", name, got, want)
	case lines > 0 && strings.Count(got, "\n") != lines:
		t.Errorf("%s has %d lines, want %d: %q", name, strings.Count(got, "\n"), lines, got)
	}
}

// TestHelpListsFlags checks that --help prints each command's flags with
// their descriptions.
func TestHelpListsFlags(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"check":       {"-format", "-target", "-ptx"},
		"explain":     {"-target", "-ptx"},
		"fmt":         {"-l", "-w"},
		"run":         {"-grid", "-arg", "-max-steps", "-timeout", "-target"},
		"sass asm":    {"-arch", "-raw", "-sched"},
		"sass disasm": {"-arch", "-hex"},
		"sass lower":  {"-arch"},
	} {
		code, out, _ := runCmd(t, "", append([]string{"help"}, strings.Fields(cmd)...)...)
		for _, f := range flags {
			if code != exitOK || !strings.Contains(out, "\n  "+f+" ") && !strings.Contains(out, "\n  "+f+"\n") && !strings.Contains(out, "\n  "+f+"\t") {
				t.Errorf("help %s: exit %d, flag %s missing:\n%s", cmd, code, f, out)
			}
		}
	}
}

// TestBuildVersion formats the build information go build records.
func TestBuildVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/ptxkit/ptxkit/cmd/ptxkit", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := buildVersionOf(bi).String(), "ptxkit v1.2.3 revision 0123abcd+modified 2026-01-02T03:04:05Z go1.26.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	bi = &debug.BuildInfo{GoVersion: "go1.26.0"}
	if got, want := buildVersionOf(bi).String(), "ptxkit (devel) go1.26.0"; got != want {
		t.Errorf("unstamped: got %q, want %q", got, want)
	}
}

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

func init() {
	commands["check"] = command{"parse, resolve and validate PTX files", runCheck}
}

const checkUsage = `usage: ptxkit check [--format=text|json|sarif] [--target sm_XX] [--ptx X.Y] [--ptxas 12.5|13.0] [--strict] [-c]
                    [--werror] [--disable RULE]... [--max-diagnostics N] [--stdin-name PATH] FILE...

Parses, resolves and validates each PTX FILE ("-": standard input). Text
diagnostics go to standard error, JSON Lines and SARIF to standard output.
A comment "// ptxkit:ignore RULE[,RULE]" silences those rules on its line,
or, alone on a line, on the next one.
Exit status: 0 no errors, 1 errors, 2 usage or I/O error.`

// runCheck implements "ptxkit check [--format=text|json] [--target sm_XX]
// [--ptx X.Y] FILE...". Each file is parsed, resolved and validated; a file
// with syntax errors is not resolved, and one with resolution errors is
// not validated. A file that cannot be read is reported and the others
// are checked. Text diagnostics go to stderr, JSON Lines and SARIF to
// stdout. Exit status: 0 no errors, 1 errors, 2 usage or I/O failure.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("check", checkUsage)
	format := newChoice("text", "text", "json", "sarif")
	cl.fs.Var(format, "format", "diagnostic format: text, json or sarif")
	target, ptxVersion := targetFlags(cl.fs)
	ptxas := newChoice("", "12.5", "13.0")
	cl.fs.Var(ptxas, "ptxas", "follow this ptxas (12.5 or 13.0) where it and the ISA pages disagree; default: 12.5 up to PTX ISA 8.5, 13.0 after")
	strict := cl.fs.Bool("strict", false, "report forms ptxas accepts against the ISA pages as errors, not warnings")
	separate := cl.fs.Bool("c", false, "check separately compiled code (as ptxas -c): declared functions may be defined elsewhere")
	var filt checkFilter
	filt.flags(cl.fs)
	files, status, ok := cl.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(files) == 0 {
		cl.printUsage(stderr)
		return exitUsage
	}
	filt.checkDisabled(stderr)
	tuneGC()
	cfg := check.Config{Target: string(*target), PTX: string(*ptxVersion), Ptxas: ptxas.value, Strict: *strict, Separate: *separate}
	var (
		all      diag.List
		failures []diag.Failure
		sources  = map[string][]byte{}
	)
	for _, name := range files {
		src, err := readSource(name, stdin)
		shown := filt.displayFile(name)
		if err == nil {
			sources[shown] = src
			err = guardFaults(name, func() { all = append(all, filt.apply(checkFile(shown, src, cfg), src)...) })
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit check: %v\n", err)
			failures = append(failures, diag.Failure{File: name, Err: err})
		}
	}
	written, left := all, diag.List(nil)
	if format.value == "text" {
		written, left = filt.capText(all)
	}
	if err := writeDiagnostics(format.value, written, failures, sources, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ptxkit check: %v\n", err)
		return exitUsage
	}
	writeLeftOut(stderr, left, len(written))
	switch {
	case len(failures) > 0:
		return exitUsage
	case all.HasErrors():
		return exitFail
	}
	return exitOK
}

// writeDiagnostics writes all in format: text on stderr, JSON Lines and
// SARIF on stdout. The SARIF log also records the files that could not be
// read and counts columns in code points of each file's source.
func writeDiagnostics(format string, all diag.List, failures []diag.Failure, sources map[string][]byte, stdout, stderr io.Writer) error {
	switch format {
	case "text":
		return diag.WriteText(stderr, all)
	case "json":
		return diag.WriteJSON(stdout, all)
	}
	v := readBuildVersion()
	opt := diag.SARIFOptions{ToolVersion: v.Module, ToolRevision: v.revision(), Rules: ruleInfo, Failures: failures,
		Source: func(file string) []byte { return sources[file] }}
	var err error
	// The sources may be mapped files: a file truncated meanwhile faults.
	if ferr := guardFaults("a source file", func() { err = diag.WriteSARIFWith(stdout, all, opt) }); ferr != nil {
		return ferr
	}
	return err
}

// checkMemoryLimit is the soft memory limit under which check runs
// without the garbage collector's pacing by GOGC (debug.SetGCPercent(-1),
// debug.SetMemoryLimit): the collector runs only when the heap nears the
// limit. The streaming check keeps only module-scope declarations and
// function headers live (24 MB for the 32 MB benchmark module of 21,000
// small kernels) and allocates little else, so for any input up to the
// 256 MiB accepted it rarely or never collects. On the 32 MB module
// (docs/frontend.md): median 325 ms of CPU against 332 ms with GOGC=400,
// and with the collector off 334 ms against 358 ms at the default GOGC in
// another series; the peak RSS stayed 63 MB. A GOGC or GOMEMLIMIT in the
// environment is left as the user set it.
var checkMemoryLimit int64 = 1 << 30 // a variable for the tests only

// tuneGC applies checkMemoryLimit unless the user tuned the collector.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(checkMemoryLimit)
		debug.SetGCPercent(-1)
		guardGC(checkMemoryLimit / 2) // live data near the limit: back to GOGC's pacing (gcguard.go)
	}
}

// checkFile runs the front end and the validator on one file and returns
// its diagnostics sorted by position.
//
// The file is parsed, resolved and validated one statement at a time,
// function bodies included (parser.StreamStatements), so memory stays
// proportional to the largest statement and the declarations of one
// function, and the garbage collector has almost nothing to do. A file
// with syntax errors gets only those; a function with resolution errors
// gets only those (check.Checker), so that an undeclared name in one
// function does not hide the validator's diagnostics in the others.
//
// A file of pipeMinBytes or more, with partsMinProcs processors or more to
// run on, is checked in parts on as many goroutines (checkParallel). With
// fewer processors (but more than one), or where parts cannot be checked
// exactly (a syntax or resolution error in the file), it is parsed on a
// goroutine of its own while this one resolves and validates what it has
// parsed (checkPiped); the diagnostics are the same.
func checkFile(name string, src []byte, cfg check.Config) diag.List {
	how := checkWhole
	switch procs := runtime.GOMAXPROCS(0); {
	case len(src) < pipeMinBytes || procs < 2:
	case procs < partsMinProcs:
		how = checkPipe
	default:
		how = checkInParts
	}
	return checkFileHow(name, src, cfg, how)
}

// How checkFileHow checks a file.
const (
	checkWhole   = iota // checkSerial
	checkPipe           // checkPiped
	checkInParts        // checkParallel, else checkPiped
)

// checkFileHow is checkFile with the way to check chosen.
func checkFileHow(name string, src []byte, cfg check.Config, how int) diag.List {
	// The tree's strings share the source's memory. src is this
	// function's to keep and is never written, so it is viewed as a
	// string instead of copied.
	text := unsafe.String(unsafe.SliceData(src), len(src))
	errs, ok := diag.List(nil), false
	if how == checkInParts {
		errs, ok = checkParallel(name, text, cfg, runtime.GOMAXPROCS(0))
	}
	if !ok {
		st := parser.NewStream(name, text, parser.StreamStatements)
		chk := check.NewChecker(name, cfg)
		if how == checkWhole {
			checkSerial(st, chk)
		} else {
			checkPiped(st, chk)
		}
		chk.End()
		errs = st.Errors()
		if !errs.HasErrors() {
			errs = append(errs, chk.Diagnostics()...)
		}
	}
	for i := range errs {
		errs[i].File = name
	}
	errs.Sort()
	return errs
}

// pipeMinBytes is the smallest file checkFile parses on a goroutine of
// its own. A module of 1 MiB takes 15-30 ms of CPU: below that the
// overlap saves little, and small files keep the serial path's cost
// exactly (the start-up figures of docs/startup.md).
var pipeMinBytes = 1 << 20 // a variable for the tests only

// partsMinProcs is the fewest processors with which checkFile checks a
// large file in parts. On two, the parts' skimming of earlier parts costs
// 6% more instructions than the pipe's 1% and both halve the wall time at
// best (BENCHMARKS.md, "check in parts"), so two processors take the pipe.
const partsMinProcs = 3

// checkSerial feeds the statements of st to chk as it parses them.
func checkSerial(st *parser.Stream, chk *check.Checker) {
	for s := st.Next(); s != nil; s = st.Next() {
		if len(st.Errors()) > 0 {
			continue // only syntax errors will be reported; keep reading them
		}
		if f, ok := s.(*ast.Function); ok {
			checkFunction(st, chk, f)
			continue
		}
		chk.Add(s)
	}
}

// checkPiped is checkSerial with the parser running ahead on another
// goroutine (parser.Pipe): chk gets the same calls in the same order.
// A piece is taken while no syntax error has been found before it; a
// function whose body a syntax error interrupts is ended there, as
// checkFunction ends it.
func checkPiped(st *parser.Stream, chk *check.Checker) {
	pipe := st.Pipe()
	defer pipe.Close()
	var (
		open  bool // a function's body pieces are being fed
		clean = true
	)
	for pc, ok := pipe.Next(); ok && clean; pc, ok = pipe.Next() {
		switch {
		case pc.Top != nil:
			if clean = pc.Clean; !clean {
				break // only syntax errors will be reported
			}
			f, isFunc := pc.Top.(*ast.Function)
			if !isFunc {
				chk.Add(pc.Top)
				break
			}
			chk.BeginFunction(f)
			if open = f.Body != nil; !open {
				chk.EndFunction()
			}
		case open:
			clean = pc.Clean
			switch pc.Event {
			case parser.EndOfBody:
				chk.EndFunction()
				open = false
			case parser.BlockStart:
				chk.OpenBlock()
			case parser.BlockEnd:
				chk.CloseBlock()
			default:
				chk.AddStmts(pc.Stmts)
			}
		}
	}
	if open {
		chk.EndFunction() // a syntax error ended it
	}
	for _, ok := pipe.Next(); ok; _, ok = pipe.Next() {
	} // the rest is parsed for its syntax errors
}

// checkFunction resolves and validates f, whose body st hands out
// statement by statement; nothing is done once a syntax error appears
// (only those will be reported).
func checkFunction(st *parser.Stream, chk *check.Checker, f *ast.Function) {
	chk.BeginFunction(f)
	for f.Body != nil && len(st.Errors()) == 0 {
		run, ev := st.NextStmts()
		switch ev {
		case parser.EndOfBody:
			chk.EndFunction()
			return
		case parser.BlockStart:
			chk.OpenBlock()
		case parser.BlockEnd:
			chk.CloseBlock()
		default:
			chk.AddStmts(run)
		}
	}
	chk.EndFunction()
}

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

func init() {
	commands["check"] = command{"parse, resolve and validate PTX files", runCheck}
}

// diagWriters maps each --format value to the writer of a diagnostic list
// and whether it writes to stdout (machine formats) or stderr (text).
var diagWriters = map[string]struct {
	write    func(io.Writer, diag.List) error
	toStdout bool
}{
	"text":  {diag.WriteText, false},
	"json":  {diag.WriteJSON, true},
	"sarif": {diag.WriteSARIF, true},
}

// runCheck implements "ptxkit check [--format=text|json] [--target sm_XX]
// [--ptx X.Y] FILE...". Each file is parsed, resolved and validated; a file
// with syntax errors is not resolved, and one with resolution errors is
// not validated. Text diagnostics go to stderr, JSON Lines to stdout.
// Exit status: 0 no errors, 1 errors, 2 usage or I/O failure.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "diagnostic format: text, json or sarif")
	target := fs.String("target", "", "validate for this target (e.g. sm_90a) instead of the module's .target")
	ptxVersion := fs.String("ptx", "", "validate for this PTX ISA version (e.g. 8.5) instead of the module's .version")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ptxkit check [--format=text|json|sarif] [--target sm_XX] [--ptx X.Y] FILE...  (\"-\" reads standard input)")
		fs.PrintDefaults()
	}
	files, ok := parseInterspersed(fs, args) // flags may follow the files
	if !ok {
		return exitUsage
	}
	w, known := diagWriters[*format]
	if !known {
		fmt.Fprintf(stderr, "ptxkit check: unknown format %q (want text, json or sarif)\n", *format)
		return exitUsage
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	tuneGC()
	cfg := check.Config{Target: *target, PTX: *ptxVersion}
	var all diag.List
	for _, name := range files {
		src, err := readSource(name, stdin)
		if err == nil {
			err = guardFaults(name, func() { all = append(all, checkFile(name, src, cfg)...) })
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit check: %v\n", err)
			return exitUsage
		}
	}
	out := stderr
	if w.toStdout {
		out = stdout
	}
	if err := w.write(out, all); err != nil {
		fmt.Fprintf(stderr, "ptxkit check: %v\n", err)
		return exitUsage
	}
	if all.HasErrors() {
		return exitFail
	}
	return exitOK
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
const checkMemoryLimit = 1 << 30

// tuneGC applies checkMemoryLimit unless the user tuned the collector.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(checkMemoryLimit)
		debug.SetGCPercent(-1)
	}
}

// checkFile runs the front end and the validator on one file and returns
// its diagnostics sorted by position.
//
// The file is parsed, resolved and validated one top-level statement at a
// time, with function bodies recycled (parser.ReuseBodies), so memory
// stays proportional to the largest function and the garbage collector
// has almost nothing to do. A file with syntax errors gets only those; a
// top-level statement with resolution errors is not validated, but the
// other statements are, so that an undeclared name in one function does
// not hide the validator's diagnostics in the others.
func checkFile(name string, src []byte, cfg check.Config) diag.List {
	// The tree's strings share the source's memory. src is this
	// function's to keep and is never written, so it is viewed as a
	// string instead of copied.
	st := parser.NewStream(name, unsafe.String(unsafe.SliceData(src), len(src)), parser.ReuseBodies)
	res := resolve.NewResolver(name)
	res.KeepUses = false
	chk := check.NewChecker(name, cfg)
	seen := 0 // resolution diagnostics of the statements before s
	for s := st.Next(); s != nil; s = st.Next() {
		if len(st.Errors()) > 0 {
			continue // only syntax errors will be reported; keep reading them
		}
		res.Add(s)
		l := res.Diagnostics()
		fresh := l[min(seen, len(l)):]
		seen = len(l)
		if fresh.HasErrors() {
			continue
		}
		chk.Add(s)
	}
	errs := st.Errors()
	if !errs.HasErrors() {
		errs = append(errs, res.Diagnostics()...)
		errs = append(errs, chk.Diagnostics()...)
	}
	for i := range errs {
		errs[i].File = name
	}
	errs.Sort()
	return errs
}

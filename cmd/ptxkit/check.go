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
	raiseGCPercent()
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

// checkGCPercent is the garbage collector's GOGC while check runs. The
// streaming check keeps only module-scope declarations and function
// headers live (24 MB for the 32 MB benchmark module of 21,000 small
// kernels), and allocates little else, so a collection finds little
// garbage. At 400 it runs a quarter as often: on the 32 MB benchmark module
// the command takes about 7% less CPU with the same peak RSS (BENCHMARKS.md).
const checkGCPercent = 400

// raiseGCPercent sets checkGCPercent unless the user chose a GOGC.
func raiseGCPercent() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(checkGCPercent)
	}
}

// checkFile runs the front end and the validator on one file and returns
// its diagnostics sorted by position.
//
// The file is parsed, resolved and validated one top-level statement at a
// time, with function bodies recycled (parser.ReuseBodies), so memory
// stays proportional to the largest function and the garbage collector
// has almost nothing to do. The verdict is that of the three passes run one
// after another on the whole tree: a file with syntax errors gets only
// those, one with resolution errors only the syntax and resolution ones.
func checkFile(name string, src []byte, cfg check.Config) diag.List {
	// The tree's strings share the source's memory. src is this
	// function's to keep and is never written, so it is viewed as a
	// string instead of copied.
	st := parser.NewStream(name, unsafe.String(unsafe.SliceData(src), len(src)), parser.ReuseBodies)
	res := resolve.NewResolver(name)
	res.KeepUses = false
	chk := check.NewChecker(name, cfg)
	for s := st.Next(); s != nil; s = st.Next() {
		if len(st.Errors()) > 0 {
			continue // only syntax errors will be reported; keep reading them
		}
		res.Add(s)
		if !res.Diagnostics().HasErrors() {
			chk.Add(s)
		}
	}
	errs := st.Errors()
	if !errs.HasErrors() {
		rerrs := res.Diagnostics()
		errs = append(errs, rerrs...)
		if !rerrs.HasErrors() {
			errs = append(errs, chk.Diagnostics()...)
		}
	}
	for i := range errs {
		errs[i].File = name
	}
	errs.Sort()
	return errs
}

package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

func init() {
	commands["fmt"] = command{"print PTX files in canonical form", runFmt}
}

// runFmt implements "ptxkit fmt FILE...": it parses each file and prints
// its canonical form to stdout. Files with syntax errors are reported on
// stderr and not printed.
func runFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ptxkit fmt FILE...  (\"-\" reads standard input)")
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	for _, name := range fs.Args() {
		src, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
			return exitUsage
		}
		m, errs := parser.ParseFile(name, src)
		if errs.HasErrors() {
			diag.WriteText(stderr, errs)
			status = exitFail
			continue
		}
		if err := printer.Fprint(stdout, m); err != nil {
			fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
			return exitUsage
		}
	}
	return status
}

// readInput reads the file name, or stdin when name is "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

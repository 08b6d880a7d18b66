package main

import (
	"bytes"
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

const fmtUsage = `usage: ptxkit fmt [-l] [-w] FILE...

Prints each PTX FILE ("-": standard input) in canonical form, comments kept.
Exit status: 0 ok, 1 syntax errors, 2 usage or I/O error.`

// runFmt implements "ptxkit fmt [-l] [-w] FILE...": it parses each file and
// prints its canonical form, comments kept, to stdout, or with -w rewrites the file, or
// with -l lists the files whose form differs. Files with syntax errors are
// reported on stderr and left alone. Exit status: 0 ok, 1 syntax errors,
// 2 usage or I/O failure.
func runFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("fmt", fmtUsage)
	list := cl.fs.Bool("l", false, "list files whose formatting differs from the canonical form")
	write := cl.fs.Bool("w", false, "write the canonical form back to each file")
	files, status, ok := cl.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(files) == 0 {
		cl.printUsage(stderr)
		return exitUsage
	}
	status = exitOK
	for _, name := range files {
		if *write && name == "-" {
			fmt.Fprintln(stderr, "ptxkit fmt: cannot use -w with standard input")
			return exitUsage
		}
		src, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
			return exitUsage
		}
		m, errs := parser.ParseFileMode(name, src, parser.ParseComments)
		if errs.HasErrors() {
			diag.WriteText(stderr, errs)
			status = exitFail
			continue
		}
		out := printer.Bytes(m)
		changed := !bytes.Equal(src, out)
		switch {
		case *list || *write:
			if changed && *list {
				fmt.Fprintln(stdout, name)
			}
			if changed && *write {
				if err := writeFileKeepMode(name, out); err != nil {
					fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
					return exitUsage
				}
			}
		default:
			if _, err := stdout.Write(out); err != nil {
				fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
				return exitUsage
			}
		}
	}
	return status
}

// writeFileKeepMode replaces the contents of name, keeping its permissions.
func writeFileKeepMode(name string, data []byte) error {
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	return os.WriteFile(name, data, fi.Mode().Perm())
}

// maxSourceBytes bounds one PTX input of check and fmt: the syntax tree
// takes about 15 times the source, so this keeps a run within a few GiB.
const maxSourceBytes = 256 << 20

// readInput reads the file name, or stdin when name is "-", refusing
// inputs over maxSourceBytes (and endless ones such as /dev/zero).
func readInput(name string, stdin io.Reader) ([]byte, error) {
	return readBounded(name, stdin, maxSourceBytes)
}

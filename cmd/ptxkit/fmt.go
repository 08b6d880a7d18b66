package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

func init() {
	commands["fmt"] = command{"print PTX files in canonical form", runFmt}
}

const fmtUsage = `usage: ptxkit fmt [-l] [-w] FILE...

Prints each PTX FILE ("-": standard input) in canonical form, comments kept.
Exit status: 0 ok, 1 syntax errors or (with -l) a file that needs
formatting, 2 usage or I/O error.`

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
	// limitFmtHeap's limit ends with the command.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	largest := 0 // bytes of the largest input so far
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
		largest = max(largest, len(src))
		limitFmtHeap(largest)
		// First pass: syntax errors, and whether the canonical form
		// differs; the second prints. Both stream, statement by statement.
		same := &sameWriter{src: src}
		errs, err := formatTo(name, src, same)
		if err == nil && errs.HasErrors() {
			diag.WriteText(stderr, errs)
			status = exitFail
			continue
		}
		changed := !same.equal()
		switch {
		case err != nil:
		case *list || *write:
			if changed && *list {
				fmt.Fprintln(stdout, name)
				if !*write {
					status = exitFail // as a CI check: the listed files need formatting
				}
			}
			if changed && *write {
				err = rewriteFile(name, src)
			}
		default:
			_, err = formatTo(name, src, stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit fmt: %v\n", err)
			return exitUsage
		}
	}
	return status
}

// fmtHeapMargin is the heap fmt lets the garbage collector use beyond
// the source it holds: printing statement by statement leaves garbage
// (comment nodes, printed text) but keeps little live, and at the default
// GOGC a 256 MiB source, itself live heap, would let the heap reach twice
// its size before a collection (527 MB peak RSS against 309 MB with the
// limit; BENCHMARKS.md).
var fmtHeapMargin = 64 << 20 // a variable for the tests only

// limitFmtHeap sets a soft memory limit of the source size plus
// fmtHeapMargin, unless the user tuned the collector (GOGC, GOMEMLIMIT).
func limitFmtHeap(srcBytes int) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(srcBytes + fmtHeapMargin))
		guardGC(int64(srcBytes + fmtHeapMargin/2)) // one statement larger than the margin (gcguard.go)
	}
}

// formatTo writes the canonical form of src to w as it parses it, one
// statement at a time, so that memory stays bounded by the largest
// statement (printer.FprintStream). With syntax errors it writes a part
// of the form only and returns the errors.
func formatTo(name string, src []byte, w io.Writer) (diag.List, error) {
	// The tree's strings share the source's memory; src is never written.
	st := parser.NewStream(name, unsafe.String(unsafe.SliceData(src), len(src)), parser.StreamStatements|parser.ParseComments)
	err := printer.FprintStream(w, st)
	return st.Errors(), err
}

// rewriteFile replaces the contents of name, keeping its permissions,
// with the canonical form of src (its current contents).
func rewriteFile(name string, src []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	_, err = formatTo(name, src, bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sameWriter compares what is written to it with src.
type sameWriter struct {
	src    []byte
	n      int  // bytes written
	differ bool // they differ from src
}

func (w *sameWriter) Write(b []byte) (int, error) {
	if !w.differ && (w.n+len(b) > len(w.src) || !bytes.Equal(w.src[w.n:w.n+len(b)], b)) {
		w.differ = true
	}
	w.n += len(b)
	return len(b), nil
}

// equal reports whether what was written is src.
func (w *sameWriter) equal() bool { return !w.differ && w.n == len(w.src) }

// maxSourceBytes bounds one PTX input of check and fmt. Both stream the
// module one statement at a time, so that a run takes a small multiple of
// the input however it is split into functions.
const maxSourceBytes = 256 << 20

// readInput reads the file name, or stdin when name is "-", refusing
// inputs over maxSourceBytes (and endless ones such as /dev/zero).
func readInput(name string, stdin io.Reader) ([]byte, error) {
	return readBounded(name, stdin, maxSourceBytes)
}

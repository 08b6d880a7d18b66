package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ptxkit/ptxkit/internal/lsp"
	"github.com/ptxkit/ptxkit/isa"
)

func init() {
	commands["lsp"] = command{"a Language Server for .ptx files over standard input and output", runLSP}
}

// runLSP implements "ptxkit lsp": a Language Server Protocol 3.17 session
// on stdin and stdout (internal/lsp), whose hover on an instruction is
// explain's text. Exit status: 0 after shutdown and exit or at the end of
// the input, 1 for exit without shutdown or a broken stream, 2 for
// arguments.
func runLSP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a != "--stdio" { // what editors pass by habit; stdio is the only transport
			fmt.Fprintln(stderr, "usage: ptxkit lsp [--stdio]")
			return exitUsage
		}
	}
	err := lsp.Serve(stdin, stdout, lsp.Options{Explain: explainText})
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		return exitFail
	}
	fmt.Fprintf(stderr, "ptxkit lsp: %v\n", err)
	return exitFail
}

// explainText is what "ptxkit explain INSTRUCTION --target T --ptx V"
// prints, for T and V when they parse (a document's header may not).
func explainText(instruction, target, version string) string {
	x := &explanation{Text: strings.TrimSpace(instruction)}
	if t, err := isa.ParseTarget(target); err == nil {
		x.Target = t
	} else {
		target = ""
	}
	if v, err := isa.ParseVersion(version); err == nil {
		x.Version = v
	} else {
		version = ""
	}
	if err := x.analyze(target, version); err != nil {
		return err.Error() + "\n"
	}
	var b strings.Builder
	writeExplanation(&b, x)
	return b.String()
}

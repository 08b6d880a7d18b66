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
const lspUsage = `usage: ptxkit lsp [--stdio]

Runs a Language Server (LSP 3.17) for .ptx files over standard input and
output: diagnostics, hover, definition, references, symbols, completion,
formatting, quick fixes and semantic tokens (docs/lsp.md). Exit status: 0
after shutdown and exit, 1 on an exit without shutdown or a broken stream,
2 usage error.`

func runLSP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("lsp", lspUsage)
	cl.fs.Bool("stdio", true, "talk over standard input and output (the only transport; editors pass it by habit)")
	pos, status, ok := cl.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(pos) > 0 {
		cl.failf(stderr, "takes no arguments, got %q", pos[0])
		return exitUsage
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

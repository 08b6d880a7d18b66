// Command ptxkit parses, validates, emulates and assembles PTX and SASS
// store instructions. See README.md for the commands and output contract.
package main

import (
	"fmt"
	"io"
	"sort"
)

// A command is one subcommand: it receives the arguments after its name and
// returns the process exit status.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by the init functions of the files that implement each
// subcommand (check.go, fmt.go, run.go, explain.go, sass.go).
var commands = map[string]command{}

// Exit statuses shared by all subcommands.
const (
	exitOK       = 0
	exitFail     = 1 // the input has errors (does not validate)
	exitUsage    = 2 // bad flags, arguments or I/O
	exitSanitize = 3 // the emulator's sanitizer reported undefined behaviour
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(args[1:], stdin, stdout, stderr)
	case "help":
		return runHelp(args[1:], stdin, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ptxkit: unknown command %q (ptxkit help lists the commands)\n", args[0])
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

// runHelp implements "ptxkit help [COMMAND [SUBCOMMAND]]": the usage of
// ptxkit, or that of the command, which is what "COMMAND --help" prints.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ptxkit help: unknown command %q (ptxkit help lists the commands)\n", args[0])
		return exitUsage
	}
	return c.run(append(args[1:len(args):len(args)], "--help"), stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ptxkit COMMAND [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nptxkit help COMMAND (or ptxkit COMMAND --help) shows a command's flags; ptxkit --version its version.")
}

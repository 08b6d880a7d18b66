// Command ptxkit parses, validates, emulates and assembles PTX and SASS
// store instructions. See README.md for the commands and output contract.
package main

import (
	"fmt"
	"io"
	"os"
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

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses shared by all subcommands.
const (
	exitOK       = 0
	exitFail     = 1 // the input has errors (does not validate)
	exitUsage    = 2 // bad flags, arguments or I/O
	exitSanitize = 3 // the emulator's sanitizer reported undefined behaviour
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ptxkit: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
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
}

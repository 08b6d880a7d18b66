// Command benchmod writes a benchmark module of package benchmod to
// standard output, for the benchmark scripts (scripts/bench-startup.sh):
//
//	go run ./internal/benchmod/cmd/benchmod -style compiler -mb 64 > m.ptx
//
// -style check is the validator's module (benchmod.Check), -style
// compiler the compiler-output module (benchmod.Compiler).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

func main() {
	style := flag.String("style", "compiler", "check or compiler")
	mb := flag.Int("mb", 16, "size in MiB")
	flag.Parse()
	var src string
	switch *style {
	case "check":
		src = benchmod.Check(*mb << 20)
	case "compiler":
		src = benchmod.Compiler(*mb << 20)
	default:
		fmt.Fprintf(os.Stderr, "benchmod: unknown style %q (check or compiler)\n", *style)
		os.Exit(2)
	}
	if _, err := os.Stdout.WriteString(src); err != nil {
		fmt.Fprintln(os.Stderr, "benchmod:", err)
		os.Exit(1)
	}
}

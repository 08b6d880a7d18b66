// Command benchmod writes a benchmark module of package benchmod to
// standard output, for the benchmark scripts (scripts/bench-startup.sh):
//
//	go run ./internal/benchmod/cmd/benchmod -style compiler -mb 64 > m.ptx
//
// -style check is the validator's module (benchmod.Check), -style
// compiler the compiler-output module (benchmod.Compiler), -style
// replicate copies of the functions of a real module (-from FILE,
// benchmod.Replicate).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

func main() {
	style := flag.String("style", "compiler", "check, compiler or replicate")
	mb := flag.Int("mb", 16, "size in MiB")
	from := flag.String("from", "testdata/ptx/nvcc/ops_sm_90a.ptx", "with -style replicate: the module whose functions are copied")
	flag.Parse()
	var src string
	switch *style {
	case "replicate":
		b, err := os.ReadFile(*from)
		if err == nil {
			src, err = benchmod.Replicate(string(b), *mb<<20)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchmod:", err)
			os.Exit(1)
		}
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

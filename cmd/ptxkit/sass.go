package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ptxkit/ptxkit/sass"
)

func init() {
	commands["sass"] = command{"assemble, disassemble, lower and run SASS store instructions", runSass}
}

// maxSASSInput bounds the size of a SASS text or raw binary input.
const maxSASSInput = 64 << 20

// The usage of each sass subcommand, and of all of them (sassUsage).
const (
	sassAsmUsage    = "usage: ptxkit sass asm --arch ARCH [--raw OUT] [--sched] [--strict | --allow-misaligned] [FILE]"
	sassDisasmUsage = "usage: ptxkit sass disasm --arch ARCH [--sched] (--hex WORD... | FILE)"
	sassLowerUsage  = "usage: ptxkit sass lower --arch sm_50..sm_90|sm_100|sm_103|sm_110|sm_120 FILE.ptx"
	sassRunUsage    = "usage: ptxkit sass run --arch ARCH [--set R1=0x10]... [--local N] [--shared N] [--trap-misaligned] [FILE]"
	sassArchs       = "ARCH is one of sm_50, sm_52, sm_53, sm_60, sm_61, sm_62, sm_75, sm_80, sm_86, sm_89, sm_90,\n" +
		"sm_100, sm_103, sm_110, sm_120 (an a or f suffix is accepted)."
	sassUsage = "usage:\n  ptxkit sass asm --arch ARCH [--raw OUT] [--sched] [--strict | --allow-misaligned] [FILE]\n" +
		"  ptxkit sass disasm --arch ARCH [--sched] (--hex WORD... | FILE)\n" +
		"  ptxkit sass lower --arch sm_50..sm_90|sm_100|sm_103|sm_110|sm_120 FILE.ptx\n" +
		"  ptxkit sass run --arch ARCH [--set R1=0x10]... [--local N] [--shared N] [--trap-misaligned] [FILE]\n" + sassArchs
)

// runSass dispatches "ptxkit sass SUBCOMMAND". Exit status: 0 ok, 1 input
// errors, 2 usage or I/O failure.
func runSass(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, sassUsage)
		return exitUsage
	}
	switch args[0] {
	case "asm":
		return runSassAsm(args[1:], stdin, stdout, stderr)
	case "disasm":
		return runSassDisasm(args[1:], stdin, stdout, stderr)
	case "lower":
		return runSassLower(args[1:], stdin, stdout, stderr)
	case "run":
		return runSassRun(args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, sassUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "ptxkit sass: unknown subcommand %q (want asm, disasm, lower or run; ptxkit help sass shows them)\n", args[0])
	return exitUsage
}

// sassFlags holds the flags shared by the sass subcommands.
type sassFlags struct {
	*commandLine
	arch     archFlag
	sched    *bool
	misalign *bool
	strict   *bool
	raw      *string
	hex      *bool
	args     []string // positional arguments
}

// archFlag is an --arch value, checked when the flag is parsed.
type archFlag struct {
	name   string
	parsed sass.Arch
}

func (a *archFlag) String() string { return a.name }

func (a *archFlag) Set(s string) error {
	p, err := sass.ParseArch(s)
	if err != nil {
		return fmt.Errorf("want one of %s", archNames())
	}
	a.name, a.parsed = s, p
	return nil
}

func archNames() string {
	names := make([]string, len(sass.Archs))
	for i, a := range sass.Archs {
		names[i] = a.String()
	}
	return strings.Join(names, ", ")
}

func newSassFlags(name, usage string) *sassFlags {
	f := &sassFlags{commandLine: newCommandLine("sass "+name, usage+"\n"+sassArchs)}
	f.fs.Var(&f.arch, "arch", "target architecture `ARCH` (required), e.g. sm_90")
	f.sched = f.fs.Bool("sched", false, "print scheduling annotations (&req={..} &rd=0xN ?transN) that differ from the default")
	return f
}

// parse parses args; maxArgs bounds the positional arguments (-1: any
// number). When it returns ok == false the command is over with status.
func (f *sassFlags) parse(args []string, maxArgs int, stdout, stderr io.Writer) (status int, ok bool) {
	f.args, status, ok = f.commandLine.parse(args, stdout, stderr)
	switch {
	case !ok:
		return status, false
	case f.arch.name == "":
		f.failf(stderr, "--arch is required (one of %s)", archNames())
		return exitUsage, false
	case maxArgs >= 0 && len(f.args) > maxArgs:
		f.failf(stderr, "too many arguments")
		return exitUsage, false
	}
	return exitOK, true
}

func (f *sassFlags) arg(i int) string {
	if i < len(f.args) {
		return f.args[i]
	}
	return ""
}

// readSassInput reads FILE (or stdin for "" or "-"), bounded in size.
func readSassInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "" {
		name = "-"
	}
	return readBounded(name, stdin, maxSASSInput)
}

// displayName is the name of an input in messages: standard input is
// "-", as every command names it on its command line and in its output.
func displayName(name string) string {
	if name == "" {
		return "-"
	}
	return name
}

// runSassAsm implements "ptxkit sass asm": one output line per instruction,
// "HEX<TAB>TEXT", and with --raw the nvdisasm --binary image.
func runSassAsm(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newSassFlags("asm", sassAsmUsage)
	f.raw = f.fs.String("raw", "", "also write the raw binary (nvdisasm --binary layout) to `OUT`")
	f.misalign = f.fs.Bool("allow-misaligned", false, "accept .64/.128 data registers that are not even / not a multiple of 4 without a warning")
	f.strict = f.fs.Bool("strict", false, "reject misaligned .64/.128 data registers (ptxas never allocates them) instead of warning")
	if status, ok := f.parse(args, 1, stdout, stderr); !ok {
		return status
	}
	if *f.strict && *f.misalign {
		fmt.Fprintln(stderr, "ptxkit sass asm: --strict and --allow-misaligned exclude each other")
		return exitUsage
	}
	name := f.arg(0)
	src, err := readSassInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit sass asm: %v\n", err)
		return exitUsage
	}
	// nvdisasm prints misaligned tuples, so that every text it prints
	// assembles they are accepted unless --strict, with a warning unless
	// --allow-misaligned.
	opts := sass.Options{AllowMisaligned: !*f.strict}
	insts, nerr := assembleLines(string(src), displayName(name), opts, f, stdout, stderr)
	if nerr > 0 {
		return exitFail
	}
	if *f.raw != "" {
		raw, err := opts.MarshalRaw(insts, f.arch.parsed)
		if err == nil {
			err = os.WriteFile(*f.raw, raw, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit sass asm: %v\n", err)
			return exitUsage
		}
	}
	return exitOK
}

// assembleLines parses src line by line, printing "HEX<TAB>TEXT" for each
// instruction and each error with its position, and stops after
// sass.MaxErrors errors; memory stays proportional to the input. It
// returns the instructions when --raw needs them, and the error count.
func assembleLines(src, name string, opts sass.Options, f *sassFlags, stdout, stderr io.Writer) ([]sass.Inst, int) {
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var insts []sass.Inst
	if *f.raw != "" {
		insts = make([]sass.Inst, 0, strings.Count(src, "\n")+1)
	}
	nerr, num := 0, 0
	for line := range strings.SplitSeq(src, "\n") {
		num++
		if nerr == sass.MaxErrors {
			fmt.Fprintf(stderr, "%s:%d:1: too many errors (%d); the rest of the input is not checked\n", name, num, sass.MaxErrors)
			break
		}
		in, ok, err := opts.ParseLine(line, num, f.arch.parsed)
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "%s:%v\n", name, err)
			nerr++
			continue
		}
		if !ok {
			continue
		}
		if !*f.strict && !*f.misalign && in.CheckAlignment() != nil {
			_, _, serr := sass.Options{}.ParseLine(line, num, f.arch.parsed) // for the column
			out.Flush()
			fmt.Fprintf(stderr, "%s:%d:%d: warning: %s: %s (nvdisasm prints it; --strict rejects it)\n", name, num, serr.Col, serr.Field, serr.Msg)
		}
		if *f.raw != "" {
			insts = append(insts, in)
		}
		w, _ := opts.Encode(in, f.arch.parsed) // ParseLine has checked it
		fmt.Fprintf(out, "%s\t%s\n", w.Hex(f.arch.parsed), text(in, f.arch.parsed, *f.sched))
	}
	return insts, nerr
}

func text(in sass.Inst, arch sass.Arch, sched bool) string {
	if sched {
		return in.Format(arch)
	}
	return in.Text(arch)
}

// runSassDisasm implements "ptxkit sass disasm".
func runSassDisasm(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newSassFlags("disasm", sassDisasmUsage)
	f.hex = f.fs.Bool("hex", false, "decode the arguments as hex words (0x+16 digits for SM5x, 0x+32 hi-lo digits for SM7x+; all digits required)")
	if status, ok := f.parse(args, -1, stdout, stderr); !ok {
		return status
	}
	var words []sass.RawWord
	if *f.hex {
		if len(f.args) == 0 {
			fmt.Fprintln(stderr, "ptxkit sass disasm: --hex needs at least one WORD")
			return exitUsage
		}
		for i, a := range f.args {
			w, err := sass.ParseHex(a, f.arch.parsed)
			if err != nil {
				fmt.Fprintf(stderr, "word %d: %v\n", i+1, err)
				return exitFail
			}
			words = append(words, sass.RawWord{Addr: i * f.arch.parsed.WordBytes(), Word: w, Sched: sass.DefaultSched})
		}
	} else {
		if len(f.args) > 1 {
			fmt.Fprintln(stderr, "ptxkit sass disasm: at most one FILE")
			return exitUsage
		}
		raw, err := readSassInput(f.arg(0), stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit sass disasm: %v\n", err)
			return exitUsage
		}
		if words, err = sass.UnmarshalRaw(raw, f.arch.parsed); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", displayName(f.arg(0)), err)
			return exitFail
		}
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	nerr := 0
	for i, rw := range words {
		in, err := sass.DecodeRaw(rw, f.arch.parsed)
		if err != nil {
			// Every word is still decoded, but only the first errors are
			// printed: a binary that is mostly not stores would bury them.
			if nerr++; nerr <= sass.MaxErrors {
				where := fmt.Sprintf("%s: address 0x%04x", displayName(f.arg(0)), rw.Addr)
				if *f.hex {
					where = fmt.Sprintf("word %d", i+1)
				}
				out.Flush()
				fmt.Fprintf(stderr, "%s: %v\n", where, err)
			}
			continue
		}
		fmt.Fprintf(out, "%s\t%s\n", rw.Word.Hex(f.arch.parsed), text(in, f.arch.parsed, *f.sched))
	}
	if nerr > sass.MaxErrors {
		out.Flush()
		fmt.Fprintf(stderr, "%s: %d more words did not decode (the first %d are shown)\n", displayName(f.arg(0)), nerr-sass.MaxErrors, sass.MaxErrors)
	}
	if nerr > 0 {
		return exitFail
	}
	return exitOK
}

// runSassLower implements "ptxkit sass lower": the SASS ptxas emits for
// each PTX store of FILE.
func runSassLower(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("sass lower", sassLowerUsage)
	var arch lowerTargetFlag
	cl.fs.Var(&arch, "arch", "target `sm_XX` (required), sm_50 to sm_90, sm_100, sm_103, sm_110 or sm_120, with an optional a/f")
	pos, status, ok := cl.parse(args, stdout, stderr)
	switch {
	case !ok:
		return status
	case arch == "":
		cl.failf(stderr, "--arch is required (sm_50 to sm_90, sm_100, sm_103, sm_110 or sm_120)")
		return exitUsage
	case len(pos) != 1:
		cl.failf(stderr, "want one FILE.ptx, got %d arguments", len(pos))
		return exitUsage
	}
	return lowerFile(pos[0], string(arch), stdin, stdout, stderr)
}

// lowerTargetFlag is the --arch of sass lower, checked when parsed.
type lowerTargetFlag string

func (t *lowerTargetFlag) String() string { return string(*t) }

func (t *lowerTargetFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	if err := sass.CheckLowerTarget(s); err != nil {
		return errors.New("want sm_50 to sm_90, sm_100, sm_103, sm_110 or sm_120")
	}
	*t = lowerTargetFlag(s)
	return nil
}

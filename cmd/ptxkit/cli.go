package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
)

// This file holds the command-line conventions every subcommand follows,
// those of the Go tool and most Unix commands:
//
//   - -h, -help and --help print the command's usage to standard output and
//     exit 0; "ptxkit help CMD" does the same.
//   - An unknown flag or a bad value prints one line to standard error that
//     names the flag, and exits 2 (exitUsage).
//   - Flags may come before or after the positional arguments; "--" ends
//     them.

// commandLine is the flag set of one (sub)command with the usage text that
// --help prints before the flags' defaults.
type commandLine struct {
	name  string // "check", "sass asm": how messages name the command
	fs    *flag.FlagSet
	usage string // the synopsis lines; fs.PrintDefaults follows
}

// newCommandLine returns an empty flag set for the command name. The flag
// package prints nothing by itself: parse does the talking.
func newCommandLine(name, usage string) *commandLine {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &commandLine{name: name, fs: fs, usage: usage}
}

// printUsage writes the synopsis and the flags with their defaults to w.
func (c *commandLine) printUsage(w io.Writer) {
	fmt.Fprintln(w, c.usage)
	if hasFlags(c.fs) {
		fmt.Fprintln(w, "\nflags:")
		c.fs.SetOutput(w)
		c.fs.PrintDefaults()
		c.fs.SetOutput(io.Discard)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses args, flags and positional arguments interleaved. When it
// returns ok == false the command is over and status is its exit status:
// exitOK after printing the usage for -h or --help, exitUsage after
// printing one line naming a bad flag or value.
func (c *commandLine) parse(args []string, stdout, stderr io.Writer) (pos []string, status int, ok bool) {
	pos, err := parseInterspersed(c.fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.printUsage(stdout)
		return nil, exitOK, false
	case err != nil && strings.HasPrefix(err.Error(), "flag provided but not defined"):
		c.failf(stderr, "%v (ptxkit help %s lists the flags)", err, c.name)
		return nil, exitUsage, false
	case err != nil:
		c.failf(stderr, "%v", err)
		return nil, exitUsage, false
	}
	return pos, exitOK, true
}

// failf prints "ptxkit NAME: MESSAGE" on w.
func (c *commandLine) failf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "ptxkit %s: %s\n", c.name, fmt.Sprintf(format, args...))
}

// parseInterspersed parses flags that may follow positional arguments
// ("asm FILE --raw OUT"); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// targetFlag is a --target value, checked when the flag is parsed so that
// a bad one is reported like any bad flag value.
type targetFlag string

func (t *targetFlag) String() string { return string(*t) }

func (t *targetFlag) Set(s string) error {
	if _, err := isa.ParseTarget(s); err != nil {
		return errors.New("want sm_XY, sm_XYa or sm_XYf, e.g. sm_90a")
	}
	*t = targetFlag(s)
	return nil
}

// versionFlag is a --ptx value (a PTX ISA version), checked when parsed.
type versionFlag string

func (v *versionFlag) String() string { return string(*v) }

func (v *versionFlag) Set(s string) error {
	if _, err := isa.ParseVersion(s); err != nil {
		return errors.New("want a PTX ISA version MAJOR.MINOR, e.g. 8.5")
	}
	*v = versionFlag(s)
	return nil
}

// targetFlags declares --target and --ptx on fs, the validation overrides
// check, explain and run share.
func targetFlags(fs *flag.FlagSet) (*targetFlag, *versionFlag) {
	t, v := new(targetFlag), new(versionFlag)
	fs.Var(t, "target", "validate for this target (`sm_XX`, e.g. sm_90a) instead of the module's .target")
	fs.Var(v, "ptx", "validate for this PTX ISA version (`X.Y`, e.g. 8.5) instead of the module's .version")
	return t, v
}

// choiceFlag is a flag whose value is one of a fixed list, checked when
// parsed.
type choiceFlag struct {
	value   string
	choices []string
}

func newChoice(def string, choices ...string) *choiceFlag {
	return &choiceFlag{value: def, choices: choices}
}

func (c *choiceFlag) String() string {
	if c == nil {
		return ""
	}
	return c.value
}

func (c *choiceFlag) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("want %s or %s", strings.Join(c.choices[:len(c.choices)-1], ", "), c.choices[len(c.choices)-1])
	}
	c.value = s
	return nil
}

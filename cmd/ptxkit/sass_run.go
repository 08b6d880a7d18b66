package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/sass"
	sassexec "github.com/ptxkit/ptxkit/sass/exec"
)

// regFlags collects repeated --set NAME=VALUE flags.
type regFlags []string

func (r *regFlags) String() string     { return strings.Join(*r, ",") }
func (r *regFlags) Set(v string) error { *r = append(*r, v); return nil }

// runSassRun implements "ptxkit sass run": it executes the STL/STS lines of
// FILE in order for one thread (the STL/STS page: the local and shared windows,
// ImmS24/ImmU24 addressing, forced or trapping alignment) and prints what
// each store wrote, or its fault. Exit status 1 when a line does not
// assemble or a store faults.
func runSassRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newSassFlags("run", sassRunUsage)
	var sets regFlags
	f.fs.Var(&sets, "set", "initial register value `NAME=VALUE` (R0-R254, UR0-UR254, P0-P6; repeatable; others are 0)")
	local := f.fs.String("local", "0x1000", "bytes of the thread's local window that are allocated")
	shared := f.fs.String("shared", "0xc000", "bytes of the CTA's shared window that are allocated")
	trap := f.fs.Bool("trap-misaligned", false, "report a misaligned address instead of forcing it down to the access size")
	if status, ok := f.parse(args, 1, stdout, stderr); !ok {
		return status
	}
	th, err := newRunThread(sets, *local, *shared)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit sass run: %v\n", err)
		return exitUsage
	}
	name := f.arg(0)
	src, err := readSassInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit sass run: %v\n", err)
		return exitUsage
	}
	return execLines(string(src), displayName(name), f.arch.parsed, th, sassexec.Config{TrapMisaligned: *trap}, stdout, stderr)
}

// newRunThread builds thread 0 of CTA 0 with the given registers and
// allocations (at most the 16 MiB window each).
func newRunThread(sets []string, local, shared string) (*sassexec.Thread, error) {
	th := &sassexec.Thread{}
	for _, s := range sets {
		if err := setRegister(th, s); err != nil {
			return nil, err
		}
	}
	var mems [2]sassexec.Bytes
	for i, s := range []string{local, shared} {
		n, err := strconv.ParseUint(s, 0, 32)
		if err != nil || n > sassexec.WindowSize {
			return nil, fmt.Errorf("allocation %q: want 0 to %#x bytes", s, sassexec.WindowSize)
		}
		mems[i] = make(sassexec.Bytes, n)
	}
	th.Local = &sassexec.Window{Name: "local", Mem: mems[0]}
	th.Shared = &sassexec.Window{Name: "shared", Mem: mems[1]}
	return th, nil
}

// setRegister applies one --set NAME=VALUE.
func setRegister(th *sassexec.Thread, s string) error {
	name, val, ok := strings.Cut(s, "=")
	v, err := strconv.ParseUint(val, 0, 32)
	if !ok || err != nil {
		return fmt.Errorf("--set %q: want NAME=VALUE with a 32-bit VALUE", s)
	}
	for _, prefix := range []string{"UR", "R", "P"} {
		digits, found := strings.CutPrefix(name, prefix)
		n, err := strconv.ParseUint(digits, 10, 8)
		switch {
		case !found || err != nil:
			continue
		case prefix == "UR" && n < 255:
			th.UR[n] = uint32(v)
			return nil
		case prefix == "R" && n < 255:
			th.R[n] = uint32(v)
			return nil
		case prefix == "P" && n < 7 && v <= 1:
			th.P[n] = v == 1
			return nil
		}
		break
	}
	return fmt.Errorf("--set %q: want R0-R254, UR0-UR254 or P0-P6 (0 or 1)", s)
}

// execLines assembles and executes src line by line, printing
// "FILE:LINE: TEXT: WINDOW[ADDR] = BYTES" for each store, "... (predicated
// off)" for a store whose guard is false, and each fault or syntax error.
func execLines(src, name string, arch sass.Arch, th *sassexec.Thread, cfg sassexec.Config, stdout, stderr io.Writer) int {
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	opts := sass.Options{AllowMisaligned: true}
	nerr, num := 0, 0
	for line := range strings.SplitSeq(src, "\n") {
		num++
		if nerr == sass.MaxErrors {
			out.Flush()
			fmt.Fprintf(stderr, "%s:%d:1: too many errors (%d); the rest of the input is not run\n", name, num, sass.MaxErrors)
			break
		}
		in, ok, perr := opts.ParseLine(line, num, arch)
		if perr != nil {
			out.Flush()
			fmt.Fprintf(stderr, "%s:%v\n", name, perr)
			nerr++
			continue
		}
		if !ok {
			continue
		}
		if err := execOne(out, name, num, in, arch, th, cfg); err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "%s:%d: %v\n", name, num, err)
			nerr++
		}
	}
	if nerr > 0 {
		return exitFail
	}
	return exitOK
}

// execOne runs one store and prints what it wrote.
func execOne(out io.Writer, name string, num int, in sass.Inst, arch sass.Arch, th *sassexec.Thread, cfg sassexec.Config) error {
	text := in.Text(arch)
	if in.Op != sass.STS && in.Op != sass.STL {
		return fmt.Errorf("%s: only STS and STL run (the local and shared windows)", text)
	}
	w := th.Local
	if in.Op == sass.STS {
		w = th.Shared
	}
	rec := &recorder{Memory: w.Mem}
	saved := w.Mem
	w.Mem = rec
	err := sassexec.Exec(in, arch, th, cfg)
	w.Mem = saved
	var fault *sassexec.Fault
	switch {
	case errors.As(err, &fault):
		return fmt.Errorf("fault: %v", fault)
	case err != nil:
		return err
	case rec.data == nil:
		fmt.Fprintf(out, "%s:%d: %s: predicated off\n", name, num, text)
	default:
		fmt.Fprintf(out, "%s:%d: %s: %s[%#x] = % x\n", name, num, text, w.Name, rec.addr, rec.data)
	}
	return nil
}

// recorder passes writes to a Memory and remembers the last one.
type recorder struct {
	sassexec.Memory
	addr uint64
	data []byte
}

func (r *recorder) WriteAt(p []byte, addr uint64) {
	r.Memory.WriteAt(p, addr)
	r.addr, r.data = addr, append([]byte(nil), p...)
}

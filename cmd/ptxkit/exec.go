package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

func init() {
	commands["exec"] = command{"run an unmodified CUDA program with its kernels on the emulator", runExec}
}

const execUsage = `usage: ptxkit exec [--device sm_80|sm_90|sm_100a] [--jobs N] [--seed N] [--dump-ptx DIR] [--trace] PROGRAM [ARGS...]

Runs a dynamically linked CUDA program (nvcc's default static runtime or
-cudart shared) with every kernel executed by the emulator. The program's
CUDA runtime talks to ptxkit's libcuda.so.1, which ptxkit exec builds on
first use (it needs the go command, a C compiler and the ptxkit source) or
takes from $PTXKIT_LIBCUDA. Kernels must come as PTX: build with
nvcc -gencode arch=compute_90,code=compute_90. A kernel's sanitizer report
goes to standard error and the program gets the CUDA error a GPU gives.
The exit status is the program's.`

// execOptions are ptxkit exec's flags.
type execOptions struct {
	device   string
	jobs     int
	seed     uint64
	dumpPTX  string
	trace    bool
	timeline string // --timeline FILE.json
}

func runExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o execOptions
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.device, "device", "sm_90", "the GPU programs see: sm_80 (A100), sm_90 (H100 SXM) or sm_100a (B200)")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "clusters emulated in parallel per launch")
	fs.Uint64Var(&o.seed, "seed", 0, "warp scheduling seed (0: round-robin)")
	fs.StringVar(&o.dumpPTX, "dump-ptx", "", "write each loaded module's PTX to DIR (reports name its lines)")
	fs.StringVar(&o.timeline, "timeline", "", "write the timeline of every launch (warps' waits, asynchronous operations) to FILE.json at exit, in the Chrome/Perfetto trace-event format (docs/timeline.md)")
	fs.BoolVar(&o.trace, "trace", false, "log the driver's start-up protocol and unknown entry points on standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, execUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		fmt.Fprintf(stderr, "ptxkit exec: %v\n", err)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "ptxkit exec: no PROGRAM given\n"+execUsage)
		return exitUsage
	}
	if o.jobs < 1 {
		fmt.Fprintln(stderr, "ptxkit exec: --jobs must be at least 1")
		return exitUsage
	}
	switch o.device {
	case "sm_80", "sm_90", "sm_100", "sm_100a":
	default:
		fmt.Fprintf(stderr, "ptxkit exec: unknown --device %q (want sm_80, sm_90 or sm_100a)\n", o.device)
		return exitUsage
	}
	lib, err := findLibcuda(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit exec: %v\n", err)
		return exitUsage
	}
	return execProgram(lib, &o, fs.Args(), stdin, stdout, stderr)
}

// execProgram runs the program with lib's folder first on its library path.
func execProgram(lib string, o *execOptions, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	env := os.Environ()
	path := filepath.Dir(lib)
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		path += ":" + old
	}
	env = append(env, "LD_LIBRARY_PATH="+path, "PTXKIT_DEVICE="+o.device,
		"PTXKIT_JOBS="+strconv.Itoa(o.jobs), "PTXKIT_SEED="+strconv.FormatUint(o.seed, 10))
	if o.dumpPTX != "" {
		if err := os.MkdirAll(o.dumpPTX, 0o755); err != nil {
			fmt.Fprintf(stderr, "ptxkit exec: --dump-ptx: %v\n", err)
			return exitUsage
		}
		env = append(env, "PTXKIT_DUMP_PTX="+o.dumpPTX)
	}
	if o.trace {
		env = append(env, "PTXKIT_TRACE=1")
	}
	if o.timeline != "" {
		abs, err := filepath.Abs(o.timeline) // the program may change folder
		if err == nil {
			var f *os.File
			if f, err = os.Create(abs); err == nil { // an unwritable path fails before the run
				err = f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit exec: --timeline: %v\n", err)
			return exitUsage
		}
		env = append(env, "PTXKIT_TIMELINE="+abs)
	}
	cmd.Env = env
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		fmt.Fprintf(stderr, "ptxkit exec: %s: %v\n", argv[0], exit)
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()) // as a shell reports it
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "ptxkit exec: %v\n", err)
	return exitUsage
}

// libcudaName is the file the CUDA runtime opens.
const libcudaName = "libcuda.so.1"

// findLibcuda returns ptxkit's libcuda.so.1: $PTXKIT_LIBCUDA, or the one
// built into the user cache for this ptxkit binary, building it there
// from the ptxkit source when it is missing.
func findLibcuda(stderr io.Writer) (string, error) {
	if p := os.Getenv("PTXKIT_LIBCUDA"); p != "" {
		if filepath.Base(p) != libcudaName {
			return "", fmt.Errorf("PTXKIT_LIBCUDA=%s: the file must be named %s (the CUDA runtime opens that name)", p, libcudaName)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("PTXKIT_LIBCUDA: %v", err)
		}
		return p, nil
	}
	src, err := ptxkitSource()
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder to build %s in (%v); set PTXKIT_LIBCUDA to a built %s", libcudaName, err, libcudaName)
	}
	key, err := sourceKey(src)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "ptxkit", "libcuda-"+key)
	lib := filepath.Join(dir, libcudaName)
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	return lib, buildLibcuda(src, dir, lib, stderr)
}

// ptxkitSource finds the ptxkit source tree: $PTXKIT_SOURCE, the tree
// this binary was built from (when it is still there), or a folder holding
// ptxkit's go.mod above the working directory or the executable.
func ptxkitSource() (string, error) {
	var starts []string
	if s := os.Getenv("PTXKIT_SOURCE"); s != "" {
		starts = append(starts, s)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) { // not with -trimpath
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for d := s; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/ptxkit/ptxkit\n")) {
				if _, err := os.Stat(filepath.Join(d, "cmd", "ptxkit-libcuda")); err == nil {
					return d, nil
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("%s is not built and the ptxkit source is not found (looked above the working folder and the ptxkit executable); run ptxkit exec inside a ptxkit checkout, set PTXKIT_SOURCE to one, or set PTXKIT_LIBCUDA to a %s built with: go build -buildmode=c-shared -o DIR/%s ./cmd/ptxkit-libcuda", libcudaName, libcudaName, libcudaName)
}

// sourceKey hashes the Go and C files the library is built from, so that
// a changed source builds a new library.
func sourceKey(src string) (string, error) {
	h := sha256.New()
	for _, dir := range []string{"cmd/ptxkit-libcuda", "internal/cudrv", "internal/fatbin", "internal/timeline", "emu"} {
		files, err := filepath.Glob(filepath.Join(src, dir, "*.[goch]*"))
		if err != nil {
			return "", err
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildLibcuda builds the library with the go command.
func buildLibcuda(src, dir, lib string, stderr io.Writer) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("%s is not built and the go command is not on PATH; install Go or set PTXKIT_LIBCUDA to a %s built with: go build -buildmode=c-shared -o DIR/%s ./cmd/ptxkit-libcuda", libcudaName, libcudaName, libcudaName)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(strings.Fields(cc + " x")[0]); err != nil {
		return fmt.Errorf("%s is not built and there is no C compiler (%s) for cgo; install gcc or clang", libcudaName, cc)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptxkit exec: building %s into %s (once)\n", libcudaName, dir)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d", libcudaName, os.Getpid()))
	cmd := exec.Command(gobin, "build", "-buildmode=c-shared", "-o", tmp, "./cmd/ptxkit-libcuda")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("building %s failed: %v\n%s", libcudaName, err, out.String())
	}
	os.Remove(strings.TrimSuffix(tmp, filepath.Ext(tmp)) + ".h")
	os.Remove(tmp + ".h")
	return os.Rename(tmp, lib)
}

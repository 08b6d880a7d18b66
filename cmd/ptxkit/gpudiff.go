//go:build !(js && wasm)

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/gpuwire"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

func init() {
	commands["gpu-diff"] = command{"run a kernel on the emulator and on a GPU and compare every buffer", runGPUDiff}
}

// Exit status of gpu-diff when a buffer differs.
const exitDiffer = 1

const gpuDiffUsage = `usage: ptxkit gpu-diff FILE.ptx [--kernel NAME] [--grid X[,Y[,Z]]] [--block X[,Y[,Z]]] [--cluster X[,Y[,Z]]]
                       [--shared-bytes N] [--arg VALUE]... [--seed N] [--async eager|delayed|random] [--max-steps N] [--timeout D]
                       [--gpu-timeout D]

Runs the launch on the emulator and, through the CUDA driver (libcuda.so.1,
or the file PTXKIT_LIBCUDA names), on GPU 0, and compares every buffer
argument. The driver is loaded by ptxkit-cuda, a program installed beside
ptxkit (go install ./cmd/...; PTXKIT_CUDA_LOADER names another). The
driver's side (opening it, loading the module, the launch and the copies
back) is bounded by --gpu-timeout: a kernel or driver that does not return
in time is killed with its process and reported. Exit status: 0 all
agree, 1 a buffer differs, 2 usage, no GPU, a driver error or the GPU side
past --gpu-timeout, 3 sanitizer report.`

func gpuDiffFlags(o *runOptions, gpuTimeout *durationFlag) *commandLine {
	cl := newCommandLine("gpu-diff", gpuDiffUsage)
	fs := cl.fs
	launchShapeFlags(fs, o)
	fs.Uint64Var(&o.seed, "seed", 0, "warp scheduling seed of the emulator")
	o.async = newChoice("eager", "eager", "delayed", "random")
	fs.Var(o.async, "async", "when the emulator lands asynchronous operations: eager, delayed or random")
	fs.Var(&o.maxSteps, "max-steps", "warp-instructions per cluster before the emulator stops (default 2^26; 0: no limit)")
	o.timeout = durationFlag(defaultTimeout)
	fs.Var(&o.timeout, "timeout", "wall-clock budget of the emulated launch (0: no limit)")
	*gpuTimeout = durationFlag(defaultGPUTimeout)
	fs.Var(gpuTimeout, "gpu-timeout", "wall-clock budget of the driver's side: open, module load, launch, copies (0: no limit)")
	return cl
}

// runGPUDiff implements "ptxkit gpu-diff".
func runGPUDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := runOptions{jobs: 1}
	var gpuTimeout durationFlag
	pos, status, ok := gpuDiffFlags(&o, &gpuTimeout).parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxkit gpu-diff: give one FILE.ptx")
		return exitUsage
	}
	src, err := readBounded(pos[0], stdin, maxPTXBytes)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit gpu-diff: %v\n", err)
		return exitUsage
	}
	gs := &gpuSide{timeout: time.Duration(gpuTimeout)}
	if _, err := gs.call("opening the driver", &gpuwire.Request{Probe: true}); err != nil {
		if errors.Is(err, errNoGPU) {
			fmt.Fprintf(stderr, "ptxkit gpu-diff: no GPU to compare with: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "ptxkit gpu-diff: %v\n", err)
		}
		return exitUsage
	}
	return gpuDiff(pos[0], src, &o, gs, stdout, stderr)
}

// gpuDiff runs the launch o describes on the emulator and on the GPU (gs) and
// reports, per buffer, whether they agree.
func gpuDiff(name string, src []byte, o *runOptions, gs *gpuSide, stdout, stderr io.Writer) int {
	prog, code := decodeChecked(name, src, o.kernel, stderr)
	if prog == nil {
		return code
	}
	l, err := diffLaunch(prog, o)
	var gargs []gpuwire.Arg
	if err == nil {
		gargs, err = deviceArgs(prog, l.Args)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit gpu-diff: %v\n", err)
		return exitUsage
	}
	res, err := l.Run()
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit gpu-diff: %v\n", err)
		return exitUsage
	}
	if res.Report != nil {
		fmt.Fprintf(stderr, "%v\n", res.Report)
		fmt.Fprintln(stdout, "the emulator stopped with a sanitizer report; nothing to compare")
		return exitSanitize
	}
	resp, err := gs.call("the launch", &gpuwire.Request{PTX: src,
		Launch: gpuwire.Launch{Kernel: prog.Kernel, Grid: l.Grid, Block: l.Block, Cluster: l.Cluster, SharedBytes: l.SharedBytes, Args: gargs}})
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit gpu-diff: on the GPU: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "kernel %s, grid %v, block %v: emulator against %s\n", prog.Kernel, l.Grid, l.Block, resp.Library)
	status := exitOK
	for i, r := range res.Buffers {
		if r == nil {
			continue
		}
		if !reportBuffer(stdout, *l, i, r.Data, resp.Buffers[i]) {
			status = exitDiffer
		}
	}
	return status
}

// diffLaunch builds and checks the emulator's launch for gpu-diff. Its
// buffers are copied, not adopted, so that a second run (lastStore)
// starts from the same initial contents as the first and the GPU.
func diffLaunch(prog *emu.Program, o *runOptions) (*emu.Launch, error) {
	cfg, err := o.config()
	if err != nil {
		return nil, err
	}
	l := &emu.Launch{Kernel: prog, Config: cfg}
	if l.Args, err = kernelArgs(prog, o.args); err != nil {
		return nil, err
	}
	for i := range l.Args {
		l.Args[i].Adopt = false
	}
	return l, l.Check()
}

// decodeChecked parses, validates and decodes kernel of src, reporting
// errors; it returns nil and the exit status on failure.
func decodeChecked(name string, src []byte, kernel string, stderr io.Writer) (*emu.Program, int) {
	m, errs := parser.ParseFile(name, src)
	var info *resolve.Info
	if !errs.HasErrors() {
		var l diag.List
		info, l = check.ModuleInfo(m, check.Config{}) // resolved once, for the validator and the decoder
		errs = append(errs, l...)
	}
	if errs.HasErrors() {
		errs.Sort()
		diag.WriteText(stderr, errs)
		return nil, exitFail
	}
	prog, derrs := emu.DecodeResolved(m, info, kernel)
	if derrs.HasErrors() {
		diag.WriteText(stderr, derrs)
		return nil, decodeStatus(derrs)
	}
	return prog, exitOK
}

// deviceArgs converts the emulator's checked arguments for the driver,
// giving each buffer its initial contents.
func deviceArgs(p *emu.Program, args []emu.Arg) ([]gpuwire.Arg, error) {
	out := make([]gpuwire.Arg, len(args))
	for i, a := range args {
		prm := p.Params[i]
		if a.TensorMap != nil {
			return nil, fmt.Errorf("--arg %d (%s): tensor maps are not passed to the GPU", i, prm.Name)
		}
		if !a.IsBuffer && prm.Size > 8 {
			return nil, fmt.Errorf("--arg %d (%s): parameters of %d bytes are not passed to the GPU", i, prm.Name, prm.Size)
		}
		b := a.Buffer
		if a.IsBuffer && b == nil {
			b = bytes.Repeat([]byte{a.Fill}, a.Size)
		}
		out[i] = gpuwire.Arg{IsBuffer: a.IsBuffer, Buffer: b, Value: a.Value, Size: prm.Size}
	}
	return out, nil
}

// reportBuffer prints whether buffer i agrees and, when it does not, the
// first differing byte and the instruction that last stored it on the
// emulator. It returns whether they agree.
func reportBuffer(w io.Writer, l emu.Launch, i int, emuBytes, gpuBytes []byte) bool {
	first, n := -1, 0
	for k := range emuBytes {
		if emuBytes[k] != gpuBytes[k] {
			if first < 0 {
				first = k
			}
			n++
		}
	}
	if first < 0 {
		fmt.Fprintf(w, "arg%d: %d bytes agree\n", i, len(emuBytes))
		return true
	}
	fmt.Fprintf(w, "arg%d: %d of %d bytes differ; the first is byte %d: emulator 0x%02x, GPU 0x%02x\n", i, n, len(emuBytes), first, emuBytes[first], gpuBytes[first])
	fmt.Fprintf(w, "  %s\n", lastStore(l, i, first))
	return false
}

// lastStore runs the emulator again, with one job, watching byte off of
// buffer i, and describes the last instruction that stored it.
func lastStore(l emu.Launch, i, off int) string {
	probe := &emu.StoreProbe{Arg: i, Offset: uint64(off)}
	l.Probe = probe
	if _, err := l.Run(); err != nil {
		return fmt.Sprintf("(the emulator could not run again to find its last store: %v)", err)
	}
	if !probe.Found {
		return "no instruction stored that byte on the emulator: it holds the buffer's initial value"
	}
	return fmt.Sprintf("last stored on the emulator by %s at %s:%s, %s (%d stores to the byte)",
		probe.Opcode, l.Kernel.File, probe.Pos, probe.Thread.String(), probe.Stores)
}

package cudrv

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/timeline"
)

// LaunchConfig is a launch's shape.
type LaunchConfig struct {
	Grid, Block [3]int
	Cluster     [3]int // zero: no cluster dimension given
	SharedBytes int    // dynamic shared memory per CTA
	Cooperative bool
	Stream      int // the stream's number on the timeline (0: the null stream)
}

// Launch is cuLaunchKernel: it runs the kernel to completion on the
// emulator. params holds each parameter's bytes. A launch that cannot
// start returns its error; a kernel that faults returns Success, as the
// asynchronous launch on a GPU does, and leaves the error for the next
// call (the context is broken, as on a GPU), with the sanitizer's report
// on the error stream.
func (d *Driver) Launch(fh Handle, cfg LaunchConfig, params [][]byte) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.state(); r != Success {
		return r
	}
	fn, ok := lookup[*Function](d, fh)
	if !ok {
		return ErrInvalidHandle
	}
	if fn.prog == nil {
		d.Logf("kernel %s cannot run on the emulator:\n%s", fn.Name, diagText(fn.errs))
		return ErrNotSupported
	}
	if r := d.checkShape(fn, &cfg); r != Success {
		return r
	}
	if len(params) != len(fn.prog.Params) {
		d.Logf("kernel %s takes %d parameters; the launch passes %d", fn.Name, len(fn.prog.Params), len(params))
		return ErrInvalidValue
	}
	args := make([]emu.Arg, len(params))
	for i, p := range params {
		if len(p) != fn.prog.Params[i].Size {
			d.Logf("kernel %s: parameter %d (%s) takes %d bytes; the launch passes %d", fn.Name, i, fn.prog.Params[i].Name, fn.prog.Params[i].Size, len(p))
			return ErrInvalidValue
		}
		args[i] = emu.Arg{Raw: p}
	}
	l := &emu.Launch{Kernel: fn.prog, Args: args, Mem: d.mem}
	l.Grid, l.Block, l.Cluster = cfg.Grid, cfg.Block, cfg.Cluster
	if l.Cluster == [3]int{} {
		l.Cluster = [3]int{1, 1, 1}
	}
	l.SharedBytes, l.Cooperative = cfg.SharedBytes, cfg.Cooperative
	l.Jobs, l.Seed = max(d.opt.Jobs, 1), d.opt.Seed
	var tl *timeline.Launch
	if d.opt.Timeline != nil {
		tl = d.opt.Timeline.Attach(l, cfg.Stream)
	}
	res, err := l.Run()
	if tl != nil {
		tl.End(res)
	}
	if err != nil {
		d.Logf("kernel %s: %v", fn.Name, err)
		if errors.Is(err, emu.ErrLaunch) && strings.Contains(err.Error(), "cooperative") {
			return ErrCooperativeTooLarge
		}
		return ErrInvalidValue
	}
	if out := res.Stats.Printf; len(out) > 0 {
		d.opt.Stdout.Write(out)
	}
	if rep := res.Report; rep != nil {
		fmt.Fprintf(d.opt.Stderr, "========= ptxkit: kernel %s stopped\n%v\n", fn.Name, rep)
		d.sticky = faultResult(rep.Rule)
		fmt.Fprintf(d.opt.Stderr, "========= the program sees %s (%s)\n", d.sticky, describe(d.sticky))
	}
	return Success
}

func describe(r Result) string {
	s, _ := r.Description()
	return s
}

// checkShape validates the launch's dimensions against the device, as
// cuLaunchKernel does before running anything.
func (d *Driver) checkShape(fn *Function, cfg *LaunchConfig) Result {
	g := d.gpu
	maxBlock := [3]int64{g.attrs[2], g.attrs[3], g.attrs[4]}
	maxGrid := [3]int64{g.attrs[5], g.attrs[6], g.attrs[7]}
	threads := 1
	for i := range 3 {
		if cfg.Grid[i] < 1 || cfg.Block[i] < 1 || int64(cfg.Block[i]) > maxBlock[i] || int64(cfg.Grid[i]) > maxGrid[i] {
			return ErrInvalidValue
		}
		threads *= cfg.Block[i]
	}
	if threads > int(g.attrs[attrMaxThreadsPerBlock]) {
		return ErrInvalidValue
	}
	limit := int(g.attrs[attrMaxSmemPerBlock])
	if fn.MaxDynamicShared > 0 {
		limit = max(limit, fn.MaxDynamicShared)
	}
	if cfg.SharedBytes < 0 || cfg.SharedBytes > limit {
		d.Logf("kernel %s: %d bytes of dynamic shared memory; at most %d without cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", fn.Name, cfg.SharedBytes, limit)
		return ErrInvalidValue
	}
	return Success
}

// faultResult maps a sanitizer rule to the CUDA error a GPU gives for the
// same fault.
func faultResult(rule string) Result {
	switch rule {
	case "out-of-bounds", "surface-out-of-bounds", "wrong-window", "store-to-const", "store-to-param", "remote-cta-exited":
		return ErrIllegalAddress
	case "misaligned":
		return ErrMisalignedAddress
	case "assert":
		return ErrAssert
	case "trap":
		return ErrLaunchFailed
	case "call-depth":
		return ErrHardwareStackError
	case emu.RuleTimeout, emu.RuleMaxSteps:
		return ErrLaunchTimeout
	}
	return ErrLaunchFailed
}

// SetMaxDynamicShared is cuFuncSetAttribute for
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
func (d *Driver) SetMaxDynamicShared(fh Handle, n int) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn, ok := lookup[*Function](d, fh)
	if !ok {
		return ErrInvalidHandle
	}
	if n < 0 || n > d.gpu.SmemOptin {
		return ErrInvalidValue
	}
	fn.MaxDynamicShared = n
	return Success
}

// FuncAttr is cuFuncGetAttribute (CUfunction_attribute numbers).
func (d *Driver) FuncAttr(fh Handle, attr int) (int64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn, ok := lookup[*Function](d, fh)
	if !ok {
		return 0, ErrInvalidHandle
	}
	switch attr {
	case 0: // MAX_THREADS_PER_BLOCK
		return 1024, Success
	case 1: // SHARED_SIZE_BYTES (static)
		if fn.prog == nil {
			return 0, Success
		}
		return int64(fn.prog.StaticSharedBytes()), Success
	case 2: // CONST_SIZE_BYTES
		return 0, Success
	case 3: // LOCAL_SIZE_BYTES
		return 0, Success
	case 4: // NUM_REGS
		return 32, Success
	case 5, 6: // PTX_VERSION, BINARY_VERSION
		return int64(d.gpu.SM()), Success
	case 7: // CACHE_MODE_CA
		return 0, Success
	case 8: // MAX_DYNAMIC_SHARED_SIZE_BYTES
		return int64(max(fn.MaxDynamicShared, 49152)), Success
	case 9: // PREFERRED_SHARED_MEMORY_CARVEOUT
		return -1, Success
	}
	return 0, Success
}

// Stream is a CUDA stream; work runs when it is issued, so streams only
// keep their flags and priority.
type Stream struct {
	Flags    uint32
	Priority int
}

// CreateStream is cuStreamCreate.
func (d *Driver) CreateStream(flags uint32, priority int) Handle {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.newHandle(&Stream{Flags: flags, Priority: priority})
}

// StreamInfo returns a stream's flags and priority; the null stream
// (0) and the special handles 1 and 2 (legacy and per-thread default
// streams) are valid.
func (d *Driver) StreamInfo(h Handle) (*Stream, Result) {
	if h <= 2 {
		return &Stream{}, Success
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := lookup[*Stream](d, h)
	if !ok {
		return nil, ErrInvalidHandle
	}
	return s, Success
}

// DestroyStream is cuStreamDestroy.
func (d *Driver) DestroyStream(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := lookup[*Stream](d, h); !ok {
		return ErrInvalidHandle
	}
	d.destroy(h)
	return Success
}

// Event is a CUDA event: the time it was recorded at.
type Event struct {
	Flags    uint32
	Recorded bool
	At       time.Time
}

// CreateEvent is cuEventCreate.
func (d *Driver) CreateEvent(flags uint32) Handle {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.newHandle(&Event{Flags: flags})
}

// RecordEvent is cuEventRecord: the work issued before has completed, so
// the event completes now.
func (d *Driver) RecordEvent(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := lookup[*Event](d, h)
	if !ok {
		return ErrInvalidHandle
	}
	e.Recorded, e.At = true, time.Now()
	return d.sticky
}

// QueryEvent is cuEventQuery and cuEventSynchronize.
func (d *Driver) QueryEvent(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := lookup[*Event](d, h); !ok {
		return ErrInvalidHandle
	}
	return d.sticky
}

// Elapsed is cuEventElapsedTime in milliseconds.
func (d *Driver) Elapsed(start, end Handle) (float32, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok1 := lookup[*Event](d, start)
	b, ok2 := lookup[*Event](d, end)
	if !ok1 || !ok2 {
		return 0, ErrInvalidHandle
	}
	if !a.Recorded || !b.Recorded {
		return 0, ErrInvalidHandle
	}
	if a.Flags&2 != 0 || b.Flags&2 != 0 { // CU_EVENT_DISABLE_TIMING
		return 0, ErrInvalidHandle
	}
	return float32(b.At.Sub(a.At).Seconds() * 1000), Success
}

// DestroyEvent is cuEventDestroy.
func (d *Driver) DestroyEvent(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := lookup[*Event](d, h); !ok {
		return ErrInvalidHandle
	}
	d.destroy(h)
	return Success
}

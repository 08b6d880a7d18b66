// Package cudrv is the CUDA driver that runs kernels on the emulator: the
// devices it presents, contexts, device memory, modules loaded from PTX
// or fatbinaries, functions and module variables, streams and events, and
// kernel launches on emu with faults turned into the CUDA errors a GPU
// gives. It is plain Go; the C ABI (libcuda.so.1) that CUDA programs and
// the CUDA runtime call is the separate cgo command cmd/ptxkit-libcuda,
// which converts pointers and calls this package.
package cudrv

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/timeline"
)

// Version is the CUDA version the driver reports (cuDriverGetVersion):
// 12.5, which the CUDA 12.5 runtime requires at least.
const Version = 12050

// Handle names a driver object (context, module, function, stream,
// event) across the C ABI; 0 is never a valid handle.
type Handle uint64

// Options configure a driver.
type Options struct {
	Device string // --device: sm_80, sm_90 (default) or sm_100a
	Jobs   int    // clusters emulated in parallel per launch (0: 1)
	// MemoryLimit bounds device allocations together (0: 16 GiB or the
	// GPU's memory when smaller).
	MemoryLimit uint64
	Stdout      io.Writer // device printf output (default os.Stdout)
	Stderr      io.Writer // sanitizer reports and driver messages (default os.Stderr)
	// DumpPTX, when set, is a directory that receives each loaded
	// module's PTX (module-N.ptx), which the line numbers of reports
	// refer to.
	DumpPTX string
	Seed    uint64
	// HostMap, when set, maps n bytes of host memory at address addr
	// (page-aligned ranges) and returns them, or nil when it cannot. The
	// driver gives __managed__ module variables such memory at their own
	// device address, so that the host reaches them through the pointer
	// the runtime hands it, as with unified memory on a GPU.
	HostMap func(addr uint64, n int) []byte
	// Timeline, when set, records every launch (ptxkit exec --timeline):
	// a span per launch on its stream, the warps' waits and asynchronous
	// operations of each (internal/timeline).
	Timeline *timeline.Recorder
}

// Driver is one process's driver state. Its methods are safe for
// concurrent use; kernels run one at a time.
type Driver struct {
	mu   sync.Mutex
	opt  Options
	gpu  *GPU
	mem  *emu.Memory
	init bool

	next    Handle
	objects map[Handle]any

	primary   Handle // the primary context, once retained
	primaryN  int    // its retain count
	primFlags uint32
	allocs    map[uint64]*allocation
	used      uint64
	limit     uint64
	modules   int
	sticky    Result // the error a kernel left (a broken context)
	start     time.Time

	reserved    map[uint64]reservation // cuMemAddressReserve ranges by base
	mapped      map[uint64]mapping     // cuMemMap mappings by address
	nextVA      uint64
	graphAllocs map[uint64]uint64 // graph memory allocation nodes' addresses and sizes
	graphUsed   uint64            // bytes held by graph memory allocation nodes
	graphHigh   uint64
	conds       map[uint64]conditional // conditional graph node handles (graphcond.go)
}

// allocation is device memory the driver handed out.
type allocation struct {
	region *emu.Region
	kind   MemKind
	mapped bool // a cuMemMap mapping: cuMemUnmap removes it, not cuMemFree
	graph  bool // made by a graph memory allocation node
}

// MemKind is where memory lives (CUmemorytype).
type MemKind int

const (
	MemHost    MemKind = 1 // host memory reachable by kernels (pinned, mapped)
	MemDevice  MemKind = 2
	MemUnified MemKind = 4 // managed
)

// New returns a driver for the options.
func New(opt Options) (*Driver, error) {
	gpu, err := LookupGPU(opt.Device)
	if err != nil {
		return nil, err
	}
	if opt.Stdout == nil {
		opt.Stdout = os.Stdout
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	limit := opt.MemoryLimit
	if limit == 0 {
		limit = min(16<<30, gpu.TotalMem)
	}
	return &Driver{
		opt: opt, gpu: gpu, mem: emu.NewMemory(), next: 0x1000,
		objects: map[Handle]any{}, allocs: map[uint64]*allocation{},
		limit: limit, start: time.Now(),
	}, nil
}

// Timeline returns the recorder of the driver's launches, nil when
// Options.Timeline was not set.
func (d *Driver) Timeline() *timeline.Recorder { return d.opt.Timeline }

// GPU returns the device the driver presents.
func (d *Driver) GPU() *GPU { return d.gpu }

// Init is cuInit.
func (d *Driver) Init(flags uint32) Result {
	if flags != 0 {
		return ErrInvalidValue
	}
	d.mu.Lock()
	d.init = true
	d.mu.Unlock()
	return Success
}

// newHandle registers obj and returns its handle. Callers hold d.mu.
func (d *Driver) newHandle(obj any) Handle {
	d.next += 0x10
	d.objects[d.next] = obj
	return d.next
}

// lookup returns the object of handle h when it has type T.
func lookup[T any](d *Driver, h Handle) (T, bool) {
	obj, ok := d.objects[h].(T)
	return obj, ok
}

// Destroy releases handle h (a module, stream or event).
func (d *Driver) destroy(h Handle) { delete(d.objects, h) }

// checkDevice validates a device ordinal.
func (d *Driver) checkDevice(dev int) Result {
	if dev != 0 {
		return ErrInvalidDevice
	}
	return Success
}

// State returns Success when the driver is initialized and no kernel
// broke the context, or the error to return instead.
func (d *Driver) State() Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state()
}

func (d *Driver) state() Result {
	if !d.init {
		return ErrNotInitialized
	}
	return d.sticky
}

// Logf writes a driver message to the error stream.
func (d *Driver) Logf(format string, args ...any) {
	fmt.Fprintf(d.opt.Stderr, "ptxkit: "+format+"\n", args...)
}

// Context is a CUDA context. All contexts share the device's memory.
type Context struct {
	Primary bool
	Flags   uint32
	storage map[uintptr]uintptr // the runtime's context-local storage
}

// DeviceCount is cuDeviceGetCount.
func (d *Driver) DeviceCount() int { return 1 }

// PrimaryRetain is cuDevicePrimaryCtxRetain: the primary context, made on
// first use.
func (d *Driver) PrimaryRetain(dev int) (Handle, Result) {
	if r := d.checkDevice(dev); r != Success {
		return 0, r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.init {
		return 0, ErrNotInitialized
	}
	if d.primary == 0 {
		d.primary = d.newHandle(&Context{Primary: true, Flags: d.primFlags, storage: map[uintptr]uintptr{}})
	}
	d.primaryN++
	return d.primary, Success
}

// Primary returns the primary context without retaining it (0 when it
// was never made).
func (d *Driver) Primary() Handle {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.primary
}

// PrimaryRelease is cuDevicePrimaryCtxRelease.
func (d *Driver) PrimaryRelease(dev int) Result {
	if r := d.checkDevice(dev); r != Success {
		return r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.primaryN > 0 {
		d.primaryN--
	}
	return Success
}

// PrimaryState is cuDevicePrimaryCtxGetState.
func (d *Driver) PrimaryState(dev int) (flags uint32, active bool, r Result) {
	if r := d.checkDevice(dev); r != Success {
		return 0, false, r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.primFlags, d.primaryN > 0, Success
}

// PrimarySetFlags is cuDevicePrimaryCtxSetFlags.
func (d *Driver) PrimarySetFlags(dev int, flags uint32) Result {
	if r := d.checkDevice(dev); r != Success {
		return r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.primFlags = flags
	if c, ok := lookup[*Context](d, d.primary); ok {
		c.Flags = flags
	}
	return Success
}

// PrimaryReset is cuDevicePrimaryCtxReset: it clears a broken context's
// error, as resetting a GPU does.
func (d *Driver) PrimaryReset(dev int) Result {
	if r := d.checkDevice(dev); r != Success {
		return r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sticky = Success
	return Success
}

// CreateContext is cuCtxCreate.
func (d *Driver) CreateContext(flags uint32, dev int) (Handle, Result) {
	if r := d.checkDevice(dev); r != Success {
		return 0, r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.init {
		return 0, ErrNotInitialized
	}
	return d.newHandle(&Context{Flags: flags, storage: map[uintptr]uintptr{}}), Success
}

// DestroyContext is cuCtxDestroy.
func (d *Driver) DestroyContext(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := lookup[*Context](d, h)
	if !ok {
		return ErrInvalidContext
	}
	if !c.Primary {
		d.destroy(h)
	}
	return Success
}

// IsContext reports whether h is a live context.
func (d *Driver) IsContext(h Handle) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := lookup[*Context](d, h)
	return ok
}

// ContextFlags returns a context's flags.
func (d *Driver) ContextFlags(h Handle) (uint32, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := lookup[*Context](d, h)
	if !ok {
		return 0, ErrInvalidContext
	}
	return c.Flags, Success
}

// SetLocal and Local are the context-local storage the CUDA runtime keeps
// per context (through a private export table).
func (d *Driver) SetLocal(h Handle, key, value uintptr) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := lookup[*Context](d, h)
	if !ok {
		return ErrInvalidContext
	}
	c.storage[key] = value
	return Success
}

// Local returns the value stored for key, or ErrInvalidValue.
func (d *Driver) Local(h Handle, key uintptr) (uintptr, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := lookup[*Context](d, h)
	if !ok {
		return 0, ErrInvalidContext
	}
	v, ok := c.storage[key]
	if !ok {
		return 0, ErrInvalidValue
	}
	return v, Success
}

// DeleteLocal removes key from a context's storage.
func (d *Driver) DeleteLocal(h Handle, key uintptr) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := lookup[*Context](d, h); ok {
		delete(c.storage, key)
	}
	return Success
}

// SetHeapSize is cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE): it fails once a
// kernel that calls malloc has run.
func (d *Driver) SetHeapSize(n uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n > emu.MaxHeapBytes || !d.mem.SetHeapSize(int(n)) {
		return ErrInvalidValue
	}
	return Success
}

// HeapSize is cuCtxGetLimit(CU_LIMIT_MALLOC_HEAP_SIZE).
func (d *Driver) HeapSize() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return uint64(d.mem.HeapSize())
}

// Synchronize is cuCtxSynchronize and cuStreamSynchronize: work runs when
// it is issued, so only a broken context's error remains.
func (d *Driver) Synchronize() Result { return d.State() }

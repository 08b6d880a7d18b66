package emu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// Arg is one kernel argument.
type Arg struct {
	// Value holds a scalar argument's bits, already in the parameter's type.
	Value uint64
	// IsBuffer makes the argument the address of a fresh global
	// allocation: a copy of Buffer or, when Buffer is nil, Size bytes of
	// Fill. The allocation is made only once Launch.Check has counted it
	// against MaxBufferBytes.
	IsBuffer bool
	Buffer   []byte
	Size     int
	Fill     byte
	// Adopt, with IsBuffer and Buffer, makes Buffer itself the allocation
	// instead of a copy of it: the run stores into it, and a large buffer
	// is not held twice.
	Adopt bool
	// Raw, when set, is copied into the parameter's bytes as written (for
	// aggregate parameters such as structs passed by value); it must not be
	// longer than the parameter.
	Raw []byte
	// Texture, with IsBuffer (the texels), makes the argument a texture or
	// surface object: the kernel receives its opaque handle (texture.go).
	Texture *Texture
	// TensorMap, when set, makes the argument a tensor map (a CUtensorMap
	// as cuTensorMapEncodeTiled builds it): its 128-byte encoding, with
	// the address of buffer argument MapOf as its global address, fills
	// the parameter (docs/tma.md). With IsBuffer as well, the map
	// describes a buffer of its own (Buffer or Size, as for a buffer
	// argument; MapOf is not used), as for a kernel that receives only the
	// tensor maps of its tensors.
	TensorMap *tensormap.Map
	MapOf     int
}

// bufferBytes is the size of the allocation a buffer argument makes.
func (a *Arg) bufferBytes() int {
	if a.Buffer != nil {
		return len(a.Buffer)
	}
	return a.Size
}

// Launch is one kernel launch: the kernel, its configuration, its
// arguments and what observes the run. Check validates it once; Run
// checks and runs it.
type Launch struct {
	Kernel *Program
	Config
	Args []Arg

	// Trace, when set, receives the events of the launch's asynchronous
	// operations (at most MaxTracedAsync operations per cluster). It may be
	// called from several goroutines when clusters run in parallel; the
	// events of one cluster arrive in order.
	Trace func(AsyncEvent)
	// Waits, when set, receives the spans in which a whole warp waited
	// (see WaitEvent), under the same rules as Trace.
	Waits func(WaitEvent)
	// Barriers, when set, receives the state of an mbarrier object after
	// each operation that changed it (see BarrierEvent), under the same
	// rules as Trace.
	Barriers func(BarrierEvent)
	// TMEMOf, when set, names the CTA (its %ctaid) whose Tensor Memory
	// Result.TMEM holds after the run, as the CTA left it (at exit, or
	// where a sanitizer report stopped the run).
	TMEMOf *[3]int
	// Probe, when set, records the last store to one byte of a buffer
	// argument. A probed launch runs its clusters one at a time, since the
	// last store of a parallel run depends on timing.
	Probe *StoreProbe
	// Mem, when set, is the memory the launch runs in instead of a fresh
	// one: a device's allocations and the module variables the caller
	// installed (Memory.AddVariables). The parameter buffer, buffer
	// arguments and a cooperative launch's workspace are removed from it
	// when the launch ends.
	Mem *Memory
}

// Result is the outcome of a launch.
type Result struct {
	Stats  Stats
	Report *Report // first sanitizer report, nil for a clean run
	// Reports, in a keep-going run (Config.KeepGoing), holds each distinct
	// problem once in order of first occurrence, Report's first; LeftOut
	// counts the instances of the problems past Config.MaxReports.
	Reports []KeptReport
	LeftOut int
	Buffers []*Region // per argument: the buffer's allocation, nil for scalars
	Mem     *Memory
	// TMEM is the Tensor Memory Launch.TMEMOf asked for; nil when that CTA
	// ran no tcgen05 instruction.
	TMEM *TMEMSnapshot
}

// MaxBufferBytes bounds the buffers of one launch's arguments together
// (1 GiB), so that the emulator's memory stays bounded whatever the
// arguments.
const MaxBufferBytes = 1 << 30

// Check validates the launch and fills in what the kernel implies (see
// Config.normalize): the argument count and kinds against the kernel's
// parameters, the buffers against MaxBufferBytes, the grid, block and
// cluster shapes and the observers. Errors wrap ErrLaunch. Check may be
// called more than once; Run calls it.
func (l *Launch) Check() error {
	p := l.Kernel
	if p == nil {
		return fmt.Errorf("%w: no kernel", ErrLaunch)
	}
	if err := l.Config.normalize(p); err != nil {
		return err
	}
	if err := checkArgs(p, l.Args); err != nil {
		return err
	}
	if id := l.TMEMOf; id != nil {
		for i := range 3 {
			if id[i] < 0 || id[i] >= l.Grid[i] {
				return fmt.Errorf("%w: Tensor Memory dump: CTA (%d,%d,%d) is outside the grid (%d,%d,%d)", ErrLaunch, id[0], id[1], id[2], l.Grid[0], l.Grid[1], l.Grid[2])
			}
		}
	}
	if pr := l.Probe; pr != nil {
		if pr.Arg < 0 || pr.Arg >= len(l.Args) || !l.Args[pr.Arg].IsBuffer {
			return fmt.Errorf("%w: the store probe watches argument %d, which is not a buffer", ErrLaunch, pr.Arg)
		}
		l.Jobs = 1
	}
	if l.Race {
		l.Jobs = 1 // the shadow of global memory is one per launch (docs/race.md)
	}
	return nil
}

// checkArgs checks args against p's parameters: their count, that a
// buffer's address fits its parameter, that raw bytes fit theirs, and the
// buffers' total size.
func checkArgs(p *Program, args []Arg) error {
	if len(args) != len(p.Params) {
		names := make([]string, len(p.Params))
		for i, prm := range p.Params {
			names[i] = prm.Name + " " + prm.Type.String()
		}
		given := "1 argument given"
		if len(args) != 1 {
			given = strconv.Itoa(len(args)) + " arguments given"
		}
		return fmt.Errorf("%w: kernel %s takes %d parameters (%s); %s", ErrLaunch, p.Kernel, len(p.Params), strings.Join(names, ", "), given)
	}
	left := MaxBufferBytes
	for i := range args {
		a, prm := &args[i], p.Params[i]
		switch {
		case a.IsBuffer && prm.Size < 8:
			return fmt.Errorf("%w: parameter %d (%s) is %d bytes wide and cannot hold a buffer address", ErrLaunch, i, prm.Name, prm.Size)
		case a.Raw != nil && len(a.Raw) > prm.Size:
			return fmt.Errorf("%w: %d bytes given for parameter %d (%s) of %d bytes", ErrLaunch, len(a.Raw), i, prm.Name, prm.Size)
		case a.Raw == nil && !a.IsBuffer && a.TensorMap == nil && prm.Size > 8:
			return fmt.Errorf("%w: parameter %d (%s) is an aggregate of %d bytes; pass its bytes (hex:...)", ErrLaunch, i, prm.Name, prm.Size)
		}
		if a.TensorMap != nil {
			if err := checkTensorMapArg(args, i, prm); err != nil {
				return err
			}
		}
		if !a.IsBuffer {
			continue
		}
		n := a.bufferBytes()
		if n < 0 || a.Buffer != nil && a.Size != 0 && a.Size != n {
			return fmt.Errorf("%w: argument %d (%s): buffer of %d bytes with Size %d", ErrLaunch, i, prm.Name, len(a.Buffer), a.Size)
		}
		if n > left {
			return errBuffersTooLarge(i, prm.Name, n, left)
		}
		left -= n
	}
	return nil
}

// errBuffersTooLarge explains argument i's buffer of n bytes that does not
// fit in the left bytes the launch's buffers may still take.
func errBuffersTooLarge(i int, name string, n, left int) error {
	if left == MaxBufferBytes {
		return fmt.Errorf("%w: argument %d (%s): buffer of %d bytes: at most %d bytes (%d MiB) of buffers per launch", ErrLaunch, i, name, n, MaxBufferBytes, MaxBufferBytes>>20)
	}
	return fmt.Errorf("%w: argument %d (%s): buffer of %d bytes: the buffers of a launch take at most %d bytes (%d MiB) together; %d are left", ErrLaunch, i, name, n, MaxBufferBytes, MaxBufferBytes>>20, left)
}

// Run checks the launch, allocates the buffers of its arguments, packs the
// parameter buffer and runs the kernel. An error means the launch could
// not start; what the kernel did wrong is Result.Report.
func (l *Launch) Run() (*Result, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	p := l.Kernel
	for i := range l.Args {
		if a := &l.Args[i]; a.Texture != nil {
			err := a.Texture.check(a.bufferBytes())
			if !a.IsBuffer {
				err = fmt.Errorf("its texels must be a buffer")
			}
			if err != nil {
				return nil, fmt.Errorf("%w: argument %d: texture or surface object: %v", ErrLaunch, i, err)
			}
		}
	}
	heap, err := heapBytes(&l.Config)
	if err != nil {
		return nil, err
	}
	mem := l.Mem
	if mem == nil {
		mem = p.newMemory()
		mem.heapSize = heap
	} else {
		if l.Config.HeapBytes != 0 {
			return nil, fmt.Errorf("%w: Config.HeapBytes with a shared memory: its device heap's size is Memory.SetHeapSize's", ErrLaunch)
		}
		defer mem.dropLaunchRegions(mem.global.next)
	}
	if p.usesHeap {
		mem.ensureHeap()
	}
	res := &Result{Mem: mem, Buffers: make([]*Region, len(l.Args))}
	params := make([]byte, max(p.paramSize, 1))
	for i := range l.Args {
		if a := &l.Args[i]; a.IsBuffer {
			res.Buffers[i] = allocArg(mem, i, a)
		}
	}
	for i := range l.Args {
		a, prm := &l.Args[i], p.Params[i]
		v := a.Value
		if a.IsBuffer {
			r := res.Buffers[i]
			r.Param = prm.Name
			v = r.Base
			if a.Texture != nil {
				v = mem.addArgTexture(*a.Texture, r)
			}
		}
		if a.TensorMap != nil {
			m := *a.TensorMap
			m.Address = res.Buffers[a.mapBuffer(i)].Base
			b, _ := m.Encode() // checked by checkTensorMapArg
			copy(params[prm.Offset:], b[:])
			continue
		}
		if a.Raw != nil {
			copy(params[prm.Offset:], a.Raw)
			continue
		}
		putLE(params[prm.Offset:], v, prm.Size)
	}
	mem.setParams(params[:p.paramSize])
	cfg := l.Config
	cfg.obs = l.observers()
	st, rep, err := run(p, mem, cfg)
	if err != nil {
		return nil, err
	}
	res.Stats, res.Report = st, rep
	if rl := cfg.obs.race; rl != nil {
		res.Stats.RaceShadow = rl.g.Memory()
	}
	if k := cfg.obs.kept; k != nil && len(k.list) > 0 {
		res.Reports, res.LeftOut, res.Report = k.list, k.leftOut, k.list[0].Report
	}
	if cfg.obs.tmem != nil {
		res.TMEM = cfg.obs.tmem.snap
	}
	return res, nil
}

// dropLaunchRegions removes from a shared memory what one launch added:
// its parameter buffer and the regions allocated from next on.
func (m *Memory) dropLaunchRegions(next uint64) {
	keep := m.global.regs[:0]
	for _, r := range m.global.regs {
		if r != m.Params && (r.Base < next || r.Base >= m.global.next) {
			keep = append(keep, r)
		}
	}
	clear(m.global.regs[len(keep):])
	m.global.regs = keep
	m.Params = nil
	for _, h := range m.argTextures {
		m.SetTexture(h, nil)
	}
	m.argTextures = nil
}

// allocArg makes buffer argument i's global allocation.
func allocArg(mem *Memory, i int, a *Arg) *Region {
	var r *Region
	switch {
	case a.Adopt && a.Buffer != nil:
		r = mem.adoptGlobal(argRegionName(i), a.Buffer, 256)
	default:
		r = mem.allocGlobal(argRegionName(i), a.bufferBytes(), 256)
		if a.Buffer != nil {
			copy(r.Data, a.Buffer)
		} else if a.Fill != 0 {
			fillBytes(r.Data, a.Fill)
		}
	}
	r.ArgIndex = i
	return r
}

// fillBytes sets every byte of b to v, doubling the filled prefix with
// copy (a memmove) instead of storing byte by byte.
func fillBytes(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// observers is what watches one launch, reached from its clusters through
// Config.obs.
type observers struct {
	trace   func(AsyncEvent)
	wait    func(WaitEvent)
	barrier func(BarrierEvent)
	tmem    *tmemRequest
	probe   *StoreProbe
	race    *raceLaunch // --race: the detector's launch-wide state (race.go)
	kept    *keptSet    // KeepGoing: the launch's problems, set by run
}

func (l *Launch) observers() *observers {
	o := &observers{trace: l.Trace, wait: l.Waits, barrier: l.Barriers, probe: l.Probe}
	if l.TMEMOf != nil {
		o.tmem = &tmemRequest{cta: *l.TMEMOf}
	}
	if o.probe != nil {
		o.probe.region = argRegionName(o.probe.Arg)
	}
	if l.Race {
		o.race = newRaceLaunch()
	}
	return o
}

// newMemory returns a memory holding the program's module variables with
// their initial values.
func (p *Program) newMemory() *Memory {
	m := emptyMemory()
	for _, r := range p.globals {
		c := *r
		c.Data = append([]byte(nil), r.Data...)
		m.global.add(&c)
	}
	m.global.next = p.nextGlb
	for _, r := range p.konsts {
		c := *r
		c.Data = append([]byte(nil), r.Data...)
		m.konst.add(&c)
	}
	return m
}

// moduleBytes returns the bytes of module .global and .const variables.
func (p *Program) moduleBytes() int {
	n := 0
	for _, r := range p.globals {
		n += len(r.Data)
	}
	for _, r := range p.konsts {
		n += len(r.Data)
	}
	return n
}

// Package cuda launches a PTX kernel on a real GPU through the CUDA driver
// API, for comparing the emulator with hardware (ptxkit gpu-diff, through
// its loader process cmd/ptxkit-cuda, the only program that links it). The
// driver library is loaded at run time with dlopen, from pure Go
// (github.com/ebitengine/purego), so ptxkit builds and runs without the
// CUDA toolkit, without cgo, and on machines without a GPU; Open then
// says why no driver is usable.
//
// Only the few entry points a launch needs are used: cuInit,
// cuDeviceGet, cuCtxCreate_v2, cuModuleLoadData, cuModuleGetFunction,
// cuFuncSetAttribute, cuMemAlloc_v2, cuMemcpyHtoD_v2, cuMemcpyDtoH_v2,
// cuLaunchKernel (cuLaunchKernelEx for clusters), cuCtxSynchronize,
// cuMemFree_v2, cuModuleUnload, cuCtxDestroy_v2 and cuGetErrorString.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/ptxkit/ptxkit/internal/gpuwire"
)

// DefaultLibrary is the driver library Open loads unless the environment
// variable PTXKIT_LIBCUDA names another file.
const DefaultLibrary = "libcuda.so.1"

// ErrNoDriver wraps every reason a driver cannot be used: no library, a
// library without the entry points, no device.
var ErrNoDriver = errors.New("no usable CUDA driver")

// Driver is a loaded driver library with a context on device 0. It is not
// safe for concurrent use.
type Driver struct {
	Library string
	ctx     uintptr

	cuInit              func(flags uint32) int32
	cuDeviceGet         func(dev *int32, ordinal int32) int32
	cuCtxCreate         func(ctx *uintptr, flags uint32, dev int32) int32
	cuCtxDestroy        func(ctx uintptr) int32
	cuModuleLoadData    func(mod *uintptr, image *byte) int32
	cuModuleUnload      func(mod uintptr) int32
	cuModuleGetFunction func(fn *uintptr, mod uintptr, name *byte) int32
	cuMemAlloc          func(ptr *uint64, size uint64) int32
	cuMemFree           func(ptr uint64) int32
	cuMemcpyHtoD        func(dst uint64, src *byte, n uint64) int32
	cuMemcpyDtoH        func(dst *byte, src uint64, n uint64) int32
	cuLaunchKernel      func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32
	cuLaunchKernelEx    func(cfg *launchConfig, fn uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32
	cuFuncSetAttribute  func(fn uintptr, attr int32, value int32) int32
	cuCtxSynchronize    func() int32
	cuGetErrorString    func(res int32, str **byte) int32
}

// Open loads the driver (PTXKIT_LIBCUDA, or DefaultLibrary), initialises
// it and creates a context on device 0. Errors wrap ErrNoDriver.
func Open() (d *Driver, err error) {
	path := os.Getenv("PTXKIT_LIBCUDA")
	if path == "" {
		path = DefaultLibrary
	}
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	d = &Driver{Library: path}
	if err := d.bind(lib); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoDriver, path, err)
	}
	if err := d.check("cuInit", d.cuInit(0)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	var dev int32
	if err := d.check("cuDeviceGet", d.cuDeviceGet(&dev, 0)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	if err := d.check("cuCtxCreate", d.cuCtxCreate(&d.ctx, 0, dev)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	return d, nil
}

// bind resolves every entry point, failing on the first one missing
// (RegisterLibFunc panics on a missing symbol, so each is looked up first).
func (d *Driver) bind(lib uintptr) error {
	for _, f := range []struct {
		ptr  any
		name string
	}{
		{&d.cuInit, "cuInit"}, {&d.cuDeviceGet, "cuDeviceGet"}, {&d.cuCtxCreate, "cuCtxCreate_v2"},
		{&d.cuCtxDestroy, "cuCtxDestroy_v2"}, {&d.cuModuleLoadData, "cuModuleLoadData"},
		{&d.cuModuleUnload, "cuModuleUnload"}, {&d.cuModuleGetFunction, "cuModuleGetFunction"},
		{&d.cuMemAlloc, "cuMemAlloc_v2"}, {&d.cuMemFree, "cuMemFree_v2"},
		{&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&d.cuLaunchKernel, "cuLaunchKernel"}, {&d.cuLaunchKernelEx, "cuLaunchKernelEx"},
		{&d.cuFuncSetAttribute, "cuFuncSetAttribute"}, {&d.cuCtxSynchronize, "cuCtxSynchronize"},
		{&d.cuGetErrorString, "cuGetErrorString"},
	} {
		if _, err := purego.Dlsym(lib, f.name); err != nil {
			return fmt.Errorf("no %s: %v", f.name, err)
		}
		purego.RegisterLibFunc(f.ptr, lib, f.name)
	}
	return nil
}

// Close destroys the context.
func (d *Driver) Close() {
	if d.ctx != 0 {
		d.cuCtxDestroy(d.ctx)
		d.ctx = 0
	}
}

// check turns a CUresult into an error naming the call.
func (d *Driver) check(call string, res int32) error {
	if res == 0 {
		return nil
	}
	var s *byte
	msg := "unknown error"
	if d.cuGetErrorString != nil && d.cuGetErrorString(res, &s) == 0 && s != nil {
		msg = goString(s)
	}
	return fmt.Errorf("%s: CUDA error %d: %s", call, res, msg)
}

// goString copies the NUL-terminated string at p (at most 4 KiB of it).
func goString(p *byte) string {
	var b []byte
	for i := 0; i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// Arg and Launch are the launch gpu-diff describes (internal/gpuwire).
type (
	Arg    = gpuwire.Arg
	Launch = gpuwire.Launch
)

// launchConfig is CUlaunchConfig (cuda.h, CUDA 12): the launch of
// cuLaunchKernelEx, with its attributes.
type launchConfig struct {
	grid, block [3]uint32
	shared      uint32
	stream      uintptr
	attrs       *launchAttribute
	numAttrs    uint32
}

// launchAttribute is CUlaunchAttribute: an ID and a 64-byte value union,
// of which the cluster dimension uses the first 12 bytes.
type launchAttribute struct {
	id    uint32
	_     uint32
	value [16]uint32
}

// Driver API constants (cuda.h).
const (
	attrClusterDimension         = 4 // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
	funcMaxDynamicSharedSizeByte = 8 // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	defaultSharedLimit           = 48 << 10
)

// Run loads ptx, launches l and returns the final contents of every buffer
// argument (nil for scalars).
func (d *Driver) Run(ptx []byte, l Launch) (out [][]byte, err error) {
	var mod, fn uintptr
	image := append(append([]byte(nil), ptx...), 0)
	if err := d.check("cuModuleLoadData", d.cuModuleLoadData(&mod, &image[0])); err != nil {
		return nil, err
	}
	defer d.cuModuleUnload(mod)
	name := append([]byte(l.Kernel), 0)
	if err := d.check("cuModuleGetFunction "+l.Kernel, d.cuModuleGetFunction(&fn, mod, &name[0])); err != nil {
		return nil, err
	}
	vals := make([][8]byte, len(l.Args)) // each parameter's bytes
	params := make([]unsafe.Pointer, len(l.Args))
	dev := make([]uint64, len(l.Args))
	defer func() {
		for _, p := range dev {
			if p != 0 {
				d.cuMemFree(p)
			}
		}
	}()
	for i, a := range l.Args {
		v := a.Value
		if a.IsBuffer {
			if dev[i], err = d.upload(a.Buffer); err != nil {
				return nil, fmt.Errorf("argument %d: %w", i, err)
			}
			v = dev[i]
		}
		for k := range vals[i] {
			vals[i][k] = byte(v >> (8 * k)) // little-endian, as the device reads it
		}
		params[i] = unsafe.Pointer(&vals[i][0])
	}
	var pp *unsafe.Pointer
	if len(params) > 0 {
		pp = &params[0]
	}
	if l.SharedBytes > defaultSharedLimit {
		if err := d.check("cuFuncSetAttribute", d.cuFuncSetAttribute(fn, funcMaxDynamicSharedSizeByte, int32(l.SharedBytes))); err != nil {
			return nil, err
		}
	}
	if err := d.launch(fn, &l, pp); err != nil {
		return nil, err
	}
	runtime.KeepAlive(vals)
	if err := d.check("cuCtxSynchronize", d.cuCtxSynchronize()); err != nil {
		return nil, err
	}
	out = make([][]byte, len(l.Args))
	for i, a := range l.Args {
		if a.IsBuffer {
			out[i] = make([]byte, len(a.Buffer))
			if len(a.Buffer) > 0 {
				if err := d.check("cuMemcpyDtoH", d.cuMemcpyDtoH(&out[i][0], dev[i], uint64(len(a.Buffer)))); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// launch launches fn with the kernel parameters pp: with cuLaunchKernelEx
// and a cluster-dimension attribute when l has clusters, with
// cuLaunchKernel otherwise.
func (d *Driver) launch(fn uintptr, l *Launch, pp *unsafe.Pointer) error {
	g, b, c := l.Grid, l.Block, l.Cluster
	if c == [3]int{} || c == [3]int{1, 1, 1} {
		return d.check("cuLaunchKernel", d.cuLaunchKernel(fn, uint32(g[0]), uint32(g[1]), uint32(g[2]),
			uint32(b[0]), uint32(b[1]), uint32(b[2]), uint32(l.SharedBytes), 0, pp, nil))
	}
	attr := launchAttribute{id: attrClusterDimension}
	attr.value[0], attr.value[1], attr.value[2] = uint32(c[0]), uint32(c[1]), uint32(c[2])
	cfg := launchConfig{shared: uint32(l.SharedBytes), attrs: &attr, numAttrs: 1}
	for i := range 3 {
		cfg.grid[i], cfg.block[i] = uint32(g[i]), uint32(b[i])
	}
	err := d.check("cuLaunchKernelEx", d.cuLaunchKernelEx(&cfg, fn, pp, nil))
	runtime.KeepAlive(&attr)
	return err
}

// upload allocates a device buffer holding b (at least one byte, so that
// an empty buffer still has an address).
func (d *Driver) upload(b []byte) (uint64, error) {
	var p uint64
	if err := d.check("cuMemAlloc", d.cuMemAlloc(&p, uint64(max(len(b), 1)))); err != nil {
		return 0, err
	}
	if len(b) > 0 {
		if err := d.check("cuMemcpyHtoD", d.cuMemcpyHtoD(p, &b[0], uint64(len(b)))); err != nil {
			d.cuMemFree(p)
			return 0, err
		}
	}
	return p, nil
}

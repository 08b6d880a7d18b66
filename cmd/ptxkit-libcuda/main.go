// Command ptxkit-libcuda is ptxkit's replacement for libcuda.so.1, the
// CUDA driver library: built with go build -buildmode=c-shared, it gives
// CUDA programs and the CUDA runtime the driver API's C ABI on top of the
// emulator's driver (internal/cudrv). ptxkit exec builds it and puts it
// first on the program's library path. Its settings come from the
// environment ptxkit exec sets: PTXKIT_DEVICE (sm_80, sm_90, sm_100a),
// PTXKIT_JOBS, PTXKIT_SEED, PTXKIT_DUMP_PTX, PTXKIT_TRACE and
// PTXKIT_TIMELINE (a file that receives the trace-event timeline of every
// launch when the process exits).
package main

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
	"github.com/ptxkit/ptxkit/internal/timeline"
)

func main() {}

var (
	drvOnce sync.Once
	drv     *cudrv.Driver
	tracing = os.Getenv("PTXKIT_TRACE") != ""
)

// stdoutWriter writes device printf output through the C library's
// stdout, so that it interleaves with the program's own output.
type stdoutWriter struct{}

func (stdoutWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		C.ptxkit_write_stdout(unsafe.Pointer(&p[0]), C.size_t(len(p)))
	}
	return len(p), nil
}

// driver returns the process's driver, made on first use from the
// environment.
func driver() *cudrv.Driver {
	drvOnce.Do(func() {
		opt := cudrv.Options{Device: os.Getenv("PTXKIT_DEVICE"), Stdout: stdoutWriter{}, DumpPTX: os.Getenv("PTXKIT_DUMP_PTX"), HostMap: hostMap}
		opt.Jobs, _ = strconv.Atoi(os.Getenv("PTXKIT_JOBS"))
		if s, err := strconv.ParseUint(os.Getenv("PTXKIT_SEED"), 10, 64); err == nil {
			opt.Seed = s
		}
		if n, err := strconv.ParseUint(os.Getenv("PTXKIT_DEVICE_MEMORY"), 10, 64); err == nil {
			opt.MemoryLimit = n
		}
		if os.Getenv("PTXKIT_TIMELINE") != "" {
			opt.Timeline = timeline.New()
		}
		var err error
		if drv, err = cudrv.New(opt); err != nil {
			fmt.Fprintf(os.Stderr, "ptxkit: %v; using sm_90\n", err)
			opt.Device = ""
			drv, _ = cudrv.New(opt)
		}
	})
	return drv
}

// ptxkitWriteTimeline writes the timeline of the process's launches to
// $PTXKIT_TIMELINE; capi.c calls it when the library is unloaded at exit.
//
//export ptxkitWriteTimeline
func ptxkitWriteTimeline() {
	path := os.Getenv("PTXKIT_TIMELINE")
	if path == "" || drv == nil {
		return
	}
	rec := drv.Timeline()
	if rec == nil {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = rec.Write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ptxkit: --timeline: %v\n", err)
	}
}

// mappedPages are the host pages hostMap mapped (never unmapped: module
// variables live as long as the process).
var (
	mappedMu    sync.Mutex
	mappedPages = map[uint64]unsafe.Pointer{}
)

// hostMap maps host memory at exactly [addr, addr+n), page by page,
// reusing pages mapped before.
func hostMap(addr uint64, n int) []byte {
	mappedMu.Lock()
	defer mappedMu.Unlock()
	const page = 4096
	var first unsafe.Pointer
	for a := addr; a < addr+uint64(n); a += page {
		p, ok := mappedPages[a]
		if !ok {
			if p = C.ptxkit_map_fixed(C.uint64_t(a), page); p == nil {
				return nil
			}
			mappedPages[a] = p
		}
		if a == addr {
			first = p
		}
	}
	return unsafe.Slice((*byte)(first), n)
}

func tracef(format string, args ...any) {
	if tracing {
		fmt.Fprintf(os.Stderr, "ptxkit: "+format+"\n", args...)
	}
}

// res converts a Result for C.
func res(r cudrv.Result) C.int { return C.int(r) }

// hostBytes returns n bytes of host memory at p.
func hostBytes(p unsafe.Pointer, n uint64) []byte {
	if n == 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// memAt returns the n bytes at address a: device memory the driver knows,
// or else host memory.
func memAt(a uint64, n uint64) ([]byte, bool) {
	if n == 0 {
		return nil, true
	}
	if b, r := driver().Device(a, n); r == cudrv.Success {
		return b, true
	}
	if _, _, _, known := driver().Kind(a); known || a < 4096 {
		return nil, false // runs past a device allocation, or a null pointer
	}
	return hostBytes(C.ptxkit_ptr(C.uint64_t(a)), n), true
}

// devAt returns device bytes or reports the invalid range.
func devAt(a, n uint64, what string) ([]byte, cudrv.Result) {
	b, r := driver().Device(a, n)
	if r != cudrv.Success {
		tracef("%s: [%#x, %#x) is not inside one device allocation", what, a, a+n)
	}
	return b, r
}

func cstring(p *C.char, max int) string {
	if p == nil {
		return ""
	}
	n := int(C.ptxkit_strnlen(p, C.size_t(max)))
	return string(unsafe.Slice((*byte)(unsafe.Pointer(p)), n))
}

// cAlloc returns a copy of s in C memory (for strings the driver hands
// out, which must stay valid).
var cstrings sync.Map

func cstr(s string) *C.char {
	if p, ok := cstrings.Load(s); ok {
		return p.(*C.char)
	}
	p := C.CString(s)
	cstrings.Store(s, p)
	return p
}

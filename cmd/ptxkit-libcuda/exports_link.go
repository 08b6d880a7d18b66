package main

/*
#include <stdlib.h>
#include <string.h>
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports cuLink* (JIT linking of PTX, as Numba uses): the
// linked "cubin" handed back is PTX text, which cuModuleLoadData takes.

type linkState struct {
	l    *cudrv.Linker
	out  unsafe.Pointer // C copy of the result, freed by cuLinkDestroy
	opts []C.int
	vp   *unsafe.Pointer // the caller's option value slots, written back on completion
}

// CUjit_option values the linker answers.
const (
	jitWallTime    = 2
	jitInfoLog     = 3
	jitInfoLogSize = 4
	jitErrorLog    = 5
	jitErrorSize   = 6
)

// report writes the documented outputs into the caller's option slots:
// the wall time (a float overwriting its slot) and the log buffers (their
// size slots overwritten with the bytes written).
func (ls *linkState) report(info, errs string, ms float32) {
	if ls.vp == nil {
		return
	}
	vals := unsafe.Slice(ls.vp, len(ls.opts))
	size := func(sizeOpt C.int) (int, int) {
		for i, o := range ls.opts {
			if o == sizeOpt {
				return int(uintptr(vals[i])), i
			}
		}
		return 0, -1
	}
	write := func(bufOpt, sizeOpt C.int, text string) {
		n, si := size(sizeOpt)
		for i, o := range ls.opts {
			if o == bufOpt && vals[i] != nil && n > 0 {
				b := unsafe.Slice((*byte)(vals[i]), n)
				k := copy(b[:n-1], text)
				b[k] = 0
				if si >= 0 {
					*(*uintptr)(unsafe.Pointer(&vals[si])) = uintptr(k + 1)
				}
			}
		}
	}
	write(jitInfoLog, jitInfoLogSize, info)
	write(jitErrorLog, jitErrorSize, errs)
	for i, o := range ls.opts {
		if o == jitWallTime {
			*(*float32)(unsafe.Pointer(&vals[i])) = ms
		}
	}
}

var links = struct {
	sync.Mutex
	next C.uintptr_t
	m    map[C.uintptr_t]*linkState
}{next: 0x7d0000000000, m: map[C.uintptr_t]*linkState{}}

//export cuLinkCreate_v2
func cuLinkCreate_v2(n C.uint, opts, vals unsafe.Pointer, state *C.uintptr_t) C.int {
	if state == nil {
		return res(cudrv.ErrInvalidValue)
	}
	links.Lock()
	defer links.Unlock()
	links.next += 0x10
	ls := &linkState{l: cudrv.NewLinker()}
	if n > 0 && opts != nil && vals != nil {
		ls.opts = append([]C.int(nil), unsafe.Slice((*C.int)(opts), int(n))...)
		ls.vp = (*unsafe.Pointer)(vals)
	}
	links.m[links.next] = ls
	*state = links.next
	return 0
}

func linkOf(state C.uintptr_t) *linkState {
	links.Lock()
	defer links.Unlock()
	return links.m[state]
}

func linkAdd(state C.uintptr_t, kind C.int, data []byte, name string) C.int {
	ls := linkOf(state)
	if ls == nil {
		return res(cudrv.ErrInvalidHandle)
	}
	r, msg := ls.l.Add(int(kind), data, name, driver().GPU().SM())
	if r != cudrv.Success {
		driver().Logf("cuLinkAddData: %s", msg)
	}
	return res(r)
}

//export cuLinkAddData_v2
func cuLinkAddData_v2(state C.uintptr_t, kind C.int, data unsafe.Pointer, size C.size_t, name *C.char, n C.uint, opts, vals unsafe.Pointer) C.int {
	if data == nil || size == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return linkAdd(state, kind, hostBytes(data, uint64(size)), cstring(name, 4096))
}

//export cuLinkAddFile_v2
func cuLinkAddFile_v2(state C.uintptr_t, kind C.int, path *C.char, n C.uint, opts, vals unsafe.Pointer) C.int {
	p := cstring(path, 4096)
	b, err := os.ReadFile(p)
	if err != nil {
		return res(cudrv.ErrFileNotFound)
	}
	return linkAdd(state, kind, b, p)
}

//export cuLinkComplete
func cuLinkComplete(state C.uintptr_t, out *unsafe.Pointer, size *C.size_t) C.int {
	ls := linkOf(state)
	if ls == nil || out == nil {
		return res(cudrv.ErrInvalidValue)
	}
	start := time.Now()
	b, r, msg := ls.l.Complete()
	if r != cudrv.Success {
		driver().Logf("cuLinkComplete: %s", msg)
		ls.report("", msg, 0)
		return res(r)
	}
	ls.report(fmt.Sprintf("ptxkit: linked %d bytes of PTX", len(b)), "", float32(time.Since(start).Seconds()*1000))
	if ls.out != nil {
		C.free(ls.out)
	}
	ls.out = C.malloc(C.size_t(len(b) + 1))
	dst := unsafe.Slice((*byte)(ls.out), len(b)+1)
	copy(dst, b)
	dst[len(b)] = 0
	*out = ls.out
	if size != nil {
		*size = C.size_t(len(b) + 1)
	}
	return 0
}

//export cuLinkDestroy
func cuLinkDestroy(state C.uintptr_t) C.int {
	links.Lock()
	defer links.Unlock()
	ls, ok := links.m[state]
	if !ok {
		return res(cudrv.ErrInvalidHandle)
	}
	if ls.out != nil {
		C.free(ls.out)
	}
	delete(links.m, state)
	return 0
}

package main

/*
#include <stdlib.h>
#include <string.h>
#include "capi.h"
*/
import "C"

import (
	"os"
	"sync"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports cuLink* (JIT linking of PTX, as Numba uses): the
// linked "cubin" handed back is PTX text, which cuModuleLoadData takes.

type linkState struct {
	l   *cudrv.Linker
	out unsafe.Pointer // C copy of the result, freed by cuLinkDestroy
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
	links.m[links.next] = &linkState{l: cudrv.NewLinker()}
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
	b, r, msg := ls.l.Complete()
	if r != cudrv.Success {
		driver().Logf("cuLinkComplete: %s", msg)
		return res(r)
	}
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

package main

/*
#include "capi.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports modules, libraries, kernels and functions. Libraries
// are modules and kernels are functions: their handles are the same.

const maxImage = 1 << 30

// imageBytes measures an image passed by pointer: a fatbinary (its header
// gives its size), a cubin (its section table ends it) or NUL-terminated
// PTX text.
func imageBytes(p unsafe.Pointer) []byte {
	head := unsafe.Slice((*byte)(p), 16)
	switch binary.LittleEndian.Uint32(head) {
	case 0x466243B1: // a wrapper: the fatbinary is behind it
		data := *(*unsafe.Pointer)(unsafe.Add(p, 8))
		return imageBytes(data)
	case 0xBA55ED50:
		hs := uint64(binary.LittleEndian.Uint16(head[6:]))
		fs := binary.LittleEndian.Uint64(head[8:])
		if fs > maxImage {
			return head
		}
		return unsafe.Slice((*byte)(p), hs+fs)
	case 0x464C457F:
		h := unsafe.Slice((*byte)(p), 64)
		shoff := binary.LittleEndian.Uint64(h[0x28:])
		shentsize := uint64(binary.LittleEndian.Uint16(h[0x3A:]))
		shnum := uint64(binary.LittleEndian.Uint16(h[0x3C:]))
		n := shoff + shentsize*shnum
		if n > maxImage || n < 64 {
			return h
		}
		return unsafe.Slice((*byte)(p), n)
	}
	n := C.ptxkit_strnlen((*C.char)(p), maxImage)
	return unsafe.Slice((*byte)(p), uint64(n))
}

func loadImage(mod *C.uintptr_t, image unsafe.Pointer) C.int {
	if mod == nil || image == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	if w := unsafe.Slice((*uint32)(image), 2); w[0] == 0x466243B1 && w[1] == 2 {
		prelinked := *(**unsafe.Pointer)(unsafe.Add(image, 16))
		if prelinked != nil && *prelinked != nil {
			return ptxkitLoadWrapped(mod, *(*unsafe.Pointer)(unsafe.Add(image, 8)), prelinked)
		}
	}
	h, r, detail := driver().LoadModule(imageBytes(image))
	if r != cudrv.Success {
		driver().Logf("loading a module: %s", detail)
		return res(r)
	}
	*mod = C.uintptr_t(h)
	tracef("module %#x: kernels %v", h, driver().Kernels(h))
	return 0
}

//export ptxkitLoadFatbin
func ptxkitLoadFatbin(mod *C.uintptr_t, fatbin unsafe.Pointer) C.int { return loadImage(mod, fatbin) }

//export cuModuleLoadData
func cuModuleLoadData(mod *C.uintptr_t, image unsafe.Pointer) C.int { return loadImage(mod, image) }

//export cuModuleLoadDataEx
func cuModuleLoadDataEx(mod *C.uintptr_t, image unsafe.Pointer, n C.uint, opts, vals unsafe.Pointer) C.int {
	return loadImage(mod, image)
}

//export cuModuleLoadFatBinary
func cuModuleLoadFatBinary(mod *C.uintptr_t, image unsafe.Pointer) C.int {
	return loadImage(mod, image)
}

//export cuModuleLoad
func cuModuleLoad(mod *C.uintptr_t, fname *C.char) C.int {
	if mod == nil || fname == nil {
		return res(cudrv.ErrInvalidValue)
	}
	b, err := os.ReadFile(cstring(fname, 4096))
	if err != nil {
		return res(cudrv.ErrFileNotFound)
	}
	b = append(b, 0)
	return loadImage(mod, unsafe.Pointer(&b[0]))
}

//export cuModuleUnload
func cuModuleUnload(mod C.uintptr_t) C.int { return res(driver().UnloadModule(cudrv.Handle(mod))) }

//export cuModuleGetFunction
func cuModuleGetFunction(fn *C.uintptr_t, mod C.uintptr_t, name *C.char) C.int {
	if fn == nil || name == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h, r := driver().GetFunction(cudrv.Handle(mod), cstring(name, 4096))
	if r == cudrv.Success {
		*fn = C.uintptr_t(h)
	}
	return res(r)
}

//export cuModuleGetGlobal_v2
func cuModuleGetGlobal_v2(ptr *C.ulonglong, size *C.size_t, mod C.uintptr_t, name *C.char) C.int {
	if name == nil {
		return res(cudrv.ErrInvalidValue)
	}
	a, n, r := driver().GetGlobal(cudrv.Handle(mod), cstring(name, 4096))
	if r != cudrv.Success {
		return res(r)
	}
	if ptr != nil {
		*ptr = C.ulonglong(a)
	}
	if size != nil {
		*size = C.size_t(n)
	}
	return 0
}

//export cuModuleGetLoadingMode
func cuModuleGetLoadingMode(mode *C.int) C.int {
	if mode == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*mode = 1 // CU_MODULE_EAGER_LOADING
	return 0
}

//export cuLibraryLoadData
func cuLibraryLoadData(lib *C.uintptr_t, code unsafe.Pointer, jitOpts, jitVals unsafe.Pointer, nJit C.uint, libOpts, libVals unsafe.Pointer, nLib C.uint) C.int {
	tracef("cuLibraryLoadData: %d JIT options, %d library options", nJit, nLib)
	return loadImage(lib, code)
}

//export cuLibraryUnload
func cuLibraryUnload(lib C.uintptr_t) C.int { return cuModuleUnload(lib) }

//export cuLibraryGetKernel
func cuLibraryGetKernel(k *C.uintptr_t, lib C.uintptr_t, name *C.char) C.int {
	return cuModuleGetFunction(k, lib, name)
}

//export cuLibraryGetModule
func cuLibraryGetModule(mod *C.uintptr_t, lib C.uintptr_t) C.int {
	if mod == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*mod = lib
	return 0
}

//export cuLibraryGetGlobal
func cuLibraryGetGlobal(ptr *C.ulonglong, size *C.size_t, lib C.uintptr_t, name *C.char) C.int {
	return cuModuleGetGlobal_v2(ptr, size, lib, name)
}

//export cuLibraryGetManaged
func cuLibraryGetManaged(ptr *C.ulonglong, size *C.size_t, lib C.uintptr_t, name *C.char) C.int {
	return cuModuleGetGlobal_v2(ptr, size, lib, name)
}

//export cuKernelGetFunction
func cuKernelGetFunction(fn *C.uintptr_t, k C.uintptr_t) C.int {
	if fn == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if _, _, r := driver().FunctionModule(cudrv.Handle(k)); r != cudrv.Success {
		return res(r)
	}
	*fn = k
	return 0
}

//export cuKernelGetAttribute
func cuKernelGetAttribute(v *C.int, attr C.int, k C.uintptr_t, dev C.int) C.int {
	return cuFuncGetAttribute(v, attr, k)
}

//export cuKernelSetAttribute
func cuKernelSetAttribute(attr C.int, v C.int, k C.uintptr_t, dev C.int) C.int {
	return cuFuncSetAttribute(k, attr, v)
}

//export cuKernelSetCacheConfig
func cuKernelSetCacheConfig(k C.uintptr_t, c C.int, dev C.int) C.int { return 0 }

//export cuKernelGetName
func cuKernelGetName(name **C.char, k C.uintptr_t) C.int { return cuFuncGetName(name, k) }

//export cuFuncGetName
func cuFuncGetName(name **C.char, fn C.uintptr_t) C.int {
	if name == nil {
		return res(cudrv.ErrInvalidValue)
	}
	_, n, r := driver().FunctionModule(cudrv.Handle(fn))
	if r == cudrv.Success {
		*name = cstr(n)
	}
	return res(r)
}

//export cuFuncGetModule
func cuFuncGetModule(mod *C.uintptr_t, fn C.uintptr_t) C.int {
	if mod == nil {
		return res(cudrv.ErrInvalidValue)
	}
	m, _, r := driver().FunctionModule(cudrv.Handle(fn))
	if r == cudrv.Success {
		*mod = C.uintptr_t(m)
	}
	return res(r)
}

//export cuFuncGetAttribute
func cuFuncGetAttribute(v *C.int, attr C.int, fn C.uintptr_t) C.int {
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	x, r := driver().FuncAttr(cudrv.Handle(fn), int(attr))
	if r == cudrv.Success {
		*v = C.int(x)
	}
	return res(r)
}

//export cuFuncSetAttribute
func cuFuncSetAttribute(fn C.uintptr_t, attr C.int, v C.int) C.int {
	if attr == 8 { // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
		return res(driver().SetMaxDynamicShared(cudrv.Handle(fn), int(v)))
	}
	if _, _, r := driver().FunctionModule(cudrv.Handle(fn)); r != cudrv.Success {
		return res(r)
	}
	return 0
}

//export cuFuncSetCacheConfig
func cuFuncSetCacheConfig(fn C.uintptr_t, c C.int) C.int { return 0 }

//export cuFuncSetSharedMemConfig
func cuFuncSetSharedMemConfig(fn C.uintptr_t, c C.int) C.int { return 0 }

//export cuFuncGetParamInfo
func cuFuncGetParamInfo(fn C.uintptr_t, idx C.size_t, off, size *C.size_t) C.int {
	sizes, offs, r := driver().Params(cudrv.Handle(fn))
	if r != cudrv.Success {
		return res(r)
	}
	if int(idx) >= len(sizes) {
		return res(cudrv.ErrInvalidValue)
	}
	if off != nil {
		*off = C.size_t(offs[idx])
	}
	if size != nil {
		*size = C.size_t(sizes[idx])
	}
	return 0
}

//export cuFuncIsLoaded
func cuFuncIsLoaded(state *C.int, fn C.uintptr_t) C.int {
	if state != nil {
		*state = 1 // CU_FUNCTION_LOADING_STATE_LOADED
	}
	return 0
}

//export cuFuncLoad
func cuFuncLoad(fn C.uintptr_t) C.int { return 0 }

// ptxkitLoadWrapped loads the fatbinary of a registration wrapper. With
// separate compilation (-rdc, wrapper version 2) the linked fatbinary
// holds only SASS and prelinked lists the fatbinaries of the compile
// units (NULL-terminated): their PTX is linked into one module instead.
//
//export ptxkitLoadWrapped
func ptxkitLoadWrapped(mod *C.uintptr_t, fatbin unsafe.Pointer, prelinked *unsafe.Pointer) C.int {
	if prelinked == nil || *prelinked == nil {
		return loadImage(mod, fatbin)
	}
	l := cudrv.NewLinker()
	sm := driver().GPU().SM()
	for i := 0; i < 4096; i++ {
		p := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(prelinked), i*8))
		if p == nil {
			break
		}
		if r, msg := l.Add(cudrv.InputFatbin, imageBytes(p), fmt.Sprintf("compile unit %d", i+1), sm); r != cudrv.Success {
			driver().Logf("linking the compile units: %s", msg)
			return res(r)
		}
	}
	ptx, r, msg := l.Complete()
	if r != cudrv.Success {
		driver().Logf("linking the compile units: %s", msg)
		return res(r)
	}
	ptx = append(ptx, 0)
	return loadImage(mod, unsafe.Pointer(&ptx[0]))
}

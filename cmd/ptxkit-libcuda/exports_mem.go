package main

/*
#include <stdlib.h>
#include <string.h>
#include "capi.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports memory: allocation, copies, sets and pointer
// attributes.

//export cuMemAlloc_v2
func cuMemAlloc_v2(ptr *C.ulonglong, n C.size_t) C.int {
	if ptr == nil {
		return res(cudrv.ErrInvalidValue)
	}
	a, r := driver().MemAlloc(uint64(n))
	if r == cudrv.Success {
		*ptr = C.ulonglong(a)
	}
	return res(r)
}

// cuMemAllocAsync allocates now: streams run in issue order. On a
// capturing stream it becomes a graph's memory allocation node, allocated
// now for the graph's life, as cuGraphAddMemAllocNode does.
//
//export cuMemAllocAsync
func cuMemAllocAsync(ptr *C.ulonglong, n C.size_t, s C.uintptr_t) C.int {
	if ptr == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if !isCapturing(s) {
		return cuMemAlloc_v2(ptr, n)
	}
	a, r := driver().GraphMemAlloc(uint64(n))
	if r != cudrv.Success {
		return res(r)
	}
	captured(s, nodeMemAlloc, func() cudrv.Result { return driver().GraphMemRun(a) })
	*ptr = C.ulonglong(a)
	return 0
}

//export cuMemAllocPitch_v2
func cuMemAllocPitch_v2(ptr *C.ulonglong, pitch *C.size_t, width, height C.size_t, elem C.uint) C.int {
	if pitch == nil || width == 0 || height == 0 || elem != 4 && elem != 8 && elem != 16 {
		return res(cudrv.ErrInvalidValue)
	}
	p := (uint64(width) + 511) &^ 511
	if r := cuMemAlloc_v2(ptr, C.size_t(p*uint64(height))); r != 0 {
		return r
	}
	*pitch = C.size_t(p)
	return 0
}

//export cuMemFree_v2
func cuMemFree_v2(ptr C.ulonglong) C.int { return res(driver().MemFree(uint64(ptr))) }

// cuMemFreeAsync frees now, or, on a capturing stream, becomes a graph's
// memory free node: the memory must stay for the graph's launches.
//
//export cuMemFreeAsync
func cuMemFreeAsync(ptr C.ulonglong, s C.uintptr_t) C.int {
	if captured(s, nodeMemFree, nil) {
		return 0
	}
	return cuMemFree_v2(ptr)
}

//export cuMemGetInfo_v2
func cuMemGetInfo_v2(free, total *C.size_t) C.int {
	f, t := driver().MemInfo()
	if free != nil {
		*free = C.size_t(f)
	}
	if total != nil {
		*total = C.size_t(t)
	}
	return 0
}

//export cuMemGetAddressRange_v2
func cuMemGetAddressRange_v2(base *C.ulonglong, size *C.size_t, ptr C.ulonglong) C.int {
	_, b, n, ok := driver().Kind(uint64(ptr))
	if !ok {
		return res(cudrv.ErrNotFound)
	}
	if base != nil {
		*base = C.ulonglong(b)
	}
	if size != nil {
		*size = C.size_t(n)
	}
	return 0
}

// hostAlloc allocates host memory kernels can reach at the same address.
func hostAlloc(p *unsafe.Pointer, n C.size_t, kind cudrv.MemKind) C.int {
	if p == nil || n == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	m := C.aligned_alloc(4096, (n+4095)&^4095)
	if m == nil {
		return res(cudrv.ErrOutOfMemory)
	}
	C.memset(m, 0, n)
	if r := driver().MapHost(uint64(C.ptxkit_addr(m)), hostBytes(m, uint64(n)), kind); r != cudrv.Success {
		C.free(m)
		return res(r)
	}
	*p = m
	return 0
}

//export cuMemAllocHost_v2
func cuMemAllocHost_v2(p *unsafe.Pointer, n C.size_t) C.int { return hostAlloc(p, n, cudrv.MemHost) }

//export cuMemHostAlloc
func cuMemHostAlloc(p *unsafe.Pointer, n C.size_t, flags C.uint) C.int {
	return hostAlloc(p, n, cudrv.MemHost)
}

//export cuMemFreeHost
func cuMemFreeHost(p unsafe.Pointer) C.int {
	if !driver().UnmapHost(uint64(C.ptxkit_addr(p))) {
		return res(cudrv.ErrInvalidValue)
	}
	C.free(p)
	return 0
}

//export cuMemAllocManaged
func cuMemAllocManaged(ptr *C.ulonglong, n C.size_t, flags C.uint) C.int {
	if ptr == nil {
		return res(cudrv.ErrInvalidValue)
	}
	var p unsafe.Pointer
	if r := hostAlloc(&p, n, cudrv.MemUnified); r != 0 {
		return r
	}
	*ptr = C.ulonglong(C.ptxkit_addr(p))
	return 0
}

//export cuMemHostGetDevicePointer_v2
func cuMemHostGetDevicePointer_v2(ptr *C.ulonglong, p unsafe.Pointer, flags C.uint) C.int {
	if ptr == nil || flags != 0 {
		return res(cudrv.ErrInvalidValue)
	}
	a := uint64(C.ptxkit_addr(p))
	if k, _, _, ok := driver().Kind(a); !ok || k == cudrv.MemDevice {
		return res(cudrv.ErrInvalidValue)
	}
	*ptr = C.ulonglong(a)
	return 0
}

//export cuMemHostGetFlags
func cuMemHostGetFlags(flags *C.uint, p unsafe.Pointer) C.int {
	if k, _, _, ok := driver().Kind(uint64(C.ptxkit_addr(p))); !ok || k != cudrv.MemHost {
		return res(cudrv.ErrInvalidValue)
	}
	if flags != nil {
		*flags = 2 // CU_MEMHOSTALLOC_DEVICEMAP
	}
	return 0
}

//export cuMemHostRegister_v2
func cuMemHostRegister_v2(p unsafe.Pointer, n C.size_t, flags C.uint) C.int {
	if p == nil || n == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return res(driver().MapHost(uint64(C.ptxkit_addr(p)), hostBytes(p, uint64(n)), cudrv.MemHost))
}

//export cuMemHostUnregister
func cuMemHostUnregister(p unsafe.Pointer) C.int {
	if !driver().UnmapHost(uint64(C.ptxkit_addr(p))) {
		return res(cudrv.ErrNotMapped)
	}
	return 0
}

func copyBytes(dst, src []byte) C.int {
	copy(dst, src)
	return 0
}

//export cuMemcpy
func cuMemcpy(dst, src C.ulonglong, n C.size_t) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	d, ok1 := memAt(uint64(dst), uint64(n))
	s, ok2 := memAt(uint64(src), uint64(n))
	if !ok1 || !ok2 {
		return res(cudrv.ErrInvalidValue)
	}
	return copyBytes(d, s)
}

//export cuMemcpyAsync
func cuMemcpyAsync(dst, src C.ulonglong, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemcpy, func() C.int { return cuMemcpy(dst, src, n) })
}

// async runs op now, or records it when stream s captures.
func async(s C.uintptr_t, kind int, op func() C.int) C.int {
	if captured(s, kind, func() cudrv.Result { return cudrv.Result(op()) }) {
		return 0
	}
	return op()
}

//export cuMemcpyHtoD_v2
func cuMemcpyHtoD_v2(dst C.ulonglong, src unsafe.Pointer, n C.size_t) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	d, r := devAt(uint64(dst), uint64(n), "cuMemcpyHtoD")
	if r != cudrv.Success || src == nil && n > 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return copyBytes(d, hostBytes(src, uint64(n)))
}

//export cuMemcpyHtoDAsync_v2
func cuMemcpyHtoDAsync_v2(dst C.ulonglong, src unsafe.Pointer, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemcpy, func() C.int { return cuMemcpyHtoD_v2(dst, src, n) })
}

//export cuMemcpyDtoH_v2
func cuMemcpyDtoH_v2(dst unsafe.Pointer, src C.ulonglong, n C.size_t) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	s, r := devAt(uint64(src), uint64(n), "cuMemcpyDtoH")
	if r != cudrv.Success || dst == nil && n > 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return copyBytes(hostBytes(dst, uint64(n)), s)
}

//export cuMemcpyDtoHAsync_v2
func cuMemcpyDtoHAsync_v2(dst unsafe.Pointer, src C.ulonglong, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemcpy, func() C.int { return cuMemcpyDtoH_v2(dst, src, n) })
}

//export cuMemcpyDtoD_v2
func cuMemcpyDtoD_v2(dst, src C.ulonglong, n C.size_t) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	d, r1 := devAt(uint64(dst), uint64(n), "cuMemcpyDtoD")
	s, r2 := devAt(uint64(src), uint64(n), "cuMemcpyDtoD")
	if r1 != cudrv.Success || r2 != cudrv.Success {
		return res(cudrv.ErrInvalidValue)
	}
	return copyBytes(d, s)
}

//export cuMemcpyDtoDAsync_v2
func cuMemcpyDtoDAsync_v2(dst, src C.ulonglong, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemcpy, func() C.int { return cuMemcpyDtoD_v2(dst, src, n) })
}

// side is one end of a 2-D or 3-D copy.
type side struct {
	x, y, z, pitch, height uint64
	kind                   uint32
	host, dev, array       uint64
}

func (s *side) base() uint64 {
	if s.kind == uint32(cudrv.MemHost) {
		return s.host
	}
	return s.dev
}

// copy3D copies width x height x depth bytes between two sides.
func copy3D(src, dst *side, width, height, depth uint64) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	if src.kind == 3 && !arraySide(src, src.array) || dst.kind == 3 && !arraySide(dst, dst.array) {
		return res(cudrv.ErrInvalidValue)
	}
	if src.pitch == 0 {
		src.pitch = width
	}
	if dst.pitch == 0 {
		dst.pitch = width
	}
	if src.height == 0 {
		src.height = height
	}
	if dst.height == 0 {
		dst.height = height
	}
	for z := range depth {
		for y := range height {
			so := src.base() + (src.z+z)*src.height*src.pitch + (src.y+y)*src.pitch + src.x
			do := dst.base() + (dst.z+z)*dst.height*dst.pitch + (dst.y+y)*dst.pitch + dst.x
			s, ok1 := memAt(so, width)
			d, ok2 := memAt(do, width)
			if !ok1 || !ok2 {
				return res(cudrv.ErrInvalidValue)
			}
			copy(d, s)
		}
	}
	return 0
}

func u64at(p unsafe.Pointer, off int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(p, off)), 8))
}

//export cuMemcpy2D_v2
func cuMemcpy2D_v2(p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	src := side{x: u64at(p, 0), y: u64at(p, 8), kind: uint32(u64at(p, 16)), host: u64at(p, 24), dev: u64at(p, 32), array: u64at(p, 40), pitch: u64at(p, 48)}
	dst := side{x: u64at(p, 56), y: u64at(p, 64), kind: uint32(u64at(p, 72)), host: u64at(p, 80), dev: u64at(p, 88), array: u64at(p, 96), pitch: u64at(p, 104)}
	return copy3D(&src, &dst, u64at(p, 112), u64at(p, 120), 1)
}

//export cuMemcpy2DUnaligned_v2
func cuMemcpy2DUnaligned_v2(p unsafe.Pointer) C.int { return cuMemcpy2D_v2(p) }

//export cuMemcpy2DAsync_v2
func cuMemcpy2DAsync_v2(p unsafe.Pointer, s C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	params := append([]byte(nil), unsafe.Slice((*byte)(p), 128)...)
	return async(s, nodeMemcpy, func() C.int { return cuMemcpy2D_v2(unsafe.Pointer(&params[0])) })
}

//export cuMemcpy3D_v2
func cuMemcpy3D_v2(p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	src := side{x: u64at(p, 0), y: u64at(p, 8), z: u64at(p, 16), kind: uint32(u64at(p, 32)), host: u64at(p, 40), dev: u64at(p, 48), array: u64at(p, 56), pitch: u64at(p, 72), height: u64at(p, 80)}
	dst := side{x: u64at(p, 88), y: u64at(p, 96), z: u64at(p, 104), kind: uint32(u64at(p, 120)), host: u64at(p, 128), dev: u64at(p, 136), array: u64at(p, 144), pitch: u64at(p, 160), height: u64at(p, 168)}
	return copy3D(&src, &dst, u64at(p, 176), u64at(p, 184), u64at(p, 192))
}

//export cuMemcpy3DAsync_v2
func cuMemcpy3DAsync_v2(p unsafe.Pointer, s C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	params := append([]byte(nil), unsafe.Slice((*byte)(p), 200)...)
	return async(s, nodeMemcpy, func() C.int { return cuMemcpy3D_v2(unsafe.Pointer(&params[0])) })
}

func memset(dst C.ulonglong, v uint32, size int, width, height, pitch C.size_t) C.int {
	return res(driver().Memset(uint64(dst), v, size, uint64(width), uint64(height), uint64(pitch)))
}

//export cuMemsetD8_v2
func cuMemsetD8_v2(dst C.ulonglong, v C.uchar, n C.size_t) C.int {
	return memset(dst, uint32(v), 1, n, 1, 0)
}

//export cuMemsetD16_v2
func cuMemsetD16_v2(dst C.ulonglong, v C.ushort, n C.size_t) C.int {
	return memset(dst, uint32(v), 2, n, 1, 0)
}

//export cuMemsetD32_v2
func cuMemsetD32_v2(dst C.ulonglong, v C.uint, n C.size_t) C.int {
	return memset(dst, uint32(v), 4, n, 1, 0)
}

//export cuMemsetD8Async
func cuMemsetD8Async(dst C.ulonglong, v C.uchar, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD8_v2(dst, v, n) })
}

//export cuMemsetD16Async
func cuMemsetD16Async(dst C.ulonglong, v C.ushort, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD16_v2(dst, v, n) })
}

//export cuMemsetD32Async
func cuMemsetD32Async(dst C.ulonglong, v C.uint, n C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD32_v2(dst, v, n) })
}

//export cuMemsetD2D8_v2
func cuMemsetD2D8_v2(dst C.ulonglong, pitch C.size_t, v C.uchar, w, h C.size_t) C.int {
	return memset(dst, uint32(v), 1, w, h, pitch)
}

//export cuMemsetD2D16_v2
func cuMemsetD2D16_v2(dst C.ulonglong, pitch C.size_t, v C.ushort, w, h C.size_t) C.int {
	return memset(dst, uint32(v), 2, w, h, pitch)
}

//export cuMemsetD2D32_v2
func cuMemsetD2D32_v2(dst C.ulonglong, pitch C.size_t, v C.uint, w, h C.size_t) C.int {
	return memset(dst, uint32(v), 4, w, h, pitch)
}

//export cuMemsetD2D8Async
func cuMemsetD2D8Async(dst C.ulonglong, pitch C.size_t, v C.uchar, w, h C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD2D8_v2(dst, pitch, v, w, h) })
}

//export cuMemsetD2D16Async
func cuMemsetD2D16Async(dst C.ulonglong, pitch C.size_t, v C.ushort, w, h C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD2D16_v2(dst, pitch, v, w, h) })
}

//export cuMemsetD2D32Async
func cuMemsetD2D32Async(dst C.ulonglong, pitch C.size_t, v C.uint, w, h C.size_t, s C.uintptr_t) C.int {
	return async(s, nodeMemset, func() C.int { return cuMemsetD2D32_v2(dst, pitch, v, w, h) })
}

//export cuMemPrefetchAsync
func cuMemPrefetchAsync(ptr C.ulonglong, n C.size_t, dev C.int, s C.uintptr_t) C.int { return 0 }

//export cuMemAdvise
func cuMemAdvise(ptr C.ulonglong, n C.size_t, advice C.int, dev C.int) C.int { return 0 }

// Pointer attributes (CUpointer_attribute).
const (
	ptrContext       = 1
	ptrMemoryType    = 2
	ptrDevicePointer = 3
	ptrHostPointer   = 4
	ptrIsManaged     = 8
	ptrDeviceOrdinal = 9
	ptrRangeStart    = 11
	ptrRangeSize     = 12
	ptrMapped        = 13
)

// pointerAttr writes one attribute of ptr to data.
func pointerAttr(data unsafe.Pointer, attr int, ptr uint64) cudrv.Result {
	kind, base, size, ok := driver().Kind(ptr)
	if !ok {
		return cudrv.ErrInvalidValue
	}
	put := func(v uint64, n int) {
		b := unsafe.Slice((*byte)(data), n)
		for i := range n {
			b[i] = byte(v >> (8 * i))
		}
	}
	switch attr {
	case ptrContext:
		put(uint64(driver().Primary()), 8)
	case ptrMemoryType:
		k := kind
		if k == cudrv.MemUnified {
			k = cudrv.MemDevice
		}
		put(uint64(k), 4)
	case ptrDevicePointer:
		put(ptr, 8)
	case ptrHostPointer:
		if kind == cudrv.MemDevice {
			return cudrv.ErrInvalidValue
		}
		put(ptr, 8)
	case ptrIsManaged:
		put(b2u(kind == cudrv.MemUnified), 4)
	case ptrDeviceOrdinal:
		put(0, 4)
	case ptrRangeStart:
		put(base, 8)
	case ptrRangeSize:
		put(size, 8)
	case ptrMapped:
		put(1, 4)
	default:
		put(0, 4)
	}
	return cudrv.Success
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

//export cuPointerGetAttribute
func cuPointerGetAttribute(data unsafe.Pointer, attr C.int, ptr C.ulonglong) C.int {
	if data == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return res(pointerAttr(data, int(attr), uint64(ptr)))
}

//export cuPointerGetAttributes
func cuPointerGetAttributes(n C.uint, attrs *C.int, data *unsafe.Pointer, ptr C.ulonglong) C.int {
	if attrs == nil || data == nil {
		return res(cudrv.ErrInvalidValue)
	}
	as := unsafe.Slice(attrs, int(n))
	ds := unsafe.Slice(data, int(n))
	for i := range as {
		if ds[i] == nil {
			continue
		}
		if r := pointerAttr(ds[i], int(as[i]), uint64(ptr)); r != cudrv.Success {
			// Host memory the driver does not know: a GPU reports
			// unregistered memory rather than an error for the type.
			if int(as[i]) == ptrMemoryType {
				*(*C.uint)(ds[i]) = 0
				continue
			}
			*(*C.uint)(ds[i]) = 0
		}
	}
	return 0
}

//export cuPointerSetAttribute
func cuPointerSetAttribute(v unsafe.Pointer, attr C.int, ptr C.ulonglong) C.int { return 0 }

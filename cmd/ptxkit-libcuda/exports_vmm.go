package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports virtual memory management (cuMemCreate, cuMemMap, ...)
// and the graph memory attributes of a device.

// vmmProp checks a CUmemAllocationProp: type pinned (1) at a device (location
// type 1) that exists.
func vmmProp(p unsafe.Pointer) cudrv.Result {
	if p == nil {
		return cudrv.ErrInvalidValue
	}
	typ, locType, locID := *(*C.int)(p), *(*C.int)(unsafe.Add(p, 8)), *(*C.int)(unsafe.Add(p, 12))
	if typ != 1 || locType != 1 {
		return cudrv.ErrInvalidValue
	}
	return checkDev(locID)
}

//export cuMemGetAllocationGranularity
func cuMemGetAllocationGranularity(g *C.size_t, prop unsafe.Pointer, option C.int) C.int {
	if g == nil || option != 0 && option != 1 {
		return res(cudrv.ErrInvalidValue)
	}
	if r := vmmProp(prop); r != cudrv.Success {
		return res(r)
	}
	*g = cudrv.VMMGranularity
	return 0
}

//export cuMemCreate
func cuMemCreate(h *C.ulonglong, size C.size_t, prop unsafe.Pointer, flags C.ulonglong) C.int {
	if h == nil || flags != 0 {
		return res(cudrv.ErrInvalidValue)
	}
	if r := vmmProp(prop); r != cudrv.Success {
		return res(r)
	}
	x, r := driver().MemCreate(uint64(size))
	if r == cudrv.Success {
		*h = C.ulonglong(x)
	}
	return res(r)
}

//export cuMemRelease
func cuMemRelease(h C.ulonglong) C.int { return res(driver().MemRelease(cudrv.Handle(h))) }

//export cuMemAddressReserve
func cuMemAddressReserve(ptr *C.ulonglong, size, align C.size_t, addr, flags C.ulonglong) C.int {
	if ptr == nil || flags != 0 {
		return res(cudrv.ErrInvalidValue)
	}
	a, r := driver().MemAddressReserve(uint64(size), uint64(align), uint64(addr))
	if r == cudrv.Success {
		*ptr = C.ulonglong(a)
	}
	return res(r)
}

//export cuMemAddressFree
func cuMemAddressFree(ptr C.ulonglong, size C.size_t) C.int {
	return res(driver().MemAddressFree(uint64(ptr), uint64(size)))
}

//export cuMemMap
func cuMemMap(ptr C.ulonglong, size, offset C.size_t, h, flags C.ulonglong) C.int {
	if flags != 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return res(driver().MemMap(uint64(ptr), uint64(size), uint64(offset), cudrv.Handle(h)))
}

//export cuMemUnmap
func cuMemUnmap(ptr C.ulonglong, size C.size_t) C.int {
	return res(driver().MemUnmap(uint64(ptr), uint64(size)))
}

//export cuMemSetAccess
func cuMemSetAccess(ptr C.ulonglong, size C.size_t, desc unsafe.Pointer, count C.size_t) C.int {
	if desc == nil || count == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	// CUmemAccessDesc: the location (type, id) and the flags, 12 bytes.
	for i := range uintptr(count) {
		d := unsafe.Add(desc, i*12)
		locType, locID, flags := *(*C.int)(d), *(*C.int)(unsafe.Add(d, 4)), *(*C.int)(unsafe.Add(d, 8))
		if locType != 1 || flags < 0 || flags > 3 || flags == 2 {
			return res(cudrv.ErrInvalidValue)
		}
		if r := checkDev(locID); r != cudrv.Success {
			return res(r)
		}
	}
	return res(driver().MemSetAccess(uint64(ptr), uint64(size)))
}

//export cuMemGetAccess
func cuMemGetAccess(flags *C.ulonglong, loc unsafe.Pointer, ptr C.ulonglong) C.int {
	if flags == nil || loc == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if !driver().IsDevice(uint64(ptr), 1) {
		return res(cudrv.ErrInvalidValue)
	}
	*flags = 3 // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
	return 0
}

//export cuDeviceGetGraphMemAttribute
func cuDeviceGetGraphMemAttribute(dev C.int, attr C.int, v unsafe.Pointer) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	x, r := driver().GraphMemAttribute(int(attr))
	if r == cudrv.Success {
		*(*uint64)(v) = x
	}
	return res(r)
}

//export cuDeviceSetGraphMemAttribute
func cuDeviceSetGraphMemAttribute(dev C.int, attr C.int, v unsafe.Pointer) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return res(driver().ResetGraphMemHigh(int(attr), *(*uint64)(v)))
}

// cuDeviceGraphMemTrim returns nothing: graph memory is freed when its
// allocation is, so there is no cache to trim.
//
//export cuDeviceGraphMemTrim
func cuDeviceGraphMemTrim(dev C.int) C.int { return res(checkDev(dev)) }

package main

/*
#include "capi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports CUDA arrays and texture and surface objects.

func u32at(p unsafe.Pointer, off int) int { return int(*(*uint32)(unsafe.Add(p, off))) }

//export cuArrayCreate_v2
func cuArrayCreate_v2(arr *C.uintptr_t, desc unsafe.Pointer) C.int {
	if arr == nil || desc == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h, r := driver().CreateArray(int(u64at(desc, 0)), int(u64at(desc, 8)), 0, u32at(desc, 16), u32at(desc, 20), 0)
	if r == cudrv.Success {
		*arr = C.uintptr_t(h)
	}
	return res(r)
}

//export cuArray3DCreate_v2
func cuArray3DCreate_v2(arr *C.uintptr_t, desc unsafe.Pointer) C.int {
	if arr == nil || desc == nil {
		return res(cudrv.ErrInvalidValue)
	}
	flags := u32at(desc, 32)
	if flags&^0x7 != 0 { // CUDA_ARRAY3D_LAYERED, _SURFACE_LDST and _CUBEMAP
		tracef("cuArray3DCreate: flags %#x (texture-gather and sparse arrays are not supported)", flags)
		return res(cudrv.ErrNotSupported)
	}
	h, r := driver().CreateArray(int(u64at(desc, 0)), int(u64at(desc, 8)), int(u64at(desc, 16)), u32at(desc, 24), u32at(desc, 28), flags)
	if r == cudrv.Success {
		*arr = C.uintptr_t(h)
	}
	return res(r)
}

//export cuArrayDestroy
func cuArrayDestroy(arr C.uintptr_t) C.int { return res(driver().DestroyArray(cudrv.Handle(arr))) }

//export cuArrayGetDescriptor_v2
func cuArrayGetDescriptor_v2(desc unsafe.Pointer, arr C.uintptr_t) C.int {
	a, r := driver().ArrayOf(cudrv.Handle(arr))
	if r != cudrv.Success || desc == nil {
		return res(cudrv.ErrInvalidHandle)
	}
	*(*uint64)(desc) = uint64(a.Width)
	*(*uint64)(unsafe.Add(desc, 8)) = uint64(a.Height)
	*(*uint32)(unsafe.Add(desc, 16)) = uint32(a.Format)
	*(*uint32)(unsafe.Add(desc, 20)) = uint32(a.Channels)
	return 0
}

//export cuArray3DGetDescriptor_v2
func cuArray3DGetDescriptor_v2(desc unsafe.Pointer, arr C.uintptr_t) C.int {
	a, r := driver().ArrayOf(cudrv.Handle(arr))
	if r != cudrv.Success || desc == nil {
		return res(cudrv.ErrInvalidHandle)
	}
	*(*uint64)(desc) = uint64(a.Width)
	*(*uint64)(unsafe.Add(desc, 8)) = uint64(a.Height)
	*(*uint64)(unsafe.Add(desc, 16)) = uint64(a.Depth)
	*(*uint32)(unsafe.Add(desc, 24)) = uint32(a.Format)
	*(*uint32)(unsafe.Add(desc, 28)) = uint32(a.Channels)
	*(*uint32)(unsafe.Add(desc, 32)) = uint32(a.Flags)
	return 0
}

// arraySide points a copy's side at an array's memory.
func arraySide(s *side, arr uint64) bool {
	a, r := driver().ArrayOf(cudrv.Handle(arr))
	if r != cudrv.Success {
		return false
	}
	s.kind, s.dev = uint32(cudrv.MemDevice), a.Base
	s.pitch, s.height = uint64(a.Width*a.Bytes()), uint64(max(a.Height, 1))
	return true
}

// resourceOf reads a CUDA_RESOURCE_DESC.
func resourceOf(p unsafe.Pointer) cudrv.Resource {
	res := cudrv.Resource{Type: u32at(p, 0)}
	switch res.Type {
	case 0:
		res.Array = cudrv.Handle(u64at(p, 8))
	case 2:
		res.Ptr, res.Format, res.Channels, res.Size = u64at(p, 8), u32at(p, 16), u32at(p, 20), u64at(p, 24)
	case 3:
		res.Ptr, res.Format, res.Channels = u64at(p, 8), u32at(p, 16), u32at(p, 20)
		res.Width, res.Height, res.Pitch = int(u64at(p, 24)), int(u64at(p, 32)), int(u64at(p, 40))
	}
	return res
}

//export cuTexObjectCreate
func cuTexObjectCreate(obj *C.ulonglong, resDesc, texDesc, viewDesc unsafe.Pointer) C.int {
	if obj == nil || resDesc == nil || texDesc == nil {
		return res(cudrv.ErrInvalidValue)
	}
	s := cudrv.Sampling{
		Address: [3]int{u32at(texDesc, 0), u32at(texDesc, 4), u32at(texDesc, 8)},
		Linear:  u32at(texDesc, 12) == 1,
		Flags:   u32at(texDesc, 16),
	}
	for i := range 4 {
		s.Border[i] = math.Float32frombits(uint32(u32at(texDesc, 40+4*i)))
	}
	h, r, msg := driver().CreateTexture(resourceOf(resDesc), s, false)
	if r != cudrv.Success {
		driver().Logf("cuTexObjectCreate: %s", msg)
		return res(r)
	}
	*obj = C.ulonglong(h)
	return 0
}

//export cuTexObjectDestroy
func cuTexObjectDestroy(obj C.ulonglong) C.int { return res(driver().DestroyTexture(uint64(obj))) }

//export cuSurfObjectCreate
func cuSurfObjectCreate(obj *C.ulonglong, resDesc unsafe.Pointer) C.int {
	if obj == nil || resDesc == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h, r, msg := driver().CreateTexture(resourceOf(resDesc), cudrv.Sampling{}, true)
	if r != cudrv.Success {
		driver().Logf("cuSurfObjectCreate: %s", msg)
		return res(r)
	}
	*obj = C.ulonglong(h)
	return 0
}

//export cuSurfObjectDestroy
func cuSurfObjectDestroy(obj C.ulonglong) C.int { return res(driver().DestroyTexture(uint64(obj))) }

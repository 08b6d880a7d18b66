package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports initialization, devices and contexts.

//export cuInit
func cuInit(flags C.uint) C.int { return res(driver().Init(uint32(flags))) }

//export cuDriverGetVersion
func cuDriverGetVersion(v *C.int) C.int {
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*v = cudrv.Version
	return 0
}

//export cuGetErrorName
func cuGetErrorName(r C.int, out **C.char) C.int {
	name, ok := cudrv.Result(r).Name()
	if out == nil || !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*out = cstr(name)
	return 0
}

//export cuGetErrorString
func cuGetErrorString(r C.int, out **C.char) C.int {
	s, ok := cudrv.Result(r).Description()
	if out == nil || !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*out = cstr(s)
	return 0
}

//export cuDeviceGet
func cuDeviceGet(dev *C.int, ordinal C.int) C.int {
	if r := driver().State(); r == cudrv.ErrNotInitialized {
		return res(r)
	}
	if dev == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if ordinal != 0 {
		return res(cudrv.ErrInvalidDevice)
	}
	*dev = 0
	return 0
}

//export cuDeviceGetCount
func cuDeviceGetCount(n *C.int) C.int {
	if r := driver().State(); r == cudrv.ErrNotInitialized {
		return res(r)
	}
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*n = C.int(driver().DeviceCount())
	return 0
}

func checkDev(dev C.int) cudrv.Result {
	if r := driver().State(); r == cudrv.ErrNotInitialized {
		return r
	}
	if dev != 0 {
		return cudrv.ErrInvalidDevice
	}
	return cudrv.Success
}

//export cuDeviceGetName
func cuDeviceGetName(name *C.char, n C.int, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if name == nil || n <= 0 {
		return res(cudrv.ErrInvalidValue)
	}
	s := driver().GPU().Name
	b := unsafe.Slice((*byte)(unsafe.Pointer(name)), int(n))
	k := copy(b[:n-1], s)
	b[k] = 0
	return 0
}

//export cuDeviceGetUuid
func cuDeviceGetUuid(uuid *C.uchar, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if uuid == nil {
		return res(cudrv.ErrInvalidValue)
	}
	u := driver().GPU().UUID
	copy(unsafe.Slice((*byte)(unsafe.Pointer(uuid)), 16), u[:])
	return 0
}

//export cuDeviceGetUuid_v2
func cuDeviceGetUuid_v2(uuid *C.uchar, dev C.int) C.int { return cuDeviceGetUuid(uuid, dev) }

//export cuDeviceGetLuid
func cuDeviceGetLuid(luid *C.char, mask *C.uint, dev C.int) C.int {
	return res(cudrv.ErrNotSupported)
}

//export cuDeviceTotalMem_v2
func cuDeviceTotalMem_v2(n *C.size_t, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*n = C.size_t(driver().GPU().TotalMem)
	return 0
}

//export cuDeviceGetAttribute
func cuDeviceGetAttribute(v *C.int, attr C.int, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	x, ok := driver().GPU().Attr(int(attr))
	if !ok {
		tracef("cuDeviceGetAttribute: unknown attribute %d", int(attr))
		return res(cudrv.ErrInvalidValue)
	}
	*v = C.int(x)
	return 0
}

//export cuDeviceComputeCapability
func cuDeviceComputeCapability(major, minor *C.int, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if major == nil || minor == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*major, *minor = C.int(driver().GPU().Major), C.int(driver().GPU().Minor)
	return 0
}

const pciBusID = "0000:01:00.0"

//export cuDeviceGetPCIBusId
func cuDeviceGetPCIBusId(out *C.char, n C.int, dev C.int) C.int {
	if r := checkDev(dev); r != cudrv.Success {
		return res(r)
	}
	if out == nil || n <= 0 {
		return res(cudrv.ErrInvalidValue)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(out)), int(n))
	k := copy(b[:n-1], pciBusID)
	b[k] = 0
	return 0
}

//export cuDeviceGetByPCIBusId
func cuDeviceGetByPCIBusId(dev *C.int, id *C.char) C.int {
	if dev == nil || id == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if s := cstring(id, 64); s != pciBusID && s != "01:00.0" && s != "0000:01:00" {
		return res(cudrv.ErrInvalidDevice)
	}
	*dev = 0
	return 0
}

//export cuDeviceCanAccessPeer
func cuDeviceCanAccessPeer(can *C.int, dev, peer C.int) C.int {
	if can == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if dev != 0 || peer != 0 {
		return res(cudrv.ErrInvalidDevice)
	}
	*can = 0
	return 0
}

//export cuDeviceGetDefaultMemPool
func cuDeviceGetDefaultMemPool(pool *C.uintptr_t, dev C.int) C.int {
	return cuDeviceGetMemPool(pool, dev)
}

//export cuDevicePrimaryCtxRetain
func cuDevicePrimaryCtxRetain(ctx *C.uintptr_t, dev C.int) C.int {
	if ctx == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h, r := driver().PrimaryRetain(int(dev))
	if r == cudrv.Success {
		*ctx = C.uintptr_t(h)
	}
	return res(r)
}

//export ptxkitPrimaryContext
func ptxkitPrimaryContext(ctx *C.uintptr_t, dev C.int) C.int {
	if ctx == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h := driver().Primary()
	if h == 0 {
		var r cudrv.Result
		if h, r = driver().PrimaryRetain(int(dev)); r != cudrv.Success {
			return res(r)
		}
	}
	*ctx = C.uintptr_t(h)
	return 0
}

//export cuDevicePrimaryCtxRelease_v2
func cuDevicePrimaryCtxRelease_v2(dev C.int) C.int { return res(driver().PrimaryRelease(int(dev))) }

//export cuDevicePrimaryCtxSetFlags_v2
func cuDevicePrimaryCtxSetFlags_v2(dev C.int, flags C.uint) C.int {
	return res(driver().PrimarySetFlags(int(dev), uint32(flags)))
}

//export cuDevicePrimaryCtxGetState
func cuDevicePrimaryCtxGetState(dev C.int, flags *C.uint, active *C.int) C.int {
	if flags == nil || active == nil {
		return res(cudrv.ErrInvalidValue)
	}
	f, a, r := driver().PrimaryState(int(dev))
	*flags = C.uint(f)
	*active = 0
	if a {
		*active = 1
	}
	return res(r)
}

//export cuDevicePrimaryCtxReset_v2
func cuDevicePrimaryCtxReset_v2(dev C.int) C.int { return res(driver().PrimaryReset(int(dev))) }

//export cuCtxCreate_v2
func cuCtxCreate_v2(ctx *C.uintptr_t, flags C.uint, dev C.int) C.int {
	if ctx == nil {
		return res(cudrv.ErrInvalidValue)
	}
	h, r := driver().CreateContext(uint32(flags), int(dev))
	if r == cudrv.Success {
		*ctx = C.uintptr_t(h)
		C.ptxkit_push_current(C.uintptr_t(h))
	}
	return res(r)
}

//export cuCtxCreate_v3
func cuCtxCreate_v3(ctx *C.uintptr_t, params unsafe.Pointer, n C.int, flags C.uint, dev C.int) C.int {
	return cuCtxCreate_v2(ctx, flags, dev)
}

//export cuCtxCreate_v4
func cuCtxCreate_v4(ctx *C.uintptr_t, params unsafe.Pointer, flags C.uint, dev C.int) C.int {
	return cuCtxCreate_v2(ctx, flags, dev)
}

//export cuCtxDestroy_v2
func cuCtxDestroy_v2(ctx C.uintptr_t) C.int {
	r := driver().DestroyContext(cudrv.Handle(ctx))
	if r == cudrv.Success && C.ptxkit_current() == ctx {
		C.ptxkit_pop_current()
	}
	return res(r)
}

//export cuCtxGetCurrent
func cuCtxGetCurrent(ctx *C.uintptr_t) C.int {
	if ctx == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if r := driver().State(); r == cudrv.ErrNotInitialized {
		return res(r)
	}
	*ctx = C.ptxkit_current()
	return 0
}

//export cuCtxSetCurrent
func cuCtxSetCurrent(ctx C.uintptr_t) C.int {
	if ctx != 0 && !driver().IsContext(cudrv.Handle(ctx)) {
		return res(cudrv.ErrInvalidContext)
	}
	C.ptxkit_set_current(ctx)
	return 0
}

//export cuCtxPushCurrent_v2
func cuCtxPushCurrent_v2(ctx C.uintptr_t) C.int {
	if !driver().IsContext(cudrv.Handle(ctx)) {
		return res(cudrv.ErrInvalidContext)
	}
	if C.ptxkit_push_current(ctx) == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return 0
}

//export cuCtxPopCurrent_v2
func cuCtxPopCurrent_v2(ctx *C.uintptr_t) C.int {
	if C.ptxkit_current() == 0 {
		return res(cudrv.ErrInvalidContext)
	}
	h := C.ptxkit_pop_current()
	if ctx != nil {
		*ctx = h
	}
	return 0
}

// currentContext returns the calling thread's context, or the error a
// call without one gets.
func currentContext() (cudrv.Handle, cudrv.Result) {
	if r := driver().State(); r == cudrv.ErrNotInitialized {
		return 0, r
	}
	h := cudrv.Handle(C.ptxkit_current())
	if h == 0 {
		return 0, cudrv.ErrInvalidContext
	}
	return h, cudrv.Success
}

//export cuCtxGetDevice
func cuCtxGetDevice(dev *C.int) C.int {
	if _, r := currentContext(); r != cudrv.Success {
		return res(r)
	}
	if dev == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*dev = 0
	return 0
}

//export cuCtxGetFlags
func cuCtxGetFlags(flags *C.uint) C.int {
	h, r := currentContext()
	if r != cudrv.Success {
		return res(r)
	}
	if flags == nil {
		return res(cudrv.ErrInvalidValue)
	}
	f, r := driver().ContextFlags(h)
	*flags = C.uint(f)
	return res(r)
}

//export cuCtxSetFlags
func cuCtxSetFlags(flags C.uint) C.int {
	if _, r := currentContext(); r != cudrv.Success {
		return res(r)
	}
	return 0
}

//export cuCtxSynchronize
func cuCtxSynchronize() C.int { return res(driver().Synchronize()) }

//export cuCtxGetApiVersion
func cuCtxGetApiVersion(ctx C.uintptr_t, v *C.uint) C.int {
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*v = 3020
	return 0
}

//export cuCtxGetId
func cuCtxGetId(ctx C.uintptr_t, id *C.ulonglong) C.int {
	if id == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if ctx == 0 {
		ctx = C.ptxkit_current()
	}
	*id = C.ulonglong(ctx)
	return 0
}

// Context limits: CU_LIMIT_STACK_SIZE 0, PRINTF_FIFO_SIZE 1,
// MALLOC_HEAP_SIZE 2, DEV_RUNTIME_SYNC_DEPTH 3, PENDING_LAUNCH_COUNT 4,
// MAX_L2_FETCH_GRANULARITY 5, PERSISTING_L2_CACHE_SIZE 6.
const limitMallocHeap = 2

var limits = map[int]uint64{0: 1024, 1: 1 << 20, 2: 8 << 20, 3: 2, 4: 2048, 5: 64, 6: 0}

//export cuCtxGetLimit
func cuCtxGetLimit(v *C.size_t, limit C.int) C.int {
	if limit == limitMallocHeap && v != nil {
		*v = C.size_t(driver().HeapSize())
		return 0
	}
	x, ok := limits[int(limit)]
	if v == nil || !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*v = C.size_t(x)
	return 0
}

//export cuCtxSetLimit
func cuCtxSetLimit(limit C.int, v C.size_t) C.int {
	if limit == limitMallocHeap {
		return res(driver().SetHeapSize(uint64(v)))
	}
	if _, ok := limits[int(limit)]; !ok {
		return res(cudrv.ErrInvalidValue)
	}
	limits[int(limit)] = uint64(v)
	return 0
}

//export cuCtxGetCacheConfig
func cuCtxGetCacheConfig(c *C.int) C.int {
	if c != nil {
		*c = 0
	}
	return 0
}

//export cuCtxSetCacheConfig
func cuCtxSetCacheConfig(c C.int) C.int { return 0 }

//export cuCtxGetSharedMemConfig
func cuCtxGetSharedMemConfig(c *C.int) C.int {
	if c != nil {
		*c = 1 // four-byte banks
	}
	return 0
}

//export cuCtxSetSharedMemConfig
func cuCtxSetSharedMemConfig(c C.int) C.int { return 0 }

//export cuCtxGetStreamPriorityRange
func cuCtxGetStreamPriorityRange(least, greatest *C.int) C.int {
	if least != nil {
		*least = 0
	}
	if greatest != nil {
		*greatest = -5
	}
	return 0
}

//export cuCtxResetPersistingL2Cache
func cuCtxResetPersistingL2Cache() C.int { return 0 }

//export cuCtxGetExecAffinity
func cuCtxGetExecAffinity(p unsafe.Pointer, t C.int) C.int { return res(cudrv.ErrNotSupported) }

//export ptxkitLocalSet
func ptxkitLocalSet(ctx C.uintptr_t, key, value unsafe.Pointer) C.int {
	if ctx == 0 {
		ctx = C.ptxkit_current()
	}
	return res(driver().SetLocal(cudrv.Handle(ctx), uintptr(key), uintptr(value)))
}

//export ptxkitLocalDelete
func ptxkitLocalDelete(ctx C.uintptr_t, key unsafe.Pointer) C.int {
	if ctx == 0 {
		ctx = C.ptxkit_current()
	}
	return res(driver().DeleteLocal(cudrv.Handle(ctx), uintptr(key)))
}

//export ptxkitLocalGet
func ptxkitLocalGet(value *unsafe.Pointer, ctx C.uintptr_t, key unsafe.Pointer) C.int {
	if ctx == 0 {
		ctx = C.ptxkit_current()
	}
	v, r := driver().Local(cudrv.Handle(ctx), uintptr(key))
	if r == cudrv.Success && value != nil {
		*value = C.ptxkit_ptr(C.uint64_t(v))
	}
	return res(r)
}

//export cuProfilerStart
func cuProfilerStart() C.int { return 0 }

//export cuProfilerStop
func cuProfilerStop() C.int { return 0 }

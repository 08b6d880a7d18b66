package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports the entry points that have little to do on one
// emulated device: peer copies within the device, stream attributes and
// memory operations, managed-memory hints, the default memory pool (whose
// allocations are plain allocations) and cluster occupancy.

//export cuMemcpyPeer
func cuMemcpyPeer(dst C.ulonglong, dctx C.uintptr_t, src C.ulonglong, sctx C.uintptr_t, n C.size_t) C.int {
	return cuMemcpyDtoD_v2(dst, src, n)
}

//export cuMemcpyPeerAsync
func cuMemcpyPeerAsync(dst C.ulonglong, dctx C.uintptr_t, src C.ulonglong, sctx C.uintptr_t, n C.size_t, s C.uintptr_t) C.int {
	return cuMemcpyDtoDAsync_v2(dst, src, n, s)
}

//export cuCtxEnablePeerAccess
func cuCtxEnablePeerAccess(ctx C.uintptr_t, flags C.uint) C.int {
	return res(cudrv.ErrPeerAccessUnsupported)
}

//export cuCtxDisablePeerAccess
func cuCtxDisablePeerAccess(ctx C.uintptr_t) C.int { return res(cudrv.ErrPeerAccessUnsupported) }

//export cuDeviceGetP2PAttribute
func cuDeviceGetP2PAttribute(v *C.int, attr C.int, a, b C.int) C.int {
	if v == nil || a != 0 || b != 0 {
		return res(cudrv.ErrInvalidDevice)
	}
	*v = 0
	return 0
}

//export cuDeviceGetTexture1DLinearMaxWidth
func cuDeviceGetTexture1DLinearMaxWidth(w *C.size_t, format C.int, channels C.uint, dev C.int) C.int {
	if w == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*w = 1 << 28
	return 0
}

//export cuStreamAttachMemAsync
func cuStreamAttachMemAsync(s C.uintptr_t, ptr C.ulonglong, n C.size_t, flags C.uint) C.int { return 0 }

//export cuMemRangeGetAttribute
func cuMemRangeGetAttribute(data unsafe.Pointer, size C.size_t, attr C.int, ptr C.ulonglong, n C.size_t) C.int {
	if data == nil {
		return res(cudrv.ErrInvalidValue)
	}
	clear(hostBytes(data, uint64(size)))
	return 0
}

//export cuMemRangeGetAttributes
func cuMemRangeGetAttributes(data *unsafe.Pointer, sizes *C.size_t, attrs *C.int, n C.size_t, ptr C.ulonglong, count C.size_t) C.int {
	if data == nil || sizes == nil {
		return res(cudrv.ErrInvalidValue)
	}
	ds, ss := unsafe.Slice(data, int(n)), unsafe.Slice(sizes, int(n))
	for i := range ds {
		clear(hostBytes(ds[i], uint64(ss[i])))
	}
	return 0
}

//export cuStreamGetAttribute
func cuStreamGetAttribute(s C.uintptr_t, attr C.int, v unsafe.Pointer) C.int {
	if v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	clear(hostBytes(v, 64)) // CUlaunchAttributeValue
	return 0
}

//export cuStreamSetAttribute
func cuStreamSetAttribute(s C.uintptr_t, attr C.int, v unsafe.Pointer) C.int { return 0 }

//export cuStreamCopyAttributes
func cuStreamCopyAttributes(dst, src C.uintptr_t) C.int { return 0 }

// Stream memory operations run when issued; a wait whose condition does
// not hold yet can never be satisfied later (nothing runs concurrently),
// so it is an error rather than a hang.
func streamWait(cur, v uint64, flags C.uint) C.int {
	var ok bool
	switch flags & 3 {
	case 0: // CU_STREAM_WAIT_VALUE_GEQ
		ok = int64(cur-v) >= 0
	case 1: // EQ
		ok = cur == v
	case 2: // AND
		ok = cur&v != 0
	case 3: // NOR
		ok = ^(cur | v) != 0
	}
	if !ok {
		driver().Logf("cuStreamWaitValue: the condition does not hold and no other work can change it")
		return res(cudrv.ErrInvalidValue)
	}
	return 0
}

//export cuStreamWaitValue32_v2
func cuStreamWaitValue32_v2(s C.uintptr_t, addr C.ulonglong, v C.uint, flags C.uint) C.int {
	b, ok := memAt(uint64(addr), 4)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	return streamWait(uint64(*(*uint32)(unsafe.Pointer(&b[0]))), uint64(v), flags)
}

//export cuStreamWaitValue64_v2
func cuStreamWaitValue64_v2(s C.uintptr_t, addr C.ulonglong, v C.ulonglong, flags C.uint) C.int {
	b, ok := memAt(uint64(addr), 8)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	return streamWait(*(*uint64)(unsafe.Pointer(&b[0])), uint64(v), flags)
}

//export cuStreamWriteValue32_v2
func cuStreamWriteValue32_v2(s C.uintptr_t, addr C.ulonglong, v C.uint, flags C.uint) C.int {
	b, ok := memAt(uint64(addr), 4)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*(*uint32)(unsafe.Pointer(&b[0])) = uint32(v)
	return 0
}

//export cuStreamWriteValue64_v2
func cuStreamWriteValue64_v2(s C.uintptr_t, addr C.ulonglong, v C.ulonglong, flags C.uint) C.int {
	b, ok := memAt(uint64(addr), 8)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*(*uint64)(unsafe.Pointer(&b[0])) = uint64(v)
	return 0
}

// defaultPool is the handle of the device's one memory pool.
const defaultPool = 0x7c0000000010

//export cuDeviceGetMemPool
func cuDeviceGetMemPool(pool *C.uintptr_t, dev C.int) C.int {
	if pool == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if dev != 0 {
		return res(cudrv.ErrInvalidDevice)
	}
	*pool = defaultPool
	return 0
}

//export cuDeviceSetMemPool
func cuDeviceSetMemPool(dev C.int, pool C.uintptr_t) C.int {
	if pool != defaultPool {
		return res(cudrv.ErrInvalidValue)
	}
	return 0
}

//export cuMemPoolSetAttribute
func cuMemPoolSetAttribute(pool C.uintptr_t, attr C.int, v unsafe.Pointer) C.int {
	if pool != defaultPool {
		return res(cudrv.ErrInvalidValue)
	}
	return 0
}

//export cuMemPoolGetAttribute
func cuMemPoolGetAttribute(pool C.uintptr_t, attr C.int, v unsafe.Pointer) C.int {
	if pool != defaultPool || v == nil {
		return res(cudrv.ErrInvalidValue)
	}
	// Attributes 1-3 are int flags; the rest are 64-bit byte counts.
	n := uint64(8)
	if attr <= 3 {
		n = 4
	}
	clear(hostBytes(v, n))
	return 0
}

//export cuMemPoolTrimTo
func cuMemPoolTrimTo(pool C.uintptr_t, keep C.size_t) C.int { return 0 }

//export cuMemAllocFromPoolAsync
func cuMemAllocFromPoolAsync(ptr *C.ulonglong, n C.size_t, pool, s C.uintptr_t) C.int {
	return cuMemAllocAsync(ptr, n, s)
}

//export cuOccupancyMaxActiveClusters
func cuOccupancyMaxActiveClusters(n *C.int, f C.uintptr_t, config unsafe.Pointer) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*n = C.int(driver().GPU().SMs / 2)
	return 0
}

//export cuOccupancyMaxPotentialClusterSize
func cuOccupancyMaxPotentialClusterSize(n *C.int, f C.uintptr_t, config unsafe.Pointer) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*n = 8
	return 0
}

//export cuKernelGetParamInfo
func cuKernelGetParamInfo(k C.uintptr_t, idx C.size_t, off, size *C.size_t) C.int {
	return cuFuncGetParamInfo(k, idx, off, size)
}

//export cuLibraryLoadFromFile
func cuLibraryLoadFromFile(lib *C.uintptr_t, path *C.char, jitOpts, jitVals unsafe.Pointer, nJit C.uint, libOpts, libVals unsafe.Pointer, nLib C.uint) C.int {
	return cuModuleLoad(lib, path)
}

//export cuProfilerInitialize
func cuProfilerInitialize(config, out *C.char, mode C.int) C.int { return 0 }

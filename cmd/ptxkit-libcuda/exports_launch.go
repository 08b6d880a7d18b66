package main

/*
#include "capi.h"
*/
import "C"

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports launches, streams, events and occupancy.

// CU_LAUNCH_PARAM_* markers of cuLaunchKernel's extra array.
const (
	launchParamEnd        = 0
	launchParamBufferPtr  = 1
	launchParamBufferSize = 2
)

// kernelParams collects the launch's parameter bytes: from params (one
// pointer per parameter) or from extra's packed buffer.
func kernelParams(fn cudrv.Handle, params, extra *unsafe.Pointer) ([][]byte, cudrv.Result) {
	sizes, offs, r := driver().Params(fn)
	if r != cudrv.Success {
		return nil, r
	}
	out := make([][]byte, len(sizes))
	if params != nil {
		ps := unsafe.Slice(params, len(sizes))
		for i, n := range sizes {
			if ps[i] == nil {
				return nil, cudrv.ErrInvalidValue
			}
			out[i] = append([]byte(nil), hostBytes(ps[i], uint64(n))...)
		}
		return out, cudrv.Success
	}
	if len(sizes) == 0 {
		return out, cudrv.Success
	}
	if extra == nil {
		return nil, cudrv.ErrInvalidValue
	}
	var buf unsafe.Pointer
	var size uint64
	for i := 0; i < 16; i += 2 {
		e := unsafe.Slice(extra, i+2)
		switch uintptr(e[i]) {
		case launchParamEnd:
			i = 16
		case launchParamBufferPtr:
			buf = e[i+1]
		case launchParamBufferSize:
			size = uint64(*(*C.size_t)(e[i+1]))
		default:
			return nil, cudrv.ErrInvalidValue
		}
	}
	if buf == nil {
		return nil, cudrv.ErrInvalidValue
	}
	b := hostBytes(buf, size)
	for i, n := range sizes {
		if offs[i]+n > len(b) {
			driver().Logf("the launch's parameter buffer has %d bytes; parameter %d needs bytes [%d, %d)", len(b), i, offs[i], offs[i]+n)
			return nil, cudrv.ErrInvalidValue
		}
		out[i] = append([]byte(nil), b[offs[i]:offs[i]+n]...)
	}
	return out, cudrv.Success
}

// streamNumbers numbers the streams that launch, for the timeline: 0 for
// the null stream (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD), then 1, 2,
// ... in the order of their first launch.
var (
	streamMu      sync.Mutex
	streamNumbers = map[C.uintptr_t]int{}
)

func streamNumber(s C.uintptr_t) int {
	if s <= 2 {
		return 0
	}
	streamMu.Lock()
	defer streamMu.Unlock()
	n, ok := streamNumbers[s]
	if !ok {
		n = len(streamNumbers) + 1
		streamNumbers[s] = n
	}
	return n
}

func launch(f C.uintptr_t, cfg cudrv.LaunchConfig, s C.uintptr_t, params, extra *unsafe.Pointer) C.int {
	cfg.Stream = streamNumber(s)
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	ps, r := kernelParams(cudrv.Handle(f), params, extra)
	if r != cudrv.Success {
		return res(r)
	}
	if capturedNode(s, launchNode(f, cfg, ps)) {
		return 0
	}
	return res(driver().Launch(cudrv.Handle(f), cfg, ps))
}

//export cuLaunchKernel
func cuLaunchKernel(f C.uintptr_t, gx, gy, gz, bx, by, bz, smem C.uint, s C.uintptr_t, params, extra *unsafe.Pointer) C.int {
	cfg := cudrv.LaunchConfig{Grid: [3]int{int(gx), int(gy), int(gz)}, Block: [3]int{int(bx), int(by), int(bz)}, SharedBytes: int(smem)}
	return launch(f, cfg, s, params, extra)
}

//export cuLaunchCooperativeKernel
func cuLaunchCooperativeKernel(f C.uintptr_t, gx, gy, gz, bx, by, bz, smem C.uint, s C.uintptr_t, params *unsafe.Pointer) C.int {
	cfg := cudrv.LaunchConfig{Grid: [3]int{int(gx), int(gy), int(gz)}, Block: [3]int{int(bx), int(by), int(bz)}, SharedBytes: int(smem), Cooperative: true}
	return launch(f, cfg, s, params, nil)
}

// CUlaunchAttributeID values cuLaunchKernelEx honours.
const (
	launchAttrCooperative = 2
	launchAttrCluster     = 4
)

//export cuLaunchKernelEx
func cuLaunchKernelEx(config unsafe.Pointer, f C.uintptr_t, params, extra *unsafe.Pointer) C.int {
	if config == nil {
		return res(cudrv.ErrInvalidValue)
	}
	c := unsafe.Slice((*byte)(config), 56)
	u32 := func(off int) int { return int(binary.LittleEndian.Uint32(c[off:])) }
	cfg := cudrv.LaunchConfig{Grid: [3]int{u32(0), u32(4), u32(8)}, Block: [3]int{u32(12), u32(16), u32(20)}, SharedBytes: u32(24)}
	attrs := *(*unsafe.Pointer)(unsafe.Pointer(&c[40]))
	n := u32(48)
	for i := range n {
		a := unsafe.Slice((*byte)(unsafe.Add(attrs, 72*i)), 72)
		v := func(k int) int { return int(binary.LittleEndian.Uint32(a[8+4*k:])) }
		switch binary.LittleEndian.Uint32(a) {
		case launchAttrCooperative:
			cfg.Cooperative = v(0) != 0
		case launchAttrCluster:
			cfg.Cluster = [3]int{v(0), v(1), v(2)}
		}
	}
	return launch(f, cfg, *(*C.uintptr_t)(unsafe.Pointer(&c[32])), params, extra)
}

//export cuOccupancyMaxActiveBlocksPerMultiprocessor
func cuOccupancyMaxActiveBlocksPerMultiprocessor(n *C.int, f C.uintptr_t, block C.int, smem C.size_t) C.int {
	return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, smem, 0)
}

//export cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
func cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n *C.int, f C.uintptr_t, block C.int, smem C.size_t, flags C.uint) C.int {
	if n == nil || block <= 0 || block > 1024 {
		return res(cudrv.ErrInvalidValue)
	}
	g := driver().GPU()
	threads, _ := g.Attr(39)
	perSM := min(32, int(threads)/((int(block)+31)/32*32))
	if smem > 0 {
		smemSM, _ := g.Attr(81)
		perSM = min(perSM, int(smemSM)/(int(smem)+1024))
	}
	*n = C.int(perSM)
	return 0
}

//export cuOccupancyMaxPotentialBlockSize
func cuOccupancyMaxPotentialBlockSize(minGrid, block *C.int, f C.uintptr_t, smemFn unsafe.Pointer, smem C.size_t, limit C.int) C.int {
	if minGrid == nil || block == nil {
		return res(cudrv.ErrInvalidValue)
	}
	b := 1024
	if limit > 0 && int(limit) < b {
		b = int(limit)
	}
	var per C.int
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&per, f, C.int(b), smem)
	*block = C.int(b)
	*minGrid = per * C.int(driver().GPU().SMs)
	return 0
}

//export cuOccupancyMaxPotentialBlockSizeWithFlags
func cuOccupancyMaxPotentialBlockSizeWithFlags(minGrid, block *C.int, f C.uintptr_t, smemFn unsafe.Pointer, smem C.size_t, limit C.int, flags C.uint) C.int {
	return cuOccupancyMaxPotentialBlockSize(minGrid, block, f, smemFn, smem, limit)
}

//export cuOccupancyAvailableDynamicSMemPerBlock
func cuOccupancyAvailableDynamicSMemPerBlock(n *C.size_t, f C.uintptr_t, blocks, block C.int) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*n = C.size_t(driver().GPU().SmemOptin)
	return 0
}

//export cuStreamCreate
func cuStreamCreate(s *C.uintptr_t, flags C.uint) C.int {
	if s == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*s = C.uintptr_t(driver().CreateStream(uint32(flags), 0))
	return 0
}

//export cuStreamCreateWithPriority
func cuStreamCreateWithPriority(s *C.uintptr_t, flags C.uint, prio C.int) C.int {
	if s == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*s = C.uintptr_t(driver().CreateStream(uint32(flags), int(prio)))
	return 0
}

//export cuStreamDestroy_v2
func cuStreamDestroy_v2(s C.uintptr_t) C.int { return res(driver().DestroyStream(cudrv.Handle(s))) }

//export cuStreamSynchronize
func cuStreamSynchronize(s C.uintptr_t) C.int {
	if _, r := driver().StreamInfo(cudrv.Handle(s)); r != cudrv.Success {
		return res(r)
	}
	return res(driver().Synchronize())
}

//export cuStreamQuery
func cuStreamQuery(s C.uintptr_t) C.int { return cuStreamSynchronize(s) }

//export cuStreamWaitEvent
func cuStreamWaitEvent(s, e C.uintptr_t, flags C.uint) C.int {
	if joinCapture(s, e) {
		return 0
	}
	return res(driver().QueryEvent(cudrv.Handle(e)))
}

//export cuStreamAddCallback
func cuStreamAddCallback(s C.uintptr_t, cb, data unsafe.Pointer, flags C.uint) C.int {
	if cb == nil {
		return res(cudrv.ErrInvalidValue)
	}
	run := func() cudrv.Result {
		C.ptxkit_call_stream_cb(cb, s, res(driver().State()), data)
		return cudrv.Success
	}
	if !captured(s, nodeHost, run) {
		run()
	}
	return 0
}

//export cuLaunchHostFunc
func cuLaunchHostFunc(s C.uintptr_t, fn, data unsafe.Pointer) C.int {
	if fn == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	run := func() cudrv.Result {
		C.ptxkit_call_host_fn(fn, data)
		return cudrv.Success
	}
	if !captured(s, nodeHost, run) {
		run()
	}
	return 0
}

//export cuStreamGetFlags
func cuStreamGetFlags(s C.uintptr_t, flags *C.uint) C.int {
	st, r := driver().StreamInfo(cudrv.Handle(s))
	if r == cudrv.Success && flags != nil {
		*flags = C.uint(st.Flags)
	}
	return res(r)
}

//export cuStreamGetPriority
func cuStreamGetPriority(s C.uintptr_t, prio *C.int) C.int {
	st, r := driver().StreamInfo(cudrv.Handle(s))
	if r == cudrv.Success && prio != nil {
		*prio = C.int(st.Priority)
	}
	return res(r)
}

//export cuStreamGetCtx
func cuStreamGetCtx(s C.uintptr_t, ctx *C.uintptr_t) C.int {
	if ctx == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*ctx = C.ptxkit_current()
	if *ctx == 0 {
		*ctx = C.uintptr_t(driver().Primary())
	}
	return 0
}

//export cuStreamGetId
func cuStreamGetId(s C.uintptr_t, id *C.ulonglong) C.int {
	if id != nil {
		*id = C.ulonglong(s)
	}
	return 0
}

//export cuStreamIsCapturing
func cuStreamIsCapturing(s C.uintptr_t, status *C.int) C.int {
	if status != nil {
		*status, _ = captureStatus(s) // CU_STREAM_CAPTURE_STATUS_NONE or _ACTIVE
	}
	return 0
}

//export cuStreamGetCaptureInfo_v2
func cuStreamGetCaptureInfo_v2(s C.uintptr_t, status *C.int, id *C.ulonglong, graph *C.uintptr_t, deps *unsafe.Pointer, n *C.size_t) C.int {
	st, g := captureStatus(s)
	if status != nil {
		*status = st
	}
	if id != nil {
		*id = C.ulonglong(g)
	}
	if graph != nil && st != 0 {
		*graph = g
	}
	var last *C.uintptr_t
	var count C.size_t
	if st != 0 {
		last, count = lastCaptured(s, g)
	}
	if deps != nil {
		*deps = unsafe.Pointer(last)
	}
	if n != nil {
		*n = count
	}
	return 0
}

//export cuStreamGetCaptureInfo_v3
func cuStreamGetCaptureInfo_v3(s C.uintptr_t, status *C.int, id *C.ulonglong, graph *C.uintptr_t, deps, edges *unsafe.Pointer, n *C.size_t) C.int {
	if edges != nil {
		*edges = nil
	}
	return cuStreamGetCaptureInfo_v2(s, status, id, graph, deps, n)
}

//export cuThreadExchangeStreamCaptureMode
func cuThreadExchangeStreamCaptureMode(mode *C.int) C.int { return 0 }

//export cuEventCreate
func cuEventCreate(e *C.uintptr_t, flags C.uint) C.int {
	if e == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*e = C.uintptr_t(driver().CreateEvent(uint32(flags)))
	return 0
}

//export cuEventDestroy_v2
func cuEventDestroy_v2(e C.uintptr_t) C.int { return res(driver().DestroyEvent(cudrv.Handle(e))) }

//export cuEventRecord
func cuEventRecord(e, s C.uintptr_t) C.int {
	if recordEventCapture(e, s) {
		return 0
	}
	return res(driver().RecordEvent(cudrv.Handle(e)))
}

//export cuEventRecordWithFlags
func cuEventRecordWithFlags(e, s C.uintptr_t, flags C.uint) C.int { return cuEventRecord(e, s) }

//export cuEventQuery
func cuEventQuery(e C.uintptr_t) C.int { return res(driver().QueryEvent(cudrv.Handle(e))) }

//export cuEventSynchronize
func cuEventSynchronize(e C.uintptr_t) C.int { return cuEventQuery(e) }

//export cuEventElapsedTime
func cuEventElapsedTime(ms *C.float, a, b C.uintptr_t) C.int {
	if ms == nil {
		return res(cudrv.ErrInvalidValue)
	}
	t, r := driver().Elapsed(cudrv.Handle(a), cudrv.Handle(b))
	if r == cudrv.Success {
		*ms = C.float(t)
	}
	return res(r)
}

//export cuGetExportTable
func cuGetExportTable(table *unsafe.Pointer, uuid *C.uchar) C.int {
	if table == nil || uuid == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return C.ptxkit_export_table(table, uuid)
}

//export ptxkitIntegrity
func ptxkitIntegrity(rtVersion C.uint32_t, timestamp C.uint64_t, out *C.uchar, rtTable, table, fn unsafe.Pointer, pid, tid C.uint32_t) C.int {
	g := driver().GPU()
	in := cudrv.IntegrityInput{
		RuntimeVersion: uint32(rtVersion), DriverVersion: cudrv.Version, Timestamp: uint64(timestamp),
		RuntimeTable: uint64(C.ptxkit_addr(rtTable)), CheckTable: uint64(C.ptxkit_addr(table)), CheckFunc: uint64(C.ptxkit_addr(fn)),
		ProcessID: uint32(pid), ThreadID: uint32(tid),
		Devices: []cudrv.IntegrityDevice{{UUID: g.UUID, PCIBus: 1}},
	}
	h := cudrv.IntegrityHash(in)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(out)), 16), h[:])
	tracef("integrity check for runtime %d", rtVersion)
	return 0
}

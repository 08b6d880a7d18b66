package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports the CUDA 12.3 graph entry points that conditional
// nodes need: conditional handles, nodes added from a CUgraphNodeParams
// (cuGraphAddNode), capture into an existing graph (a conditional
// node's body) and capture dependencies. The condition itself lives in
// the driver (cudrv/graphcond.go).

// nodeConditional is CU_GRAPH_NODE_TYPE_CONDITIONAL.
const nodeConditional = 13

//export cuGraphConditionalHandleCreate
func cuGraphConditionalHandleCreate(out *C.ulonglong, g, ctx C.uintptr_t, deflt, flags C.uint) C.int {
	if out == nil || flags > 1 {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	gr, ok := graphs.graph[g]
	graphs.Unlock()
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	h, r := driver().CreateConditional(uint32(deflt), flags == 1)
	if r != cudrv.Success {
		return res(r)
	}
	graphs.Lock()
	gr.conds = append(gr.conds, uint64(h))
	graphs.Unlock()
	*out = C.ulonglong(h)
	return 0
}

//export cuGraphAddNode
func cuGraphAddNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer) C.int {
	if node == nil || p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	u := unsafe.Add(p, 16) // the union of CUgraphNodeParams
	switch kind := int(*(*C.int)(p)); kind {
	case nodeKernel:
		return cuGraphAddKernelNode_v2(node, g, deps, n, u)
	case nodeMemcpy:
		return cuGraphAddMemcpyNode(node, g, deps, n, unsafe.Add(u, 16), 0) // CUDA_MEMCPY_NODE_PARAMS.copyParams
	case nodeMemset:
		return cuGraphAddMemsetNode(node, g, deps, n, u, 0)
	case nodeHost:
		return cuGraphAddHostNode(node, g, deps, n, u)
	case nodeGraph:
		return cuGraphAddChildGraphNode(node, g, deps, n, *(*C.uintptr_t)(u))
	case nodeEmpty:
		return cuGraphAddEmptyNode(node, g, deps, n)
	case nodeEventWait:
		return cuGraphAddEventWaitNode(node, g, deps, n, *(*C.uintptr_t)(u))
	case nodeEventRecord:
		return cuGraphAddEventRecordNode(node, g, deps, n, *(*C.uintptr_t)(u))
	case nodeConditional:
		return addConditionalNode(node, g, deps, n, u)
	default:
		driver().Logf("cuGraphAddNode: nodes of type %d are not provided (kernel, memcpy, memset, host, child graph, empty, event and conditional nodes are)", kind)
		return res(cudrv.ErrNotSupported)
	}
}

//export cuGraphAddNode_v2
func cuGraphAddNode_v2(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, edges unsafe.Pointer, n C.size_t, p unsafe.Pointer) C.int {
	return cuGraphAddNode(node, g, deps, n, p)
}

// addConditionalNode adds the conditional node a CUDA_CONDITIONAL_NODE_PARAMS
// describes and writes its body graphs, new and empty, to a CUDA-owned
// array it points phGraph_out at.
func addConditionalNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer) C.int {
	h := uint64(*(*C.ulonglong)(p))
	kind := int(*(*C.uint)(unsafe.Add(p, 8)))
	size := int(*(*C.uint)(unsafe.Add(p, 12)))
	okSize := size == 1 || kind == cudrv.CondIf && size == 2 || kind == cudrv.CondSwitch && size >= 1 && size <= 1<<16
	if kind < cudrv.CondIf || kind > cudrv.CondSwitch || !okSize || !driver().IsConditional(h) {
		driver().Logf("cuGraphAddNode: a conditional node needs a handle from cuGraphConditionalHandleCreate, a type (if, while, switch) and 1 body (if: 1 or 2; switch: 1 or more); got handle %#x, type %d, %d bodies", h, kind, size)
		return res(cudrv.ErrInvalidValue)
	}
	bodies := make([]C.uintptr_t, size)
	out := (*C.uintptr_t)(C.calloc(C.size_t(size), 8))
	graphs.Lock()
	for i := range bodies {
		bodies[i] = newGraphHandle()
		graphs.graph[bodies[i]] = &graph{}
	}
	graphs.Unlock()
	copy(unsafe.Slice(out, size), bodies)
	*(**C.uintptr_t)(unsafe.Add(p, 16)) = out
	run := func() cudrv.Result {
		return driver().RunConditional(h, kind, size, func(i int) cudrv.Result {
			graphs.Lock()
			body := graphs.graph[bodies[i]]
			graphs.Unlock()
			if body == nil {
				return cudrv.ErrInvalidValue
			}
			return runGraph(body)
		})
	}
	return addNodeExport(node, g, deps, n, nodeConditional, run)
}

//export cuStreamBeginCaptureToGraph
func cuStreamBeginCaptureToGraph(s, g C.uintptr_t, deps *C.uintptr_t, edges unsafe.Pointer, n C.size_t, mode C.int) C.int {
	if s == 0 {
		return res(cudrv.ErrStreamCaptureInvalid)
	}
	graphs.Lock()
	defer graphs.Unlock()
	if _, ok := graphs.graph[g]; !ok {
		return res(cudrv.ErrInvalidValue)
	}
	if _, ok := graphs.capturing[s]; ok {
		return res(cudrv.ErrStreamCaptureInvalid)
	}
	graphs.capturing[s] = g
	return 0
}

// cuStreamUpdateCaptureDependencies only checks its arguments: a graph
// runs its nodes in the order they were added, so a node added by hand
// during a capture already precedes the work captured after it.
//
//export cuStreamUpdateCaptureDependencies
func cuStreamUpdateCaptureDependencies(s C.uintptr_t, deps *C.uintptr_t, n C.size_t, flags C.uint) C.int {
	if flags > 1 || n > 0 && deps == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if !isCapturing(s) {
		return res(cudrv.ErrStreamCaptureInvalid)
	}
	return 0
}

//export cuStreamUpdateCaptureDependencies_v2
func cuStreamUpdateCaptureDependencies_v2(s C.uintptr_t, deps *C.uintptr_t, edges unsafe.Pointer, n C.size_t, flags C.uint) C.int {
	return cuStreamUpdateCaptureDependencies(s, deps, n, flags)
}

// captureDeps holds, per capturing stream, the CUDA-owned array that
// cuStreamGetCaptureInfo returns: the node the next captured work will
// follow (the graph's last node), valid until the next call.
var captureDeps = map[C.uintptr_t]*C.uintptr_t{}

// lastCaptured returns the graph g's last node in a CUDA-owned array of
// one, or nil when g has no nodes.
func lastCaptured(s, g C.uintptr_t) (*C.uintptr_t, C.size_t) {
	graphs.Lock()
	defer graphs.Unlock()
	gr := graphs.graph[g]
	if gr == nil || len(gr.nodes) == 0 {
		return nil, 0
	}
	a := captureDeps[s]
	if a == nil {
		a = (*C.uintptr_t)(C.malloc(8))
		captureDeps[s] = a
	}
	*a = gr.nodes[len(gr.nodes)-1]
	return a, 1
}

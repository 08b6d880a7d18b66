package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"slices"
	"unsafe"

	"github.com/ptxkit/ptxkit/internal/cudrv"
)

// This file exports what reads a graph back and rewires it: the node
// parameter getters (kernel, memcpy, memset, host, child graph, event,
// memory allocation and free nodes), the event node setters, a graph's
// edges (cuGraphGetEdges, cuGraphNodeGetDependencies/DependentNodes,
// cuGraphAddDependencies/RemoveDependencies) and the CUDA 12.2
// cuGraphNodeSetParams. Because edges can be added between nodes that
// exist, a graph runs its nodes in a topological order of its edges:
// insertion order wherever the edges allow it.

// edgeDataSize is sizeof(CUgraphEdgeData); every edge here is a default
// (full) dependency, all zero.
const edgeDataSize = 8

// nodeOf returns node h when it is of the given kind; callers hold graphs.
func nodeOf(h C.uintptr_t, kind int) (*graphNode, bool) {
	nd, ok := graphs.node[h]
	return nd, ok && nd.kind == kind
}

// getParams copies the first n bytes of a node's parameter struct to p.
func getParams(node C.uintptr_t, kind int, p unsafe.Pointer, n int) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	nd, ok := nodeOf(node, kind)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	if len(nd.params) < n {
		driver().Logf("graph node %#x was recorded from a stream capture, which keeps no parameter struct for nodes of type %d", uint64(node), kind)
		return res(cudrv.ErrNotSupported)
	}
	copy(hostBytes(p, uint64(n)), nd.params)
	return 0
}

// kernelGetParams writes a kernel node's CUDA_KERNEL_NODE_PARAMS (n bytes:
// 56 for the first layout, 72 for v2) with kernelParams pointing at a
// copy of the arguments that the node owns.
func kernelGetParams(node C.uintptr_t, p unsafe.Pointer, n int) C.int {
	if r := getParams(node, nodeKernel, p, n); r != 0 {
		return r
	}
	graphs.Lock()
	defer graphs.Unlock()
	nd := graphs.node[node]
	if nd.cArgs == nil && len(nd.args) > 0 {
		nd.cArgs = cArgs(nd.args)
	}
	*(*unsafe.Pointer)(unsafe.Add(p, 40)) = nd.cArgs
	*(*unsafe.Pointer)(unsafe.Add(p, 48)) = nil // extra
	return 0
}

// cArgs lays out args in C memory as a kernelParams array: the pointers,
// then each value 16-byte aligned.
func cArgs(args [][]byte) unsafe.Pointer {
	off := (8*len(args) + 15) &^ 15
	size := off
	for _, a := range args {
		size += (len(a) + 15) &^ 15
	}
	mem := C.calloc(C.size_t(size), 1)
	ptrs := unsafe.Slice((*unsafe.Pointer)(mem), len(args))
	for i, a := range args {
		ptrs[i] = unsafe.Add(mem, off)
		copy(hostBytes(ptrs[i], uint64(len(a))), a)
		off += (len(a) + 15) &^ 15
	}
	return mem
}

// freeCArgs frees the argument copy a kernel node's getter handed out;
// callers hold graphs.
func freeCArgs(nd *graphNode) {
	if nd != nil && nd.cArgs != nil {
		C.free(nd.cArgs)
		nd.cArgs = nil
	}
}

//export cuGraphKernelNodeGetParams
func cuGraphKernelNodeGetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return kernelGetParams(node, p, 56)
}

//export cuGraphKernelNodeGetParams_v2
func cuGraphKernelNodeGetParams_v2(node C.uintptr_t, p unsafe.Pointer) C.int {
	return kernelGetParams(node, p, 72)
}

//export cuGraphMemcpyNodeGetParams
func cuGraphMemcpyNodeGetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return getParams(node, nodeMemcpy, p, 200)
}

//export cuGraphMemsetNodeGetParams
func cuGraphMemsetNodeGetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return getParams(node, nodeMemset, p, 40)
}

//export cuGraphHostNodeGetParams
func cuGraphHostNodeGetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return getParams(node, nodeHost, p, 16)
}

//export cuGraphMemAllocNodeGetParams
func cuGraphMemAllocNodeGetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return getParams(node, nodeMemAlloc, p, 120)
}

// getRef writes the graph, event or address a node of the given kind
// names.
func getRef(node C.uintptr_t, kind int, out unsafe.Pointer) C.int {
	if out == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	nd, ok := nodeOf(node, kind)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*(*uint64)(out) = nd.ref
	return 0
}

//export cuGraphMemFreeNodeGetParams
func cuGraphMemFreeNodeGetParams(node C.uintptr_t, dptr *C.ulonglong) C.int {
	return getRef(node, nodeMemFree, unsafe.Pointer(dptr))
}

//export cuGraphChildGraphNodeGetGraph
func cuGraphChildGraphNodeGetGraph(node C.uintptr_t, g *C.uintptr_t) C.int {
	return getRef(node, nodeGraph, unsafe.Pointer(g))
}

//export cuGraphEventRecordNodeGetEvent
func cuGraphEventRecordNodeGetEvent(node C.uintptr_t, ev *C.uintptr_t) C.int {
	return getRef(node, nodeEventRecord, unsafe.Pointer(ev))
}

//export cuGraphEventWaitNodeGetEvent
func cuGraphEventWaitNodeGetEvent(node C.uintptr_t, ev *C.uintptr_t) C.int {
	return getRef(node, nodeEventWait, unsafe.Pointer(ev))
}

//export cuGraphEventRecordNodeSetEvent
func cuGraphEventRecordNodeSetEvent(node, ev C.uintptr_t) C.int {
	return setNode(node, eventRecordNode(ev))
}

//export cuGraphEventWaitNodeSetEvent
func cuGraphEventWaitNodeSetEvent(node, ev C.uintptr_t) C.int {
	return setNode(node, &graphNode{kind: nodeEventWait, ref: uint64(ev)})
}

//export cuGraphExecEventRecordNodeSetEvent
func cuGraphExecEventRecordNodeSetEvent(e, node, ev C.uintptr_t) C.int {
	return setExecNode(e, node, nodeEventRecord, eventRecordNode(ev).run)
}

//export cuGraphExecEventWaitNodeSetEvent
func cuGraphExecEventWaitNodeSetEvent(e, node, ev C.uintptr_t) C.int {
	return setExecNode(e, node, nodeEventWait, func() cudrv.Result { return cudrv.Success })
}

//export cuGraphExecChildGraphNodeSetParams
func cuGraphExecChildGraphNodeSetParams(e, node, child C.uintptr_t) C.int {
	run, ok := childGraphRun(child)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	return setExecNode(e, node, nodeGraph, run)
}

// nodeSetParams applies a CUgraphNodeParams to a node of a graph (e == 0)
// or of an instantiated graph.
func nodeSetParams(e, node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	u := unsafe.Add(p, 16) // the union of CUgraphNodeParams
	var nd *graphNode
	switch kind := int(*(*C.int)(p)); kind {
	case nodeKernel:
		k, r := kernelNode(u)
		if r != cudrv.Success {
			return res(r)
		}
		nd = k
	case nodeMemcpy:
		nd = memcpyNode(unsafe.Add(u, 16)) // CUDA_MEMCPY_NODE_PARAMS.copyParams
	case nodeMemset:
		nd = memsetNode(u)
	case nodeHost:
		nd = hostNode(u)
	case nodeEventRecord:
		nd = eventRecordNode(*(*C.uintptr_t)(u))
	case nodeEventWait:
		nd = &graphNode{kind: nodeEventWait, ref: uint64(*(*C.uintptr_t)(u))}
	default:
		driver().Logf("cuGraphNodeSetParams: nodes of type %d cannot be changed here (kernel, memcpy, memset, host and event nodes can)", kind)
		return res(cudrv.ErrNotSupported)
	}
	if nd == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if e == 0 {
		return setNode(node, nd)
	}
	run := nd.run
	if run == nil {
		run = func() cudrv.Result { return cudrv.Success }
	}
	return setExecNode(e, node, nd.kind, run)
}

//export cuGraphNodeSetParams
func cuGraphNodeSetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	return nodeSetParams(0, node, p)
}

//export cuGraphExecNodeSetParams
func cuGraphExecNodeSetParams(e, node C.uintptr_t, p unsafe.Pointer) C.int {
	if e == 0 {
		return res(cudrv.ErrInvalidValue)
	}
	return nodeSetParams(e, node, p)
}

// fillHandles answers a count-or-fill query: with out NULL it writes the
// count to n; otherwise it fills up to *n entries, sets the rest to NULL
// and writes how many it filled. Edge data, when asked for, is all zero.
func fillHandles(out *C.uintptr_t, edges unsafe.Pointer, n *C.size_t, list []C.uintptr_t) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	if out == nil {
		*n = C.size_t(len(list))
		return 0
	}
	dst := unsafe.Slice(out, int(*n))
	k := copy(dst, list)
	clear(dst[k:])
	if edges != nil {
		clear(hostBytes(edges, uint64(*n)*edgeDataSize))
	}
	*n = C.size_t(k)
	return 0
}

// graphOf returns the graph that holds node; callers hold graphs.
func graphOf(node C.uintptr_t) *graph {
	for _, h := range sortedGraphs() {
		if slices.Contains(graphs.graph[h].nodes, node) {
			return graphs.graph[h]
		}
	}
	return nil
}

// sortedGraphs lists the graphs' handles in creation order (a node
// shared by a graph and its clone belongs to the first); callers hold
// graphs.
func sortedGraphs() []C.uintptr_t {
	hs := make([]C.uintptr_t, 0, len(graphs.graph))
	for h := range graphs.graph {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return hs
}

func nodeDependencies(node C.uintptr_t, deps *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	nd, ok := graphs.node[node]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	return fillHandles(deps, edges, n, nd.deps)
}

//export cuGraphNodeGetDependencies
func cuGraphNodeGetDependencies(node C.uintptr_t, deps *C.uintptr_t, n *C.size_t) C.int {
	return nodeDependencies(node, deps, nil, n)
}

//export cuGraphNodeGetDependencies_v2
func cuGraphNodeGetDependencies_v2(node C.uintptr_t, deps *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	return nodeDependencies(node, deps, edges, n)
}

func nodeDependents(node C.uintptr_t, out *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	gr := graphOf(node)
	if gr == nil {
		return res(cudrv.ErrInvalidValue)
	}
	var list []C.uintptr_t
	for _, h := range gr.nodes {
		if slices.Contains(graphs.node[h].deps, node) {
			list = append(list, h)
		}
	}
	return fillHandles(out, edges, n, list)
}

//export cuGraphNodeGetDependentNodes
func cuGraphNodeGetDependentNodes(node C.uintptr_t, out *C.uintptr_t, n *C.size_t) C.int {
	return nodeDependents(node, out, nil, n)
}

//export cuGraphNodeGetDependentNodes_v2
func cuGraphNodeGetDependentNodes_v2(node C.uintptr_t, out *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	return nodeDependents(node, out, edges, n)
}

func graphEdges(g C.uintptr_t, from, to *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	if n == nil || (from == nil) != (to == nil) {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	var src, dst []C.uintptr_t
	for _, h := range gr.nodes {
		for _, d := range graphs.node[h].deps {
			src, dst = append(src, d), append(dst, h)
		}
	}
	k := *n
	if r := fillHandles(from, edges, n, src); r != 0 {
		return r
	}
	if to != nil {
		return fillHandles(to, nil, &k, dst)
	}
	return 0
}

//export cuGraphGetEdges
func cuGraphGetEdges(g C.uintptr_t, from, to *C.uintptr_t, n *C.size_t) C.int {
	return graphEdges(g, from, to, nil, n)
}

//export cuGraphGetEdges_v2
func cuGraphGetEdges_v2(g C.uintptr_t, from, to *C.uintptr_t, edges unsafe.Pointer, n *C.size_t) C.int {
	return graphEdges(g, from, to, edges, n)
}

// changeEdges adds (or removes) the edges from[i] -> to[i] of graph g:
// to[i] depends on from[i]. Both must be nodes of g; a removed edge must
// exist, an added one must not.
func changeEdges(g C.uintptr_t, from, to *C.uintptr_t, n C.size_t, add bool) C.int {
	if n > 0 && (from == nil || to == nil) {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	var fs, ts []C.uintptr_t
	if n > 0 {
		fs, ts = unsafe.Slice(from, int(n)), unsafe.Slice(to, int(n))
	}
	for i := range fs {
		if fs[i] == ts[i] || !slices.Contains(gr.nodes, fs[i]) || !slices.Contains(gr.nodes, ts[i]) {
			return res(cudrv.ErrInvalidValue)
		}
		if slices.Contains(graphs.node[ts[i]].deps, fs[i]) == add {
			return res(cudrv.ErrInvalidValue)
		}
	}
	for i := range fs {
		nd := graphs.node[ts[i]]
		if add {
			nd.deps = append(nd.deps, fs[i])
		} else {
			nd.deps = slices.DeleteFunc(slices.Clone(nd.deps), func(d C.uintptr_t) bool { return d == fs[i] })
		}
	}
	return 0
}

//export cuGraphAddDependencies
func cuGraphAddDependencies(g C.uintptr_t, from, to *C.uintptr_t, n C.size_t) C.int {
	return changeEdges(g, from, to, n, true)
}

//export cuGraphAddDependencies_v2
func cuGraphAddDependencies_v2(g C.uintptr_t, from, to *C.uintptr_t, edges unsafe.Pointer, n C.size_t) C.int {
	return changeEdges(g, from, to, n, true)
}

//export cuGraphRemoveDependencies
func cuGraphRemoveDependencies(g C.uintptr_t, from, to *C.uintptr_t, n C.size_t) C.int {
	return changeEdges(g, from, to, n, false)
}

//export cuGraphRemoveDependencies_v2
func cuGraphRemoveDependencies_v2(g C.uintptr_t, from, to *C.uintptr_t, edges unsafe.Pointer, n C.size_t) C.int {
	return changeEdges(g, from, to, n, false)
}

//export cuGraphNodeFindInClone
func cuGraphNodeFindInClone(out *C.uintptr_t, node, clone C.uintptr_t) C.int {
	if out == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[clone]
	if !ok || !slices.Contains(gr.nodes, node) {
		return res(cudrv.ErrInvalidValue)
	}
	*out = node // a clone holds its graph's nodes
	return 0
}

// topological orders nodes so that each follows the nodes it depends on,
// keeping insertion order wherever the edges allow; ok is false when the
// edges form a cycle (the rest then follow in insertion order). Callers
// hold graphs.
func topological(nodes []C.uintptr_t) (order []C.uintptr_t, ok bool) {
	in := make(map[C.uintptr_t]bool, len(nodes))
	for _, h := range nodes {
		in[h] = true
	}
	placed := make(map[C.uintptr_t]bool, len(nodes))
	order = make([]C.uintptr_t, 0, len(nodes))
	for len(order) < len(nodes) {
		progress := false
		for _, h := range nodes {
			if placed[h] || !ready(h, in, placed) {
				continue
			}
			placed[h], progress = true, true
			order = append(order, h)
		}
		if !progress {
			for _, h := range nodes {
				if !placed[h] {
					order = append(order, h)
				}
			}
			return order, false
		}
	}
	return order, true
}

// ready reports whether every dependency of node h within the graph has
// been placed.
func ready(h C.uintptr_t, in, placed map[C.uintptr_t]bool) bool {
	nd := graphs.node[h]
	if nd == nil {
		return true
	}
	for _, d := range nd.deps {
		if in[d] && !placed[d] {
			return false
		}
	}
	return true
}

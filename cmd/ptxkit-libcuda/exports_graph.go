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

// This file exports CUDA graphs: built explicitly (kernel, memcpy,
// memset, host, empty and child-graph nodes) or captured from streams,
// instantiated and launched. A graph runs its nodes in the order they
// were added, which respects every dependency (a node's dependencies are
// added before it). While a stream captures, the work issued to it (and
// to streams that wait on its events) is recorded instead of run.

type graphNode struct {
	kind int // CUgraphNodeType
	run  func() cudrv.Result
	deps []C.uintptr_t
	// What the parameter getters return (exports_graphget.go): the
	// node's parameter struct as it was given (kernel, memcpy, memset,
	// host and memory allocation nodes), a kernel node's argument values,
	// and the child graph, event or address a node names.
	params []byte
	args   [][]byte
	ref    uint64
	// cArgs is the C copy of args that a kernel node's getter hands out;
	// it lives until the node's parameters change or the node goes.
	cArgs unsafe.Pointer
}

type graph struct {
	nodes []C.uintptr_t
	// override holds an instantiated graph's own node parameters, set by
	// cuGraphExec*SetParams without changing the graph it came from.
	override map[C.uintptr_t]func() cudrv.Result
	// conds are the conditional handles created for the graph; a launch
	// gives those made with CU_GRAPH_COND_ASSIGN_DEFAULT their default.
	conds []uint64
}

var graphs = struct {
	sync.Mutex
	next      C.uintptr_t
	graph     map[C.uintptr_t]*graph
	node      map[C.uintptr_t]*graphNode
	exec      map[C.uintptr_t]*graph
	capturing map[C.uintptr_t]C.uintptr_t // stream -> graph it records into
	events    map[C.uintptr_t]C.uintptr_t // event recorded during a capture -> graph
}{next: 0x7e0000000000, graph: map[C.uintptr_t]*graph{}, node: map[C.uintptr_t]*graphNode{},
	exec: map[C.uintptr_t]*graph{}, capturing: map[C.uintptr_t]C.uintptr_t{}, events: map[C.uintptr_t]C.uintptr_t{}}

// CUgraphNodeType values.
const (
	nodeKernel      = 0
	nodeMemcpy      = 1
	nodeMemset      = 2
	nodeHost        = 3
	nodeGraph       = 4
	nodeEmpty       = 5
	nodeEventWait   = 6
	nodeEventRecord = 7
	nodeMemAlloc    = 10
	nodeMemFree     = 11
)

func newGraphHandle() C.uintptr_t {
	graphs.next += 0x10
	return graphs.next
}

// addNode adds node nd to graph g; callers hold graphs.
func addNode(g C.uintptr_t, nd *graphNode, deps []C.uintptr_t) (C.uintptr_t, bool) {
	gr, ok := graphs.graph[g]
	if !ok {
		return 0, false
	}
	h := newGraphHandle()
	nd.deps = deps
	graphs.node[h] = nd
	gr.nodes = append(gr.nodes, h)
	return h, true
}

// captured records run as a node when stream s captures; it reports
// whether it did.
func captured(s C.uintptr_t, kind int, run func() cudrv.Result) bool {
	return capturedNode(s, &graphNode{kind: kind, run: run})
}

// capturedNode records nd when stream s captures; it reports whether it
// did.
func capturedNode(s C.uintptr_t, nd *graphNode) bool {
	graphs.Lock()
	defer graphs.Unlock()
	g, ok := graphs.capturing[s]
	if !ok || s == 0 {
		return false
	}
	addNode(g, nd, nil)
	return true
}

// isCapturing reports whether stream s captures now.
func isCapturing(s C.uintptr_t) bool {
	graphs.Lock()
	defer graphs.Unlock()
	_, ok := graphs.capturing[s]
	return ok && s != 0
}

func runGraph(gr *graph) cudrv.Result {
	graphs.Lock()
	var runs []func() cudrv.Result
	order, _ := topological(gr.nodes)
	for _, h := range order {
		if run := gr.override[h]; run != nil {
			runs = append(runs, run)
		} else if n := graphs.node[h]; n != nil && n.run != nil {
			runs = append(runs, n.run)
		}
	}
	graphs.Unlock()
	for _, run := range runs {
		if r := run(); r != cudrv.Success {
			return r
		}
	}
	return cudrv.Success
}

func depList(deps *C.uintptr_t, n C.size_t) []C.uintptr_t {
	if deps == nil || n == 0 {
		return nil
	}
	return append([]C.uintptr_t(nil), unsafe.Slice(deps, int(n))...)
}

//export cuGraphCreate
func cuGraphCreate(g *C.uintptr_t, flags C.uint) C.int {
	if g == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	h := newGraphHandle()
	graphs.graph[h] = &graph{}
	*g = h
	return 0
}

//export cuGraphDestroy
func cuGraphDestroy(g C.uintptr_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	if _, ok := graphs.graph[g]; !ok {
		return res(cudrv.ErrInvalidValue)
	}
	delete(graphs.graph, g)
	return 0
}

func addNodeExport(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, kind int, run func() cudrv.Result) C.int {
	return addNodeDesc(node, g, deps, n, &graphNode{kind: kind, run: run})
}

// addNodeDesc adds node nd, its parameters described, to graph g.
func addNodeDesc(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, nd *graphNode) C.int {
	if node == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	h, ok := addNode(g, nd, depList(deps, n))
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	*node = h
	return 0
}

// kernelNode reads a CUDA_KERNEL_NODE_PARAMS (v2 layout) and returns the
// node it describes, with the parameters copied now.
func kernelNode(p unsafe.Pointer) (*graphNode, cudrv.Result) {
	b := unsafe.Slice((*byte)(p), 72)
	f := *(*C.uintptr_t)(p)
	if f == 0 {
		f = *(*C.uintptr_t)(unsafe.Pointer(&b[56])) // the CUkernel
	}
	u32 := func(off int) int { return int(*(*C.uint)(unsafe.Pointer(&b[off]))) }
	cfg := cudrv.LaunchConfig{Grid: [3]int{u32(8), u32(12), u32(16)}, Block: [3]int{u32(20), u32(24), u32(28)}, SharedBytes: u32(32)}
	params := *(**unsafe.Pointer)(unsafe.Pointer(&b[40]))
	extra := *(**unsafe.Pointer)(unsafe.Pointer(&b[48]))
	ps, r := kernelParams(cudrv.Handle(f), params, extra)
	if r != cudrv.Success {
		return nil, r
	}
	nd := launchNode(f, cfg, ps)
	copy(nd.params, b[:40])
	copy(nd.params[56:], b[56:])
	return nd, cudrv.Success
}

// launchNode is the kernel node of a launch of f with arguments ps; its
// parameter struct holds the function and the shape.
func launchNode(f C.uintptr_t, cfg cudrv.LaunchConfig, ps [][]byte) *graphNode {
	b := make([]byte, 72)
	binary.LittleEndian.PutUint64(b, uint64(f))
	for i, v := range []int{cfg.Grid[0], cfg.Grid[1], cfg.Grid[2], cfg.Block[0], cfg.Block[1], cfg.Block[2], cfg.SharedBytes} {
		binary.LittleEndian.PutUint32(b[8+4*i:], uint32(v))
	}
	run := func() cudrv.Result {
		if r := driver().Launch(cudrv.Handle(f), cfg, ps); r != cudrv.Success {
			return r
		}
		return driver().State()
	}
	return &graphNode{kind: nodeKernel, run: run, params: b, args: ps}
}

//export cuGraphAddKernelNode_v2
func cuGraphAddKernelNode_v2(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	nd, r := kernelNode(p)
	if r != cudrv.Success {
		return res(r)
	}
	return addNodeDesc(node, g, deps, n, nd)
}

//export cuGraphAddMemcpyNode
func cuGraphAddMemcpyNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer, ctx C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return addNodeDesc(node, g, deps, n, memcpyNode(p))
}

// memcpyNode copies a CUDA_MEMCPY3D and returns the copy node it
// describes.
func memcpyNode(p unsafe.Pointer) *graphNode {
	params := append([]byte(nil), unsafe.Slice((*byte)(p), 200)...)
	run := func() cudrv.Result { return cudrv.Result(cuMemcpy3D_v2(unsafe.Pointer(&params[0]))) }
	return &graphNode{kind: nodeMemcpy, run: run, params: params}
}

//export cuGraphAddMemsetNode
func cuGraphAddMemsetNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer, ctx C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	nd := memsetNode(p)
	if nd == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return addNodeDesc(node, g, deps, n, nd)
}

// memsetNode reads a CUDA_MEMSET_NODE_PARAMS and returns the memset node
// it describes, or nil for a bad element size.
func memsetNode(p unsafe.Pointer) *graphNode {
	dst, pitch := u64at(p, 0), u64at(p, 8)
	value, size := uint32(u64at(p, 16)), int(u64at(p, 16)>>32)
	width, height := u64at(p, 24), u64at(p, 32)
	if size != 1 && size != 2 && size != 4 {
		return nil
	}
	run := func() cudrv.Result { return driver().Memset(dst, value, size, width, height, pitch) }
	return &graphNode{kind: nodeMemset, run: run, params: append([]byte(nil), unsafe.Slice((*byte)(p), 40)...)}
}

// hostNode reads a CUDA_HOST_NODE_PARAMS and returns the host node it
// describes.
func hostNode(p unsafe.Pointer) *graphNode {
	fn, data := *(*unsafe.Pointer)(p), *(*unsafe.Pointer)(unsafe.Add(p, 8))
	run := func() cudrv.Result {
		C.ptxkit_call_host_fn(fn, data)
		return cudrv.Success
	}
	return &graphNode{kind: nodeHost, run: run, params: append([]byte(nil), unsafe.Slice((*byte)(p), 16)...)}
}

//export cuGraphAddHostNode
func cuGraphAddHostNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return addNodeDesc(node, g, deps, n, hostNode(p))
}

//export cuGraphAddEmptyNode
func cuGraphAddEmptyNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t) C.int {
	return addNodeExport(node, g, deps, n, nodeEmpty, nil)
}

//export cuGraphAddChildGraphNode
func cuGraphAddChildGraphNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, child C.uintptr_t) C.int {
	run, ok := childGraphRun(child)
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	nd := &graphNode{kind: nodeGraph, run: run, ref: uint64(child)}
	return addNodeDesc(node, g, deps, n, nd)
}

// childGraphRun returns what runs a child-graph node of graph child: a
// copy of its nodes as they are now (later changes to child do not reach
// the node), or false when child is no graph.
func childGraphRun(child C.uintptr_t) (func() cudrv.Result, bool) {
	graphs.Lock()
	c, ok := graphs.graph[child]
	graphs.Unlock()
	if !ok {
		return nil, false
	}
	clone := &graph{nodes: append([]C.uintptr_t(nil), c.nodes...)}
	return func() cudrv.Result { return runGraph(clone) }, true
}

//export cuGraphClone
func cuGraphClone(out *C.uintptr_t, g C.uintptr_t) C.int {
	if out == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	h := newGraphHandle()
	graphs.graph[h] = &graph{nodes: append([]C.uintptr_t(nil), gr.nodes...)}
	*out = h
	return 0
}

//export cuGraphGetNodes
func cuGraphGetNodes(g C.uintptr_t, nodes *C.uintptr_t, n *C.size_t) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	if nodes != nil {
		copy(unsafe.Slice(nodes, int(*n)), gr.nodes)
	}
	*n = C.size_t(len(gr.nodes))
	return 0
}

//export cuGraphGetRootNodes
func cuGraphGetRootNodes(g C.uintptr_t, nodes *C.uintptr_t, n *C.size_t) C.int {
	if n == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	var roots []C.uintptr_t
	for _, h := range gr.nodes {
		if len(graphs.node[h].deps) == 0 {
			roots = append(roots, h)
		}
	}
	if nodes != nil {
		copy(unsafe.Slice(nodes, int(*n)), roots)
	}
	*n = C.size_t(len(roots))
	return 0
}

//export cuGraphNodeGetType
func cuGraphNodeGetType(node C.uintptr_t, t *C.int) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	nd, ok := graphs.node[node]
	if !ok || t == nil {
		return res(cudrv.ErrInvalidValue)
	}
	*t = C.int(nd.kind)
	return 0
}

//export cuGraphDestroyNode
func cuGraphDestroyNode(node C.uintptr_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	if _, ok := graphs.node[node]; !ok {
		return res(cudrv.ErrInvalidValue)
	}
	for _, gr := range graphs.graph {
		for i, h := range gr.nodes {
			if h == node {
				gr.nodes = append(gr.nodes[:i], gr.nodes[i+1:]...)
				break
			}
		}
	}
	freeCArgs(graphs.node[node])
	delete(graphs.node, node)
	return 0
}

func instantiate(out *C.uintptr_t, g C.uintptr_t) C.int {
	if out == nil {
		return res(cudrv.ErrInvalidValue)
	}
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	if _, ok := topological(gr.nodes); !ok {
		driver().Logf("cuGraphInstantiate: the graph's edges form a cycle")
		return res(cudrv.ErrInvalidValue)
	}
	h := newGraphHandle()
	graphs.exec[h] = &graph{nodes: append([]C.uintptr_t(nil), gr.nodes...), conds: append([]uint64(nil), gr.conds...)}
	*out = h
	return 0
}

//export cuGraphInstantiateWithFlags
func cuGraphInstantiateWithFlags(out *C.uintptr_t, g C.uintptr_t, flags C.ulonglong) C.int {
	return instantiate(out, g)
}

//export cuGraphInstantiateWithParams
func cuGraphInstantiateWithParams(out *C.uintptr_t, g C.uintptr_t, params unsafe.Pointer) C.int {
	return instantiate(out, g)
}

//export cuGraphInstantiate_v2
func cuGraphInstantiate_v2(out *C.uintptr_t, g C.uintptr_t, errNode *C.uintptr_t, log *C.char, n C.size_t) C.int {
	return instantiate(out, g)
}

//export cuGraphExecDestroy
func cuGraphExecDestroy(e C.uintptr_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	if _, ok := graphs.exec[e]; !ok {
		return res(cudrv.ErrInvalidValue)
	}
	delete(graphs.exec, e)
	return 0
}

//export cuGraphLaunch
func cuGraphLaunch(e, s C.uintptr_t) C.int {
	if r := driver().State(); r != cudrv.Success {
		return res(r)
	}
	graphs.Lock()
	gr, ok := graphs.exec[e]
	graphs.Unlock()
	if !ok {
		return res(cudrv.ErrInvalidValue)
	}
	run := func() cudrv.Result {
		driver().ApplyConditionalDefaults(gr.conds)
		return runGraph(gr)
	}
	if captured(s, nodeGraph, run) {
		return 0
	}
	return res(run())
}

//export cuGraphUpload
func cuGraphUpload(e, s C.uintptr_t) C.int { return 0 }

//export cuStreamBeginCapture_v2
func cuStreamBeginCapture_v2(s C.uintptr_t, mode C.int) C.int {
	if s == 0 {
		return res(cudrv.ErrStreamCaptureInvalid) // the legacy stream cannot capture
	}
	graphs.Lock()
	defer graphs.Unlock()
	if _, ok := graphs.capturing[s]; ok {
		return res(cudrv.ErrStreamCaptureInvalid)
	}
	h := newGraphHandle()
	graphs.graph[h] = &graph{}
	graphs.capturing[s] = h
	return 0
}

//export cuStreamEndCapture
func cuStreamEndCapture(s C.uintptr_t, out *C.uintptr_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	g, ok := graphs.capturing[s]
	if !ok {
		return res(cudrv.ErrStreamCaptureInvalid)
	}
	for st, cg := range graphs.capturing { // joined streams end with it
		if cg == g {
			delete(graphs.capturing, st)
		}
	}
	for ev, cg := range graphs.events {
		if cg == g {
			delete(graphs.events, ev)
		}
	}
	if out != nil {
		*out = g
	}
	return 0
}

// captureStatus returns the capture status of s (0 none, 1 active) and
// the graph it records into.
func captureStatus(s C.uintptr_t) (C.int, C.uintptr_t) {
	graphs.Lock()
	defer graphs.Unlock()
	if g, ok := graphs.capturing[s]; ok {
		return 1, g
	}
	return 0, 0
}

// recordEventCapture notes an event recorded on a capturing stream, so
// that a stream waiting on it joins the capture.
func recordEventCapture(e, s C.uintptr_t) bool {
	graphs.Lock()
	defer graphs.Unlock()
	g, ok := graphs.capturing[s]
	if ok {
		graphs.events[e] = g
	}
	return ok
}

// joinCapture makes s capture into the graph event e was recorded in.
func joinCapture(s, e C.uintptr_t) bool {
	graphs.Lock()
	defer graphs.Unlock()
	g, ok := graphs.events[e]
	if ok && s != 0 {
		graphs.capturing[s] = g
	}
	return ok
}

//export cuGraphKernelNodeSetParams_v2
func cuGraphKernelNodeSetParams_v2(node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	nd, r := kernelNode(p)
	if r != cudrv.Success {
		return res(r)
	}
	return setNode(node, nd)
}

// setExecNode gives node of an instantiated graph its own run.
func setExecNode(e, node C.uintptr_t, kind int, run func() cudrv.Result) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.exec[e]
	n, ok2 := graphs.node[node]
	if !ok || !ok2 || n.kind != kind {
		return res(cudrv.ErrInvalidValue)
	}
	if gr.override == nil {
		gr.override = map[C.uintptr_t]func() cudrv.Result{}
	}
	gr.override[node] = run
	return 0
}

//export cuGraphExecKernelNodeSetParams_v2
func cuGraphExecKernelNodeSetParams_v2(e, node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	nd, r := kernelNode(p)
	if r != cudrv.Success {
		return res(r)
	}
	return setExecNode(e, node, nodeKernel, nd.run)
}

//export cuGraphExecHostNodeSetParams
func cuGraphExecHostNodeSetParams(e, node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setExecNode(e, node, nodeHost, hostNode(p).run)
}

// execUpdate gives an instantiated graph the nodes of graph g as they are
// now (the topology may differ: nodes run in insertion order).
func execUpdate(e, g C.uintptr_t) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	gr, ok := graphs.graph[g]
	ex, ok2 := graphs.exec[e]
	if !ok || !ok2 {
		return res(cudrv.ErrInvalidValue)
	}
	ex.nodes, ex.override = append([]C.uintptr_t(nil), gr.nodes...), nil
	return 0
}

//export cuGraphExecUpdate_v2
func cuGraphExecUpdate_v2(e, g C.uintptr_t, info unsafe.Pointer) C.int {
	if info != nil {
		clear(hostBytes(info, 24)) // CU_GRAPH_EXEC_UPDATE_SUCCESS, no error nodes
	}
	return execUpdate(e, g)
}

//export cuGraphExecUpdate
func cuGraphExecUpdate(e, g C.uintptr_t, errNode *C.uintptr_t, result *C.int) C.int {
	if errNode != nil {
		*errNode = 0
	}
	if result != nil {
		*result = 0
	}
	return execUpdate(e, g)
}

//export cuGraphAddMemAllocNode
func cuGraphAddMemAllocNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	// CUDA_MEM_ALLOC_NODE_PARAMS: the pool properties (88 bytes), access
	// descriptors, bytesize at 104 and the returned address at 112. The
	// memory is allocated once, for the graph's life, as a GPU reserves it.
	ptr, r := driver().GraphMemAlloc(u64at(p, 104))
	if r != cudrv.Success {
		return res(r)
	}
	*(*uint64)(unsafe.Add(p, 112)) = ptr
	nd := &graphNode{kind: nodeMemAlloc, run: func() cudrv.Result { return driver().GraphMemRun(ptr) }, params: append([]byte(nil), unsafe.Slice((*byte)(p), 120)...)}
	return addNodeDesc(node, g, deps, n, nd)
}

//export cuGraphAddMemFreeNode
func cuGraphAddMemFreeNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, ptr C.ulonglong) C.int {
	return addNodeDesc(node, g, deps, n, &graphNode{kind: nodeMemFree, ref: uint64(ptr)})
}

//export cuGraphAddEventRecordNode
func cuGraphAddEventRecordNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, ev C.uintptr_t) C.int {
	return addNodeDesc(node, g, deps, n, eventRecordNode(ev))
}

// eventRecordNode is the node that records event ev.
func eventRecordNode(ev C.uintptr_t) *graphNode {
	run := func() cudrv.Result { return driver().RecordEvent(cudrv.Handle(ev)) }
	return &graphNode{kind: nodeEventRecord, run: run, ref: uint64(ev)}
}

//export cuGraphAddEventWaitNode
func cuGraphAddEventWaitNode(node *C.uintptr_t, g C.uintptr_t, deps *C.uintptr_t, n C.size_t, ev C.uintptr_t) C.int {
	return addNodeDesc(node, g, deps, n, &graphNode{kind: nodeEventWait, ref: uint64(ev)})
}

// setNode gives a graph's node the parameters of nd, a node of the same
// kind.
func setNode(node C.uintptr_t, nd *graphNode) C.int {
	graphs.Lock()
	defer graphs.Unlock()
	n, ok := graphs.node[node]
	if !ok || nd == nil || n.kind != nd.kind {
		return res(cudrv.ErrInvalidValue)
	}
	freeCArgs(n)
	n.run, n.params, n.args, n.ref = nd.run, nd.params, nd.args, nd.ref
	return 0
}

//export cuGraphMemcpyNodeSetParams
func cuGraphMemcpyNodeSetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setNode(node, memcpyNode(p))
}

//export cuGraphMemsetNodeSetParams
func cuGraphMemsetNodeSetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setNode(node, memsetNode(p))
}

//export cuGraphHostNodeSetParams
func cuGraphHostNodeSetParams(node C.uintptr_t, p unsafe.Pointer) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setNode(node, hostNode(p))
}

//export cuGraphExecMemcpyNodeSetParams
func cuGraphExecMemcpyNodeSetParams(e, node C.uintptr_t, p unsafe.Pointer, ctx C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setExecNode(e, node, nodeMemcpy, memcpyNode(p).run)
}

//export cuGraphExecMemsetNodeSetParams
func cuGraphExecMemsetNodeSetParams(e, node C.uintptr_t, p unsafe.Pointer, ctx C.uintptr_t) C.int {
	if p == nil {
		return res(cudrv.ErrInvalidValue)
	}
	nd := memsetNode(p)
	if nd == nil {
		return res(cudrv.ErrInvalidValue)
	}
	return setExecNode(e, node, nodeMemset, nd.run)
}

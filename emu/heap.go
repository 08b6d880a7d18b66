package emu

import (
	"encoding/binary"
	"fmt"
	"sort"
	"sync"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Device-side malloc and free: calls of the system calls malloc(size) and
// free(ptr) (PTX ISA §7.3; nvcc emits them for new/delete and malloc/free
// in device code) allocate from a device heap, one global region at
// heapBase made before the first launch of a program that calls them in a
// Memory. A fresh memory's heap lives for one launch; a memory shared by
// launches (Launch.Mem, the CUDA driver's) keeps its heap and the blocks
// in it from launch to launch, as a CUDA context does. Like CUDA's heap
// (cudaLimitMallocHeapSize) it is bounded, 8 MiB unless Config.HeapBytes
// (a fresh memory) or Memory.SetHeapSize (a shared one) says otherwise;
// malloc returns 0 when no free span is large enough.
// Blocks are 16-byte aligned and placed first fit, lane by lane in lane
// order, so a launch's addresses depend only on the order warps run in
// (the seed), as with atomics. free(0) does nothing; free of any other
// address that malloc did not return, or returned and was freed since, is
// reported (bad-free).

// DefaultHeapBytes is the device heap of a launch when Config.HeapBytes is
// 0, CUDA's default cudaLimitMallocHeapSize.
const DefaultHeapBytes = 8 << 20

// MaxHeapBytes bounds Config.HeapBytes and Memory.SetHeapSize.
const MaxHeapBytes = 1 << 30

const (
	heapBase    = uint64(0x30) << 32 // where the heap region starts
	heapAlign   = 16
	ruleBadFree = "bad-free"
	specHeap    = "CUDA C++ Programming Guide, Dynamic Global Memory Allocation and Operations"
)

// heapSpan is a run of bytes of the heap, as offsets from its base.
type heapSpan struct{ off, size uint64 }

// deviceHeap is the device heap of one launch.
type deviceHeap struct {
	mu     sync.Mutex
	region *Region
	live   map[uint64]uint64 // block offset -> size
	free   []heapSpan        // free spans, sorted by offset, never adjacent
}

// SetHeapSize sets the size of the heap malloc serves in m
// (cudaLimitMallocHeapSize); it fails once a kernel that calls malloc or
// free has run in m, as the CUDA runtime's does, and outside
// [16, MaxHeapBytes].
func (m *Memory) SetHeapSize(n int) bool {
	if m.heap != nil || n < heapAlign || n > MaxHeapBytes {
		return false
	}
	m.heapSize = n
	return true
}

// HeapSize returns the size of the heap malloc serves in m.
func (m *Memory) HeapSize() int {
	if m.heapSize == 0 {
		return DefaultHeapBytes
	}
	return m.heapSize
}

// ensureHeap installs the heap region when m has none (callers run before
// clusters start).
func (m *Memory) ensureHeap() {
	if m.heap != nil {
		return
	}
	n := m.HeapSize()
	r := &Region{Name: "device heap", Base: heapBase, Data: make([]byte, n), Space: SpaceGlobal, ArgIndex: -1}
	m.global.add(r)
	m.heap = newDeviceHeap(r)
}

func newDeviceHeap(r *Region) *deviceHeap {
	return &deviceHeap{region: r, live: map[uint64]uint64{}, free: []heapSpan{{0, uint64(len(r.Data))}}}
}

// alloc returns the address of a new block of n bytes, or 0.
func (h *deviceHeap) alloc(n uint64) uint64 {
	if n == 0 || n > uint64(len(h.region.Data)) {
		return 0
	}
	n = (n + heapAlign - 1) &^ (heapAlign - 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, s := range h.free {
		if s.size < n {
			continue
		}
		if s.size == n {
			h.free = append(h.free[:i], h.free[i+1:]...)
		} else {
			h.free[i] = heapSpan{s.off + n, s.size - n}
		}
		h.live[s.off] = n
		return h.region.Base + s.off
	}
	return 0
}

// release frees the block at address a; false when no live block starts
// there.
func (h *deviceHeap) release(a uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a < h.region.Base {
		return false
	}
	off := a - h.region.Base
	n, ok := h.live[off]
	if !ok {
		return false
	}
	delete(h.live, off)
	i := sort.Search(len(h.free), func(i int) bool { return h.free[i].off > off })
	h.free = append(h.free, heapSpan{})
	copy(h.free[i+1:], h.free[i:])
	h.free[i] = heapSpan{off, n}
	if i+1 < len(h.free) && h.free[i].off+h.free[i].size == h.free[i+1].off { // merge with the next
		h.free[i].size += h.free[i+1].size
		h.free = append(h.free[:i+1], h.free[i+2:]...)
	}
	if i > 0 && h.free[i-1].off+h.free[i-1].size == h.free[i].off { // and with the previous
		h.free[i-1].size += h.free[i].size
		h.free = append(h.free[:i], h.free[i+1:]...)
	}
	return true
}

// heapCall holds the frame addresses of a malloc or free call's .param
// variables.
type heapCall struct {
	arg, ret uint64 // ret is noRet for free
}

func decodeMalloc(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	if len(args) != 1 || len(rets) != 1 {
		return d.Errorf(in, "malloc takes one argument (the size) and returns one value (the pointer)")
	}
	return decodeHeapCall(d, out, rets, args, execMalloc)
}

func decodeFree(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	if len(args) != 1 || len(rets) != 0 {
		return d.Errorf(in, "free takes one argument (the pointer) and returns nothing")
	}
	return decodeHeapCall(d, out, rets, args, execFree)
}

func decodeHeapCall(d *Decoder, out *Inst, rets, args []ast.Expr, exec ExecFunc) error {
	hc := &heapCall{ret: noRet}
	s, err := d.paramVar(args[0])
	if err != nil {
		return err
	}
	hc.arg = s.addr
	if len(rets) == 1 {
		if s, err = d.paramVar(rets[0]); err != nil {
			return err
		}
		hc.ret = s.addr
	}
	d.prog.usesHeap = true
	out.Ext = hc
	out.Exec = exec
	return nil
}

func execMalloc(w *Warp, in *Inst) Status {
	hc := in.Ext.(*heapCall)
	h := w.CTA.cluster.Mem.heap
	for m := w.Exec; m != 0; m &= m - 1 {
		fr := w.frame(lane(m))
		p := h.alloc(binary.LittleEndian.Uint64(fr[hc.arg:]))
		binary.LittleEndian.PutUint64(fr[hc.ret:], p)
	}
	return Continue
}

func execFree(w *Warp, in *Inst) Status {
	hc := in.Ext.(*heapCall)
	h := w.CTA.cluster.Mem.heap
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		p := binary.LittleEndian.Uint64(w.frame(l)[hc.arg:])
		if p != 0 && !h.release(p) {
			return w.Fault(l, ruleBadFree, specHeap, "free(%#x): %s", p, h.describe(p))
		}
	}
	return Continue
}

// describe says why a is not a block free may release.
func (h *deviceHeap) describe(a uint64) string {
	if a < h.region.Base || a >= h.region.End() {
		return "the address is not in the device heap; malloc did not return it"
	}
	return "no block of the device heap starts there: malloc did not return it, or it was freed already"
}

// heapBytes returns the device heap size of a launch with cfg, or an
// error when it is out of range.
func heapBytes(cfg *Config) (int, error) {
	switch {
	case cfg.HeapBytes < 0 || cfg.HeapBytes > MaxHeapBytes:
		return 0, fmt.Errorf("%w: a device heap of %d bytes (at most %d)", ErrLaunch, cfg.HeapBytes, MaxHeapBytes)
	case cfg.HeapBytes == 0:
		return DefaultHeapBytes, nil
	}
	return cfg.HeapBytes, nil
}

package emu

import (
	"encoding/binary"
	"fmt"
	"sort"
	"sync"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The system calls malloc, free and __assertfail (PTX ISA §7.3), as nvcc
// emits them for device malloc/free, new/delete and assert().

// Device heap: malloc and free serve one region of HeapBytes at heapBase,
// made before the first launch of a program that calls them and kept by a
// shared Memory from launch to launch.
const (
	heapBase = uint64(0x30) << 32
	// HeapBytes is the device heap's size: 8 MiB, CUDA's default
	// cudaLimitMallocHeapSize.
	HeapBytes = 8 << 20
	heapAlign = 16
)

const specHeap = "CUDA C++ Programming Guide, Dynamic Global Memory Allocation"

// deviceHeap is a first-fit allocator over the heap region.
type deviceHeap struct {
	mu     sync.Mutex
	region *Region
	free   []span            // sorted by offset, coalesced
	used   map[uint64]uint64 // offset -> size of live blocks
}

type span struct{ off, n uint64 }

// MaxHeapBytes bounds SetHeapSize (1 GiB).
const MaxHeapBytes = 1 << 30

// SetHeapSize sets the size of the heap malloc serves (cudaLimitMallocHeapSize);
// it fails once a kernel that calls malloc has run in m, as the CUDA runtime's does.
func (m *Memory) SetHeapSize(n int) bool {
	if m.heap != nil || n < heapAlign || n > MaxHeapBytes {
		return false
	}
	m.heapSize = n
	return true
}

// HeapSize returns the size of the heap malloc serves.
func (m *Memory) HeapSize() int {
	if m.heapSize == 0 {
		return HeapBytes
	}
	return m.heapSize
}

// ensureHeap installs the heap region (callers run before clusters start).
func (m *Memory) ensureHeap() {
	if m.heap != nil {
		return
	}
	n := m.HeapSize()
	r := &Region{Name: "device heap", Base: heapBase, Data: make([]byte, n), Space: SpaceGlobal, ArgIndex: -1}
	m.global.add(r)
	m.heap = &deviceHeap{region: r, free: []span{{0, uint64(n)}}, used: map[uint64]uint64{}}
}

func (h *deviceHeap) alloc(n uint64) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	n = max((n+heapAlign-1)&^(heapAlign-1), heapAlign)
	for i, s := range h.free {
		if s.n >= n {
			h.free[i] = span{s.off + n, s.n - n}
			if h.free[i].n == 0 {
				h.free = append(h.free[:i], h.free[i+1:]...)
			}
			h.used[s.off] = n
			return h.region.Base + s.off
		}
	}
	return 0
}

func (h *deviceHeap) release(a uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	off := a - h.region.Base
	n, ok := h.used[off]
	if a < h.region.Base || !ok {
		return false
	}
	delete(h.used, off)
	i := sort.Search(len(h.free), func(i int) bool { return h.free[i].off > off })
	h.free = append(h.free, span{})
	copy(h.free[i+1:], h.free[i:])
	h.free[i] = span{off, n}
	if i+1 < len(h.free) && off+n == h.free[i+1].off { // merge with the next span
		h.free[i].n += h.free[i+1].n
		h.free = append(h.free[:i+1], h.free[i+2:]...)
	}
	if i > 0 && h.free[i-1].off+h.free[i-1].n == off { // and with the previous
		h.free[i-1].n += h.free[i].n
		h.free = append(h.free[:i], h.free[i+1:]...)
	}
	return true
}

// sysCallInfo holds the frame addresses of a system call's .param
// variables.
type sysCallInfo struct {
	args []uint64
	ret  uint64 // noRet when the result is not taken
}

func decodeSysParams(d *Decoder, in *ast.Instruction, name string, rets, args []ast.Expr, nargs int) (*sysCallInfo, error) {
	if len(args) != nargs || len(rets) > 1 {
		return nil, d.Errorf(in, "%s takes %d arguments and returns at most one value", name, nargs)
	}
	si := &sysCallInfo{ret: noRet}
	for _, a := range args {
		s, err := d.paramVar(a)
		if err != nil {
			return nil, err
		}
		si.args = append(si.args, s.addr)
	}
	if len(rets) == 1 {
		s, err := d.paramVar(rets[0])
		if err != nil {
			return nil, err
		}
		si.ret = s.addr
	}
	d.prog.usesHeap = d.prog.usesHeap || name != "__assertfail"
	return si, nil
}

func decodeMalloc(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	si, err := decodeSysParams(d, in, "malloc", rets, args, 1)
	out.Ext, out.Exec = si, execMalloc
	return err
}

func decodeFree(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	si, err := decodeSysParams(d, in, "free", rets, args, 1)
	out.Ext, out.Exec = si, execFree
	return err
}

func decodeAssertfail(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	si, err := decodeSysParams(d, in, "__assertfail", rets, args, 5)
	out.Ext, out.Exec = si, execAssertfail
	return err
}

func execMalloc(w *Warp, in *Inst) Status {
	si := in.Ext.(*sysCallInfo)
	heap := w.CTA.cluster.Mem.heap
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		fr := w.frame(l)
		a := heap.alloc(binary.LittleEndian.Uint64(fr[si.args[0]:]))
		if si.ret != noRet {
			binary.LittleEndian.PutUint64(fr[si.ret:], a)
		}
	}
	return Continue
}

func execFree(w *Warp, in *Inst) Status {
	si := in.Ext.(*sysCallInfo)
	heap := w.CTA.cluster.Mem.heap
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := binary.LittleEndian.Uint64(w.frame(l)[si.args[0]:])
		if a != 0 && !heap.release(a) {
			return w.Fault(l, "bad-free", specHeap, "free of %#x, which is not a block malloc returned (or was freed already)", a)
		}
	}
	return Continue
}

// execAssertfail stops the kernel with an "assert" report worded as the
// CUDA runtime words a failed device assertion.
func execAssertfail(w *Warp, in *Inst) Status {
	si := in.Ext.(*sysCallInfo)
	l := lane(w.Exec)
	fr := w.frame(l)
	msg, ok1 := w.cString(l, binary.LittleEndian.Uint64(fr[si.args[0]:]))
	file, ok2 := w.cString(l, binary.LittleEndian.Uint64(fr[si.args[1]:]))
	line := binary.LittleEndian.Uint32(fr[si.args[2]:])
	fn, ok3 := w.cString(l, binary.LittleEndian.Uint64(fr[si.args[3]:]))
	if !ok1 || !ok2 || !ok3 {
		return Fault
	}
	t := w.threadID(l)
	text := fmt.Sprintf("%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.",
		file, line, fn, t.CTA[0], t.CTA[1], t.CTA[2], t.Thread[0], t.Thread[1], t.Thread[2], msg)
	return w.Fault(l, "assert", "CUDA C++ Programming Guide, Assertion", "%s", text)
}

func init() {
	emuSystemCalls["malloc"] = decodeMalloc
	emuSystemCalls["free"] = decodeFree
	emuSystemCalls["__assertfail"] = decodeAssertfail
}

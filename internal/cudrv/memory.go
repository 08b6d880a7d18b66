package cudrv

import (
	"fmt"

	"github.com/ptxkit/ptxkit/emu"
)

// MemAlloc is cuMemAlloc: n bytes of zeroed device memory.
func (d *Driver) MemAlloc(n uint64) (uint64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.state(); r != Success {
		return 0, r
	}
	if n == 0 {
		return 0, ErrInvalidValue
	}
	if n > d.limit-d.used {
		return 0, ErrOutOfMemory
	}
	r := d.mem.Alloc(fmt.Sprintf("allocation %d", len(d.allocs)+1), int(n), 256)
	d.allocs[r.Base] = &allocation{region: r, kind: MemDevice}
	d.used += n
	return r.Base, Success
}

// MemFree is cuMemFree: ptr must be an allocation's start.
func (d *Driver) MemFree(ptr uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ptr == 0 {
		return Success
	}
	a, ok := d.allocs[ptr]
	if !ok || a.mapped || a.kind != MemDevice && a.kind != MemUnified {
		return ErrInvalidValue
	}
	d.mem.Free(ptr)
	delete(d.allocs, ptr)
	d.used -= uint64(len(a.region.Data))
	if a.graph {
		d.graphUsed -= uint64(len(a.region.Data))
	}
	return d.sticky
}

// MapHost makes host memory (pinned, mapped or managed, allocated by the
// caller) reachable by kernels at its host address: data is that memory.
func (d *Driver) MapHost(addr uint64, data []byte, kind MemKind) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	name := "host allocation"
	if kind == MemUnified {
		name = "managed allocation"
	}
	r, err := d.mem.Place(name, addr, data)
	if err != nil {
		return ErrInvalidValue
	}
	d.allocs[addr] = &allocation{region: r, kind: kind}
	return Success
}

// UnmapHost undoes MapHost; it returns false when addr was not mapped.
func (d *Driver) UnmapHost(addr uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.allocs[addr]
	if !ok || a.kind == MemDevice {
		return false
	}
	d.mem.Free(addr)
	delete(d.allocs, addr)
	return true
}

// Kind returns what the memory at addr is and the allocation's range;
// ok is false for an address the driver does not know (plain host memory).
func (d *Driver) Kind(addr uint64) (kind MemKind, base, size uint64, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.mem.Lookup(addr, 1)
	if r == nil {
		return 0, 0, 0, false
	}
	if a, found := d.allocs[r.Base]; found {
		return a.kind, r.Base, uint64(len(r.Data)), true
	}
	return MemDevice, r.Base, uint64(len(r.Data)), true // a module variable
}

// MemInfo is cuMemGetInfo.
func (d *Driver) MemInfo() (free, total uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gpu.TotalMem - min(d.used, d.gpu.TotalMem), d.gpu.TotalMem
}

// Device returns the device bytes [addr, addr+n): a global allocation, a
// module variable or (in the constant window) a __constant__ variable.
// Copies use it; an n that runs past the allocation is ErrInvalidValue.
func (d *Driver) Device(addr, n uint64) ([]byte, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.device(addr, n)
}

func (d *Driver) device(addr, n uint64) ([]byte, Result) {
	if n > 1<<40 {
		return nil, ErrInvalidValue
	}
	if n == 0 {
		return nil, Success
	}
	var r *emu.Region
	a := addr
	if addr >= emu.ConstWindow && addr < emu.ConstWindow+1<<40 {
		a = addr - emu.ConstWindow
		r = d.mem.LookupConst(a, int(n))
	} else {
		r = d.mem.Lookup(addr, int(n))
	}
	if r == nil || r.ReadOnly {
		return nil, ErrInvalidValue
	}
	return r.Data[a-r.Base : a-r.Base+n], Success
}

// IsDevice reports whether [addr, addr+n) is device memory the driver
// knows (an allocation, a mapped host range or a module variable).
func (d *Driver) IsDevice(addr, n uint64) bool {
	_, r := d.Device(addr, max(n, 1))
	return r == Success
}

// Memset is cuMemsetD8/D16/D32: count elements of size bytes each set to
// value, with a row pitch for the 2-D forms (pitch 0: one row).
func (d *Driver) Memset(dst uint64, value uint32, size int, width, height, pitch uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.state(); r != Success {
		return r
	}
	if height == 0 || width == 0 {
		return Success
	}
	if pitch == 0 {
		pitch = width * uint64(size)
	}
	for row := range height {
		b, r := d.device(dst+row*pitch, width*uint64(size))
		if r != Success {
			return r
		}
		fill(b, value, size)
	}
	return Success
}

// fill repeats the size-byte little-endian value over b: one element,
// then copies that double the filled part.
func fill(b []byte, value uint32, size int) {
	if len(b) < size {
		return
	}
	for k := range size {
		b[k] = byte(value >> (8 * k))
	}
	for n := size; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

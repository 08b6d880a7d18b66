package cudrv

// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree) and the
// accounting of graph memory nodes (cuDeviceGetGraphMemAttribute).
//
// A physical allocation is a zeroed byte slice owned by its handle. A
// reservation is a range of addresses in a window of its own, far above the
// device allocations, that nothing else hands out. Mapping places a slice
// of the physical allocation in the emulator's memory at the reserved
// address, so kernels and copies reach it like any device memory; the
// physical memory lives until it is both released and unmapped, as on a GPU.

import "fmt"

// VMMGranularity is the allocation granularity cuMemGetAllocationGranularity
// reports (minimum and recommended): sizes, offsets and reserved addresses
// must be multiples of it, as on a GPU.
const VMMGranularity = 2 << 20

// vmmBase is where reservations start: 32 TiB, far above the device
// allocations (from 64 GiB) and below the emulator's generic windows.
const vmmBase = uint64(0x20) << 40

type physical struct {
	data     []byte
	released bool
	maps     int // live mappings of it
}

type reservation struct{ size uint64 }

type mapping struct {
	phys *physical
	size uint64
}

// MemCreate is cuMemCreate: size bytes of physical device memory.
func (d *Driver) MemCreate(size uint64) (Handle, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.state(); r != Success {
		return 0, r
	}
	if size == 0 || size%VMMGranularity != 0 {
		return 0, ErrInvalidValue
	}
	if size > d.limit-d.used {
		return 0, ErrOutOfMemory
	}
	d.used += size
	return d.newHandle(&physical{data: make([]byte, size)}), Success
}

// MemRelease is cuMemRelease: the handle goes; the memory stays while mapped.
func (d *Driver) MemRelease(h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.objects[h].(*physical)
	if !ok {
		return ErrInvalidValue
	}
	delete(d.objects, h)
	p.released = true
	d.dropPhysical(p)
	return Success
}

func (d *Driver) dropPhysical(p *physical) {
	if p.released && p.maps == 0 && p.data != nil {
		d.used -= uint64(len(p.data))
		p.data = nil
	}
}

// MemAddressReserve is cuMemAddressReserve: size bytes of addresses with
// the given alignment (0: the granularity); addr, a wish, is honoured when
// that range is free.
func (d *Driver) MemAddressReserve(size, align, addr uint64) (uint64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if size == 0 || size%VMMGranularity != 0 || align&(align-1) != 0 {
		return 0, ErrInvalidValue
	}
	align = max(align, VMMGranularity)
	if d.reserved == nil {
		d.reserved = map[uint64]reservation{}
		d.nextVA = vmmBase
	}
	if addr != 0 && addr%align == 0 && addr >= vmmBase && d.vaFree(addr, size) {
		d.reserved[addr] = reservation{size}
		return addr, Success
	}
	base := (d.nextVA + align - 1) &^ (align - 1)
	d.nextVA = base + size
	d.reserved[base] = reservation{size}
	return base, Success
}

func (d *Driver) vaFree(addr, size uint64) bool {
	for b, r := range d.reserved {
		if addr < b+r.size && b < addr+size {
			return false
		}
	}
	return true
}

// inReservation reports whether [addr, addr+size) lies in one reservation.
func (d *Driver) inReservation(addr, size uint64) bool {
	for b, r := range d.reserved {
		if addr >= b && addr+size <= b+r.size && addr+size > addr {
			return true
		}
	}
	return false
}

// MemAddressFree is cuMemAddressFree: the whole reservation, unmapped first.
func (d *Driver) MemAddressFree(addr, size uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.reserved[addr]
	if !ok || r.size != size {
		return ErrInvalidValue
	}
	for b := range d.mapped {
		if b >= addr && b < addr+size {
			return ErrInvalidValue // still mapped
		}
	}
	delete(d.reserved, addr)
	return Success
}

// MemMap is cuMemMap: size bytes of the physical allocation h from offset
// appear at addr, which must lie in a reservation and be unmapped.
func (d *Driver) MemMap(addr, size, offset uint64, h Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.objects[h].(*physical)
	if !ok || p.data == nil {
		return ErrInvalidValue
	}
	if size == 0 || size%VMMGranularity != 0 || offset%VMMGranularity != 0 || addr%VMMGranularity != 0 ||
		offset+size > uint64(len(p.data)) || offset+size < offset || !d.inReservation(addr, size) {
		return ErrInvalidValue
	}
	r, err := d.mem.Place(fmt.Sprintf("mapped allocation %d", h), addr, p.data[offset:offset+size:offset+size])
	if err != nil {
		return ErrInvalidValue
	}
	if d.mapped == nil {
		d.mapped = map[uint64]mapping{}
	}
	d.mapped[addr] = mapping{phys: p, size: size}
	d.allocs[addr] = &allocation{region: r, kind: MemDevice, mapped: true}
	p.maps++
	return Success
}

// MemUnmap is cuMemUnmap: every mapping in [addr, addr+size) goes; the
// range must start at a mapping.
func (d *Driver) MemUnmap(addr, size uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.mapped[addr]; !ok {
		return ErrInvalidValue
	}
	for b, m := range d.mapped {
		if b < addr || b >= addr+size {
			continue
		}
		d.mem.Free(b)
		delete(d.allocs, b)
		delete(d.mapped, b)
		m.phys.maps--
		d.dropPhysical(m.phys)
	}
	return Success
}

// MemSetAccess is cuMemSetAccess: every byte of [addr, addr+size) must be
// mapped. Mapped memory is always readable and writable by the device.
func (d *Driver) MemSetAccess(addr, size uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if size == 0 {
		return ErrInvalidValue
	}
	for a := addr; a < addr+size; {
		m, ok := d.mapped[a]
		if !ok {
			return ErrInvalidValue
		}
		a += m.size
	}
	return Success
}

// GraphMemAlloc allocates n bytes for a graph's memory allocation node and
// counts it as graph memory.
func (d *Driver) GraphMemAlloc(n uint64) (uint64, Result) {
	ptr, r := d.MemAlloc(n)
	if r != Success {
		return 0, r
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allocs[ptr].graph = true
	if d.graphAllocs == nil {
		d.graphAllocs = map[uint64]uint64{}
	}
	d.graphAllocs[ptr] = n
	d.graphUsed += n
	d.graphHigh = max(d.graphHigh, d.graphUsed)
	return ptr, Success
}

// GraphMemRun runs a graph's memory allocation node: the allocation made
// when the node was added is there again, at the same address, when the
// program freed it (cudaFreeAsync outside the graph) since the last launch,
// as a GPU gives a graph's allocation back on each launch.
func (d *Driver) GraphMemRun(ptr uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.graphAllocs[ptr]
	if !ok {
		return ErrInvalidValue
	}
	if _, live := d.allocs[ptr]; live {
		return Success
	}
	r, err := d.mem.Place(fmt.Sprintf("graph allocation at %#x", ptr), ptr, make([]byte, n))
	if err != nil {
		return ErrInvalidValue
	}
	d.allocs[ptr] = &allocation{region: r, kind: MemDevice, graph: true}
	d.used += n
	d.graphUsed += n
	d.graphHigh = max(d.graphHigh, d.graphUsed)
	return Success
}

// GraphMemAttribute is cuDeviceGetGraphMemAttribute: 0 and 2 the bytes
// graphs hold now (used, reserved), 1 and 3 the most since the last reset.
func (d *Driver) GraphMemAttribute(attr int) (uint64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch attr {
	case 0, 2:
		return d.graphUsed, Success
	case 1, 3:
		return d.graphHigh, Success
	}
	return 0, ErrInvalidValue
}

// ResetGraphMemHigh is cuDeviceSetGraphMemAttribute: only the high-water
// marks (1, 3) can be set, and only to 0, which resets them to what is used.
func (d *Driver) ResetGraphMemHigh(attr int, value uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if attr != 1 && attr != 3 || value != 0 {
		return ErrInvalidValue
	}
	d.graphHigh = d.graphUsed
	return Success
}

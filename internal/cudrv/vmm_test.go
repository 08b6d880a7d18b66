package cudrv

import (
	"encoding/binary"
	"math"
	"testing"
)

// Two physical allocations mapped back to back in one reservation are one
// contiguous range for kernels and copies; unmapping, releasing and freeing
// follow the driver's rules.
func TestVirtualMemoryMapping(t *testing.T) {
	d, errs := newTestDriver(t)
	const g = VMMGranularity
	if _, r := d.MemCreate(g + 1); r != ErrInvalidValue {
		t.Errorf("size not a multiple of the granularity: %v", r)
	}
	h1, r1 := d.MemCreate(g)
	h2, r2 := d.MemCreate(g)
	if r1 != Success || r2 != Success {
		t.Fatal(r1, r2)
	}
	va, r := d.MemAddressReserve(2*g, 0, 0)
	if r != Success || va%g != 0 {
		t.Fatal(r, va)
	}
	if r := d.MemSetAccess(va, 2*g); r != ErrInvalidValue {
		t.Errorf("access to an unmapped range: %v", r)
	}
	if r := d.MemMap(va, g, 0, h1); r != Success {
		t.Fatal(r)
	}
	if r := d.MemMap(va, g, 0, h2); r != ErrInvalidValue {
		t.Errorf("mapping over a mapping: %v", r)
	}
	if r := d.MemMap(va+g, g, 0, h2); r != Success {
		t.Fatal(r)
	}
	if r := d.MemMap(va+2*g, g, 0, h2); r != ErrInvalidValue {
		t.Errorf("mapping outside the reservation: %v", r)
	}
	if r := d.MemSetAccess(va, 2*g); r != Success {
		t.Fatal(r)
	}
	if r := d.MemFree(va); r != ErrInvalidValue {
		t.Errorf("cuMemFree of a mapping: %v", r)
	}
	// The released handle's memory stays while mapped.
	if r := d.MemRelease(h1); r != Success {
		t.Fatal(r)
	}
	mod, r, detail := d.LoadModule([]byte(testPTX))
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, _ := d.GetFunction(mod, "axpy")
	sa, _, _ := d.GetGlobal(mod, "scale")
	sb, _ := d.Device(sa, 4)
	copy(sb, f32s(3))
	// x at the start of the first allocation, y straddling both.
	const n = 64
	x, y := va, va+g-4*16
	xb, r := d.Device(x, 4*n)
	if r != Success {
		t.Fatal(r)
	}
	for i := range n {
		binary.LittleEndian.PutUint32(xb[4*i:], math.Float32bits(float32(i)))
	}
	cfg := LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{n, 1, 1}}
	if r := d.Launch(fn, cfg, [][]byte{u64(x), u64(y), binary.LittleEndian.AppendUint32(nil, n)}); r != Success {
		t.Fatal(r, errs)
	}
	lo, _ := d.Device(y, 4*16)
	hi, _ := d.Device(va+g, 4*(n-16))
	yb := append(append([]byte{}, lo...), hi...)
	for i := range n {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(yb[4*i:])); got != 3*float32(i) {
			t.Fatalf("y[%d] = %g, want %g", i, got, 3*float32(i))
		}
	}
	if r := d.MemAddressFree(va, 2*g); r != ErrInvalidValue {
		t.Errorf("freeing a mapped reservation: %v", r)
	}
	if r := d.MemUnmap(va, 2*g); r != Success {
		t.Fatal(r)
	}
	if d.IsDevice(va, 1) {
		t.Error("an unmapped address is still device memory")
	}
	if r := d.MemRelease(h2); r != Success {
		t.Fatal(r)
	}
	if r := d.MemRelease(h2); r != ErrInvalidValue {
		t.Errorf("releasing twice: %v", r)
	}
	if r := d.MemAddressFree(va, 2*g); r != Success {
		t.Fatal(r)
	}
	if free, total := d.MemInfo(); free != total {
		t.Errorf("memory still counted after release and unmap: %d of %d free", free, total)
	}
}

func TestGraphMemoryAttributes(t *testing.T) {
	d, _ := newTestDriver(t)
	a, r := d.GraphMemAlloc(1000)
	if r != Success {
		t.Fatal(r)
	}
	b, _ := d.GraphMemAlloc(500)
	if used, _ := d.GraphMemAttribute(0); used != 1500 {
		t.Errorf("used %d, want 1500", used)
	}
	d.MemFree(a)
	used, _ := d.GraphMemAttribute(0)
	high, _ := d.GraphMemAttribute(1)
	if used != 500 || high != 1500 {
		t.Errorf("after a free: used %d high %d, want 500 1500", used, high)
	}
	if r := d.ResetGraphMemHigh(1, 0); r != Success {
		t.Fatal(r)
	}
	if high, _ := d.GraphMemAttribute(3); high != 500 {
		t.Errorf("high after reset %d, want 500", high)
	}
	if r := d.ResetGraphMemHigh(0, 0); r != ErrInvalidValue {
		t.Errorf("setting the used amount: %v", r)
	}
	// A launch of the graph after the program freed the allocation gets it
	// back at the same address.
	if r := d.GraphMemRun(a); r != Success || !d.IsDevice(a, 1000) || d.IsDevice(a, 1001) {
		t.Errorf("graph allocation not back after its node ran: %v", r)
	}
	if used, _ := d.GraphMemAttribute(0); used != 1500 {
		t.Errorf("used after the node ran again %d, want 1500", used)
	}
	if r := d.GraphMemRun(b); r != Success {
		t.Errorf("node of a live allocation: %v", r)
	}
	d.MemFree(b)
}

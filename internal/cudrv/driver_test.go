package cudrv

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"
)

const testPTX = `.version 8.5
.target sm_90
.address_size 64
.global .align 4 .u32 counter = 7;
.const .align 4 .f32 scale;
.visible .entry axpy(.param .u64 x, .param .u64 y, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p, %r5, %r1;
	@%p bra DONE;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	ld.const.f32 %f2, [scale];
	ld.global.f32 %f3, [%rd5];
	fma.rn.f32 %f3, %f1, %f2, %f3;
	st.global.f32 [%rd5], %f3;
	atom.global.add.u32 %r4, [counter], 1;
DONE:
	ret;
}
`

func newTestDriver(t *testing.T) (*Driver, *bytes.Buffer) {
	t.Helper()
	var errs bytes.Buffer
	d, err := New(Options{Stderr: &errs, Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Init(0); r != Success {
		t.Fatal(r)
	}
	return d, &errs
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestLaunchWithModuleVariables(t *testing.T) {
	d, errs := newTestDriver(t)
	mod, r, detail := d.LoadModule([]byte(testPTX + "\x00"))
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, r := d.GetFunction(mod, "axpy")
	if r != Success {
		t.Fatal(r)
	}
	if _, r := d.GetFunction(mod, "nope"); r != ErrNotFound {
		t.Errorf("unknown kernel: %v", r)
	}
	const n = 100
	x, _ := d.MemAlloc(4 * n)
	y, _ := d.MemAlloc(4 * n)
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i] = float32(i), 1
	}
	xb, _ := d.Device(x, 4*n)
	copy(xb, f32s(xs...))
	yb, _ := d.Device(y, 4*n)
	copy(yb, f32s(ys...))
	sa, size, r := d.GetGlobal(mod, "scale")
	if r != Success || size != 4 {
		t.Fatal(r, size)
	}
	sb, r := d.Device(sa, 4)
	if r != Success {
		t.Fatal(r)
	}
	copy(sb, f32s(2))
	cfg := LaunchConfig{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}}
	params := [][]byte{u64(x), u64(y), binary.LittleEndian.AppendUint32(nil, n)}
	for range 2 { // the module variables persist from one launch to the next
		if r := d.Launch(fn, cfg, params); r != Success || d.State() != Success {
			t.Fatal(r, d.State(), errs)
		}
	}
	for i := range n {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(yb[4*i:])); got != 1+4*float32(i) {
			t.Fatalf("y[%d] = %g, want %g", i, got, 1+4*float32(i))
		}
	}
	ca, _, _ := d.GetGlobal(mod, "counter")
	cb, _ := d.Device(ca, 4)
	if got := binary.LittleEndian.Uint32(cb); got != 7+2*n {
		t.Errorf("counter = %d, want %d", got, 7+2*n)
	}
	// A parameter of the wrong size is refused before anything runs.
	bad := [][]byte{u64(x), u64(y), {1, 2}}
	if r := d.Launch(fn, cfg, bad); r != ErrInvalidValue || !strings.Contains(errs.String(), "takes 4 bytes") {
		t.Errorf("wrong parameter size: %v, %q", r, errs)
	}
}

func TestFaultBreaksContext(t *testing.T) {
	d, errs := newTestDriver(t)
	mod, r, _ := d.LoadModule([]byte(testPTX))
	if r != Success {
		t.Fatal(r)
	}
	fn, _ := d.GetFunction(mod, "axpy")
	x, _ := d.MemAlloc(16)
	// n = 64 reads past the 16-byte allocations.
	params := [][]byte{u64(x), u64(x), binary.LittleEndian.AppendUint32(nil, 64)}
	if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}}, params); r != Success {
		t.Fatalf("the launch itself returns %v; a GPU reports the fault later", r)
	}
	if r := d.Synchronize(); r != ErrIllegalAddress {
		t.Errorf("after an out-of-bounds access: %v, want CUDA_ERROR_ILLEGAL_ADDRESS", r)
	}
	if _, r := d.MemAlloc(16); r != ErrIllegalAddress {
		t.Errorf("the error is not sticky: %v", r)
	}
	if !strings.Contains(errs.String(), "out-of-bounds") || !strings.Contains(errs.String(), "thread (") {
		t.Errorf("report: %s", errs)
	}
}

func TestMemoryBounds(t *testing.T) {
	d, _ := newTestDriver(t)
	a, r := d.MemAlloc(100)
	if r != Success {
		t.Fatal(r)
	}
	if _, r := d.Device(a+50, 51); r != ErrInvalidValue {
		t.Errorf("a copy past the allocation: %v", r)
	}
	if r := d.Memset(a, 0x01020304, 4, 25, 1, 0); r != Success {
		t.Fatal(r)
	}
	b, _ := d.Device(a, 100)
	if binary.LittleEndian.Uint32(b[96:]) != 0x01020304 {
		t.Errorf("memset: % x", b[96:])
	}
	if r := d.MemFree(a + 4); r != ErrInvalidValue {
		t.Errorf("freeing inside an allocation: %v", r)
	}
	if r := d.MemFree(a); r != Success {
		t.Fatal(r)
	}
	if _, r := d.Device(a, 1); r != ErrInvalidValue {
		t.Errorf("freed memory is still reachable: %v", r)
	}
}

func TestBadImages(t *testing.T) {
	d, _ := newTestDriver(t)
	fb, err := os.ReadFile("../fatbin/testdata/vectoradd.nv_fatbin")
	if err != nil {
		t.Fatal(err)
	}
	// The first fatbinary of the section holds only a cubin.
	if _, r, detail := d.LoadModule(fb); r != ErrNoBinaryForGPU || !strings.Contains(detail, "-gencode arch=compute_90,code=compute_90") {
		t.Errorf("SASS-only fatbinary: %v %q", r, detail)
	}
	// The second holds the PTX, compressed.
	second := fb[(936+16+7)&^7:]
	mod, r, detail := d.LoadModule(second)
	if r != Success {
		t.Fatal(r, detail)
	}
	if k := d.Kernels(mod); len(k) != 1 || k[0] != "_Z9vectorAddPKfS0_Pfi" {
		t.Errorf("kernels %v", k)
	}
	corrupt := append([]byte(nil), second...)
	binary.LittleEndian.PutUint64(corrupt[8:], 1<<40)
	if _, r, _ := d.LoadModule(corrupt); r != ErrInvalidImage {
		t.Errorf("corrupt fatbinary: %v", r)
	}
	if _, r, _ := d.LoadModule([]byte("\x7fELF\x02\x01")); r != ErrNoBinaryForGPU {
		t.Errorf("cubin: %v", r)
	}
	if _, r, _ := d.LoadModule([]byte("garbage")); r != ErrInvalidImage {
		t.Errorf("garbage: %v", r)
	}
}

func TestEventsAndErrors(t *testing.T) {
	d, _ := newTestDriver(t)
	a, b := d.CreateEvent(0), d.CreateEvent(0)
	if _, r := d.Elapsed(a, b); r != ErrInvalidHandle {
		t.Errorf("unrecorded events: %v", r)
	}
	d.RecordEvent(a)
	d.RecordEvent(b)
	if ms, r := d.Elapsed(a, b); r != Success || ms < 0 {
		t.Errorf("elapsed %g %v", ms, r)
	}
	if n, ok := ErrIllegalAddress.Name(); !ok || n != "CUDA_ERROR_ILLEGAL_ADDRESS" {
		t.Error(n)
	}
	if _, ok := Result(12345).Name(); ok {
		t.Error("unknown result has a name")
	}
	g, err := LookupGPU("sm_80")
	if err != nil || g.SMs != 108 {
		t.Error(err)
	}
	if _, err := LookupGPU("sm_75"); err == nil {
		t.Error("sm_75 accepted")
	}
}

func TestManagedVariables(t *testing.T) {
	var errs bytes.Buffer
	host := map[uint64][]byte{}
	d, err := New(Options{Stderr: &errs, Stdout: &bytes.Buffer{}, HostMap: func(addr uint64, n int) []byte {
		b := make([]byte, n)
		host[addr] = b
		return b
	}})
	if err != nil {
		t.Fatal(err)
	}
	d.Init(0)
	src := strings.Replace(testPTX, ".global .align 4 .u32 counter = 7;", ".global .attribute(.managed) .align 4 .u32 counter = 7;", 1)
	mod, r, detail := d.LoadModule([]byte(src))
	if r != Success || len(host) != 1 {
		t.Fatal(r, detail, len(host), errs.String())
	}
	addr, _, _ := d.GetGlobal(mod, "counter")
	var page []byte
	for base, b := range host {
		if addr < base || addr >= base+uint64(len(b)) {
			t.Fatalf("counter at %#x is outside its host page %#x", addr, base)
		}
		page = b[addr-base:]
	}
	if binary.LittleEndian.Uint32(page) != 7 {
		t.Fatalf("the initial value did not reach host memory: % x", page[:4])
	}
	binary.LittleEndian.PutUint32(page, 1000) // the host writes, the kernel counts on
	fn, _ := d.GetFunction(mod, "axpy")
	x, _ := d.MemAlloc(64)
	params := [][]byte{u64(x), u64(x), binary.LittleEndian.AppendUint32(nil, 16)}
	if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, params); r != Success || d.State() != Success {
		t.Fatal(r, errs.String())
	}
	if got := binary.LittleEndian.Uint32(page); got != 1016 {
		t.Errorf("counter = %d in host memory, want 1016", got)
	}
	if k, _, _, ok := d.Kind(addr); !ok || k != MemUnified {
		t.Errorf("counter's memory kind %v", k)
	}
}

// Each kind of fault gives the CUDA error a GPU gives.
func TestFaultResults(t *testing.T) {
	for _, c := range []struct {
		body string
		want Result
	}{
		{"ld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1+1];", ErrMisalignedAddress},
		{"ld.param.u64 %rd1, [p];\n\tst.global.u32 [%rd1+4096], %r1;", ErrIllegalAddress},
		{"trap;", ErrLaunchFailed},
	} {
		d, errs := newTestDriver(t)
		src := header + ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\tmov.u32 %r1, 0;\n\t" + c.body + "\n\tret;\n}\n"
		mod, r, detail := d.LoadModule([]byte(src))
		if r != Success {
			t.Fatal(r, detail)
		}
		fn, _ := d.GetFunction(mod, "k")
		p, _ := d.MemAlloc(64)
		if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, [][]byte{u64(p)}); r != Success {
			t.Fatal(r)
		}
		if got := d.Synchronize(); got != c.want {
			t.Errorf("%q: %v, want %v\n%s", c.body, got, c.want, errs)
		}
		if d.PrimaryReset(0); d.Synchronize() != Success {
			t.Errorf("a device reset does not clear the error")
		}
	}
}

const header = ".version 8.5\n.target sm_90\n.address_size 64\n"

package emu

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// heapAssertPTX is nvcc 12.5's PTX of testdata/heap_assert.cu.
func heapAssertPTX(t *testing.T, kernel string) *Program {
	t.Helper()
	src, err := os.ReadFile("testdata/heap_assert.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseString("heap_assert.ptx", string(src))
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	p, errs := Decode(m, kernel)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	return p
}

// TestDeviceMalloc runs nvcc's code for malloc/free in device code: each
// thread allocates n ints, fills and sums them and frees them. Blocks that
// do not fit in the heap (8 MiB by default, Config.HeapBytes otherwise)
// come back as 0.
func TestDeviceMalloc(t *testing.T) {
	p := heapAssertPTX(t, "heap_kernel")
	run := func(n, heap int) []uint64 {
		res, err := execute(p, Config{Block: dims(32, 1, 1), HeapBytes: heap}, []Arg{buf(8 * 32), scalar(uint64(n))})
		if err != nil || res.Report != nil {
			t.Fatalf("n=%d: %v %v", n, err, res.Report)
		}
		out := make([]uint64, 32)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(res.Buffers[0].Data[8*i:])
		}
		return out
	}
	for tid, got := range run(10, 0) {
		if want := uint64(1000*tid + 45); got != want {
			t.Fatalf("n=10, thread %d: sum %d, want %d", tid, got, want)
		}
	}
	// 800,000-byte blocks: ten fit in 8 MiB, one in 1 MiB; the others get 0.
	for _, c := range []struct{ heap, fit int }{{0, 10}, {1 << 20, 1}} {
		for tid, got := range run(200000, c.heap) {
			var want uint64
			if tid < c.fit { // the kernel sums in int
				want = uint64(int64(int32(tid*100*200000 + 200000*199999/2)))
			}
			if got != want {
				t.Fatalf("heap %d, thread %d: got %d, want %d", c.heap, tid, got, want)
			}
		}
	}
	if _, err := execute(p, Config{Block: dims(32, 1, 1), HeapBytes: 2 << 30}, []Arg{buf(8 * 32), scalar(1)}); err == nil || !strings.Contains(err.Error(), "device heap") {
		t.Errorf("a 2 GiB heap: got %v, want the launch refused", err)
	}
}

// TestDeviceFreeBadPointer: free of an address inside a block, and a
// second free of a block, are reported; free(0) is not.
func TestDeviceFreeBadPointer(t *testing.T) {
	kernel := func(second string) string {
		return header + `
.extern .func (.param .b64 r) malloc (.param .b64 n);
.extern .func free (.param .b64 p);
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<4>;
	{
	.param .b64 n;
	.param .b64 r;
	st.param.b64 [n], 64;
	call.uni (r), malloc, (n);
	ld.param.b64 %rd1, [r];
	}
	{
	.param .b64 p;
	st.param.b64 [p], 0;
	call.uni free, (p);
	}
	{
	.param .b64 p;
	st.param.b64 [p], %rd1;
	call.uni free, (p);
	}
	` + second + `
	{
	.param .b64 p;
	st.param.b64 [p], %rd2;
	call.uni free, (p);
	}
	ret;
}`
	}
	res := launchReport(t, kernel("mov.u64 %rd2, 0;"), Config{Block: dims(1, 1, 1)}, buf(8))
	if res.Report != nil {
		t.Fatalf("free(0) and a matching free: %v", res.Report)
	}
	res = launchReport(t, kernel("mov.u64 %rd2, %rd1;"), Config{Block: dims(1, 1, 1)}, buf(8))
	wantReport(t, res, ruleBadFree, "was freed already")
	res = launchReport(t, kernel("add.u64 %rd2, %rd1, 16;"), Config{Block: dims(1, 1, 1)}, buf(8))
	wantReport(t, res, ruleBadFree, "no block of the device heap starts there")
	res = launchReport(t, kernel("mov.u64 %rd2, 4096;"), Config{Block: dims(1, 1, 1)}, buf(8))
	wantReport(t, res, ruleBadFree, "not in the device heap")
}

// TestDeviceAssert: a failing assert() stops the kernel with CUDA's
// message (file, line and function read from __assertfail's string
// arguments, and the thread); a passing one does not.
func TestDeviceAssert(t *testing.T) {
	p := heapAssertPTX(t, "assert_kernel")
	in := make([]byte, 4*64)
	binary.LittleEndian.PutUint32(in[4*37:], 0xffffffff) // thread 37 asserts
	res, err := execute(p, Config{Block: dims(64, 1, 1)}, []Arg{{IsBuffer: true, Buffer: in}, buf(4 * 64)})
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleAssert, "heap_assert.cu:17: void assert_kernel(const int *, int *): block: [0,0,0], thread: [37,0,0] Assertion `in[t] >= 0` failed.")
	if res.Report.Thread == nil || res.Report.Thread.Thread != [3]int{37, 0, 0} {
		t.Errorf("report thread %v, want thread 37", res.Report.Thread)
	}
	binary.LittleEndian.PutUint32(in[4*37:], 5)
	res, err = execute(p, Config{Block: dims(64, 1, 1)}, []Arg{{IsBuffer: true, Buffer: in}, buf(4 * 64)})
	if err != nil || res.Report != nil {
		t.Fatalf("no assertion fails: %v %v", err, res.Report)
	}
	if got := binary.LittleEndian.Uint32(res.Buffers[1].Data[4*37:]); got != 10 {
		t.Errorf("thread 37 wrote %d, want 10", got)
	}
}

// TestDeviceHeapConcurrent: clusters emulated in parallel share the heap;
// blocks never overlap, and once all are freed the heap is one free span
// again (freed neighbours merge).
func TestDeviceHeapConcurrent(t *testing.T) {
	h := newDeviceHeap(&Region{Base: 1 << 32, Data: make([]byte, 1<<20)})
	done := make(chan map[uint64]uint64)
	for g := range 4 {
		go func() {
			mine := map[uint64]uint64{}
			var live []uint64
			for i := range 2000 {
				n := uint64(1 + (i*7+g*13)%300)
				if a := h.alloc(n); a != 0 {
					mine[a] = n
					live = append(live, a)
				}
				if i%3 == 2 && len(live) > 0 {
					h.release(live[0])
					live = live[1:]
				}
			}
			for _, a := range live {
				h.release(a)
			}
			done <- mine
		}()
	}
	for range 4 {
		<-done
	}
	if len(h.live) != 0 || len(h.free) != 1 || h.free[0] != (heapSpan{0, 1 << 20}) {
		t.Fatalf("after every free: %d live blocks, free spans %v", len(h.live), h.free)
	}
	// overlap: allocate everything in 16-byte blocks, each distinct and inside
	seen := map[uint64]bool{}
	for {
		a := h.alloc(16)
		if a == 0 {
			break
		}
		if seen[a] || a < 1<<32 || a+16 > 1<<32+1<<20 {
			t.Fatalf("block %#x repeats or lies outside the heap", a)
		}
		seen[a] = true
	}
	if len(seen) != (1<<20)/16 {
		t.Errorf("%d blocks of 16 bytes in 1 MiB", len(seen))
	}
}

const heapPTX = header + `
.extern .func (.param .b64 ret) malloc (.param .b64 size);
.extern .func free (.param .b64 p);
.visible .entry k(.param .u64 out, .param .u32 twice)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	.reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r3, [twice];
	mov.u32 %r1, %tid.x;
	{
	.param .b64 a;
	.param .b64 r;
	st.param.b64 [a], 64;
	call.uni (r), malloc, (a);
	ld.param.b64 %rd2, [r];
	}
	st.u32 [%rd2+60], %r1;
	ld.u32 %r2, [%rd2+60];
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r2;
	{
	.param .b64 b;
	st.param.b64 [b], %rd2;
	call.uni free, (b);
	}
	setp.eq.u32 %p, %r3, 0;
	@%p bra DONE;
	{
	.param .b64 c;
	st.param.b64 [c], %rd2;
	call.uni free, (c);
	}
DONE:
	ret;
}
`

func TestMallocFree(t *testing.T) {
	res := launch(t, heapPTX, Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1)}, buf(256), scalar(0))
	for i, v := range u32s(res.Buffers[0].Data) {
		if v != uint32(i) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	if h := res.Mem.heap; len(h.live) != 0 || len(h.free) != 1 || h.free[0].size != DefaultHeapBytes {
		t.Errorf("the heap is not whole again: %d live blocks, free spans %v", len(h.live), h.free)
	}
	res = launchReport(t, heapPTX, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)}, buf(128), scalar(1))
	wantReport(t, res, ruleBadFree, "was freed already")
}

func TestAssertfail(t *testing.T) {
	src := header + `
.extern .func __assertfail (.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 cs);
.global .align 1 .b8 msg[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 func[2] = {107, 0};
.visible .entry k()
{
	.reg .b64 %rd<4>;
	.reg .b32 %r1;
	.reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p, %r1, 3;
	@%p bra DONE;
	cvta.global.u64 %rd1, msg;
	cvta.global.u64 %rd2, file;
	cvta.global.u64 %rd3, func;
	{
	.param .b64 a; .param .b64 b; .param .b32 c; .param .b64 d; .param .b64 e;
	st.param.b64 [a], %rd1;
	st.param.b64 [b], %rd2;
	st.param.b32 [c], 12;
	st.param.b64 [d], %rd3;
	st.param.b64 [e], 1;
	call.uni __assertfail, (a, b, c, d, e);
	}
DONE:
	ret;
}
`
	res := launchReport(t, src, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)})
	wantReport(t, res, "assert", "a.cu:12: k: block: [0,0,0], thread: [3,0,0] Assertion `x > 0` failed.")
}

func TestHeapSize(t *testing.T) {
	p := compile(t, heapPTX)
	mem := NewMemory()
	if mem.SetHeapSize(1<<40) || !mem.SetHeapSize(64<<10) || mem.HeapSize() != 64<<10 {
		t.Fatal("heap size limits")
	}
	out := mem.Alloc("out", 256, 256)
	l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(64, 1, 1)}, Args: []Arg{scalar(out.Base), scalar(0)}}
	if res, err := l.Run(); err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	if len(mem.heap.region.Data) != 64<<10 {
		t.Errorf("heap of %d bytes", len(mem.heap.region.Data))
	}
	if mem.SetHeapSize(1 << 20) {
		t.Error("the heap size changed after a kernel used the heap")
	}
}

// TestHeapPersists: in a memory shared by launches the heap and its live
// blocks outlive a launch, as in a CUDA context: a block one launch
// allocates, a later one frees, and a second free of it is reported.
func TestHeapPersists(t *testing.T) {
	src := header + `
.extern .func (.param .b64 ret) malloc (.param .b64 size);
.extern .func free (.param .b64 p);
.visible .entry k(.param .u64 out, .param .u32 release)
{
	.reg .b32 %r1;
	.reg .b64 %rd<3>;
	.reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [release];
	setp.ne.u32 %p, %r1, 0;
	@%p bra FREE;
	{
	.param .b64 a;
	.param .b64 r;
	st.param.b64 [a], 64;
	call.uni (r), malloc, (a);
	ld.param.b64 %rd2, [r];
	}
	st.global.u64 [%rd1], %rd2;
	ret;
FREE:
	ld.global.u64 %rd2, [%rd1];
	{
	.param .b64 b;
	st.param.b64 [b], %rd2;
	call.uni free, (b);
	}
	ret;
}
`
	p := compile(t, src)
	mem := NewMemory()
	out := mem.Alloc("out", 8, 256)
	run := func(release uint64) *Result {
		l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1)}, Args: []Arg{scalar(out.Base), scalar(release)}}
		res, err := l.Run()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(0); res.Report != nil || len(mem.heap.live) != 1 {
		t.Fatalf("malloc: %v, %d live blocks", res.Report, len(mem.heap.live))
	}
	if a := binary.LittleEndian.Uint64(out.Data); a < heapBase || a >= heapBase+DefaultHeapBytes {
		t.Fatalf("malloc returned %#x, outside the heap", a)
	}
	if res := run(1); res.Report != nil || len(mem.heap.live) != 0 {
		t.Fatalf("free in a later launch: %v, %d live blocks", res.Report, len(mem.heap.live))
	}
	wantReport(t, run(1), ruleBadFree, "was freed already")
	l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1), HeapBytes: 1 << 20}, Args: []Arg{scalar(out.Base), scalar(0)}}
	if _, err := l.Run(); err == nil || !strings.Contains(err.Error(), "SetHeapSize") {
		t.Errorf("Config.HeapBytes with a shared memory: %v, want the launch refused", err)
	}
}

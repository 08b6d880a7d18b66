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

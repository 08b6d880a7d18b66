package emu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// TestArenaAlignedAndZeroed: an arena starts on a huge-page boundary, is a
// whole number of huge pages, and a pooled arena comes back zeroed.
func TestArenaAlignedAndZeroed(t *testing.T) {
	const n = 1<<20 + 5
	a := newArena(n)
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf))); p%hugePageBytes != 0 || len(a.buf) != hugePageBytes {
		t.Fatalf("arena at %#x of %d bytes, want a %d-aligned arena of %d", p, len(a.buf), hugePageBytes, hugePageBytes)
	}
	reused := false
	for range 10 {
		for i := range a.buf {
			a.buf[i] = 0xa5
		}
		old := a
		a.release()
		a = newArena(n)
		if !bytes.Equal(a.buf[:n], make([]byte, n)) {
			t.Fatalf("newArena handed out %d bytes that are not all zero", n)
		}
		reused = reused || a == old
	}
	if !reused {
		t.Error("a released arena was never handed out again")
	}
}

// TestDeviceBytesSmallAndLarge: small allocations are plain slices, large
// ones lie in an arena; both are zero and exactly n bytes long.
func TestDeviceBytesSmallAndLarge(t *testing.T) {
	for _, n := range []int{0, 1, arenaMinBytes - 1, arenaMinBytes, 5 << 20} {
		b, a := deviceBytes(n)
		if len(b) != n || cap(b) != n || (a != nil) != (n >= arenaMinBytes) {
			t.Errorf("deviceBytes(%d): len %d cap %d arena %v", n, len(b), cap(b), a != nil)
		}
		if !bytes.Equal(b, make([]byte, n)) {
			t.Errorf("deviceBytes(%d) is not zero", n)
		}
	}
}

// counterKernel adds one to every word of its buffer and writes to out
// what it read: a launch that reuses memory which is not zero would read
// more than zero.
const counterKernel = header + `
.visible .entry k(.param .u64 p, .param .u64 q)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.local .align 4 .b8 scratch[4096];
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r5, [%rd4];
	mov.u64 %rd5, scratch;
	ld.local.u32 %r6, [%rd5+2044];
	add.u32 %r5, %r5, %r6;
	add.u32 %r7, %r5, 1;
	st.global.u32 [%rd4], %r7;
	st.local.u32 [%rd5+2044], %r7;
	add.s64 %rd6, %rd2, %rd3;
	st.global.u32 [%rd6], %r5;
	ret;
}
`

// TestReleasedMemoryReadsZero: launches that release their memory and
// launch again, several at once, each read zeroed device and local memory
// (the 1 MiB buffers and the 4 KiB per-thread local frames lie in arenas)
// and store exactly their own results. Run it with -race too.
func TestReleasedMemoryReadsZero(t *testing.T) {
	p := compile(t, counterKernel)
	const ctas, block = 1024, 256 // 1 MiB buffers; 256 threads x 4 KiB of local memory a CTA
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				res, err := execute(p, Config{Grid: dims(ctas/64, 1, 1), Block: dims(block, 1, 1), Jobs: 2},
					[]Arg{{IsBuffer: true, Size: 4 * ctas * block}, {IsBuffer: true, Size: 4 * ctas * block, Fill: 0xee}})
				if err != nil || res.Report != nil {
					errs <- fmt.Errorf("launcher %d round %d: %v %v", g, round, err, res.Report)
					return
				}
				got, seen := res.Buffers[0].Data, res.Buffers[1].Data
				n := ctas / 64 * block
				for i := range n {
					if w, s := binary.LittleEndian.Uint32(got[4*i:]), binary.LittleEndian.Uint32(seen[4*i:]); w != 1 || s != 0 {
						errs <- fmt.Errorf("launcher %d round %d: thread %d read %d and stored %d, want 0 and 1", g, round, i, s, w)
						return
					}
				}
				if binary.LittleEndian.Uint32(seen[4*n:]) != 0xeeeeeeee {
					errs <- fmt.Errorf("launcher %d round %d: the word past the threads is %#x, want the fill", g, round, binary.LittleEndian.Uint32(seen[4*n:]))
					return
				}
				if res.Buffers[0].arena == nil {
					errs <- fmt.Errorf("a %d-byte buffer is not in an arena", len(got))
					return
				}
				res.Mem.Release()
				if res.Buffers[0].Data != nil {
					errs <- fmt.Errorf("a released region keeps its bytes")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestWorkerArenaHoldsCTAMemory: a worker whose CTAs' shared and local
// memory is large together carves it from one arena, each CTA's memory of
// the right size and apart from the others'.
func TestWorkerArenaHoldsCTAMemory(t *testing.T) {
	shared, locals, a := ctaMemory(4, 200<<10, 100<<10)
	if a == nil {
		t.Fatal("1.2 MiB of CTA memory is not in an arena")
	}
	for i := range 4 {
		if len(shared[i]) != 200<<10 || cap(shared[i]) != 200<<10 || len(locals[i]) != 100<<10 || cap(locals[i]) != 100<<10 {
			t.Fatalf("CTA %d: shared %d/%d local %d/%d bytes", i, len(shared[i]), cap(shared[i]), len(locals[i]), cap(locals[i]))
		}
		shared[i][0], locals[i][len(locals[i])-1] = byte(i+1), byte(i+1)
	}
	for i := range 4 {
		if shared[i][0] != byte(i+1) || locals[i][len(locals[i])-1] != byte(i+1) {
			t.Fatalf("CTA %d's memory overlaps another's", i)
		}
	}
	shared, locals, a = ctaMemory(2, 1024, 0)
	if a != nil || shared[0] == nil || len(shared[1]) != 1024 || locals[0] != nil {
		t.Errorf("small CTA memory: arena %v, shared %d bytes, local %v", a != nil, len(shared[1]), locals[0])
	}
	if shared, _, _ = ctaMemory(1, 0, 0); shared[0] == nil {
		t.Error("no shared memory gives a nil slice; the CTA's window needs an empty one")
	}
}

package emu

import (
	"sync"
	"unsafe"
)

// Arenas: the memory behind large device allocations and behind the
// shared and local memory of a launch's workers.
//
// Memory the kernel has not yet touched costs a page fault on first use,
// one per 4 KiB page. An arena is placed on a 2 MiB boundary and its
// pages are advised to be huge (adviseHuge: madvise(MADV_HUGEPAGE) on
// Linux, nothing elsewhere), so that where the kernel offers transparent
// huge pages 2 MiB cost one fault, not 512. Arenas are ordinary Go
// memory: the collector frees them when nothing refers to them, so a
// buffer a caller keeps after its launch stays valid.
//
// An arena whose owner knows it is done with it goes back to a pool
// (release) and serves a later launch of the process; arenas are zeroed
// when they are handed out, so a pooled arena reads as fresh memory. The
// pool holds them as a sync.Pool does: the collector may drop them.

const (
	// hugePageBytes is the size and alignment of a transparent huge page
	// on x86-64 and arm64 with 4 KiB base pages.
	hugePageBytes = 2 << 20
	// arenaMinBytes is the smallest allocation given an arena of its own;
	// smaller ones are plain Go slices.
	arenaMinBytes = 1 << 20
)

// arena is memory on a huge-page boundary, a whole number of huge pages.
type arena struct {
	buf []byte
}

// arenaPools holds released arenas by their size in huge pages.
var arenaPools sync.Map // int -> *sync.Pool of *arena

// newArena returns an arena of at least n bytes whose first n bytes are
// zero.
func newArena(n int) *arena {
	pages := (n + hugePageBytes - 1) / hugePageBytes
	if p, ok := arenaPools.Load(pages); ok {
		if a, _ := p.(*sync.Pool).Get().(*arena); a != nil {
			clear(a.buf[:n])
			return a
		}
	}
	size := pages * hugePageBytes
	// Over-allocate by one huge page less one base page and start at the
	// first boundary inside. A fresh large Go allocation is not touched
	// before it is returned, so the advice reaches its pages before they
	// fault.
	raw := make([]byte, size+hugePageBytes)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (hugePageBytes - 1))
	a := &arena{buf: raw[skip : skip+size : skip+size]}
	adviseHuge(a.buf)
	return a
}

// release hands the arena to the pool; its bytes must not be used after.
func (a *arena) release() {
	pages := len(a.buf) / hugePageBytes
	p, ok := arenaPools.Load(pages)
	if !ok {
		p, _ = arenaPools.LoadOrStore(pages, new(sync.Pool))
	}
	p.(*sync.Pool).Put(a)
}

// deviceBytes returns n zeroed bytes for a global allocation, with the
// arena they lie in (nil for a small allocation).
func deviceBytes(n int) ([]byte, *arena) {
	if n < arenaMinBytes {
		return make([]byte, n), nil
	}
	a := newArena(n)
	return a.buf[:n:n], a
}

// ctaMemory returns the shared memory (smem bytes each) and local memory
// (local bytes each) of n CTAs, all zero. When together they are large
// they lie in one arena, returned so that the worker can release it when
// its launch ends; else each is a plain slice and the arena is nil. As
// before arenas, shared memory is never nil and local memory of size zero
// is.
func ctaMemory(n, smem, local int) (shared, locals [][]byte, a *arena) {
	shared, locals = make([][]byte, n), make([][]byte, n)
	var buf []byte
	if total := n * (smem + local); total >= arenaMinBytes {
		a = newArena(total)
		buf = a.buf[:total]
	}
	take := func(k int) []byte {
		switch {
		case k == 0:
			return []byte{}
		case buf == nil:
			return make([]byte, k)
		}
		b := buf[:k:k]
		buf = buf[k:]
		return b
	}
	for i := range n {
		shared[i] = take(smem)
		if local > 0 {
			locals[i] = take(local)
		}
	}
	return shared, locals, a
}

// releaseMemory hands the worker's CTA memory back to the pool once the
// worker has run its last cluster; the worker must not run again.
func (wk *worker) releaseMemory() {
	if wk.arena == nil {
		return
	}
	for _, c := range wk.ctas {
		c.Shared, c.local = nil, nil
	}
	wk.arena.release()
	wk.arena = nil
}

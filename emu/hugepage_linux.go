package emu

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back b's whole huge pages with
// transparent huge pages (madvise(MADV_HUGEPAGE)). Where the kernel
// offers none (transparent_hugepage "never", or a kernel without them)
// the advice fails or is ignored and b keeps base pages: the advice
// changes only how many page faults the first touch costs.
func adviseHuge(b []byte) {
	if len(b) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + hugePageBytes - 1) &^ (hugePageBytes - 1)
	hi := (p + uintptr(len(b))) &^ (hugePageBytes - 1)
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
	}
}

// madvHugepage is MADV_HUGEPAGE (linux/mman.h); package syscall does not
// name it.
const madvHugepage = 14

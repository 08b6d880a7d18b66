package main

import (
	"io"
	"os"
	"syscall"
)

// readSource returns the contents of the PTX file name ("-": stdin) for
// check. A regular file is mapped into memory read-only, with its pages
// populated up front: for a file of tens of MB that costs a few
// milliseconds where reading it into fresh memory costs tens (a page fault
// per 4 KB). The mapping is never unmapped, since diagnostics may keep
// strings that point into it; it lasts until the process exits. Should the
// file shrink while it is read, touching the lost pages faults; readSource's
// callers run under guardFaults, which turns that into an error.
// Anything else (stdin, pipes, empty or oversized files) is read as usual.
//
// The file is opened with the system calls themselves, not os.Open, which
// would set up the runtime's poller for a file that cannot be polled;
// files of up to smallSourceBytes are read, not mapped: for a file of a few
// lines, mapping costs more than the copy.
func readSource(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return readInput(name, stdin)
	}
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size <= 0 || st.Size > maxSourceBytes {
		return readInput(name, stdin)
	}
	if st.Size <= smallSourceBytes {
		if b, ok := readWhole(fd, int(st.Size)); ok {
			return b, nil
		}
		return readInput(name, stdin)
	}
	b, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return readInput(name, stdin)
	}
	return b, nil
}

// smallSourceBytes is the largest file readSource reads rather than maps.
const smallSourceBytes = 16 << 10

// readWhole reads the n bytes of the regular file fd; false when the file
// did not hold exactly n bytes (it changed while being read).
func readWhole(fd, n int) ([]byte, bool) {
	b := make([]byte, n+1) // one more byte, to see that the file did not grow
	got := 0
	for got < len(b) {
		k, err := syscall.Read(fd, b[got:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if k == 0 {
			break
		}
		got += k
	}
	return b[:n], got == n
}

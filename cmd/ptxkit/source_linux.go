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
func readSource(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return readInput(name, stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() > maxSourceBytes {
		return readInput(name, stdin)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return readInput(name, stdin)
	}
	return b, nil
}

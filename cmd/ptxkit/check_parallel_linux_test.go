//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestEachPartForwardsFaults checks that a memory fault on a part's
// goroutine (a mapped file truncated while it is checked) stops the
// parts and is reported by guardFaults on the caller's goroutine as a
// changed file, instead of crashing the process.
func TestEachPartForwardsFaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.ptx")
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 64<<10, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(b)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var failed atomic.Bool
	var sum atomic.Int64
	err = guardFaults(path, func() {
		eachPart(3, &failed, func(k int) {
			if k == 1 {
				sum.Add(int64(b[32<<10])) // faults: the page is gone
			}
		})
	})
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("err = %v, want a changed-file error", err)
	}
	if !failed.Load() {
		t.Fatal("the fault did not stop the other parts")
	}
}

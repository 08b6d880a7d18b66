//go:build linux

package parser_test

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestPipeForwardsFaults checks that a memory fault of the parser's
// goroutine (a mapped source truncated under it) reaches the consumer as
// the panic Next raises, with the faulting address, so that the caller's
// recovery (ptxkit check's guardFaults) reports it.
func TestPipeForwardsFaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.ptx")
	if err := os.WriteFile(path, benchModule(256<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(b)
	st := parser.NewStream("m.ptx", unsafe.String(unsafe.SliceData(b), len(b)), parser.StreamStatements)
	if err := os.Truncate(path, 0); err != nil { // the parser has read nothing yet
		t.Fatal(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	pipe := st.Pipe()
	defer pipe.Close()
	defer func() {
		r := recover()
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			t.Fatalf("Next panicked with %v, want the parser's memory fault", r)
		}
	}()
	for _, ok := pipe.Next(); ok; _, ok = pipe.Next() {
	}
	t.Fatal("the pipe ended without the fault")
}

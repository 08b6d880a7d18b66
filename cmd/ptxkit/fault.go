package main

import (
	"fmt"
	"runtime/debug"
)

// guardFaults runs f, which reads a memory-mapped file, and returns an
// error instead of crashing when the file's pages vanish under it (the
// file was truncated while it was read: a SIGBUS, which
// debug.SetPanicOnFault makes a recoverable panic). Other panics go on.
func guardFaults(name string, f func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if fault, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%s: the file changed while it was read (memory fault at %#x)", name, fault.Addr())
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

package emu

import (
	"testing"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestSystemCallsAreIsas checks that every system call the emulator
// provides is one of ptxas's (PTX ISA §7.3).
func TestSystemCallsAreIsas(t *testing.T) {
	for name := range emuSystemCalls {
		if !isa.IsSystemCall(name) {
			t.Errorf("%s is not a system call of isa", name)
		}
	}
}

// TestSystemCallNotProvided checks that a call of a system call the
// emulator lacks (malloc) is a decode error at the call, and that a
// module's own function named like a system call is called as written.
// Every system call is provided (malloc, free, __assertfail: syscall_heap.go);
// a module's own function of the same name is called instead.
func TestSystemCallsProvided(t *testing.T) {
	const head = ".version 8.0\n.target sm_90\n.address_size 64\n"
	const kernel = ".visible .entry k()\n{\n\t.param .b64 n;\n\t.param .b64 r;\n\tcall.uni (r), malloc, (n);\n\tret;\n}\n"
	m, errs := parser.ParseString("t.ptx", head+".extern .func (.param .b64 r) malloc(.param .b64 n);\n"+kernel)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	p, errs := Decode(m, "")
	if errs.HasErrors() || !p.usesHeap {
		t.Fatalf("call of malloc: %v (uses the heap: %v)", errs.Err(), p != nil && p.usesHeap)
	}
	own := ".visible .func (.param .b64 r) malloc(.param .b64 n)\n{\n\tst.param.b64 [r], 0;\n\tret;\n}\n"
	compile(t, head+own+kernel)
}

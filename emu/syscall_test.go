package emu

import (
	"testing"

	"github.com/ptxkit/ptxkit/isa"
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

// TestSystemCallOrOwnFunction checks that a call of an .extern system call
// (malloc) lowers to the emulator's, and that a module's own function named
// like a system call is called as written.
func TestSystemCallOrOwnFunction(t *testing.T) {
	const head = ".version 8.0\n.target sm_90\n.address_size 64\n"
	const kernel = ".visible .entry k()\n{\n\t.param .b64 n;\n\t.param .b64 r;\n\tcall.uni (r), malloc, (n);\n\tret;\n}\n"
	calls := func(p *Program) (sys, own bool) {
		for _, in := range p.Insts {
			_, sys1 := in.Ext.(*heapCall)
			_, own1 := in.Ext.(*callInfo)
			sys, own = sys || sys1, own || own1
		}
		return
	}
	p := compile(t, head+".extern .func (.param .b64 r) malloc(.param .b64 n);\n"+kernel)
	if sys, own := calls(p); !sys || own || !p.usesHeap {
		t.Errorf("extern malloc: system call %v, own call %v, heap %v", sys, own, p.usesHeap)
	}
	own := ".visible .func (.param .b64 r) malloc(.param .b64 n)\n{\n\tst.param.b64 [r], 0;\n\tret;\n}\n"
	p = compile(t, head+own+kernel)
	if sys, own := calls(p); sys || !own || p.usesHeap {
		t.Errorf("the module's malloc: system call %v, own call %v, heap %v", sys, own, p.usesHeap)
	}
}

package emu

import (
	"strings"
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
func TestSystemCallNotProvided(t *testing.T) {
	const head = ".version 8.0\n.target sm_90\n.address_size 64\n"
	const kernel = ".visible .entry k()\n{\n\t.param .b64 n;\n\t.param .b64 r;\n\tcall.uni (r), malloc, (n);\n\tret;\n}\n"
	m, errs := parser.ParseString("t.ptx", head+".extern .func (.param .b64 r) malloc(.param .b64 n);\n"+kernel)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	_, errs = Decode(m, "")
	if !errs.HasErrors() {
		t.Fatal("call of malloc decoded without an error")
	}
	d := errs[0]
	if d.Pos.Line != 9 || !strings.Contains(d.Message, "malloc is a system call") || !strings.Contains(d.Message, "vprintf") {
		t.Errorf("got %d:%d %s", d.Pos.Line, d.Pos.Col, d.Message)
	}
	own := ".visible .func (.param .b64 r) malloc(.param .b64 n)\n{\n\tst.param.b64 [r], 0;\n\tret;\n}\n"
	compile(t, head+own+kernel)
}

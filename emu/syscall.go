package emu

import (
	"maps"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// System calls (PTX ISA §7.3) are the functions ptxas provides itself
// (isa.IsSystemCall): a module declares them .extern and calls them
// without defining them. The emulator provides those of emuSystemCalls;
// a call of another one is a positioned decode error.

// decodeSysCall lowers a call of a system call, given its return and
// argument lists.
type decodeSysCall func(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error

// emuSystemCalls are the system calls the emulator provides, by name.
var emuSystemCalls = map[string]decodeSysCall{
	"vprintf":      decodeVprintf,    // printf.go
	"malloc":       decodeMalloc,     // heap.go
	"free":         decodeFree,       // heap.go
	"__assertfail": decodeAssertfail, // assert.go

	"cudaGraphSetConditional": decodeGraphSetConditional, // graphcond.go
}

// systemCall returns the name of the system call a call target names: a
// system call (isa.IsSystemCall) the module does not define.
func (d *Decoder) systemCall(e ast.Expr) (string, bool) {
	id, ok := e.(*ast.Ident)
	if !ok || !isa.IsSystemCall(id.Name) {
		return "", false
	}
	f := d.funcOf(id)
	return id.Name, f == nil || f.Body == nil
}

// decodeSystemCall lowers a call of the system call name, or reports that
// the emulator does not provide it.
func (d *Decoder) decodeSystemCall(in *ast.Instruction, out *Inst, name string, rets, args []ast.Expr) error {
	dec := emuSystemCalls[name]
	if dec == nil {
		provided := strings.Join(slices.Sorted(maps.Keys(emuSystemCalls)), ", ")
		return d.Errorf(in, "%s is a system call (PTX ISA 7.3) that the emulator does not provide (it provides %s)", name, provided)
	}
	return dec(d, in, out, rets, args)
}

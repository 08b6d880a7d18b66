package emu

import (
	"encoding/binary"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Device-side assert: nvcc lowers a failing assert() in device code to a
// call of the system call __assertfail(message, file, line, function,
// charSize) (PTX ISA §7.3). On a GPU the thread prints
//
//	FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `MESSAGE` failed.
//
// and the kernel stops: the launch fails with cudaErrorAssert. The
// emulator reports the same text, for the lowest executing lane, as a
// report of rule "assert", which stops the run (ptxkit run exits 3).

const (
	ruleAssert = "assert"
	specAssert = "CUDA C++ Programming Guide, Assertion"
)

// assertInfo holds the frame addresses of __assertfail's .param variables.
type assertInfo struct {
	message, file, line, function uint64
}

func decodeAssertfail(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	if len(args) < 4 || len(args) > 5 || len(rets) != 0 {
		return d.Errorf(in, "__assertfail takes the message, file, line, function and character size and returns nothing")
	}
	var addr [4]uint64
	for i := range addr {
		s, err := d.paramVar(args[i])
		if err != nil {
			return err
		}
		addr[i] = s.addr
	}
	out.Ext = &assertInfo{message: addr[0], file: addr[1], line: addr[2], function: addr[3]}
	out.Exec = execAssertfail
	return nil
}

func execAssertfail(w *Warp, in *Inst) Status {
	ai := in.Ext.(*assertInfo)
	l := lane(w.Exec)
	fr := w.frame(l)
	var text [3][]byte
	for i, a := range []uint64{ai.message, ai.file, ai.function} {
		s, ok := w.cString(l, binary.LittleEndian.Uint64(fr[a:]))
		if !ok {
			return Fault
		}
		text[i] = s
	}
	line := binary.LittleEndian.Uint32(fr[ai.line:])
	id := w.threadID(l)
	return w.Fault(l, ruleAssert, specAssert, "%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.",
		text[1], line, text[2], id.CTA[0], id.CTA[1], id.CTA[2], id.Thread[0], id.Thread[1], id.Thread[2], text[0])
}

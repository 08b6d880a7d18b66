package emu

import (
	"encoding/binary"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// cudaGraphSetConditional(handle, value) sets the condition of a
// conditional graph node from device code (CUDA C++ Programming Guide,
// Conditional Graph Nodes). nvcc declares it .extern and ptxas provides
// it, as it does printf and malloc. A handle is whatever the driver made
// it; ptxkit's driver (internal/cudrv) makes it the global address of a
// 32-bit cell that holds the condition, so the call is a 4-byte store of
// value at handle, one per calling lane in lane order. A handle that
// names no global memory is an out-of-bounds report like any bad store.

// graphCondCall holds the frame addresses of the call's .param variables.
type graphCondCall struct {
	handle, value uint64
}

func decodeGraphSetConditional(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	if len(args) != 2 || len(rets) != 0 {
		return d.Errorf(in, "cudaGraphSetConditional takes the handle and the value and returns nothing")
	}
	h, err := d.paramVar(args[0])
	if err != nil {
		return err
	}
	v, err := d.paramVar(args[1])
	if err != nil {
		return err
	}
	out.Ext = &graphCondCall{handle: h.addr, value: v.addr}
	out.Exec = execGraphSetConditional
	return nil
}

func execGraphSetConditional(w *Warp, in *Inst) Status {
	gc := in.Ext.(*graphCondCall)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		fr := w.frame(l)
		cell := w.global(l, binary.LittleEndian.Uint64(fr[gc.handle:]), 4, true, SpaceGlobal)
		if cell == nil {
			return Fault
		}
		copy(cell, fr[gc.value:gc.value+4])
	}
	return Continue
}

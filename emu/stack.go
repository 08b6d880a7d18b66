package emu

import (
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Stack manipulation (PTX ISA §9.7.16): alloca, stacksave, stackrestore.
// Each thread's stack lies in its local frame after the static variables
// (Program.stackBase); its pointer (Warp.sp, a local-space offset) also
// gives recursive functions their frames (recursion.go). A call records
// the pointer and ret restores it, which frees the callee's frames and
// allocations, as the ABI does on the GPU.

// allocaStackBytes is the stack a thread has for alloca (the GPU's default
// stack is 1 KiB per thread; cudaLimitStackSize raises it).
const allocaStackBytes = 4 << 10

func init() {
	RegisterOpcode("alloca", decodeAlloca)
	RegisterOpcode("stacksave", decodeStacksave)
	RegisterOpcode("stackrestore", decodeStackrestore)
}

// stackPtr returns lane l's stack pointer.
func (w *Warp) stackPtr(l int) int {
	if w.sp[l] == 0 {
		w.sp[l] = int32(w.prog.stackBase)
	}
	return int(w.sp[l])
}

// decodeAlloca lowers alloca.type ptr, size{, immAlign}.
func decodeAlloca(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type != TU32 && out.Type != TU64 || len(in.Operands) < 2 || len(in.Operands) > 3 {
		return d.Errorf(in, "alloca takes .u32 or .u64, ptr, size and an optional alignment")
	}
	out.Imm = 8
	if len(in.Operands) == 3 {
		a, ok := d.constValue(in.Operands[2], TU32)
		if !ok || a == 0 || a&(a-1) != 0 || a > 1<<23 {
			return d.Errorf(in.Operands[2], "alloca alignment must be a constant power of 2 up to 2^23")
		}
		out.Imm = max(a, 8)
	}
	d.prog.usesAlloca = true
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	out.Exec = execAlloca
	out.A, err = d.Src(in.Operands[1], out.Type)
	return err
}

// execAlloca reserves size bytes aligned to the instruction's alignment
// on each lane's stack and returns their local-space address.
func execAlloca(w *Warp, in *Inst) Status {
	align := in.Imm
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		size := w.R[in.A+int32(l)] & in.Type.mask()
		p := (uint64(w.stackPtr(l)) + align - 1) &^ (align - 1)
		if size > uint64(w.prog.localFrame) || p+size > uint64(w.prog.localFrame) {
			return w.Fault(l, ruleCallDepth, "PTX ISA §9.7.16.3 (alloca)", "alloca of %d bytes overflows the thread's %d-byte stack", size, w.prog.localFrame-w.prog.stackBase)
		}
		w.sp[l] = int32(p + size)
		w.R[in.D+int32(l)] = p
	}
	return Continue
}

func decodeStacksave(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "stacksave takes one operand")
	}
	var err error
	out.D, err = d.Dst(in.Operands[0])
	out.Exec = execStacksave
	d.prog.usesAlloca = true
	return err
}

func execStacksave(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		w.R[in.D+int32(l)] = uint64(w.stackPtr(l))
	}
	return Continue
}

func decodeStackrestore(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "stackrestore takes one operand")
	}
	var err error
	out.A, err = d.Src(in.Operands[0], TU64)
	out.Exec = execStackrestore
	d.prog.usesAlloca = true
	return err
}

// execStackrestore sets the stack pointer; a value that is not a stack
// address of the thread is reported (stacksave gives only those).
func execStackrestore(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		v := w.R[in.A+int32(l)]
		if v < uint64(w.prog.stackBase) || v > uint64(w.prog.localFrame) {
			return w.Fault(l, ruleOutOfBounds, "PTX ISA §9.7.16.2 (stackrestore)", "stackrestore to %#x, which is not a stack address of the thread (a value stacksave gave)", v)
		}
		w.sp[l] = int32(v)
	}
	return Continue
}

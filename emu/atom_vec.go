package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Vector atomics (PTX ISA §9.7.13.5, §9.7.13.6, sm_90): atom and red with
// .v2/.v4 (.f32, .f16x2, .bf16x2) or .v2/.v4/.v8 (.f16, .bf16) on global
// memory, for add, min and max. Each element is its own atomic operation
// on consecutive elements of a vector-aligned address.

func init() {
	for _, op := range []string{"atom", "red"} {
		for _, v := range []isa.Qual{isa.QV2, isa.QV4, isa.QV8} {
			RegisterVariant(op, v, decodeAtomVec)
		}
	}
}

func decodeAtomVec(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	op := atomOpOf(q.List)
	t := q.Type()
	okType := t == TF32 && q.Vec <= 4 || (t == TF16x2 || t == TBF16x2) && q.Vec <= 4 || t == TF16 || t == TBF16
	if op != atomAdd && op != atomMin && op != atomMax || !okType || t == TF32 && op != atomAdd {
		return d.Errorf(in, "vector %s takes add (.f32, and the 16-bit float types), min or max (16-bit float types)", in.Opcode)
	}
	ops := in.Operands
	var err error
	if in.Opcode == "atom" {
		if len(ops) < 3 {
			return d.Errorf(in, "atom takes a destination vector, an address and a source vector")
		}
		dst, err := d.Vector(ops[0], t, true)
		if err != nil {
			return err
		}
		if len(dst) != q.Vec {
			return d.Errorf(ops[0], "%s needs %d destination elements", in.FullOpcode(), q.Vec)
		}
		copy(out.V[:], dst)
		ops = ops[1:]
	}
	if len(ops) < 2 {
		return d.Errorf(in, "%s takes an address and a source vector", in.FullOpcode())
	}
	base, off, sp, err := d.Addr(ops[0])
	if err != nil {
		return err
	}
	out.A, out.Off, out.Type, out.Space, out.Vec = base, off, t, memSpace(&q, sp), uint8(q.Vec)
	if out.Space != SpaceGlobal && out.Space != SpaceGeneric {
		return d.Errorf(in, "vector %s works on global memory", in.Opcode)
	}
	src, err := d.Vector(ops[1], t, false)
	if err != nil {
		return err
	}
	if len(src) != q.Vec {
		return d.Errorf(ops[1], "%s needs %d source elements", in.FullOpcode(), q.Vec)
	}
	out.Ext = src
	out.Imm = uint64(op)
	out.storeCnt = int32(t.Size() * q.Vec)
	out.Exec = execAtomVec
	return nil
}

func execAtomVec(w *Warp, in *Inst) Status {
	src := in.Ext.([]int32)
	n, size := int(in.storeCnt), in.Type.Size()
	mu := w.CTA.cluster.atomMu
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		b := w.lockedOperand(mu, in, l, n)
		if b == nil {
			return Fault
		}
		var olds [8]uint64
		for i := range int(in.Vec) {
			e := b[i*size : (i+1)*size]
			olds[i] = getN(e)
			putN(e, atomApply(int(in.Imm), in.Type, olds[i], w.R[src[i]+int32(l)], 0))
		}
		if mu != nil {
			mu.Unlock()
		}
		for i := range int(in.Vec) {
			if in.V[i] >= 0 { // -1 for red and for "_"
				w.R[in.V[i]+int32(l)] = olds[i]
			}
		}
	}
	return Continue
}

// 128-bit atomics (§9.7.13.5, sm_90): atom.exch.b128 and atom.cas.b128 on
// global or shared memory; a .b128 register is two slots (low, high).
func init() {
	RegisterVariant("atom", isa.QB128, decodeAtom128)
}

func decodeAtom128(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	op := atomOpOf(q.List)
	need := 3
	if op == atomCas {
		need = 4
	}
	if op != atomExch && op != atomCas || len(in.Operands) != need {
		return d.Errorf(in, "atom on .b128 takes exch (d, [a], b) or cas (d, [a], b, c)")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	base, off, sp, err := d.Addr(in.Operands[1])
	if err != nil {
		return err
	}
	out.A, out.Off, out.Type, out.Space = base, off, TB128, memSpace(&q, sp)
	if out.Space != SpaceGlobal && out.Space != SpaceShared && out.Space != SpaceSharedCluster && out.Space != SpaceGeneric {
		return d.Errorf(in, "atom on %s memory", out.Space)
	}
	if out.B, err = d.Src(in.Operands[2], TB128); err != nil {
		return err
	}
	if op == atomCas {
		if out.C, err = d.Src(in.Operands[3], TB128); err != nil {
			return err
		}
	}
	out.Imm = uint64(op)
	out.storeCnt = 16
	out.Exec = execAtom128
	return nil
}

// execAtom128 swaps in b (exch), or b's successor c when memory holds b
// (cas), 16 bytes at once; d receives the old value.
func execAtom128(w *Warp, in *Inst) Status {
	mu := w.CTA.cluster.atomMu
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		b := w.lockedOperand(mu, in, int(l), 16)
		if b == nil {
			return Fault
		}
		lo, hi := getN(b[:8]), getN(b[8:])
		newLo, newHi := w.R[in.B+l], w.R[in.B+32+l]
		if in.Imm == atomCas {
			if lo == newLo && hi == newHi {
				newLo, newHi = w.R[in.C+l], w.R[in.C+32+l]
			} else {
				newLo, newHi = lo, hi
			}
		}
		putN(b[:8], newLo)
		putN(b[8:], newHi)
		if mu != nil {
			mu.Unlock()
		}
		if in.D >= 0 {
			w.R[in.D+l], w.R[in.D+32+l] = lo, hi
		}
	}
	return Continue
}

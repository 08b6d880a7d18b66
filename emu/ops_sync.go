package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math/bits"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Warp-synchronous and scheduling instructions: match.any/all.sync
// (§9.7.13.13), elect.sync (§9.7.13.14), nanosleep (§9.7.13.10), and the
// instructions that only tell the hardware about resources or launch
// order: griddepcontrol (§9.7.13.15), setmaxnreg (§9.7.18.2) and pmevent
// (§9.7.19.1). Also the clock registers (%clock, %clock64, %clock_hi,
// %globaltimer*), which advance as the program runs.

func init() {
	RegisterOpcode("match", decodeMatch)
	RegisterOpcode("elect", decodeElect)
	RegisterOpcode("nanosleep", decodeNanosleep)
	for _, op := range []string{"griddepcontrol", "setmaxnreg", "pmevent"} {
		RegisterOpcode(op, decodeNoEffect)
	}
	// cp.async.bulk.prefetch{.tensor}: a hint to fill L2 (the tensor
	// form's map is validated, tma.go).
	RegisterVariant("cp", isa.QPrefetch, decodeBulkPrefetch)
}

// decodeMatch lowers match.any.sync.type d, a, membermask and
// match.all.sync.type d[|p], a, membermask.
func decodeMatch(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type.Size() != 4 && out.Type.Size() != 8 || q.Has(isa.QAny) == q.Has(isa.QAll) || len(in.Operands) != 3 {
		return d.Errorf(in, "match takes .any or .all, .b32 or .b64, and d, a, membermask")
	}
	if q.Has(isa.QAll) {
		out.Flags |= FlagX
	}
	var err error
	if out.D, out.D2, err = d.dstPair(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[2], TB32); err != nil {
		return err
	}
	out.Exec = execMatch
	return nil
}

// execMatch compares a across the lanes of membermask that execute the
// instruction: .any gives each lane the mask of those holding its value,
// .all gives the member mask when all hold the same value and 0 otherwise
// (with the predicate saying which).
func execMatch(w *Warp, in *Inst) Status {
	all := in.Flags&FlagX != 0
	vmask := in.Type.mask()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		members := uint32(w.R[in.B+l]) & w.Exec
		v := w.R[in.A+l] & vmask
		var same uint32
		for x := members; x != 0; x &= x - 1 {
			j := int32(lane(x))
			if w.R[in.A+j]&vmask == v {
				same |= 1 << uint(j)
			}
		}
		if all {
			ok := same == members
			if in.D >= 0 {
				w.R[in.D+l] = uint64(same) * b2u(ok)
			}
			if in.D2 >= 0 {
				w.R[in.D2+l] = b2u(ok)
			}
			continue
		}
		if in.D >= 0 {
			w.R[in.D+l] = uint64(same)
		}
	}
	return Continue
}

// decodeElect lowers elect.sync d|p, membermask (either of d and p may
// be "_").
func decodeElect(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 2 {
		return d.Errorf(in, "elect.sync takes d|p and a member mask")
	}
	var err error
	if out.D, out.D2, err = d.dstPair(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], TB32); err != nil {
		return err
	}
	out.Exec = execElect
	return nil
}

// execElect elects the lowest-numbered lane of the member mask among
// those executing: every lane gets its lane number, and the predicate is
// true in that lane only.
func execElect(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		members := uint32(w.R[in.A+l]) & w.Exec
		leader := int32(bits.TrailingZeros32(members))
		if in.D >= 0 {
			w.R[in.D+l] = uint64(leader) & 0xffffffff
		}
		if in.D2 >= 0 {
			w.R[in.D2+l] = b2u(leader == l)
		}
	}
	return Continue
}

// decodeNanosleep lowers nanosleep.u32 t. The emulator has no clock to
// wait on; the warp gives the others the rest of its quantum, which is
// what a polling loop that sleeps between polls needs to make progress.
func decodeNanosleep(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "nanosleep takes one operand")
	}
	var err error
	if out.A, err = d.Src(in.Operands[0], TU32); err != nil {
		return err
	}
	out.Exec = execNanosleep
	return nil
}

func execNanosleep(w *Warp, in *Inst) Status { return Yield }

// decodeNoEffect lowers instructions without a functional effect in the
// emulator: griddepcontrol (a launch has no dependent grids, and its
// prerequisites completed before it started), setmaxnreg (registers are
// not allocated), pmevent (no performance monitor) and
// cp.async.bulk.prefetch (no cache).
func decodeNoEffect(d *Decoder, in *ast.Instruction, out *Inst) error {
	out.Exec = execNop
	return nil
}

// clockRegs says which part of the 64-bit counter each clock register
// (PTX ISA §10.23, §10.24, §10.28) reads: 1 all of it, 2 the low half, 3
// the high half.
var clockRegs = map[isa.SRegKind]uint8{
	isa.SRegClock64: 1, isa.SRegGlobaltimer: 1, isa.SRegClock: 2, isa.SRegGlobaltimerLo: 2,
	isa.SRegClockHi: 3, isa.SRegGlobaltimerHi: 3,
}

// clockPart returns clockRegs of the special register that the operand r
// names, or 0 when it names no clock register.
func (d *Decoder) clockPart(r *ast.Reg) uint8 {
	if sr, _, _ := d.specialOf(r); sr != nil {
		return clockRegs[sr.Kind]
	}
	return 0
}

// decodeReadClock lowers mov d, %clock*/%globaltimer*.
func decodeReadClock(d *Decoder, r *ast.Reg, dst ast.Expr, out *Inst) error {
	var err error
	if out.D, err = d.Dst(dst); err != nil {
		return err
	}
	out.Imm = uint64(d.clockPart(r))
	out.Exec = execReadClock
	return nil
}

// execReadClock reads a counter that never goes backwards within a warp
// and moves forward with each read and with the instructions the cluster
// has executed, so loops that wait for the clock to pass a value end; its
// values depend only on the program and the schedule, not on the host.
func execReadClock(w *Warp, in *Inst) Status {
	w.ticks++
	v := w.CTA.cluster.steps + w.ticks
	switch in.Imm {
	case 2:
		v &= 0xffffffff
	case 3:
		v >>= 32
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		w.R[in.D+int32(lane(m))] = v
	}
	return Continue
}

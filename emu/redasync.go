package emu

import (
	"fmt"
	"github.com/ptxkit/ptxkit/isa"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// red.async (PTX ISA §9.7.13.7):
//
//	red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], b, [mbar]
//	red.async{.mmio}.release.{gpu,cluster}{.global}.add.{u32,s32,u64,s64} [a], b
//
// The shared form must target a CTA other than the executing one.

var redAsyncOps = map[isa.Qual]uint64{
	isa.QAdd: 1, isa.QMin: 2, isa.QMax: 3, isa.QInc: 4, isa.QDec: 5, isa.QAnd: 6, isa.QOr: 7, isa.QXor: 8,
}

func decodeRedAsync(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type, out.Vec = q.Type(), 1
	if s := out.Type.Size(); s != 4 && s != 8 {
		return d.Errorf(in, "red.async needs a 32- or 64-bit type")
	}
	for _, n := range q.List {
		if op, ok := redAsyncOps[n]; ok {
			out.Imm = op << 8
		}
	}
	if out.Imm == 0 {
		return d.Errorf(in, "red.async needs an operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)")
	}
	release, err := decodeAsyncTarget(d, in, out, &q)
	if err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	if release {
		out.Exec = execRedAsyncRelease
		return nil
	}
	if out.C, out.Imm, err = decodeMbarOperand(d, in.Operands[2], out.Imm); err != nil {
		return err
	}
	out.Exec = execRedAsync
	return nil
}

// reduce applies red.async operation op of type t to old and b.
func reduce(op uint64, t Type, old, b uint64) uint64 {
	m := t.mask()
	old, b = old&m, b&m
	less := func(x, y uint64) bool {
		if t.Signed() {
			return int64(sext(x, t.Bits())) < int64(sext(y, t.Bits()))
		}
		return x < y
	}
	var r uint64
	switch op {
	case 1:
		r = old + b
	case 2:
		r = old
		if less(b, old) {
			r = b
		}
	case 3:
		r = old
		if less(old, b) {
			r = b
		}
	case 4: // inc: old >= b ? 0 : old+1
		r = old + 1
		if old >= b {
			r = 0
		}
	case 5: // dec: old == 0 || old > b ? b : old-1
		r = old - 1
		if old == 0 || old > b {
			r = b
		}
	case 6:
		r = old & b
	case 7:
		r = old | b
	case 8:
		r = old ^ b
	}
	return r & m
}

func execRedAsync(w *Warp, in *Inst) Status {
	n := in.Type.Size()
	op := in.Imm >> 8 & 0xff
	var bar barMemo
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		st, ok := w.asyncTarget(l, in, n, specRedAsync, &bar)
		if !ok {
			return Fault
		}
		if st.dst == w.CTA {
			return w.Fault(l, ruleRedAsyncOwnCTA, specRedAsync, "red.async targets the shared memory of the executing CTA (rank %d); its destination and mbarrier must be in another CTA of the cluster", w.CTA.Rank)
		}
		o := asyncCluster(w.CTA.cluster).newStore(in)
		o.red, o.b = op, w.R[in.B+int32(l)]
		if w.issueAsyncStore(l, o, st) != Continue {
			return Fault
		}
	}
	return Continue
}

// execRedAsyncRelease runs the .release global form as a global atomic
// that lands like st.async.release.
func execRedAsyncRelease(w *Warp, in *Inst) Status {
	n := in.Type.Size()
	op := in.Imm >> 8 & 0xff
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		if in.Space == SpaceGeneric && genericSpace(a) != SpaceGlobal {
			return w.Fault(l, ruleWrongWindow, specRedAsync, "red.async.release address %#x is a generic address outside the .global window", a)
		}
		dst := w.Bytes(l, SpaceGlobal, a, n, true)
		if dst == nil {
			return Fault
		}
		b := w.R[in.B+int32(l)]
		land := func(c *Cluster) *Report {
			if c.atomMu != nil {
				c.atomMu.Lock()
				defer c.atomMu.Unlock()
			}
			putN(dst, reduce(op, in.Type, getN(dst), b))
			return nil
		}
		if w.CTA.cluster.cfg.Async != AsyncRandom {
			land(w.CTA.cluster)
			continue
		}
		cs := asyncCluster(w.CTA.cluster)
		id := cs.tracker.Issue(w.siteOp(l, in.Opcode, asyncgroup.Range{}, asyncgroup.Range{}))
		cs.tracker.Observe(id)
		if w.issue(l, id, "red.async.release", int(n), landFunc(land), func() string { return fmt.Sprintf("%d-byte reduction at global %#x", n, a) }) != Continue {
			return Fault
		}
	}
	return Continue
}

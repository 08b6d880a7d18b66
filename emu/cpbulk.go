package emu

import (
	"fmt"
	"github.com/ptxkit/ptxkit/isa"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Bulk copies (PTX ISA §9.7.9.25.4.1): size bytes, a multiple of 16, between
// 16-byte aligned addresses. Copies into shared memory complete through
// complete-tx on an mbarrier in the destination CTA; copies to global
// memory through bulk async-groups.

// bulkEnd is one side of a bulk copy resolved for lane l.
type bulkEnd struct {
	cta   *CTA   // shared side: its CTA
	off   uint32 // shared side: offset
	bytes []byte // the bytes themselves
	rng   asyncgroup.Range
}

func decodeBulkCopy(d *Decoder, in *ast.Instruction, q Quals, out *Inst) error {
	var spaces []Space
	for _, n := range q.List {
		if sp, ok := spaceOf(n); ok {
			spaces = append(spaces, sp)
		}
	}
	if len(spaces) != 2 {
		return d.Errorf(in, "%s needs a destination and a source state space", in.FullOpcode())
	}
	out.Space = spaces[0]
	out.Imm |= uint64(spaces[1]) << 8 // source space
	mbar := q.Has(isa.QCompleteTx)
	switch {
	case mbar && (out.Space == SpaceSharedCluster || out.Space == SpaceShared) && (spaces[1] == SpaceGlobal || spaces[1] == SpaceShared):
		out.Imm |= cpMbarrier
	case !mbar && q.Has(isa.QBulk_Group) && out.Space == SpaceGlobal && spaces[1] == SpaceShared:
	default:
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	if q.List[0] == isa.QReduce {
		if err := decodeBulkReduce(d, in, q, out); err != nil {
			return err
		}
	}
	ops := in.Operands
	if len(ops) < 3 {
		return d.Errorf(in, "%s takes [dst], [src], size ...", in.FullOpcode())
	}
	var err error
	if out.A, out.Off, _, err = d.Addr(ops[0]); err != nil {
		return err
	}
	var srcOff int64
	if out.B, srcOff, _, err = d.Addr(ops[1]); err != nil {
		return err
	}
	out.V[0] = d.Const(uint64(srcOff)) // the source displacement, added per lane
	if out.D2, err = d.Src(ops[2], TU32); err != nil {
		return err
	}
	if out.Imm&cpMbarrier != 0 {
		if len(ops) < 4 {
			return d.Errorf(in, "%s needs an [mbar] operand", in.FullOpcode())
		}
		if out.C, out.Imm, err = decodeMbarOperand(d, ops[3], out.Imm); err != nil {
			return err
		}
	}
	out.Exec = execBulkCopy
	return nil
}

// bulkShared resolves the shared side of a bulk copy; own requires the
// executing CTA.
func (w *Warp) bulkShared(l int, a uint64, n int, own, write bool) (bulkEnd, bool) {
	if genericSpace(a) == SpaceSharedCluster {
		a -= sharedWindow
	}
	c, off, ok := w.SharedTarget(l, a, n, own, write)
	if !ok {
		return bulkEnd{}, false
	}
	g := sharedGeneric(c, off)
	return bulkEnd{cta: c, off: off, bytes: c.Shared[off : off+uint32(n)], rng: asyncgroup.Range{Lo: g, Hi: g + uint64(n)}}, true
}

func (w *Warp) bulkEnds(l int, in *Inst, dstA, srcA uint64, n int) (dst, src bulkEnd, ok bool) {
	srcSpace := Space(in.Imm >> 8 & 0xff)
	if srcSpace == SpaceGlobal {
		b := w.asyncGlobalBytes(l, srcA, n, 16, false)
		src, ok = bulkEnd{bytes: b, rng: asyncgroup.Range{Lo: srcA, Hi: srcA + uint64(n)}}, b != nil
	} else {
		src, ok = w.bulkShared(l, srcA, n, true, false)
	}
	if !ok {
		return
	}
	if in.Space == SpaceGlobal {
		b := w.asyncGlobalBytes(l, dstA, n, 16, true)
		return bulkEnd{bytes: b, rng: asyncgroup.Range{Lo: dstA, Hi: dstA + uint64(n)}}, src, b != nil
	}
	dst, ok = w.bulkShared(l, dstA, n, in.Space == SpaceShared, true)
	return dst, src, ok
}

func execBulkCopy(w *Warp, in *Inst) Status {
	cs := asyncCluster(w.CTA.cluster)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		n := w.R[in.D2+int32(l)] & 0xffffffff
		dstA := w.R[in.A+int32(l)] + uint64(in.Off)
		srcA := w.R[in.B+int32(l)] + w.R[in.V[0]+int32(l)]
		if n%16 != 0 || n == 0 {
			return w.Fault(l, ruleBulkSize, specBulk, "%s of %d bytes: the size must be a non-zero multiple of 16", in.Opcode, n)
		}
		if dstA%16 != 0 || srcA%16 != 0 {
			return w.Fault(l, ruleMisaligned, specBulk, "%s from %#x to %#x: both addresses must be 16-byte aligned", in.Opcode, srcA, dstA)
		}
		dst, src, ok := w.bulkEnds(l, in, dstA, srcA, int(n))
		if !ok {
			return Fault
		}
		for _, c := range []*CTA{dst.cta, src.cta} {
			if c != nil {
				asyncCTA(c) // watch the shared memory the copy uses
			}
		}
		id := cs.tracker.Issue(w.siteOp(l, in.Opcode, dst.rng, src.rng))
		var snap []byte
		if src.cta == nil { // global source: also compare at landing, for writes outside the cluster
			snap = append([]byte(nil), src.bytes...)
		}
		redOp := in.Imm >> 16 & 0xff
		if redOp != 0 && n%uint64(in.Type.Size()) != 0 {
			return w.Fault(l, ruleBulkSize, specBulk, "%s of %d bytes is not a whole number of %s elements", in.Opcode, n, in.Type)
		}
		land := func(c *Cluster) *Report {
			if snap != nil {
				if r := cs.sourceChanged(c, id, src.bytes, snap); r != nil {
					return r
				}
			}
			if redOp != 0 {
				if dst.cta == nil && c.atomMu != nil { // global: other clusters may reduce concurrently
					c.atomMu.Lock()
					defer c.atomMu.Unlock()
				}
				reduceBytes(redOp, in.Type, dst.bytes, src.bytes)
				cs.tracker.Land(id)
				return nil
			}
			copy(dst.bytes, src.bytes)
			cs.tracker.Land(id)
			return nil
		}
		detail := func() string { return fmt.Sprintf("%d bytes from %#x to %#x", n, srcA, dstA) }
		if in.Imm&cpMbarrier != 0 {
			bar, boff, ok := w.bulkBarrier(l, in, dst)
			if !ok {
				return Fault
			}
			cs.willSignal(id, asyncgroup.BarrierRef{CTA: bar.Rank, Addr: uint64(boff)})
			copyOnly := land
			land = func(c *Cluster) *Report {
				if dst.cta.exited {
					return cs.landReport(c, id, ruleRemoteExited, specDSMEM, fmt.Sprintf("bulk copy lands in the shared memory of CTA rank %d, which has exited", dst.cta.Rank))
				}
				if r := copyOnly(c); r != nil {
					return r
				}
				return cs.completeTx(c, id, "cp.async.bulk", bar, boff, uint32(n))
			}
			copyDetail := detail
			detail = func() string {
				return copyDetail() + fmt.Sprintf(", complete-tx on the mbarrier at %#x of CTA rank %d", boff, bar.Rank)
			}
		} else {
			t := asyncCTA(w.CTA).thread(w, l)
			t.Add(asyncgroup.Bulk, id)
			t.last = w.prog.Insts[w.pc].Pos
		}
		kind := "cp.async.bulk"
		if redOp != 0 {
			kind = "cp.reduce.async.bulk"
		}
		if w.issue(l, id, kind, int(n), landFunc(land), detail) != Continue {
			return Fault
		}
	}
	return Continue
}

// bulkBarrier resolves the mbarrier of a bulk copy into shared memory: it
// must be in the destination's CTA.
func (w *Warp) bulkBarrier(l int, in *Inst, dst bulkEnd) (*CTA, uint32, bool) {
	a := w.mbarAddr(l, in)
	if genericSpace(a) == SpaceSharedCluster {
		a -= sharedWindow
	}
	if a%8 != 0 {
		w.Fault(l, "mbarrier-align", specBulk, "%s mbarrier address %#x is not 8-byte aligned", in.Opcode, a)
		return nil, 0, false
	}
	bar, off, ok := w.SharedTarget(l, a, 8, false, true)
	if !ok {
		return nil, 0, false
	}
	if bar != dst.cta {
		w.Fault(l, ruleAsyncSameCTA, specBulk, "%s writes the shared memory of CTA rank %d but signals the mbarrier of CTA rank %d; both must be in the same CTA", in.Opcode, dst.cta.Rank, bar.Rank)
		return nil, 0, false
	}
	return bar, off, true
}

// decodeBulkReduce reads the operation and type of cp.reduce.async.bulk
// (§9.7.9.25.4.2) into Imm bits 16..23 and Type. Integer operations and
// .add of .f32/.f64 are emulated.
func decodeBulkReduce(d *Decoder, in *ast.Instruction, q Quals, out *Inst) error {
	for _, n := range q.List {
		if op, ok := redAsyncOps[n]; ok {
			out.Imm |= op << 16
		}
	}
	out.Type = q.Type()
	switch {
	case out.Imm>>16&0xff == 0:
		return d.Errorf(in, "%s needs a reduction operation", in.FullOpcode())
	case out.Type == TF32 || out.Type == TF64:
		if out.Imm>>16&0xff != 1 {
			return d.Errorf(in, "the emulator implements only .add for floating-point %s", in.FullOpcode())
		}
	case out.Type.Float() || (out.Type.Size() != 4 && out.Type.Size() != 8):
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	return nil
}

// reduceBytes applies reduction op of element type t to dst, element by
// element, with the values of src.
func reduceBytes(op uint64, t Type, dst, src []byte) {
	n := t.Size()
	for i := 0; i+n <= len(dst) && i+n <= len(src); i += n {
		d, s := dst[i:i+n], src[i:i+n]
		switch t {
		case TF32:
			putN(d, addF32Bits(getN(d), getN(s)))
		case TF64:
			putN(d, addF64Bits(getN(d), getN(s)))
		default:
			putN(d, reduce(op, t, getN(d), getN(s)))
		}
	}
}

package emu

import (
	"bytes"
	"fmt"
	"github.com/ptxkit/ptxkit/isa"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Asynchronous copies and their completion mechanisms:
//
//	cp.async.{ca,cg}.shared{::cta}.global{...} [dst], [src], cp-size{, src-size | ignore-src}{, policy}   §9.7.9.25.3.1
//	cp.async.commit_group / cp.async.wait_group N / cp.async.wait_all                                    §9.7.9.25.3.2-3
//	cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [mbar]                                          §9.7.13.15.15
//	cp.async.bulk.shared::{cluster,cta}.{global,shared::cta}.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
//	cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size                                      §9.7.9.25.4.1
//	cp.reduce.async.bulk.{dst}.{src}.{completion}.op.type [dst], [src], size                           §9.7.9.25.4.2
//	cp.async.bulk.commit_group / cp.async.bulk.wait_group{.read} N                                       §9.7.9.27.2
//
// Sources are read when the copy lands; every copy lands no later than the
// wait or mbarrier phase that observes it.

func init() { RegisterOpcode("cp", decodeCp) }

const (
	specCpAsync       = "PTX ISA §9.7.9.25.3.1 (cp.async)"
	specCpAsyncArrive = "PTX ISA §9.7.13.15.15 (cp.async.mbarrier.arrive)"
)

// cp Inst.Imm flags.
const (
	cpIgnoreSrc  = 1 << iota // 4th operand is the ignore-src predicate
	cpHasSrcSize             // 4th operand is src-size
	cpBulk                   // bulk group (wait/commit) or bulk copy
	cpRead                   // .read
	cpNoinc                  // .noinc
	cpMbarrier               // bulk copy completes through an mbarrier
)

func decodeCp(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.List) > 0 && q.Has(isa.QTensor) && !q.Has(isa.QPrefetch) {
		return decodeTensorCopy(d, in, q, out)
	}
	if len(q.List) > 0 && q.List[0] == isa.QReduce && q.Has(isa.QAsync) && q.Has(isa.QBulk) {
		out.Imm |= cpBulk
		return decodeBulkCopy(d, in, q, out)
	}
	if len(q.List) == 0 || q.List[0] != isa.QAsync {
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	if q.Has(isa.QBulk) {
		out.Imm |= cpBulk
	}
	switch {
	case q.Has(isa.QCommit_Group):
		out.Exec = execCpCommit
		return nil
	case q.Has(isa.QWait_Group), q.Has(isa.QWait_All):
		return decodeCpWait(d, in, q, out)
	case q.Has(isa.QMbarrier) && q.Has(isa.QArrive):
		return decodeCpArrive(d, in, q, out)
	case q.Has(isa.QPrefetch), q.Has(isa.QMulticast_Cluster):
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	case out.Imm&cpBulk != 0:
		return decodeBulkCopy(d, in, q, out)
	}
	return decodeCpAsync(d, in, out)
}

func decodeCpWait(d *Decoder, in *ast.Instruction, q Quals, out *Inst) error {
	if q.Has(isa.QRead) {
		out.Imm |= cpRead
	}
	out.Exec = execCpWait
	if q.Has(isa.QWait_All) {
		out.Imm |= 1 << 32 // commit first
		return nil
	}
	if len(in.Operands) != 1 {
		return d.Errorf(in, "%s takes one constant operand", in.FullOpcode())
	}
	n, ok := d.constValue(in.Operands[0], TU32)
	if !ok {
		return d.Errorf(in.Operands[0], "the group count of %s must be a constant", in.FullOpcode())
	}
	out.Imm |= (n & 0xffff) << 16
	return nil
}

func decodeCpArrive(d *Decoder, in *ast.Instruction, q Quals, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "%s takes one operand", in.FullOpcode())
	}
	if q.Has(isa.QNoinc) {
		out.Imm |= cpNoinc
	}
	base, off, sp, err := d.Addr(in.Operands[0])
	if err != nil {
		return err
	}
	out.A, out.Off, out.Space = base, off, memSpace(&q, sp)
	out.Exec = execCpArrive
	return nil
}

func decodeCpAsync(d *Decoder, in *ast.Instruction, out *Inst) error {
	ops := in.Operands
	if len(ops) < 3 || len(ops) > 5 {
		return d.Errorf(in, "cp.async takes [dst], [src], cp-size and optional src-size or ignore-src and cache policy")
	}
	var err error
	if out.A, out.Off, _, err = d.Addr(ops[0]); err != nil {
		return err
	}
	var srcOff int64
	if out.B, srcOff, _, err = d.Addr(ops[1]); err != nil {
		return err
	}
	size, ok := d.constValue(ops[2], TU32)
	if !ok || (size != 4 && size != 8 && size != 16) {
		return d.Errorf(ops[2], "cp.async copy size must be the constant 4, 8 or 16")
	}
	if q := d.quals(); q.Has(isa.QCg) && size != 16 {
		return d.Errorf(ops[2], "cp.async.cg copies 16 bytes")
	}
	out.Imm |= size<<8 | uint64(uint32(int32(srcOff)))<<32
	if len(ops) >= 4 {
		if r, isReg := ops[3].(*ast.Reg); isReg {
			if _, t, err := d.regSlot(r); err == nil && t == TPred {
				out.Imm |= cpIgnoreSrc
			} else {
				out.Imm |= cpHasSrcSize
			}
		} else {
			out.Imm |= cpHasSrcSize
		}
		if out.C, err = d.Src(ops[3], TU32); err != nil {
			return err
		}
	}
	out.Space = SpaceShared
	out.Exec = execCpAsync
	return nil
}

func execCpAsync(w *Warp, in *Inst) Status {
	size := int(in.Imm >> 8 & 0xff)
	srcOff := int64(int32(uint32(in.Imm >> 32)))
	cs := asyncCluster(w.CTA.cluster)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		srcSize := size
		switch {
		case in.Imm&cpIgnoreSrc != 0 && w.R[in.C+int32(l)]&1 != 0:
			srcSize = 0
		case in.Imm&cpHasSrcSize != 0:
			if v := w.R[in.C+int32(l)] & 0xffffffff; v < uint64(size) {
				srcSize = int(v)
			}
		}
		dstA := w.R[in.A+int32(l)] + uint64(in.Off)
		srcA := w.R[in.B+int32(l)] + uint64(srcOff)
		if dstA%uint64(size) != 0 || srcA%uint64(size) != 0 {
			return w.Fault(l, ruleMisaligned, specCpAsync, "cp.async of %d bytes from %#x to shared %#x: both addresses must be multiples of %d", size, srcA, dstA, size)
		}
		if genericSpace(dstA) == SpaceSharedCluster {
			dstA -= sharedWindow
		}
		dst, doff, ok := w.SharedTarget(l, dstA, size, true, true)
		if !ok {
			return Fault
		}
		var src []byte
		if srcSize > 0 {
			if src = w.asyncGlobalBytes(l, srcA, srcSize, size, false); src == nil {
				return Fault
			}
		}
		g := sharedGeneric(dst, doff)
		id := cs.tracker.Issue(w.siteOp(l, "cp.async",
			asyncgroup.Range{Lo: g, Hi: g + uint64(size)}, asyncgroup.Range{Lo: srcA, Hi: srcA + uint64(srcSize)}))
		t := asyncCTA(w.CTA).thread(w, l)
		t.Add(asyncgroup.NonBulk, id)
		t.last = w.prog.Insts[w.pc].Pos
		if w.issue(l, id, "cp.async", int(size), cs.newCopy(id, dst.Shared[doff:doff+uint32(size)], src), func() string {
			return fmt.Sprintf("%d bytes (%d from global %#x) to shared offset %#x", size, srcSize, srcA, doff)
		}) != Continue {
			return Fault
		}
	}
	return Continue
}

// cpAsyncOp is a queued cp.async: its destination, its source and the
// source's bytes at issue.
type cpAsyncOp struct {
	cs       *clusterAsync
	id       asyncgroup.OpID
	dst, src []byte
	snap     [16]byte
}

func (cs *clusterAsync) newCopy(id asyncgroup.OpID, dst, src []byte) *cpAsyncOp {
	var o *cpAsyncOp
	if n := len(cs.spareCopies); n > 0 {
		o = cs.spareCopies[n-1]
		cs.spareCopies = cs.spareCopies[:n-1]
	} else {
		o = &cpAsyncOp{cs: cs}
	}
	o.id, o.dst, o.src = id, dst, src
	copy(o.snap[:], src)
	return o
}

// land copies the source, zero-filling the bytes past src-size.
func (o *cpAsyncOp) land(c *Cluster) *Report {
	if r := o.cs.sourceChanged(c, o.id, o.src, o.snap[:len(o.src)]); r != nil {
		return r
	}
	n := copy(o.dst, o.src)
	clear(o.dst[n:])
	o.cs.tracker.Land(o.id)
	return nil
}

func (o *cpAsyncOp) recycle() {
	o.dst, o.src = nil, nil
	o.cs.spareCopies = append(o.cs.spareCopies, o)
}

// sourceChanged reports a global source that changed between the issue
// of operation id and its landing. Writes by threads of the issuing
// cluster are reported when they happen (asyncglobal.go); this also
// catches a write by a cluster running in parallel (--jobs) when the copy
// lands after it, which depends on timing.
func (cs *clusterAsync) sourceChanged(c *Cluster, id asyncgroup.OpID, src, snap []byte) *Report {
	if bytes.Equal(src, snap) {
		return nil
	}
	return cs.landReport(c, id, "async-write-source", "PTX ISA §9.7.9.25.1 (completion mechanisms for asynchronous copy operations)",
		"the global source of an asynchronous copy was modified before a wait observed its completion")
}

// groupKind returns the async-group family of a commit or wait.
func groupKind(in *Inst) asyncgroup.Kind {
	if in.Imm&cpBulk != 0 {
		return asyncgroup.Bulk
	}
	return asyncgroup.NonBulk
}

func execCpCommit(w *Warp, in *Inst) Status {
	s := asyncCTA(w.CTA)
	for m := w.Exec; m != 0; m &= m - 1 {
		t := s.thread(w, lane(m))
		t.Commit(groupKind(in))
		t.last = w.prog.Insts[w.pc].Pos
	}
	return Continue
}

// execCpWait runs cp.async.wait_group / wait_all and
// cp.async.bulk.wait_group{.read}: the operations of every group but the
// N most recent land now, and their completion is observed. .read only
// releases their sources: destinations stay guarded until a full wait.
func execCpWait(w *Warp, in *Inst) Status {
	s := asyncCTA(w.CTA)
	cl := w.CTA.cluster
	cs := asyncCluster(cl)
	kind := groupKind(in)
	n := int(in.Imm >> 16 & 0xffff)
	for m := w.Exec; m != 0; m &= m - 1 {
		t := s.thread(w, lane(m))
		if in.Imm&(1<<32) != 0 {
			t.Commit(kind)
		}
		ids := t.Retire(kind, n)
		if r := cl.landOps(ids); r != nil {
			cl.fail(r)
			return Fault
		}
		for _, id := range ids {
			if in.Imm&cpRead != 0 {
				cs.tracker.FreeSource(id)
			} else {
				cs.observe(cl, id)
			}
			if cl.race != nil {
				cl.race.Observed(w.raceThread(lane(m)), uint64(id))
			}
		}
	}
	return Continue
}

// execCpArrive runs cp.async.mbarrier.arrive{.noinc}: without .noinc the
// pending count grows by one now; an arrive-on follows once every earlier
// cp.async of the thread has landed.
func execCpArrive(w *Warp, in *Inst) Status {
	s := asyncCTA(w.CTA)
	cs := asyncCluster(w.CTA.cluster)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		c, off, ok := w.barrierAt(l, in, true)
		if !ok {
			return Fault
		}
		tab := asyncCTA(c).bars
		if in.Imm&cpNoinc == 0 {
			r, err := tab.Increment(uint64(off), loadWord(c, off))
			if err != nil {
				return w.mbFault(l, in, c, err)
			}
			storeWord(c, off, r.Word)
		}
		t := s.thread(w, l)
		prior := t.Prior(asyncgroup.NonBulk)
		t.TrackUncommitted()
		id := cs.tracker.Issue(w.siteOp(l, "cp.async.mbarrier.arrive", asyncgroup.Range{}, asyncgroup.Range{}))
		cs.willSignal(id, asyncgroup.BarrierRef{CTA: c.Rank, Addr: uint64(off)})
		land := landFunc(func(cl *Cluster) *Report {
			if r := cl.landOps(prior); r != nil {
				return r
			}
			phase, _ := tab.Phases(uint64(off))
			r, err := tab.Arrive(uint64(off), loadWord(c, off), 1, false)
			if err != nil {
				return cs.landReport(cl, id, "mbarrier-count-range", specCpAsyncArrive, err.Error())
			}
			storeWord(c, off, r.Word)
			cl.raceSignal(id, c, off, phase)
			ref := asyncgroup.BarrierRef{CTA: c.Rank, Addr: uint64(off)}
			for _, p := range append(prior, id) {
				cs.tracker.Signal(p, ref, phase)
			}
			return nil
		})
		if w.issue(l, id, "cp.async.mbarrier.arrive", 0, land, func() string { return fmt.Sprintf("arrive on the mbarrier at %#x after %d cp.async", off, len(prior)) }) != Continue {
			return Fault
		}
	}
	return Continue
}

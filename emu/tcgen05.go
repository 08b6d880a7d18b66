package emu

// This file implements the tcgen05 instructions that move data between
// registers and Tensor Memory and manage it (PTX ISA §9.7.16): alloc,
// dealloc, relinquish_alloc_permit, st, ld, wait::st, wait::ld, the two
// thread-sync fences and commit. The Tensor Memory itself, its allocator
// and the register layouts are in package emu/tmem.

import (
	"encoding/binary"
	"fmt"
	"github.com/ptxkit/ptxkit/isa"
	"math/bits"
	"sync"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Sanitizer rules of the tcgen05 handlers beyond those of package tmem.
const (
	// ruleTcgen05Aligned: a .sync.aligned tcgen05 instruction executed by
	// a warp whose threads do not all execute it together (divergence, a
	// non-uniform guard, an exited thread; tcgen05.st/ld in a partial warp).
	ruleTcgen05Aligned = "tcgen05-sync-aligned"
	// ruleTcgen05Uniform: threads of the warp passed different nCols or
	// addresses where the instruction requires one value.
	ruleTcgen05Uniform = "tcgen05-nonuniform-operand"
	// ruleTcgen05Pair: a .cta_group::2 instruction without a peer CTA.
	ruleTcgen05Pair = "tcgen05-cta-pair"
)

const (
	specTcAligned = "PTX ISA §9.7.16.8.4 (tcgen05.st: mandatory .sync and .aligned; undefined if any thread of the warp exited)"
	specTcAlloc   = "PTX ISA §9.7.16.7.1 (tcgen05.alloc, tcgen05.dealloc)"
	specTcPair    = "PTX ISA §9.7.16.5.1 (peer CTAs of a .cta_group::2 pair differ in bit 0 of %cluster_ctarank)"
)

// tcOp selects a tcgen05 handler.
type tcOp uint8

const (
	tcAlloc tcOp = iota
	tcDealloc
	tcRelinquish
	tcSt
	tcLd
	tcWaitSt
	tcWaitLd
	tcFence
	tcCommit
)

// tcInst is the decoded form of a tcgen05 instruction (Inst.Ext).
type tcInst struct {
	op        tcOp
	group     tmem.CTAGroup
	form      tmem.Form
	regs      []int32 // st sources, ld destinations (slot bases)
	multicast bool    // tcgen05.commit.multicast::cluster
}

// tmemKey holds each CTA's *ctaTMEM.
var tmemKey = NewCTAKey(func(c *CTA) any { return &ctaTMEM{cta: c} })

// clusterTCKey holds each cluster's *clusterTC.
var clusterTCKey = NewClusterKey(func(*Cluster) any { return &clusterTC{pairs: map[int]*pairAlloc{}} })

// ctaTMEM is a CTA's Tensor Memory, created by its first tcgen05
// instruction (most CTAs never use one).
type ctaTMEM struct {
	cta      *CTA
	mem      *tmem.Memory
	captured bool // mem belongs to a --dump-tmem request and is not recycled
	scratch  [32][]uint32
	inflight map[int][]tcPending // by warp: tcgen05.st and tcgen05.mma issued, maybe not landed
	mmaQueue []*tcQueued         // tcgen05.mma and tcgen05.cp issued and not landed, in issue order
	allocPos map[int]token.Pos   // by column: the tcgen05.alloc of each live allocation
	// partnerOps are .cta_group::2 MMAs the peer CTA issued that write
	// this CTA's Tensor Memory (tcgen05_pair.go).
	partnerOps []*tcQueued
	// collectors are the MMA collector buffers (tcgen05_collector.go).
	collectors tcCollectors
}

// tcPending is an asynchronous tcgen05 operation a later tcgen05.commit
// of the same warp tracks: a tcgen05.st (*tmem.PendingStore) or a
// tcgen05.mma or tcgen05.cp (*tcQueued).
type tcPending interface {
	Land()
	Landed() bool
}

// track remembers ps as in flight for warp, dropping landed operations.
func (t *ctaTMEM) track(warp int, ps tcPending) {
	if t.inflight == nil {
		t.inflight = map[int][]tcPending{}
	}
	list := t.inflight[warp][:0]
	for _, p := range t.inflight[warp] {
		if !p.Landed() {
			list = append(list, p)
		}
	}
	t.inflight[warp] = append(list, ps)
}

// pendingOf returns a copy of warp's in-flight operations.
func (t *ctaTMEM) pendingOf(warp int) []tcPending {
	return append([]tcPending(nil), t.inflight[warp]...)
}

// tmemPool recycles the Tensor Memories of exited CTAs: New allocates
// 264 KiB, Reset clears only what a CTA used.
var tmemPool = sync.Pool{New: func() any { return tmem.New() }}

func (t *ctaTMEM) memory() *tmem.Memory {
	if t.mem == nil {
		t.mem = tmemPool.Get().(*tmem.Memory)
		if t.captured = captureTMEM(t.cta, t.mem); t.captured {
			t.mem.TrackWriters()
		}
	}
	return t.mem
}

// regs returns 32 scratch vectors of n registers.
func (t *ctaTMEM) regs(n int) [][]uint32 {
	for i := range t.scratch {
		if cap(t.scratch[i]) < n {
			t.scratch[i] = make([]uint32, tmem.MaxRegs)
		}
		t.scratch[i] = t.scratch[i][:n]
	}
	return t.scratch[:]
}

// clusterTC is per-cluster tcgen05 state: the .cta_group in use and the
// pending halves of .cta_group::2 allocations.
type clusterTC struct {
	group tmem.CTAGroup
	pairs map[int]*pairAlloc // by pair index (rank >> 1)
}

// pairAlloc is a .cta_group::2 tcgen05.alloc that one CTA of a pair has
// issued and its peer has not yet matched.
type pairAlloc struct {
	rank  int // CTA that issued first
	nCols int
	done  bool // allocated; the first CTA's warp has not yet picked it up
	addr  tmem.Addr
}

func init() {
	RegisterOpcode("tcgen05", decodeTcgen05)
	OnCTAExit(tmemExit)
}

// ctaTensorMemory returns c's Tensor Memory, or nil when no tcgen05
// instruction of c has run.
func ctaTensorMemory(c *CTA) *tmem.Memory {
	if k := int(tmemKey); k < len(c.ext) {
		if t, ok := c.ext[k].(*ctaTMEM); ok {
			return t.mem
		}
	}
	return nil
}

// tmemExit reports Tensor Memory still allocated when a CTA exits
// (§9.7.16.7.1) and otherwise recycles the CTA's Tensor Memory, unless a
// dump request holds it.
func tmemExit(c *CTA) *Report {
	t, ok := c.ext[tmemKey].(*ctaTMEM)
	if !ok || t.mem == nil {
		return nil
	}
	if n := len(t.mmaQueue); n > 0 { // land them here, not in a recycled Tensor Memory
		t.mmaQueue[n-1].Land()
	}
	for _, op := range t.partnerOps {
		op.Land()
	}
	t.partnerOps = nil
	m := t.mem
	var r *Report
	if err := m.Alloc.CheckExit(); err != nil {
		te := err.(*tmem.Error)
		r = &Report{Rule: string(te.Rule), Message: fmt.Sprintf("CTA (%d,%d,%d): %s", c.ID[0], c.ID[1], c.ID[2], te.Message),
			File: c.cluster.prog.File, Spec: te.Spec, Opcode: "tcgen05.alloc"}
		if live := m.Alloc.Live(); len(live) > 0 {
			r.Pos = t.allocPos[live[0].Column]
		}
	}
	if !t.captured && r == nil {
		t.mem = nil
		m.Reset()
		tmemPool.Put(m)
	}
	return r
}

// decodeTcgen05 lowers tcgen05.{alloc,dealloc,relinquish_alloc_permit,st,
// ld,wait,fence,commit}.
func decodeTcgen05(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.List) == 0 {
		return d.Errorf(in, "tcgen05 needs a sub-operation (.alloc, .st, .ld, ...)")
	}
	x := &tcInst{}
	out.Ext = x
	switch sub := q.List[0]; sub {
	case isa.QAlloc, isa.QDealloc, isa.QRelinquish_Alloc_Permit:
		return decodeTcAlloc(d, in, out, x, q)
	case isa.QSt, isa.QLd:
		return decodeTcData(d, in, out, x, q, sub == isa.QLd)
	case isa.QWait_St, isa.QWait_Ld:
		x.op = tcWaitSt
		if sub == isa.QWait_Ld {
			x.op = tcWaitLd
		}
		out.Exec = execTcWait
		return nil
	case isa.QFence_Before_Thread_Sync, isa.QFence_After_Thread_Sync:
		// Tensor Memory is coherent in the emulator: the fences order
		// nothing further (DIGEST §4, §8).
		x.op = tcFence
		out.Exec = execTcFence
		return nil
	case isa.QCommit:
		return decodeTcCommit(d, in, out, x, q)
	case isa.QMma:
		return decodeTcMMA(d, in, out, q)
	case isa.QCp:
		return decodeTcCp(d, in, out, q)
	case isa.QShift:
		return decodeTcShift(d, in, out, x, q)
	}
	return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
}

// ctaGroupOf returns the .cta_group::N qualifier's value.
func ctaGroupOf(d *Decoder, in *ast.Instruction, q Quals) (tmem.CTAGroup, error) {
	for _, n := range q.List {
		switch n {
		case isa.QCta_Group_1:
			return tmem.CTAGroup1, nil
		case isa.QCta_Group_2:
			return tmem.CTAGroup2, nil
		}
	}
	return 0, d.Errorf(in, "%s needs .cta_group::1 or .cta_group::2", in.FullOpcode())
}

func decodeTcAlloc(d *Decoder, in *ast.Instruction, out *Inst, x *tcInst, q Quals) error {
	g, err := ctaGroupOf(d, in, q)
	if err != nil {
		return err
	}
	x.group = g
	switch q.List[0] {
	case isa.QRelinquish_Alloc_Permit:
		x.op = tcRelinquish
		out.Exec = execTcRelinquish
		return nil
	case isa.QAlloc:
		if len(in.Operands) != 2 {
			return d.Errorf(in, "tcgen05.alloc takes [dst], nCols")
		}
		x.op = tcAlloc
		base, off, _, err := d.Addr(in.Operands[0])
		if err != nil {
			return err
		}
		out.A, out.Off = base, off
		out.Exec = execTcAlloc
	default:
		if len(in.Operands) != 2 {
			return d.Errorf(in, "tcgen05.dealloc takes taddr, nCols")
		}
		x.op = tcDealloc
		a, err := d.Src(in.Operands[0], TB32)
		if err != nil {
			return err
		}
		out.A = a
		out.Exec = execTcDealloc
	}
	b, err := d.Src(in.Operands[1], TB32)
	out.B = b
	return err
}

// decodeTcData lowers tcgen05.st [taddr], {imm,} r and
// tcgen05.ld r, [taddr]{, imm}.
func decodeTcData(d *Decoder, in *ast.Instruction, out *Inst, x *tcInst, q Quals, load bool) error {
	for _, n := range q.List[1:] {
		if !dataQual(n) {
			return d.Errorf(in, "the emulator does not implement %s (qualifier %s)", in.FullOpcode(), n)
		}
	}
	f, err := tmem.FormOf(q.List[1:], load)
	if err != nil {
		return d.Errorf(in, "%s: %s", in.FullOpcode(), err.(*tmem.Error).Message)
	}
	ops := in.Operands
	want := 2
	if f.Shape == tmem.Shape16x32bx2 {
		want = 3
	}
	if len(ops) != want {
		return d.Errorf(in, "%s takes %d operands, got %d", in.FullOpcode(), want, len(ops))
	}
	var addr, vec, imm ast.Expr
	if load {
		vec, addr = ops[0], ops[1]
		x.op = tcLd
		out.Exec = execTcLd
		if want == 3 {
			imm = ops[2]
		}
	} else {
		addr, vec = ops[0], ops[len(ops)-1]
		x.op = tcSt
		out.Exec = execTcSt
		if want == 3 {
			imm = ops[1]
		}
	}
	if imm != nil {
		v, ok := parser.ConstValue(imm)
		if !ok {
			return d.Errorf(imm, "immHalfSplitoff must be an integer constant")
		}
		f.SplitOffset = int(v)
		if err := f.Validate(); err != nil {
			return d.Errorf(imm, "%s", err.(*tmem.Error).Message)
		}
	}
	x.form = f
	base, off, _, err := d.Addr(addr)
	if err != nil {
		return err
	}
	out.A, out.Off = base, off
	regs, err := d.Vector(vec, TB32, load)
	if err != nil {
		return err
	}
	if len(regs) != f.Regs() {
		return d.Errorf(vec, "%s takes %d registers per thread (Table 50), got %d", in.FullOpcode(), f.Regs(), len(regs))
	}
	for i, r := range regs {
		if r < 0 {
			return d.Errorf(vec, "register %d of the vector is \"_\"", i)
		}
	}
	x.regs = regs
	return nil
}

// dataQual reports whether q may appear on the tcgen05.st/ld forms the
// emulator implements (not, for example, tcgen05.ld.red).
func dataQual(q isa.Qual) bool {
	switch q {
	case isa.QSync, isa.QAligned, isa.QB32, isa.QPack_16b, isa.QUnpack16b:
		return true
	}
	return q.Group() == isa.GShape || q.Group() == isa.GNum
}

// decodeTcCommit lowers tcgen05.commit.cta_group::N.mbarrier::arrive::one
// {.shared::cluster}.b64 [mbar].
func decodeTcCommit(d *Decoder, in *ast.Instruction, out *Inst, x *tcInst, q Quals) error {
	g, err := ctaGroupOf(d, in, q)
	if err != nil {
		return err
	}
	x.op, x.group = tcCommit, g
	arrive := false
	for _, n := range q.List {
		switch n {
		case isa.QMulticast_Cluster:
			x.multicast = true
		case isa.QMbarrier_Arrive_One:
			arrive = true
		}
	}
	if !arrive {
		return d.Errorf(in, "%s needs the completion mechanism .mbarrier::arrive::one", in.FullOpcode())
	}
	switch {
	case x.multicast && len(in.Operands) != 2:
		return d.Errorf(in, "tcgen05.commit.multicast::cluster takes [mbar], ctaMask")
	case x.multicast:
		b, err := d.Src(in.Operands[1], TB16)
		if err != nil {
			return err
		}
		out.B = b
	case len(in.Operands) != 1:
		return d.Errorf(in, "tcgen05.commit takes [mbar]")
	}
	base, off, _, err := d.Addr(in.Operands[0])
	if err != nil {
		return err
	}
	out.A, out.Off = base, off
	// Without a state space the operand is a generic address (§9.7.16.8.6).
	out.Space = SpaceGeneric
	if q.Has(isa.QSharedCluster) {
		out.Space = SpaceSharedCluster
	}
	if tcCommitExec == nil {
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	out.Exec = tcCommitExec
	return nil
}

// tcCommitExec executes tcgen05.commit; it is set by the file that
// implements mbarrier arrivals for it.
var tcCommitExec ExecFunc

// tcAligned checks that every thread of the warp executes this
// .sync.aligned instruction together: none exited, none elsewhere, the
// guard true for all. data says the instruction moves the registers of all
// 32 threads (tcgen05.st/ld), which a partial warp (the last warp of a CTA
// whose size is not a multiple of 32) cannot supply. It returns Continue
// when the warp qualifies.
func tcAligned(w *Warp, data bool) Status {
	op := w.prog.Insts[w.pc].Opcode
	if data && w.Lanes != 0xffffffff {
		return w.Fault(lane(w.Exec), ruleTcgen05Aligned, specTcAligned,
			"%s executed by a partial warp of %d threads; it moves the registers of all 32 threads of a warp",
			op, bits.OnesCount32(w.Lanes))
	}
	if gone := w.Lanes &^ w.live; gone != 0 {
		return w.Fault(lane(w.Exec), ruleTcgen05Aligned, specTcAligned,
			"%s executed after thread %d of the warp exited (%d threads exited); the behaviour is undefined",
			op, lane(gone), bits.OnesCount32(gone))
	}
	if missing := w.Lanes &^ w.Exec; missing != 0 {
		why := "are at another instruction (diverged warp)"
		if w.active == w.live {
			why = "have a false guard predicate"
		}
		return w.Fault(lane(w.Exec), ruleTcgen05Aligned, specTcAligned,
			"%s is .sync.aligned but %d thread(s) of the warp (first: lane %d) %s; every thread must execute it together",
			op, bits.OnesCount32(missing), lane(missing), why)
	}
	return Continue
}

// uniform32 returns lane 0's value of slot s (plus off) and faults when
// another lane holds a different value.
func uniform32(w *Warp, s int32, off int64, what string) (uint64, Status) {
	v := w.R[s] + uint64(off)
	for m := w.Lanes &^ 1; m != 0; m &= m - 1 {
		l := lane(m)
		if u := w.R[s+int32(l)] + uint64(off); u != v {
			return 0, w.Fault(l, ruleTcgen05Uniform, specTcAlloc,
				"%s: threads of the warp pass different %s: lane 0 has %#x, lane %d has %#x", w.prog.Insts[w.pc].Opcode, what, v, l, u)
		}
	}
	return v, Continue
}

// tmemFault reports a broken Tensor Memory rule for lane l.
func tmemFault(w *Warp, l int, err error) Status {
	te, ok := err.(*tmem.Error)
	if !ok {
		return w.Fault(l, RuleUnsupported, "", "%v", err)
	}
	return w.Fault(l, string(te.Rule), te.Spec, "%s", te.Message)
}

// useGroup records the .cta_group of an instruction for the cluster: one
// kernel uses only one value (§9.7.16.7.1).
func useGroup(w *Warp, g tmem.CTAGroup) Status {
	ct := w.CTA.cluster.Ext(clusterTCKey).(*clusterTC)
	if ct.group == 0 {
		ct.group = g
	}
	if ct.group != g {
		return w.Fault(lane(w.Exec), string(tmem.RuleMixedCTAGroup), "PTX ISA §9.7.16.7.1",
			"%s after %s in the same kernel; all tcgen05 instructions must use the same .cta_group", g, ct.group)
	}
	return Continue
}

func execTcAlloc(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, false); st != Continue {
		return st
	}
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	dst, st := uniform32(w, in.A, in.Off, "destination addresses")
	if st != Continue {
		return st
	}
	n, st := uniform32(w, in.B, 0, "nCols")
	if st != Continue {
		return st
	}
	m := w.CTA.Ext(tmemKey).(*ctaTMEM).memory()
	var (
		addr tmem.Addr
		ok   bool
		err  error
	)
	if x.group == tmem.CTAGroup2 {
		addr, ok, st = allocPair(w, int(uint32(n)))
		if st != Continue {
			return st
		}
	} else {
		addr, ok, err = m.Alloc.TryAlloc(x.group, int(uint32(n)))
		if err != nil {
			return tmemFault(w, 0, err)
		}
		if !ok {
			w.WaitWhat = fmt.Sprintf("tcgen05.alloc of %d columns: Tensor Memory has %d free columns; waiting for a tcgen05.dealloc",
				uint32(n), m.Alloc.FreeColumns())
		}
	}
	if !ok {
		return Retry // allocPair or the line above said why in WaitWhat
	}
	b := w.Bytes(0, SpaceShared, dst, 4, true)
	if b == nil {
		return Fault
	}
	binary.LittleEndian.PutUint32(b, uint32(addr))
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	if ct.allocPos == nil {
		ct.allocPos = map[int]token.Pos{}
	}
	ct.allocPos[addr.Column()] = in.Pos
	return Continue
}

// allocPair performs the half of a .cta_group::2 tcgen05.alloc issued by
// w's CTA: the first CTA of the pair to arrive waits for its peer, the
// second allocates the same columns in both (§9.7.16.5.2, §9.7.16.7.1).
func allocPair(w *Warp, n int) (tmem.Addr, bool, Status) {
	cl := w.CTA.cluster
	rank := w.CTA.Rank
	peerRank := rank ^ 1
	if peerRank >= len(cl.CTAs) {
		return 0, false, w.Fault(0, ruleTcgen05Pair, specTcPair,
			"tcgen05.alloc.cta_group::2 in CTA rank %d, which has no peer CTA (rank %d) in its cluster of %d", rank, peerRank, len(cl.CTAs))
	}
	ct := cl.Ext(clusterTCKey).(*clusterTC)
	p := ct.pairs[rank>>1]
	switch {
	case p == nil:
		ct.pairs[rank>>1] = &pairAlloc{rank: rank, nCols: n}
		w.WaitWhat = fmt.Sprintf("tcgen05.alloc.cta_group::2 waits for the peer CTA (rank %d) to issue its tcgen05.alloc", peerRank)
		return 0, false, Continue
	case p.rank == rank && p.done:
		delete(ct.pairs, rank>>1)
		return p.addr, true, Continue
	case p.rank == rank:
		return 0, false, Continue
	}
	if p.nCols != n {
		return 0, false, w.Fault(0, ruleTcgen05Uniform, specTcAlloc,
			"tcgen05.alloc.cta_group::2: CTA rank %d asks for %d columns, its peer (rank %d) for %d", rank, n, p.rank, p.nCols)
	}
	own := w.CTA.Ext(tmemKey).(*ctaTMEM).memory()
	peer := cl.CTAs[peerRank].Ext(tmemKey).(*ctaTMEM).memory()
	addr, ok, err := own.Alloc.TryAllocPair(&peer.Alloc, n)
	if err != nil {
		return 0, false, tmemFault(w, 0, err)
	}
	if !ok {
		w.WaitWhat = fmt.Sprintf("tcgen05.alloc.cta_group::2 of %d columns: no range is free in both CTAs of the pair", n)
		return 0, false, Continue
	}
	p.done, p.addr = true, addr
	return addr, true, Continue
}

func execTcDealloc(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, false); st != Continue {
		return st
	}
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	taddr, st := uniform32(w, in.A, 0, "taddr")
	if st != Continue {
		return st
	}
	n, st := uniform32(w, in.B, 0, "nCols")
	if st != Continue {
		return st
	}
	m := w.CTA.Ext(tmemKey).(*ctaTMEM).memory()
	if err := m.Alloc.Dealloc(x.group, tmem.Addr(uint32(taddr)), int(uint32(n))); err != nil {
		return tmemFault(w, 0, err)
	}
	return Continue
}

func execTcRelinquish(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, false); st != Continue {
		return st
	}
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	if err := w.CTA.Ext(tmemKey).(*ctaTMEM).memory().Alloc.Relinquish(x.group); err != nil {
		return tmemFault(w, 0, err)
	}
	return Continue
}

// warpAccess gathers the taddr operand of every thread.
func warpAccess(w *Warp, in *Inst) *tmem.WarpAccess {
	acc := &tmem.WarpAccess{Warp: w.Index, Site: w.pc + 1}
	for l := range acc.Taddr {
		acc.Taddr[l] = tmem.Addr(uint32(w.R[in.A+int32(l)] + uint64(in.Off)))
	}
	return acc
}

// accessFault reports a failed tcgen05.st/ld check, blaming the first
// thread whose taddr differs for a mismatch and lane 0 otherwise.
func accessFault(w *Warp, acc *tmem.WarpAccess, err error) Status {
	l := 0
	if te, ok := err.(*tmem.Error); ok && te.Rule == tmem.RuleTaddrMismatch {
		for t, a := range acc.Taddr {
			if a != acc.Taddr[0] {
				l = t
				break
			}
		}
	}
	return tmemFault(w, l, err)
}

// execTcSt checks a tcgen05.st at issue and queues its cell writes as an
// asynchronous operation that lands no later than tcgen05.wait::st.
func execTcSt(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, true); st != Continue {
		return st
	}
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	regs := ct.regs(len(x.regs))
	for t := range 32 {
		for j, s := range x.regs {
			regs[t][j] = uint32(w.R[s+int32(t)])
		}
	}
	acc := warpAccess(w, in)
	ps, err := ct.memory().PrepareStore(acc, x.form, regs)
	if err != nil {
		return accessFault(w, acc, err)
	}
	if w.CTA.cluster.race != nil && !w.raceTmem(acc, x, true) {
		return Fault
	}
	ct.track(w.Index, ps)
	return w.IssueFrom(0, &AsyncOp{Kind: "tcgen05.st", Land: func(*Cluster) *Report {
		ps.Land()
		return nil
	}})
}

// execTcLd reads the cells of a tcgen05.ld at issue (a thread must have
// waited for its own stores to them first; a read of an unwaited store is
// reported as tmem.RuleUnwaitedStore) and queues the write of the
// destination registers as an asynchronous operation: the registers are
// valid only after tcgen05.wait::ld (§9.7.16.8.3), so under a delayed or
// random --async policy a kernel that reads them earlier sees stale values.
func execTcLd(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, true); st != Continue {
		return st
	}
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	out := ct.regs(len(x.regs))
	acc := warpAccess(w, in)
	if err := ct.memory().Load(acc, x.form, out); err != nil {
		return accessFault(w, acc, err)
	}
	if w.CTA.cluster.race != nil && !w.raceTmem(acc, x, false) {
		return Fault
	}
	n := len(x.regs)
	vals := make([]uint32, 32*n)
	for t := range 32 {
		copy(vals[t*n:], out[t])
	}
	return w.IssueFrom(0, &AsyncOp{Kind: "tcgen05.ld", Land: func(*Cluster) *Report {
		for t := range 32 {
			for j, s := range x.regs {
				w.R[s+int32(t)] = uint64(vals[t*n+j])
			}
		}
		return nil
	}})
}

// isTcOf reports whether op is an asynchronous operation of kind issued by
// warp w.
func isTcOf(w *Warp, kind string) func(*AsyncOp) bool {
	return func(op *AsyncOp) bool {
		return op.Kind == kind && op.Issuer.Warp == w.Index && op.Issuer.CTA == w.CTA.ID
	}
}

// execTcWait performs tcgen05.wait::st and tcgen05.wait::ld
// (§9.7.16.8.5): the warp's earlier tcgen05.st (or tcgen05.ld) have landed.
func execTcWait(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := tcAligned(w, false); st != Continue {
		return st
	}
	kind := "tcgen05.st"
	if x.op == tcWaitLd {
		kind = "tcgen05.ld"
	}
	if r := w.CTA.cluster.LandWhere(isTcOf(w, kind)); r != nil {
		w.CTA.cluster.fail(r)
		return Fault
	}
	if rc := w.CTA.cluster.race; rc != nil {
		rc.TmemWait(w.CTA.Rank, w.Index, x.op == tcWaitLd)
	}
	if x.op == tcWaitLd {
		return Continue
	}
	if m := ctaTensorMemory(w.CTA); m != nil {
		for l := range 32 {
			m.WaitStores(w.Index*32 + l)
		}
	}
	return Continue
}

func execTcFence(w *Warp, in *Inst) Status {
	if w.CTA.cluster.race != nil {
		w.raceTcFence(in)
	}
	return Continue
}

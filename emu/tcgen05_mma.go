package emu

// tcgen05.mma (PTX ISA §9.7.16.10.9) with .cta_group::1, dense, without
// .ws, on .kind::f16 (f16 or bf16 inputs, f16 or f32 accumulators),
// .kind::tf32 and .kind::i8 (s8/u8, s32 accumulators): D (in Tensor Memory
// at the address operand) = A × B + (enable-input-d ? D : 0), A from a
// shared-memory matrix descriptor or from Tensor Memory, B from a
// descriptor, the shape and types from the 32-bit instruction descriptor
// (tcgen05_idesc.go). The arithmetic is internal/tensorcore's model for the
// module's target (Blackwell for sm_100 and later); integers are exact.
//
// One thread issues the operation. A and B are read from shared memory
// when it issues (the manual requires them unchanged until the MMA
// completes); the accumulator is read and D written when the operation
// lands, in issue order within the CTA, no later than the tcgen05.commit
// that tracks it (or the end of the run). A tcgen05.ld after waiting on
// that commit's mbarrier sees D.
//
// Data path (.cta_group::1): for M = 128 row i of D is lane i; for M = 64
// rows 16q..16q+15 are lanes 32q..32q+15 of each warp quarter q, offset by
// the address's lane (0 or 16). Column j of D is column c+j of the address
// (c): one 32-bit cell per element, an f16 D in the low 16 bits. A in
// Tensor Memory has the same rows; each 32-bit column holds the next 4
// bytes of K (2 f16/bf16, 1 tf32, 4 8-bit elements), 8 columns in all.
//
// Shared-memory descriptors (§9.7.16.4.1) are the wgmma layout (descAddr)
// with the 3-bit swizzle field of bits 61-63: 0 none, 2 128B, 4 64B, 6 32B,
// 1 128B with 32-byte atoms (MN-major operands, tcgen05_major.go). The
// optional operands are in tcgen05_masks.go.

import (
	"encoding/binary"
	"fmt"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

const (
	specTcMMA  = "PTX ISA §9.7.16.10.9 (tcgen05.mma)"
	specTcDesc = "PTX ISA §9.7.16.4.1 (tcgen05 shared memory descriptor)"
	// ruleTcgen05Idesc: an instruction or matrix descriptor with values
	// the manual does not allow.
	ruleTcgen05Idesc = "tcgen05-invalid-descriptor"
)

// tcMMAInst is a decoded tcgen05.mma (Inst.Ext).
type tcMMAInst struct {
	kind    tcKind
	d       int32 // slot of the D address
	dOff    int64
	a       int32 // slot of the A descriptor, or of A's Tensor Memory address
	aOff    int64
	aTMEM   bool
	b       int32 // B descriptor
	idesc   int32
	enableD int32 // predicate or constant slot
	arch    *tensorcore.Arch
	// .block_scale: the scale factors' Tensor Memory addresses and the
	// .scale_vec::NX (N).
	sfa, sfb       int32
	sfaOff, sfbOff int64
	vecN           int
	pair           bool // .cta_group::2
	ws             bool // .ws (tcgen05_collector.go)
	collA          tcCollect
	collB          tcCollect // .ws: the operation on buffer bufB
	bufB           int
	tcMMAExtras    // disable-output-lane, scale-input-d, zero-column-mask-desc (tcgen05_masks.go)
}

var tcMMAKinds = map[isa.Qual]tcKind{isa.QKind_F16: tcKindF16, isa.QKind_Tf32: tcKindTF32, isa.QKind_I8: tcKindI8,
	isa.QKind_F8f6f4: tcKindF8F6F4, isa.QKind_Mxf8f6f4: tcKindMXF8F6F4, isa.QKind_Mxf4: tcKindMXF4, isa.QKind_Mxf4nvf4: tcKindMXF4NVF4}

var tcScaleVecs = map[isa.Qual]int{isa.QScale_Vec_1X: 1, isa.QScale_Vec_2X: 2, isa.QScale_Vec_4X: 4}

// decodeTcMMA lowers tcgen05.mma.cta_group::1.kind [d], a, b, idesc,
// enable-input-d, where a is a descriptor register or [a-tmem].
func decodeTcMMA(d *Decoder, in *ast.Instruction, out *Inst, q Quals) error {
	x := &tcMMAInst{arch: tensorcore.ForSM(max(d.sm, 100))}
	for _, n := range q.List[1:] {
		k, ok := tcMMAKinds[n]
		v, isVec := tcScaleVecs[n]
		switch {
		case ok:
			x.kind = k
		case isVec:
			x.vecN = v
		case n == isa.QCta_Group_2:
			x.pair = true
		case n == isa.QWs:
			x.ws = true
		case x.collectorQual(n):
		case n == isa.QCta_Group_1, n == isa.QBlock_Scale:
		default:
			return d.Errorf(in, "the emulator does not implement %s (qualifier %s); it runs dense .cta_group::1 tcgen05.mma", in.FullOpcode(), n)
		}
	}
	if x.kind == 0 {
		return d.Errorf(in, "%s needs a .kind", in.FullOpcode())
	}
	switch {
	case !q.Has(isa.QCta_Group_1) && !x.pair:
		return d.Errorf(in, "%s needs .cta_group::1 or .cta_group::2", in.FullOpcode())
	}
	if err := decodeTcBlockScale(d, in, x, q); err != nil {
		return err
	}
	if err := decodeTcWS(d, in, x); err != nil {
		return err
	}
	ops, err := decodeTcMMAOperands(d, in, x)
	if err != nil {
		return err
	}
	if x.d, x.dOff, _, err = d.Addr(ops[0]); err != nil {
		return err
	}
	if _, ok := ops[1].(*ast.Address); ok {
		x.aTMEM = true
		if x.a, x.aOff, _, err = d.Addr(ops[1]); err != nil {
			return err
		}
	} else if x.a, err = d.Src(ops[1], TB64); err != nil {
		return err
	}
	if x.b, err = d.Src(ops[2], TB64); err != nil {
		return err
	}
	if x.idesc, err = d.Src(ops[3], TB32); err != nil {
		return err
	}
	if x.enableD, err = d.Src(ops[4], TPred); err != nil {
		return err
	}
	out.Ext = x
	out.Exec = execTcMMA
	return nil
}

// decodeTcBlockScale checks .block_scale and .scale_vec against the kind:
// the block-scaled kinds need .block_scale, the others take neither; the
// vector size defaults to 1X for .kind::mxf8f6f4 and 2X for the E2M1 kinds.
func decodeTcBlockScale(d *Decoder, in *ast.Instruction, x *tcMMAInst, q Quals) error {
	scaled := x.kind.blockScaled()
	switch {
	case scaled && !q.Has(isa.QBlock_Scale):
		return d.Errorf(in, "%s needs .block_scale", in.FullOpcode())
	case !scaled && (q.Has(isa.QBlock_Scale) || x.vecN != 0):
		return d.Errorf(in, "%s: .block_scale and .scale_vec go with .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4 only", in.FullOpcode())
	case scaled && x.vecN == 0:
		x.vecN = 2
		if x.kind == tcKindMXF8F6F4 {
			x.vecN = 1
		}
	}
	return nil
}

// tcMMAOp is one issued tcgen05.mma: A and B as read at issue, the rest
// done when it lands.
type tcMMAOp struct {
	ct      *ctaTMEM
	x       *tcMMAInst
	id      *tcIdesc
	d       tmem.Addr
	aTMEM   tmem.Addr    // A's address when A is in Tensor Memory
	pair    *[2]*ctaTMEM // .cta_group::2: the even and the odd CTA of the pair
	sfa     tmem.Addr    // the scale factors (block-scaled kinds)
	sfb     tmem.Addr
	A, B    []uint64
	enableD bool
	fold    int       // lane groups D's columns are folded into (tcgen05_layout.go)
	disable [8]uint32 // disable-output-lane (tcgen05_masks.go)
	zcm     uint64    // zero-column-mask-desc, when hasZCM
	hasZCM  bool
}

// tcQueued is an issued tcgen05.mma or tcgen05.cp of a CTA. They land in
// issue order: the manual orders a thread's tcgen05.cp before its later
// tcgen05.mma and pipelines a thread's MMAs on the same accumulator.
type tcQueued struct {
	ct     *ctaTMEM
	run    func()
	landed bool
}

func (op *tcQueued) Landed() bool { return op.landed }

// Land performs op and every queued operation of the CTA issued before it.
func (op *tcQueued) Land() {
	if op.landed {
		return
	}
	q := op.ct.mmaQueue
	for i, p := range q {
		p.landed = true
		p.run()
		if p == op {
			op.ct.mmaQueue = append(q[:0], q[i+1:]...)
			return
		}
	}
}

// issueQueued queues run as an asynchronous tcgen05 operation of lane l
// that the warp's next tcgen05.commit tracks.
func issueQueued(w *Warp, l int, ct *ctaTMEM, kind string, run func()) Status {
	_, st := issueQueuedOp(w, l, ct, kind, run)
	return st
}

// issueQueuedOp is issueQueued returning the queued operation.
func issueQueuedOp(w *Warp, l int, ct *ctaTMEM, kind string, run func()) (*tcQueued, Status) {
	op := &tcQueued{ct: ct, run: run}
	ct.mmaQueue = append(ct.mmaQueue, op)
	ct.track(w.Index, op)
	return op, w.IssueFrom(l, &AsyncOp{Kind: kind, Land: func(*Cluster) *Report {
		op.Land()
		return nil
	}})
}

// tcLane is the Tensor Memory lane of row r of an M-row operand whose
// address has lane base.
func tcLane(m, base, r int) int {
	if m == 128 {
		return r
	}
	return base + 32*(r/16) + r%16
}

// rowAt is the Tensor Memory and lane of row r of an M-row operand whose
// address has lane base: the issuing CTA's (tcLane) for .cta_group::1;
// for .cta_group::2 rows 128v..128v+127 are lanes 0-127 of CTA v of the pair.
func (op *tcMMAOp) rowAt(r, base int) (*tmem.Memory, int) {
	if op.pair != nil {
		return op.pair[r/128].memory(), r % 128
	}
	return op.ct.memory(), tcLane(op.id.m, base, r)
}

func (op *tcMMAOp) compute() {
	id := op.id
	op.useCollectors()
	if op.A == nil && id.narrow {
		op.A = op.narrowTMEMA()
	}
	if op.A == nil && op.fold > 1 {
		op.A = op.foldedTMEMA()
	}
	if op.A == nil { // A in Tensor Memory, read now: an earlier MMA may write it
		op.A = make([]uint64, id.m*id.k)
		per := 32 / id.a.Bits()
		for r := range id.m {
			for kk := range id.k {
				am, ln := op.rowAt(r, op.aTMEM.Lane())
				cell := am.Cell(ln, op.aTMEM.Column()+kk/per)
				op.A[r*id.k+kk] = elemOf(uint64(cell), id.a.Bits(), kk%per)
			}
		}
	}
	op.fillCollectors()
	if id.negA {
		negateNarrow(op.A, id.a)
	}
	if id.negB {
		negateNarrow(op.B, id.b)
	}
	op.B = op.shiftedColumns(op.B)
	C := make([]uint64, id.m*id.n)
	if op.enableD {
		for r := range id.m {
			for j := range id.n {
				dm, ln, col := op.dCell(r, j)
				v := uint64(dm.Cell(ln, col))
				if id.out == tensorcore.F16 {
					v &= 0xffff
				}
				C[r*id.n+j] = v
			}
		}
	}
	D := make([]uint64, id.m*id.n)
	switch {
	case id.narrow:
		op.computeNarrow(C, D)
	case len(op.A) > id.m*id.k: // one copy of A per fold group
		op.computeFolded(C, D)
	default:
		op.arith(id.m, C, D)
	}
	for r := range id.m {
		for j := range id.n {
			dm, ln, col := op.dCell(r, j)
			if op.laneDisabled(dm, ln) {
				continue
			}
			dm.SetCell(ln, col, uint32(D[r*id.n+j]))
		}
	}
}

// arith is D = A·B + C over the first m rows of op.A (not the narrow
// kinds).
func (op *tcMMAOp) arith(m int, C, D []uint64) {
	id := op.id
	if id.integer {
		mmaInteger(m, id.n, id.k, id.signed, id.saturate, op.A, op.B, C, D)
		return
	}
	op.x.arch.MMA(&tensorcore.Problem{Kind: tensorcore.Async, In: id.a, BIn: id.b, Out: id.out,
		M: m, N: id.n, K: id.k, A: op.A, B: op.B, C: C, D: D, CShift: op.x.scaleD})
}

// execTcMMA issues one tcgen05.mma per executing thread.
func execTcMMA(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcMMAInst)
	group := tmem.CTAGroup1
	if x.pair {
		group = tmem.CTAGroup2
	}
	if st := useGroup(w, group); st != Continue {
		return st
	}
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		op, st := prepareTcMMA(w, in, x, ct, l)
		if st != Continue {
			return st
		}
		q, st := issueQueuedOp(w, l, ct, "tcgen05.mma", w.raceTcMMA(op, l))
		if st != Continue {
			return st
		}
		op.notePartner(ct, q)
	}
	return Continue
}

// prepareTcMMA checks lane l's operands and reads A and B.
func prepareTcMMA(w *Warp, in *Inst, x *tcMMAInst, ct *ctaTMEM, l int) (*tcMMAOp, Status) {
	reg := func(s int32) uint64 { return w.R[s+int32(l)] }
	var id *tcIdesc
	var err error
	if x.kind.blockScaled() {
		id, err = decodeIdescScaled(x.kind, x.vecN, uint32(reg(x.idesc)), x.pair)
	} else {
		id, err = decodeIdescFor(x.kind, uint32(reg(x.idesc)), x.form())
	}
	if err != nil {
		rule := ruleTcgen05Idesc
		if err.(*idescError).unsupported {
			rule = RuleUnsupported
		}
		return nil, w.Fault(l, rule, specTcIdesc, "tcgen05.mma%s: %v", x.kind, err)
	}
	op := &tcMMAOp{ct: ct, x: x, id: id, d: tmem.Addr(uint32(reg(x.d) + uint64(x.dOff))), enableD: reg(x.enableD) != 0}
	if st := op.readExtras(w, l); st != Continue {
		return nil, st
	}
	ranks, st := op.operandCTAs(w, l)
	if st != Continue {
		return nil, st
	}
	rows := id.m / len(ranks) // rows of A and D per CTA
	op.fold = tcFold(x, id)
	if x.aTMEM && op.fold > 1 && id.narrow {
		return nil, w.Fault(l, RuleUnsupported, specTcMMA, "tcgen05.mma%s: A in Tensor Memory with M = %d%s is not implemented for this kind; stage A in shared memory",
			x.kind, id.m, map[bool]string{true: " and .cta_group::2", false: " and .ws"}[x.pair])
	}
	dRows := rows // the lane-base check: a folded D uses all 128 lanes from lane 0
	if op.fold > 1 {
		dRows = 128
	}
	for _, rank := range ranks {
		mem := w.CTA.cluster.CTAs[rank].Ext(tmemKey).(*ctaTMEM).memory()
		if st := checkTcRegion(w, l, mem, "D", dRows, id.n/op.fold, op.d); st != Continue {
			return nil, st
		}
		if x.kind.blockScaled() {
			op.sfa, op.sfb = tmem.Addr(uint32(reg(x.sfa)+uint64(x.sfaOff))), tmem.Addr(uint32(reg(x.sfb)+uint64(x.sfbOff)))
			if st := checkScaleRegions(w, l, mem, rows, id, op.sfa, op.sfb); st != Continue {
				return nil, st
			}
		}
		if x.aTMEM {
			op.aTMEM = tmem.Addr(uint32(reg(x.a) + uint64(x.aOff)))
			if st := checkTcRegion(w, l, mem, "A", dRows, tcKBytes/4, op.aTMEM); st != Continue {
				return nil, st
			}
		}
	}
	// A's rows and B's columns are split evenly over the CTAs (one, or the
	// pair in rank order).
	read := func(rank int, desc uint64, what string, rows int, f tensorcore.Format, trans bool) ([]uint64, bool) {
		if id.narrow {
			return readNarrow(w, l, rank, desc, what, rows, id, f, trans)
		}
		return readDescMatrixOf(w, l, rank, desc, what, rows, id.k, f, trans)
	}
	for _, rank := range ranks {
		if !x.aTMEM && !x.collA.reuses() {
			a, ok := read(rank, reg(x.a), "A", rows, id.a, id.transA)
			if !ok {
				return nil, Fault
			}
			op.A = append(op.A, a...)
		}
		if x.collB.reuses() {
			continue
		}
		b, ok := read(rank, reg(x.b), "B", id.bColumns()/len(ranks), id.b, id.transB)
		if !ok {
			return nil, Fault
		}
		op.B = append(op.B, b...)
	}
	if st := op.checkCollectors(w, l); st != Continue {
		return nil, st
	}
	return op, Continue
}

// checkTcRegion checks that the rows × cols cells of an M-row operand at
// addr are inside allocated Tensor Memory.
func checkTcRegion(w *Warp, l int, mem *tmem.Memory, what string, m, cols int, addr tmem.Addr) Status {
	base, c0 := addr.Lane(), addr.Column()
	op := w.prog.Insts[w.pc].Opcode
	switch {
	case m == 128 && base != 0, m == 64 && base != 0 && base != 16:
		return w.Fault(l, string(tmem.RuleLaneQuarter), specTcMMA, "%s: %s at Tensor Memory address %s: an M=%d operand starts at lane 0%s",
			op, what, addr, m, map[bool]string{true: " or 16"}[m == 64])
	case c0+cols > tmem.Columns:
		return w.Fault(l, string(tmem.RuleColumnRange), specTcMMA, "%s: %s at Tensor Memory address %s spans columns %d-%d, beyond the %d columns",
			op, what, addr, c0, c0+cols-1, tmem.Columns)
	}
	for c := c0; c < c0+cols; c++ {
		if !mem.Alloc.Allocated(c) {
			return w.Fault(l, string(tmem.RuleUnallocated), specTcMMA, "%s: %s at Tensor Memory address %s uses column %d, which is not allocated",
				op, what, addr, c)
		}
	}
	return Continue
}

// tcDescWidth returns the swizzle width (0: none) of a tcgen05 shared
// memory descriptor of an operand that is MN-major when trans is set, or
// why it is not usable; invalid says the manual does not allow it.
func tcDescWidth(desc uint64, trans bool) (width int, why string, invalid bool) {
	switch {
	case desc>>52&1 != 0:
		return 0, "uses the absolute leading-dimension mode (bit 52), which the emulator does not implement", false
	case desc>>49&7 != 0:
		return 0, fmt.Sprintf("has matrix base offset %d (bits 49-51); the emulator implements base offset 0", desc>>49&7), false
	}
	switch desc >> 61 {
	case 0:
		return 0, "", false
	case 2:
		return 128, "", false
	case 4:
		return 64, "", false
	case 6:
		return 32, "", false
	case tcSwizzle128B32:
		if !trans {
			return 0, "uses 128-byte swizzling with 32-byte atoms (mode 1), which only MN-major operands take", true
		}
		return 128, "", false
	}
	return 0, fmt.Sprintf("has swizzle mode %d (bits 61-63), which is invalid", desc>>61), true
}

// readDescMatrix reads the rows × k elements of format f of a K-major
// matrix described by desc from the executing CTA's shared memory.
func readDescMatrix(w *Warp, l int, desc uint64, what string, rows, k int, f tensorcore.Format, trans bool) ([]uint64, bool) {
	return readDescMatrixOf(w, l, w.CTA.Rank, desc, what, rows, k, f, trans)
}

// readDescMatrixOf is readDescMatrix on the shared memory of the cluster's
// CTA of rank rank (a .cta_group::2 operand of the peer CTA), of an
// operand that is MN-major when trans is set (tcgen05_major.go).
func readDescMatrixOf(w *Warp, l, rank int, desc uint64, what string, rows, k int, f tensorcore.Format, trans bool) ([]uint64, bool) {
	if _, why, invalid := tcDescWidth(desc, trans); why != "" {
		rule := RuleUnsupported
		if invalid {
			rule = ruleTcgen05Idesc
		}
		w.Fault(l, rule, specTcDesc, "%s: the %s descriptor %#016x %s", w.prog.Insts[w.pc].Opcode, what, desc, why)
		return nil, false
	}
	size := f.Bits() / 8
	space := SpaceShared
	if rank != w.CTA.Rank {
		space = SpaceSharedCluster
	}
	out := make([]uint64, rows*k)
	for r := range rows {
		for kk := range k {
			a := tcOperandAddr(desc, trans, r, kk, size)&sharedOffMask | uint64(rank+1)<<sharedRankShift
			b := w.Bytes(l, space, a, size, false)
			if b == nil {
				return nil, false
			}
			switch size {
			case 4:
				out[r*k+kk] = uint64(binary.LittleEndian.Uint32(b))
			case 2:
				out[r*k+kk] = uint64(binary.LittleEndian.Uint16(b))
			default:
				out[r*k+kk] = uint64(b[0])
			}
		}
	}
	return out, true
}

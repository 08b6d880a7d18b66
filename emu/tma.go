package emu

import (
	"fmt"
	"math"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Tensor copies of the Tensor Memory Accelerator (docs/tma.md), tile mode:
//
//	cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
//	        [dst], [tmap, {c0, ...}], [mbar]{, ctaMask}{, policy}                         §9.7.9.25.5.1
//	cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint} [tmap, {c0, ...}], [src]{, policy}
//	cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group{.L2::cache_hint} [tmap, {c0, ...}], [src]{, policy}  §9.7.9.25.5.2
//
// The tensor map is read from memory when the instruction executes and
// interpreted by package tensormap; the copy then goes through the bulk-copy
// machinery of cpbulk.go: issued to the cluster's tracker, landed by the
// async policy, completing through complete-tx or a bulk async-group.

const (
	specTMA     = "PTX ISA §9.7.9.25.5.1 (cp.async.bulk.tensor)"
	specTMARed  = "PTX ISA §9.7.9.25.5.2 (cp.reduce.async.bulk.tensor)"
	ruleTensMap = "tensormap-invalid" // the tensor map operand is not a valid encoded map
	ruleTMAType = "tensormap-type"    // reduction not defined for the map's element type
)

// tmaOp is the decoded form of a tensor copy, in Inst.Ext. The register
// slots of the coordinates are Inst.V[:rank]; the shared address is
// Inst.A+Inst.Off, the map's base Inst.B, the mbarrier Inst.C (with its
// displacement in Imm's high half, as decodeMbarOperand writes it), the
// multicast mask Inst.D2.
type tmaOp struct {
	rank      int
	store     bool   // shared::cta -> global
	redOp     uint64 // reduction (redAsyncOps numbering), 0 for a copy
	multicast bool
	mapSpace  Space // SpaceParam/SpaceConst for a named map, else generic
	mapOff    int64
	name      string  // opcode as written, for reports
	im2col    bool    // .im2col load mode (tma_im2col.go)
	offs      []int32 // .im2col: slots of the im2col offsets (.b16), W first
	pair      bool    // .cta_group::2: the mbarrier may be in the destination's peer CTA
}

// decodeBulkPrefetch lowers cp.async.bulk.prefetch: without .tensor a hint
// without effect; with it (§9.7.9.25.5.3) the tensor map is read and
// validated as a copy's would be, and nothing else happens.
func decodeBulkPrefetch(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.Has(isa.QTensor) {
		return decodeNoEffect(d, in, out)
	}
	op := &tmaOp{name: in.FullOpcode(), rank: tensorRank(q)}
	if op.rank == 0 {
		return d.Errorf(in, "%s needs a dimension (.1d to .5d)", op.name)
	}
	if _, ok := unrunTensorMode(q); ok {
		// A prefetch is a hint with no effect the program can see; the
		// modes of PTX ISA 8.6 that the copies do not run are let pass.
		return decodeNoEffect(d, in, out)
	}
	if err := d.tensorLoadMode(in, op, q); err != nil {
		return err
	}
	want := 1
	if op.im2col {
		want++
	}
	if q.Has(isa.QL2CacheHint) {
		want++
	}
	if len(in.Operands) != want {
		return d.Errorf(in, "%s takes %d operands, not %d", op.name, want, len(in.Operands))
	}
	out.Ext = op
	out.Exec = execTensorPrefetch
	if op.im2col {
		if err := d.im2colOffsets(op, in.Operands[1]); err != nil {
			return err
		}
	}
	return d.tensorOperand(op, in.Operands[0], out)
}

func execTensorPrefetch(w *Warp, in *Inst) Status {
	op := in.Ext.(*tmaOp)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		tm, ok := w.tensorMapAt(l, in, op)
		if !ok {
			return Fault
		}
		if tm.Rank != op.rank {
			return w.Fault(l, ruleTensMap, specTMA, "%s names %d dimensions but its tensor map has rank %d", op.name, op.rank, tm.Rank)
		}
		if !w.checkLoadMode(l, op, tm, w.tensorStart(l, in, op)) {
			return Fault
		}
	}
	return Continue
}

// tensorRank returns the rank .1d to .5d names, or 0.
func tensorRank(q Quals) int {
	for i, r := range []isa.Qual{isa.Q1d, isa.Q2d, isa.Q3d, isa.Q4d, isa.Q5d} {
		if q.Has(r) {
			return i + 1
		}
	}
	return 0
}

func decodeTensorCopy(d *Decoder, in *ast.Instruction, q Quals, out *Inst) error {
	op := &tmaOp{name: in.FullOpcode(), rank: tensorRank(q)}
	if op.rank == 0 {
		return d.Errorf(in, "%s needs a dimension (.1d to .5d)", op.name)
	}
	if err := d.tensorLoadMode(in, op, q); err != nil {
		return err
	}
	op.multicast = q.Has(isa.QMulticast_Cluster)
	op.pair = q.Has(isa.QCta_Group_2)
	if op.pair && !q.Has(isa.QMbarrier) && !q.Has(isa.QCompleteTx) {
		return d.Errorf(in, "the emulator does not implement .cta_group::2 of %s; it runs loads that complete on an mbarrier", op.name)
	}
	if q.List[0] == isa.QReduce {
		for _, n := range q.List {
			if r, ok := redAsyncOps[n]; ok {
				op.redOp = r
			}
		}
		if op.redOp == 0 {
			return d.Errorf(in, "%s needs a reduction operation", op.name)
		}
	}
	ops := in.Operands
	wantOps := 3
	if q.Has(isa.QMbarrier) || q.Has(isa.QCompleteTx) {
		if !q.Has(isa.QSharedCluster) && !q.Has(isa.QSharedCta) || op.redOp != 0 {
			return d.Errorf(in, "the emulator does not implement %s", op.name)
		}
	} else {
		if !q.Has(isa.QBulk_Group) || !q.Has(isa.QGlobal) || op.multicast {
			return d.Errorf(in, "the emulator does not implement %s", op.name)
		}
		op.store, wantOps = true, 2
	}
	if op.im2col && (op.store || op.redOp != 0) {
		return d.Errorf(in, "%s: .im2col is a load mode (global to shared memory)", op.name)
	}
	if op.im2col {
		wantOps++
	}
	if op.multicast {
		wantOps++
	}
	if q.Has(isa.QL2CacheHint) {
		wantOps++
	}
	if len(ops) != wantOps {
		return d.Errorf(in, "%s takes %d operands, not %d", op.name, wantOps, len(ops))
	}
	out.Imm |= cpBulk
	out.Ext = op
	out.Exec = execTensorCopy
	if op.store {
		return decodeTensorStore(d, op, ops, out)
	}
	return decodeTensorLoad(d, op, q, ops, out)
}

func decodeTensorLoad(d *Decoder, op *tmaOp, q Quals, ops []ast.Expr, out *Inst) error {
	out.Space = SpaceSharedCluster
	if q.Has(isa.QSharedCta) {
		out.Space = SpaceShared
	}
	var err error
	if out.A, out.Off, _, err = d.Addr(ops[0]); err != nil {
		return err
	}
	if err = d.tensorOperand(op, ops[1], out); err != nil {
		return err
	}
	if out.C, out.Imm, err = decodeMbarOperand(d, ops[2], out.Imm); err != nil {
		return err
	}
	next := 3
	if op.im2col {
		if err = d.im2colOffsets(op, ops[3]); err != nil {
			return err
		}
		next++
	}
	if op.multicast {
		out.D2, err = d.Src(ops[next], TU16)
	}
	return err
}

func decodeTensorStore(d *Decoder, op *tmaOp, ops []ast.Expr, out *Inst) error {
	out.Space = SpaceGlobal
	if err := d.tensorOperand(op, ops[0], out); err != nil {
		return err
	}
	var err error
	out.A, out.Off, _, err = d.Addr(ops[1])
	return err
}

// tensorOperand decodes [tmap, {c0, ...}]: the map's address and one .s32
// coordinate per dimension.
func (d *Decoder) tensorOperand(op *tmaOp, e ast.Expr, out *Inst) error {
	a, ok := e.(*ast.Address)
	if !ok || len(a.Index) != 1 {
		return d.Errorf(e, "%s needs the operand [tensorMap, {coordinates}]", op.name)
	}
	vec, ok := a.Index[0].(*ast.VectorExpr)
	if !ok || len(vec.Elems) != op.rank {
		return d.Errorf(a, "%s needs %d coordinates in braces", op.name, op.rank)
	}
	base := *a
	base.Index = nil
	var err error
	if out.B, op.mapOff, op.mapSpace, err = d.Addr(&base); err != nil {
		return err
	}
	for i, c := range vec.Elems {
		if out.V[i], err = d.Src(c, TS32); err != nil {
			return err
		}
	}
	return nil
}

// tensorMapAt reads and decodes lane l's tensor map. A generic address
// below every global allocation is taken as a kernel-parameter address
// (mov of the parameter's name without cvta.param).
func (w *Warp) tensorMapAt(l int, in *Inst, op *tmaOp) (*tensormap.Map, bool) {
	a := w.R[in.B+int32(l)] + uint64(op.mapOff)
	sp := op.mapSpace
	if sp == SpaceGeneric && a < globalBase {
		sp = SpaceParam
	}
	b := w.BytesAlign(l, sp, a, tensormap.Size, tensormap.Align, false)
	if b == nil {
		return nil, false
	}
	m, err := tensormap.Decode(b)
	if err != nil {
		w.Fault(l, ruleTensMap, specTMA, "%s: the tensor map at %s address %#x: %v", op.name, sp, a, err)
		return nil, false
	}
	return m, true
}

func (w *Warp) tensorCoords(l int, in *Inst, rank int) [tensormap.MaxRank]int64 {
	var c [tensormap.MaxRank]int64
	for i := 0; i < rank; i++ {
		c[i] = int64(int32(uint32(w.R[in.V[i]+int32(l)])))
	}
	return c
}

// tensorBox is one box of a tensor copy: the map, where it starts, and the
// global bytes its in-bound elements lie in (nil when none does).
type tensorBox struct {
	m      *tensormap.Map
	start  tensormap.Start
	coords [tensormap.MaxRank]int64 // start.Coords
	lo     uint64
	global []byte
	mapAt  uint64 // under --race: the map's global address (0: a parameter)
}

func (b *tensorBox) rng() asyncgroup.Range {
	return asyncgroup.Range{Lo: b.lo, Hi: b.lo + uint64(len(b.global))}
}

// gather returns the in-bound elements' global bytes, in box order.
func (b *tensorBox) gather(shBase uint32) []byte {
	es := b.m.Type.ElemSize()
	out := make([]byte, 0, b.m.BoxBytes())
	b.m.Each(b.start, shBase, func(e tensormap.Elem) {
		if e.InBounds {
			out = append(out, b.global[e.Global-b.lo:e.Global-b.lo+uint64(es)]...)
		}
	})
	return out
}

func (w *Warp) tensorBoxOf(l int, in *Inst, op *tmaOp) (*tensorBox, bool) {
	m, ok := w.tensorMapAt(l, in, op)
	if !ok {
		return nil, false
	}
	b := &tensorBox{m: m, start: w.tensorStart(l, in, op)}
	b.coords = b.start.Coords
	b.mapAt = w.raceMapAt(l, in, op)
	if m.Rank != op.rank {
		w.Fault(l, ruleTensMap, specTMA, "%s names %d dimensions but its tensor map has rank %d", op.name, op.rank, m.Rank)
		return nil, false
	}
	if !w.checkLoadMode(l, op, m, b.start) {
		return nil, false
	}
	if ext := m.Extent(); ext == math.MaxUint64 || m.Address+ext < m.Address {
		w.Fault(l, ruleTensMap, specTMA, "%s: the tensor of the map at %#x extends past the end of the address space", op.name, m.Address)
		return nil, false
	}
	lo, hi, inBound, any := m.Bounds(b.start)
	if !any {
		return b, true
	}
	b.lo = lo
	counter := &w.stats.Loaded[SpaceGlobal]
	if op.store {
		counter = &w.stats.Stored[SpaceGlobal]
	}
	before := *counter
	b.global = w.asyncGlobalBytes(l, lo, int(hi-lo), 1, op.store)
	// count the bytes of the box's elements, not of the range around them
	*counter = before + uint64(inBound*m.Type.ElemSize())
	return b, b.global != nil
}

func execTensorCopy(w *Warp, in *Inst) Status {
	op := in.Ext.(*tmaOp)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		box, ok := w.tensorBoxOf(l, in, op)
		if !ok {
			return Fault
		}
		shA := w.R[in.A+int32(l)] + uint64(in.Off)
		if shA%128 != 0 {
			return w.Fault(l, ruleMisaligned, specTMA, "%s: shared address %#x must be 128-byte aligned", op.name, shA)
		}
		var st Status
		if op.store {
			st = w.issueTensorStore(l, in, op, box, shA)
		} else {
			st = w.issueTensorLoads(l, in, op, box, shA)
		}
		if st != Continue {
			return st
		}
	}
	return Continue
}

// issueTensorStore issues a store (or reduction) of the box in the
// executing CTA's shared memory at shA to global memory, completing
// through the thread's bulk async-group.
func (w *Warp) issueTensorStore(l int, in *Inst, op *tmaOp, box *tensorBox, shA uint64) Status {
	m := box.m
	if op.redOp != 0 {
		if err := tensorReduceType(op.redOp, m.Type); err != "" {
			return w.Fault(l, ruleTMAType, specTMARed, "%s with a tensor map of %s: %s", op.name, m.Type, err)
		}
	}
	src, ok := w.bulkShared(l, shA, m.BoxBytes(), true, false)
	if !ok {
		return Fault
	}
	asyncCTA(w.CTA)
	cs := asyncCluster(w.CTA.cluster)
	id := cs.tracker.Issue(w.siteOp(l, op.name, box.rng(), src.rng))
	w.raceTensorBox(id, box)
	base := src.off
	land := func(c *Cluster) *Report {
		if box.global == nil {
			cs.tracker.Land(id)
			return nil
		}
		if op.redOp != 0 && c.atomMu != nil { // other clusters may reduce concurrently
			c.atomMu.Lock()
			defer c.atomMu.Unlock()
		}
		es := m.Type.ElemSize()
		m.Each(box.start, base, func(e tensormap.Elem) {
			if !e.InBounds {
				return
			}
			g := box.global[e.Global-box.lo : e.Global-box.lo+uint64(es)]
			s := src.bytes[e.Shared : e.Shared+uint32(es)]
			if op.redOp != 0 {
				reduceTensorElem(op.redOp, m.Type, g, s)
			} else {
				copy(g, s)
			}
		})
		cs.tracker.Land(id)
		return nil
	}
	t := asyncCTA(w.CTA).thread(w, l)
	t.Add(asyncgroup.Bulk, id)
	t.last = w.prog.Insts[w.pc].Pos
	kind := "cp.async.bulk.tensor"
	if op.redOp != 0 {
		kind = "cp.reduce.async.bulk.tensor"
	}
	detail := func() string {
		return fmt.Sprintf("%d-byte box at %v from shared offset %#x", m.BoxBytes(), box.coords[:m.Rank], base)
	}
	return w.issue(l, id, kind, m.BoxBytes(), landFunc(land), detail)
}

// issueTensorLoads issues the load of the box into shared memory at the
// shared::cluster address shA, or with .multicast::cluster at the same
// offset in every CTA of the mask, each completing through complete-tx of
// the whole box's bytes on the mbarrier at the same offset of that CTA;
// with .cta_group::2, of the CTA of that CTA's pair whose parity is the
// mbarrier operand's CTA's (CUTLASS's 2SM multicast loads name the leader
// CTA's mbarrier, so each pair's leader counts both CTAs' bytes).
func (w *Warp) issueTensorLoads(l int, in *Inst, op *tmaOp, box *tensorBox, shA uint64) Status {
	if !op.multicast {
		dst, ok := w.bulkShared(l, shA, box.m.BoxBytes(), in.Space == SpaceShared, true)
		if !ok {
			return Fault
		}
		bar, boff, ok := w.tensorBarrier(l, in, op, dst)
		if !ok {
			return Fault
		}
		return w.issueTensorLoad(l, op, box, dst, bar, boff)
	}
	if genericSpace(shA) == SpaceSharedCluster {
		shA -= sharedWindow
	}
	mb := w.mbarAddr(l, in)
	if genericSpace(mb) == SpaceSharedCluster {
		mb -= sharedWindow
	}
	if mb%8 != 0 {
		return w.Fault(l, "mbarrier-align", specTMA, "%s mbarrier address %#x is not 8-byte aligned", op.name, mb)
	}
	mbarRank := w.CTA.Rank // the CTA whose mbarrier the operand names
	if k := int(mb >> sharedRankShift); k != 0 {
		mbarRank = k - 1
	}
	mask := uint16(w.R[in.D2+int32(l)])
	if n := len(w.CTA.cluster.CTAs); n < 16 && mask>>n != 0 {
		return w.Fault(l, ruleOutOfBounds, specTMA, "%s: ctaMask %#x names CTAs beyond the cluster's %d", op.name, mask, n)
	}
	for r := 0; r < len(w.CTA.cluster.CTAs) && r < 16; r++ {
		if mask&(1<<r) == 0 {
			continue
		}
		at := func(a uint64) uint64 { return uint64(r+1)<<sharedRankShift | a&sharedOffMask }
		dst, ok := w.bulkShared(l, at(shA), box.m.BoxBytes(), false, true)
		if !ok {
			return Fault
		}
		barAt := at(mb)
		if op.pair { // .cta_group::2: the mbarrier's CTA of the destination's pair
			barAt = uint64((r&^1|mbarRank&1)+1)<<sharedRankShift | mb&sharedOffMask
		}
		bar, boff, ok := w.SharedTarget(l, barAt, 8, false, true)
		if !ok {
			return Fault
		}
		if st := w.issueTensorLoad(l, op, box, dst, bar, boff); st != Continue {
			return st
		}
	}
	return Continue
}

// tensorBarrier resolves the mbarrier of a non-multicast tensor load: in
// the destination's CTA, or with .cta_group::2 in either CTA of the
// destination's CTA pair (the form a 2SM GEMM uses to signal the leader
// CTA's mbarrier from both CTAs' loads).
func (w *Warp) tensorBarrier(l int, in *Inst, op *tmaOp, dst bulkEnd) (*CTA, uint32, bool) {
	if !op.pair {
		return w.bulkBarrier(l, in, dst)
	}
	a := w.mbarAddr(l, in)
	if genericSpace(a) == SpaceSharedCluster {
		a -= sharedWindow
	}
	if a%8 != 0 {
		w.Fault(l, "mbarrier-align", specTMA, "%s mbarrier address %#x is not 8-byte aligned", op.name, a)
		return nil, 0, false
	}
	bar, off, ok := w.SharedTarget(l, a, 8, false, true)
	if !ok {
		return nil, 0, false
	}
	if bar.Rank != dst.cta.Rank && bar.Rank != dst.cta.Rank^1 {
		w.Fault(l, ruleAsyncSameCTA, specTMA, "%s writes the shared memory of CTA rank %d but signals the mbarrier of CTA rank %d; with .cta_group::2 it must be in that CTA or its peer (rank %d)",
			op.name, dst.cta.Rank, bar.Rank, dst.cta.Rank^1)
		return nil, 0, false
	}
	return bar, off, true
}

func (w *Warp) issueTensorLoad(l int, op *tmaOp, box *tensorBox, dst bulkEnd, bar *CTA, boff uint32) Status {
	m := box.m
	cs := asyncCluster(w.CTA.cluster)
	asyncCTA(dst.cta)
	id := cs.tracker.Issue(w.siteOp(l, op.name, dst.rng, box.rng()))
	w.raceTensorBox(id, box)
	snap := box.gather(dst.off)
	fill := oobFill(m)
	land := func(c *Cluster) *Report {
		if dst.cta.exited {
			return cs.landReport(c, id, ruleRemoteExited, specDSMEM, fmt.Sprintf("tensor copy lands in the shared memory of CTA rank %d, which has exited", dst.cta.Rank))
		}
		if box.global != nil {
			if r := cs.sourceChanged(c, id, box.gather(dst.off), snap); r != nil {
				return r
			}
		}
		es := uint32(m.Type.ElemSize())
		m.Each(box.start, dst.off, func(e tensormap.Elem) {
			d := dst.bytes[e.Shared : e.Shared+es]
			if e.InBounds {
				copy(d, box.global[e.Global-box.lo:])
			} else {
				copy(d, fill)
			}
		})
		cs.tracker.Land(id)
		return cs.completeTx(c, id, "cp.async.bulk.tensor", bar, boff, uint32(m.BoxBytes()))
	}
	cs.willSignal(id, asyncgroup.BarrierRef{CTA: bar.Rank, Addr: uint64(boff)})
	detail := func() string {
		return fmt.Sprintf("%d-byte box at %v to shared offset %#x of CTA rank %d, complete-tx on the mbarrier at %#x",
			m.BoxBytes(), box.coords[:m.Rank], dst.off, dst.cta.Rank, boff)
	}
	return w.issue(l, id, "cp.async.bulk.tensor", m.BoxBytes(), landFunc(land), detail)
}

// oobFill returns the bytes of an out-of-bound element: zero, or with
// FillNaNRequestZeroFMA the canonical NaN of the float type.
func oobFill(m *tensormap.Map) []byte {
	b := make([]byte, m.Type.ElemSize())
	if m.Fill != tensormap.FillNaNRequestZeroFMA {
		return b
	}
	switch len(b) {
	case 2:
		putN(b, 0x7fff)
	case 4:
		putN(b, 0x7fffffff)
	case 8:
		putN(b, 0x7fffffffffffffff)
	}
	return b
}

// tensorReduceType says why reduction op is not defined for type t, or "".
func tensorReduceType(op uint64, t tensormap.DataType) string {
	switch t {
	case tensormap.F16, tensormap.BF16, tensormap.F32, tensormap.F32FTZ, tensormap.F64:
		if op > 3 {
			return "floating-point types take only .add, .min and .max"
		}
	case tensormap.TF32, tensormap.TF32FTZ:
		return "tf32 tensors cannot be reduced"
	case tensormap.U16:
		return "16-bit integer tensors cannot be reduced"
	case tensormap.U8:
		return "8-bit tensors cannot be reduced"
	case tensormap.S32, tensormap.S64:
		if op == 4 || op == 5 {
			return ".inc and .dec need an unsigned type"
		}
	}
	return ""
}

// reduceTensorElem applies op to one element of global memory g with the
// shared element s.
func reduceTensorElem(op uint64, t tensormap.DataType, g, s []byte) {
	switch t {
	case tensormap.F16, tensormap.BF16:
		et := TF16
		if t == tensormap.BF16 {
			et = TBF16
		}
		x, y := floatValue(et, getN(g)), floatValue(et, getN(s))
		putN(g, et.FromFloat(floatReduce(op, x, y)))
	case tensormap.F32, tensormap.F32FTZ:
		ftz := t == tensormap.F32FTZ // subnormal operands and results are zero
		x, y := f32Operand(getN(g), ftz), f32Operand(getN(s), ftz)
		putN(g, uint64(math.Float32bits(float32(f32Operand(uint64(math.Float32bits(float32(floatReduce32(op, x, y)))), ftz)))))
	case tensormap.F64:
		putN(g, math.Float64bits(floatReduce(op, math.Float64frombits(getN(g)), math.Float64frombits(getN(s)))))
	default:
		putN(g, reduce(op, tensorIntType(t), getN(g), getN(s)))
	}
}

// f32Operand returns the f32 value of bits b, a subnormal flushed to a
// zero of its sign when ftz is set.
func f32Operand(b uint64, ftz bool) float64 {
	v := math.Float32frombits(uint32(b))
	if ftz && v != 0 && math.Abs(float64(v)) < 0x1p-126 {
		return math.Copysign(0, float64(v))
	}
	return float64(v)
}

// floatReduce32 is floatReduce rounded as f32 arithmetic.
func floatReduce32(op uint64, x, y float64) float64 {
	if op == 1 {
		return float64(float32(x) + float32(y))
	}
	return floatReduce(op, x, y)
}

func floatReduce(op uint64, x, y float64) float64 {
	if op == 1 {
		return x + y
	}
	switch { // min and max return the other operand when one is NaN
	case math.IsNaN(x):
		return y
	case math.IsNaN(y):
		return x
	case op == 2:
		return math.Min(x, y)
	}
	return math.Max(x, y)
}

func tensorIntType(t tensormap.DataType) Type {
	switch t {
	case tensormap.S32:
		return TS32
	case tensormap.U64:
		return TU64
	case tensormap.S64:
		return TS64
	}
	return TU32
}

// mapBuffer is the index of the argument whose buffer tensor-map argument
// i (a) describes: its own with IsBuffer, else MapOf.
func (a *Arg) mapBuffer(i int) int {
	if a.IsBuffer {
		return i
	}
	return a.MapOf
}

// checkTensorMapArg checks tensor-map argument i: a 128-byte parameter, a
// buffer argument to describe (or a buffer of its own), a valid map, and
// a tensor that fits in the buffer.
func checkTensorMapArg(args []Arg, i int, prm Param) error {
	a := &args[i]
	if prm.Size < tensormap.Size {
		return fmt.Errorf("%w: parameter %d (%s) is %d bytes wide and cannot hold a %d-byte tensor map", ErrLaunch, i, prm.Name, prm.Size, tensormap.Size)
	}
	if a.Texture != nil {
		return fmt.Errorf("%w: argument %d (%s) cannot be both a tensor map and a texture", ErrLaunch, i, prm.Name)
	}
	j := a.mapBuffer(i)
	if j < 0 || j >= len(args) || !args[j].IsBuffer {
		return fmt.Errorf("%w: the tensor map of argument %d (%s) describes argument %d, which is not a buffer", ErrLaunch, i, prm.Name, j)
	}
	if err := a.TensorMap.Validate(); err != nil {
		return fmt.Errorf("%w: the tensor map of argument %d (%s): %v", ErrLaunch, i, prm.Name, err)
	}
	if ext, n := a.TensorMap.Extent(), uint64(args[j].bufferBytes()); ext > n {
		return fmt.Errorf("%w: the tensor map of argument %d (%s) spans %d bytes, but the buffer of argument %d has %d", ErrLaunch, i, prm.Name, ext, j, n)
	}
	return nil
}

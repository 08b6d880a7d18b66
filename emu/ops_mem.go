package emu

import (
	"encoding/binary"
	"github.com/ptxkit/ptxkit/isa"
	"sync"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

func init() {
	RegisterOpcode("st", decodeSt)
	RegisterOpcode("ld", decodeLd)
	RegisterOpcode("ldu", decodeLd)
	RegisterOpcode("cvta", decodeCvta)
	RegisterOpcode("isspacep", decodeIsspacep)
	RegisterOpcode("mapa", decodeMapa)
	RegisterOpcode("getctarank", decodeGetctarank)
	RegisterOpcode("atom", decodeAtom)
	RegisterOpcode("red", decodeAtom)
	RegisterOpcode("createpolicy", decodeCreatePolicy)
}

// memSpace returns the space a memory instruction accesses: its qualifier,
// or the space of the named variable it addresses, or generic.
func memSpace(q *Quals, symSpace Space) Space {
	if q.HasSpace {
		if q.Space == SpaceParam && symSpace == SpaceParamFunc {
			return SpaceParamFunc // st.param/ld.param on a .func argument
		}
		return q.Space
	}
	if symSpace != SpaceGeneric {
		// An unqualified access to a named variable uses generic
		// addressing of that variable (§6.4.1.1); the decoder already
		// holds its space address, so access the space directly.
		return symSpace
	}
	return SpaceGeneric
}

// decodeLdSt decodes the shared part of ld and st: address, type, vector.
func decodeLdSt(d *Decoder, in *ast.Instruction, out *Inst, data ast.Expr, store bool) error {
	q := d.quals()
	t := q.Type()
	if t == TNone || t == TPred {
		return d.Errorf(in, "%s needs a data type", in.Opcode)
	}
	base, off, sp, err := d.Addr(in.Operands[boolIdx(store, 0, 1)])
	if err != nil {
		return err
	}
	out.A, out.Off, out.Type, out.Vec = base, off, t, uint8(q.Vec)
	out.Space = memSpace(&q, sp)
	out.storeCnt = int32(t.Size() * q.Vec)
	if v, ok := data.(*ast.VectorExpr); ok && q.Vec == 1 && len(v.Elems) == 1 {
		data = v.Elems[0] // "{%r1}" is the scalar %r1
	}
	if q.Vec == 1 {
		if store {
			out.B, err = d.Src(data, t)
		} else {
			out.D, err = d.Dst(data)
		}
		return err
	}
	v, err := d.Vector(data, t, !store)
	if err != nil {
		return err
	}
	if len(v) != q.Vec {
		return d.Errorf(data, "%s needs %d vector elements, got %d", in.FullOpcode(), q.Vec, len(v))
	}
	copy(out.V[:], v)
	return nil
}

func boolIdx(b bool, x, y int) int {
	if b {
		return x
	}
	return y
}

// memExecs are the handlers of one direction of memory access, from the
// most specialised to the general one.
type memExecs struct {
	v4x32, x32, vec, b128, any ExecFunc
}

var (
	stExecs = memExecs{execStV4x32, execSt32, execStVec, execSt128, execSt}
	ldExecs = memExecs{execLdV4x32, execLd32, execLdVec, execLd128, execLd}
)

// pick chooses the handler for the decoded access out: the global and
// shared fast paths for 32-bit scalars and .v4 of 32-bit elements, then
// vectors, 128-bit scalars and everything else.
func (e *memExecs) pick(out *Inst) ExecFunc {
	fast := out.Space == SpaceGlobal || out.Space == SpaceShared
	switch {
	case fast && out.Vec == 4 && out.Type.Size() == 4:
		return e.v4x32
	case fast && out.Vec == 1 && out.Type.Size() == 4:
		return e.x32
	case out.Vec > 1:
		return e.vec
	case out.Type == TB128:
		return e.b128
	}
	return e.any
}

// decodeSt lowers st{.weak,.volatile,.relaxed.scope,.release.scope,.mmio}
// {.space}{.cop}{.L2::...}{.vec}.type [a], b{, cache-policy} (§9.7.9.11).
// Memory-order and cache qualifiers have no functional effect on a
// sequentially consistent memory (DIGEST §4) and are accepted as such.
func decodeSt(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) < 2 || len(in.Operands) > 3 {
		return d.Errorf(in, "st takes an address, a value and an optional cache policy")
	}
	if err := decodeLdSt(d, in, out, in.Operands[1], true); err != nil {
		return err
	}
	out.Exec = stExecs.pick(out)
	return nil
}

// decodeLd lowers ld/ldu{.space}{...}{.vec}.type d, [a] (§9.7.9.8).
func decodeLd(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) < 2 || len(in.Operands) > 3 {
		return d.Errorf(in, "ld takes a destination, an address and an optional cache policy")
	}
	if err := decodeLdSt(d, in, out, in.Operands[0], false); err != nil {
		return err
	}
	out.Exec = ldExecs.pick(out)
	if q := d.quals(); out.Vec == 1 && out.D >= 0 && (q.Has(isa.QAcquire) || q.Has(isa.QRelaxed) || q.Has(isa.QVolatile)) {
		out.Ext, out.Exec = out.Exec, execPollLoad
	}
	return nil
}

// execPollLoad runs a scalar load with a memory-order qualifier
// (.acquire, .relaxed, .volatile: what loops that poll a flag written by
// another thread use). When it reads, in the warp's first executing lane,
// the value this instruction read there last time, the warp yields: the
// thread it waits for can then run instead of the poll spinning for the
// rest of the quantum. Results do not change, only the interleaving.
func execPollLoad(w *Warp, in *Inst) Status {
	if st := in.Ext.(ExecFunc)(w, in); st != Continue {
		return st
	}
	v := w.R[in.D+int32(lane(w.Exec))]
	if w.pollPC == w.pc && w.pollVal == v {
		return Yield
	}
	w.pollPC, w.pollVal = w.pc, v
	return Continue
}

func putN(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
}

func getN(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// execSt stores the low bits of a register (relaxed type-checking, §9.4.1).
func execSt(w *Warp, in *Inst) Status {
	n := int(in.storeCnt)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, n, true)
		if b == nil {
			return Fault
		}
		putN(b, w.R[in.B+int32(l)])
	}
	return Continue
}

// execStGlobal32 is execSt for 4-byte .global stores.
func execStGlobal32(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		var b []byte
		if r := w.cache; r != nil && a&3 == 0 && a >= r.Base && a+4 <= r.Base+uint64(len(r.Data)) && !r.ReadOnly && w.CTA.cluster.race == nil {
			b = r.Data[a-r.Base:]
			w.stats.Stored[SpaceGlobal] += 4
		} else if b = w.Bytes(l, SpaceGlobal, a, 4, true); b == nil {
			return Fault
		}
		binary.LittleEndian.PutUint32(b, uint32(w.R[in.B+int32(l)]))
	}
	return Continue
}

func execSt128(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, 16, true)
		if b == nil {
			return Fault
		}
		binary.LittleEndian.PutUint64(b, w.R[in.B+int32(l)])
		binary.LittleEndian.PutUint64(b[8:], w.R[in.B+32+int32(l)])
	}
	return Continue
}

// execStVec stores a vector as one access of the whole vector's size;
// "_" elements leave their bytes unchanged.
func execStVec(w *Warp, in *Inst) Status {
	es := in.Type.Size()
	n := int(in.storeCnt)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, n, true)
		if b == nil {
			return Fault
		}
		for i := 0; i < int(in.Vec); i++ {
			if s := in.V[i]; s >= 0 {
				putN(b[i*es:i*es+es], w.R[s+int32(l)])
			}
		}
	}
	return Continue
}

// loadValue widens loaded bits: signed types sign-extend (§9.7.9.8).
func loadValue(t Type, v uint64) uint64 {
	if t.Signed() {
		return sext(v, t.Bits())
	}
	return v
}

func execLd(w *Warp, in *Inst) Status {
	n := int(in.storeCnt)
	if in.Space == SpaceParam && in.D >= 0 {
		if st, ok := ldParamOnce(w, in, n); ok {
			return st
		}
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, n, false)
		if b == nil {
			return Fault
		}
		if in.D >= 0 {
			w.R[in.D+int32(l)] = loadValue(in.Type, getN(b))
		}
	}
	return Continue
}

// ldParamOnce loads a kernel parameter once for a warp whose lanes all
// read the same address outside any call (the common ld.param [name]):
// the bytes, the counts and a fault (at the lowest lane, where the
// per-lane loop would stop) are those of the per-lane loop. It reports
// false, doing nothing, for any other warp and under --race.
func ldParamOnce(w *Warp, in *Inst, n int) (Status, bool) {
	if w.CTA.cluster.race != nil {
		return Continue, false
	}
	if w.Exec == allLanes {
		return ldParamWarp(w, in, n)
	}
	l0 := lane(w.Exec)
	a := w.R[in.A+int32(l0)]
	k := 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		if w.depth[l] != 0 || w.R[in.A+int32(l)] != a {
			return Continue, false
		}
		k++
	}
	b := w.Bytes(l0, in.Space, a+uint64(in.Off), n, false)
	if b == nil {
		return Fault, true
	}
	v := loadValue(in.Type, getN(b))
	w.count(SpaceParam, n*(k-1), false)
	for m := w.Exec; m != 0; m &= m - 1 {
		w.R[in.D+int32(lane(m))] = v
	}
	return Continue, true
}

// ldParamWarp is ldParamOnce for a full warp: the call depths tested
// eight lanes a load, the addresses four lanes a step, the value written
// to the destination's lane array.
func ldParamWarp(w *Warp, in *Inst, n int) (Status, bool) {
	d := &w.depth
	if binary.LittleEndian.Uint64(d[0:8])|binary.LittleEndian.Uint64(d[8:16])|
		binary.LittleEndian.Uint64(d[16:24])|binary.LittleEndian.Uint64(d[24:32]) != 0 {
		return Continue, false
	}
	as := lanes(w.R, in.A)
	a := as[0]
	var diff uint64
	for l := 0; l < 32; l += 4 {
		x := (*[4]uint64)(as[l : l+4])
		diff |= x[0] ^ a | x[1] ^ a | x[2] ^ a | x[3] ^ a
	}
	if diff != 0 {
		return Continue, false
	}
	b := w.Bytes(0, in.Space, a+uint64(in.Off), n, false)
	if b == nil {
		return Fault, true
	}
	v := loadValue(in.Type, getN(b))
	w.count(SpaceParam, n*31, false)
	dst := lanes(w.R, in.D)
	for l := range dst {
		dst[l] = v
	}
	return Continue, true
}

func execLd128(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, 16, false)
		if b == nil {
			return Fault
		}
		if in.D >= 0 {
			w.R[in.D+int32(l)] = binary.LittleEndian.Uint64(b)
			w.R[in.D+32+int32(l)] = binary.LittleEndian.Uint64(b[8:])
		}
	}
	return Continue
}

func execLdVec(w *Warp, in *Inst) Status {
	es := in.Type.Size()
	n := int(in.storeCnt)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		a := w.R[in.A+int32(l)] + uint64(in.Off)
		b := w.Bytes(l, in.Space, a, n, false)
		if b == nil {
			return Fault
		}
		for i := 0; i < int(in.Vec); i++ {
			if s := in.V[i]; s >= 0 {
				w.R[s+int32(l)] = loadValue(in.Type, getN(b[i*es:i*es+es]))
			}
		}
	}
	return Continue
}

// windowBase returns the generic-window base of a space (§6.4.1.1).
func windowBase(sp Space) uint64 {
	switch sp {
	case SpaceShared, SpaceSharedCluster:
		return sharedWindow
	case SpaceLocal:
		return localWindow
	case SpaceConst:
		return constWindow
	case SpaceParam:
		return paramWindow
	}
	return 0
}

// decodeCvta lowers cvta.space.size d, a (to generic) and
// cvta.to.space.size d, a (from generic) (§9.7.9.20).
func decodeCvta(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.HasSpace || len(in.Operands) != 2 {
		return d.Errorf(in, "cvta needs a state space and two operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], TU64); err != nil {
		return err
	}
	out.Type = q.Type()
	out.Space = q.Space
	out.Imm = windowBase(q.Space)
	out.Exec = execCvtaTo
	if q.Has(isa.QTo) {
		out.Exec = execCvtaFrom
	}
	return nil
}

func execCvtaTo(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = (w.R[in.A+l]&mask + in.Imm) & mask
	}
	return Continue
}

func execCvtaFrom(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = (w.R[in.A+l] - in.Imm) & mask
	}
	return Continue
}

func decodeIsspacep(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.HasSpace || len(in.Operands) != 2 {
		return d.Errorf(in, "isspacep needs a state space and two operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], TU64); err != nil {
		return err
	}
	out.Space = q.Space
	out.Exec = execIsspacep
	return nil
}

// execIsspacep tests a generic address against a window (§9.7.9.19):
// .global includes kernel parameters; .shared::cluster covers every CTA of
// the cluster, .shared::cta only the executing one.
func execIsspacep(w *Warp, in *Inst) Status {
	cl := w.CTA.cluster
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a := w.R[in.A+l]
		g := genericSpace(a)
		ok := false
		switch in.Space {
		case SpaceGlobal:
			ok = g == SpaceGlobal || g == SpaceParam
		case SpaceShared, SpaceSharedCluster:
			if g == SpaceSharedCluster {
				s := a - sharedWindow
				rank := int(s>>sharedRankShift) - 1
				ok = s>>32 == 0 && rank >= 0 && rank < len(cl.CTAs) && int(s&sharedOffMask) < len(cl.CTAs[rank].Shared)
				if in.Space == SpaceShared {
					ok = ok && rank == w.CTA.Rank
				}
			}
		default:
			ok = g == in.Space
		}
		w.R[in.D+l] = b2u(ok)
	}
	return Continue
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// decodeMapa lowers mapa{.shared::cluster}.{u32,u64} d, a, rank (§9.7.9.23).
func decodeMapa(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(in.Operands) != 3 {
		return d.Errorf(in, "mapa takes three operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], TU64); err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[2], TU32); err != nil {
		return err
	}
	out.Type = q.Type()
	out.Space = SpaceGeneric
	if q.HasSpace {
		out.Space = q.Space
	}
	out.Exec = execMapa
	return nil
}

const specMapa = "PTX ISA §9.7.9.23 (mapa)"

// sharedOf converts operand value a to a shared::cluster address: directly
// for shared-space forms, through the shared window for generic ones.
func (w *Warp) sharedOf(l int, in *Inst, a uint64) (uint64, bool) {
	if in.Space != SpaceGeneric {
		return a & 0xffffffff, true
	}
	if genericSpace(a) != SpaceSharedCluster {
		w.Fault(l, ruleWrongWindow, in.Opcode+": "+specWindows, "generic address %#x is not in the .shared::cluster window", a)
		return 0, false
	}
	return a - sharedWindow, true
}

func execMapa(w *Warp, in *Inst) Status {
	n := len(w.CTA.cluster.CTAs)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		s, ok := w.sharedOf(l, in, w.R[in.A+int32(l)])
		if !ok {
			return Fault
		}
		rank := w.R[in.B+int32(l)] & 0xffffffff
		if rank >= uint64(n) {
			return w.Fault(l, ruleOutOfBounds, specMapa, "mapa to CTA rank %d; the cluster has %d CTAs", rank, n)
		}
		if int(s>>sharedRankShift)-1 < 0 || int(s>>sharedRankShift)-1 >= n {
			return w.Fault(l, ruleWrongWindow, specMapa, "mapa of %#x, which is not a shared memory address of the cluster", s)
		}
		r := (rank+1)<<sharedRankShift | s&sharedOffMask
		if in.Space == SpaceGeneric {
			r += sharedWindow
		}
		w.R[in.D+int32(l)] = r & in.Type.mask()
	}
	return Continue
}

func decodeGetctarank(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(in.Operands) != 2 {
		return d.Errorf(in, "getctarank takes two operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], TU64); err != nil {
		return err
	}
	out.Space = SpaceGeneric
	if q.HasSpace {
		out.Space = q.Space
	}
	out.Exec = execGetctarank
	return nil
}

func execGetctarank(w *Warp, in *Inst) Status {
	n := len(w.CTA.cluster.CTAs)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		s, ok := w.sharedOf(l, in, w.R[in.A+int32(l)])
		if !ok {
			return Fault
		}
		rank := int(s>>sharedRankShift) - 1
		if rank < 0 || rank >= n {
			return w.Fault(l, ruleWrongWindow, "PTX ISA §9.7.9.24 (getctarank)", "address %#x is not a shared memory address of the cluster", s)
		}
		w.R[in.D+int32(l)] = uint64(rank)
	}
	return Continue
}

func decodeCreatePolicy(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) < 1 {
		return d.Errorf(in, "createpolicy needs a destination")
	}
	var err error
	out.D, err = d.Dst(in.Operands[0])
	out.A = d.Const(0x1000000000000000) // an opaque cache policy
	out.Type = TB64
	out.Exec = execMov
	return err
}

// Atomic operations (§9.7.13.5 atom, §9.7.13.6 red).
const (
	atomAdd = iota
	atomMin
	atomMax
	atomInc
	atomDec
	atomAnd
	atomOr
	atomXor
	atomExch
	atomCas
)

var atomOps = map[isa.Qual]int{isa.QAdd: atomAdd, isa.QMin: atomMin, isa.QMax: atomMax, isa.QInc: atomInc, isa.QDec: atomDec,
	isa.QAnd: atomAnd, isa.QOr: atomOr, isa.QXor: atomXor, isa.QExch: atomExch, isa.QCas: atomCas}

// atomOpOf returns the atomic operation (atomAdd, ...) among the
// decoded qualifiers qs, or -1.
func atomOpOf(qs []isa.Qual) int {
	op := -1
	for _, n := range qs {
		if o, ok := atomOps[n]; ok {
			op = o
		}
	}
	return op
}

func decodeAtom(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	op := atomOpOf(q.List)
	t := q.Type()
	if op < 0 || t == TNone || q.Vec != 1 {
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	if t.Size() == 2 && !atom16(op, t) || t.Size() != 2 && t.Size() != 4 && t.Size() != 8 {
		return d.Errorf(in, "the emulator implements %s on 16-bit types only for add, min and max on .f16/.bf16 and cas/exch on .b16", in.FullOpcode())
	}
	ops := in.Operands
	red := in.Opcode == "red"
	if !red {
		var err error
		if len(ops) < 1 {
			return d.Errorf(in, "atom needs a destination")
		}
		if out.D, err = d.Dst(ops[0]); err != nil {
			return err
		}
		ops = ops[1:]
	}
	need := 2
	if op == atomCas {
		need = 3
	}
	if len(ops) < need {
		return d.Errorf(in, "%s needs %d source operands", in.FullOpcode(), need)
	}
	base, off, sp, err := d.Addr(ops[0])
	if err != nil {
		return err
	}
	out.A, out.Off, out.Type, out.Space = base, off, t, memSpace(&q, sp)
	if out.Space != SpaceGlobal && out.Space != SpaceShared && out.Space != SpaceSharedCluster && out.Space != SpaceGeneric {
		return d.Errorf(in, "%s on %s memory", in.Opcode, out.Space)
	}
	if out.B, err = d.Src(ops[1], t); err != nil {
		return err
	}
	if op == atomCas {
		if out.C, err = d.Src(ops[2], t); err != nil {
			return err
		}
	}
	out.Imm = uint64(op)
	out.storeCnt = int32(t.Size())
	out.Exec = execAtom
	return nil
}

// lockedOperand returns the n-byte operand of lane l's atomic at
// [in.A+in.Off], holding mu (when clusters run in parallel) for the caller
// to release after the read-modify-write; on a fault it releases mu and
// returns nil.
func (w *Warp) lockedOperand(mu *sync.Mutex, in *Inst, l, n int) []byte {
	a := w.R[in.A+int32(l)] + uint64(in.Off)
	if mu != nil {
		mu.Lock()
	}
	b := w.Bytes(l, in.Space, a, n, true)
	if b == nil && mu != nil {
		mu.Unlock()
	}
	return b
}

// execAtom performs read-modify-write operations one lane at a time. When
// clusters run in parallel, global atomics hold a lock so that they stay
// indivisible.
func execAtom(w *Warp, in *Inst) Status {
	n := int(in.storeCnt)
	mu := w.CTA.cluster.atomMu
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		b := w.lockedOperand(mu, in, l, n)
		if b == nil {
			return Fault
		}
		old := getN(b)
		var c uint64
		if in.C >= 0 {
			c = w.R[in.C+int32(l)]
		}
		putN(b, atomApply(int(in.Imm), in.Type, old, w.R[in.B+int32(l)], c))
		if mu != nil {
			mu.Unlock()
		}
		if in.D >= 0 {
			w.R[in.D+int32(l)] = loadValue(in.Type, old)
		}
	}
	return Continue
}

// atom16 reports whether op on the 16-bit type t is an atomic operation
// (§9.7.13.5: add, min and max on .f16 and .bf16; cas and exch on .b16).
func atom16(op int, t Type) bool {
	switch op {
	case atomAdd, atomMin, atomMax:
		return t == TF16 || t == TBF16
	case atomCas, atomExch:
		return !t.Float()
	}
	return false
}

// atomApply computes the new memory value of an atomic operation.
func atomApply(op int, t Type, old, b, c uint64) uint64 {
	mask := t.mask()
	old &= mask
	b &= mask
	if (op == atomAdd || op == atomMin || op == atomMax) && (t == TF16x2 || t == TBF16x2) {
		half := TF16
		if t == TBF16x2 {
			half = TBF16
		}
		return atomApply(op, half, old, b, c) | atomApply(op, half, old>>16, b>>16, c)<<16
	}
	switch op {
	case atomAdd:
		switch t {
		case TF16, TBF16: // .noftz: exact sum, rounded once to nearest even
			return floatBits(t, floatValue(t, old)+floatValue(t, b), RoundNearest)
		case TF32:
			return addF32Bits(old, b)
		case TF64:
			return addF64Bits(old, b)
		}
		return (old + b) & mask
	case atomMin, atomMax:
		less := old < b
		if t.Signed() {
			less = int64(sext(old, t.Bits())) < int64(sext(b, t.Bits()))
		} else if t.Float() {
			less = floatValue(t, old) < floatValue(t, b)
		}
		if less == (op == atomMin) {
			return old
		}
		return b
	case atomInc:
		if old >= b {
			return 0
		}
		return old + 1
	case atomDec:
		if old == 0 || old > b {
			return b
		}
		return old - 1
	case atomAnd:
		return old & b
	case atomOr:
		return old | b
	case atomXor:
		return old ^ b
	case atomExch:
		return b
	case atomCas:
		if old == b {
			return c & mask
		}
		return old
	}
	return old
}

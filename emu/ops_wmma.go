package emu

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// wmma.load, wmma.store and wmma.mma (PTX ISA §9.7.14.4) in every shape,
// layout and type. The manual leaves the distribution of a fragment's
// elements over the warp unspecified ("implementation-defined"), and a
// program can only move fragments between wmma instructions, so the
// emulator uses its own: element i of lane l is element (l·E + i) mod S of
// the fragment's matrix in row-major order (E elements per lane, S in the
// matrix; f16 A and B fragments are eight registers in every shape, so
// they hold the elements of the smaller matrices more than once). Memory is read and written with the
// instruction's layout (.row/.col) and stride (in elements; by default
// the matrix's columns for .row and rows for .col). wmma.mma multiplies
// with the target's tensor-core model (internal/tensorcore) for floating
// point and exactly for integers.

func init() { RegisterOpcode("wmma", decodeWmma) }

const specWmma = "PTX ISA §9.7.14.4 (wmma)"

var wmmaShapes = []mmaShape{{isa.QM16n16k16, 16, 16, 16}, {isa.QM8n32k16, 8, 32, 16}, {isa.QM32n8k16, 32, 8, 16},
	{isa.QM16n16k8, 16, 16, 8}, {isa.QM8n8k4, 8, 8, 4}, {isa.QM8n8k32, 8, 8, 32}, {isa.QM8n8k128, 8, 8, 128}}

// wmmaElem is an element type of a wmma fragment.
type wmmaElem struct {
	f      tensorcore.Format // 0 for integers
	bits   int
	signed bool
}

var wmmaTypes = map[isa.Qual]wmmaElem{
	isa.QF16: {tensorcore.F16, 16, false}, isa.QBF16: {tensorcore.BF16, 16, false}, isa.QTf32: {tensorcore.TF32, 32, false},
	isa.QF32: {tensorcore.F32, 32, false}, isa.QF64: {tensorcore.F64, 64, false},
	isa.QS8: {0, 8, true}, isa.QU8: {0, 8, false}, isa.QS32: {0, 32, true}, isa.QS4: {0, 4, true}, isa.QU4: {0, 4, false}, isa.QB1: {0, 1, false},
}

// wmmaFrag is one fragment operand: its matrix's shape, element type and
// register slots.
type wmmaFrag struct {
	rows, cols int
	el         wmmaElem
	regs       []int32
}

// wmmaInst is the Ext of a wmma instruction.
type wmmaInst struct {
	op         isa.Qual // QLoad, QStore, QMma
	frag       wmmaFrag // load/store
	colMajor   bool     // load/store layout
	stride     int32    // register slot of the stride, or -1
	d, a, b, c wmmaFrag // mma
	m, n, k    int
	satfinite  bool
	xor        bool
	arch       *tensorcore.Arch
}

// regsFor is the register count of a fragment: the elements of the matrix
// spread over 32 lanes in 32-bit registers (64-bit for f64); f16 A and B
// fragments are eight registers.
func (f *wmmaFrag) regsFor(ab bool) int {
	if f.el.bits == 64 {
		return f.rows * f.cols / 32
	}
	if ab && f.el.f == tensorcore.F16 {
		return 8 // every f16 A and B fragment, whatever the shape
	}
	return max(f.rows*f.cols*f.el.bits/1024, 1)
}

// perLane is E, the elements a lane holds.
func (f *wmmaFrag) perLane() int {
	if f.el.bits >= 32 {
		return len(f.regs)
	}
	return len(f.regs) * 32 / f.el.bits
}

func decodeWmma(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	x := &wmmaInst{stride: -1, satfinite: q.Has(isa.QSatfinite), xor: q.Has(isa.QXor), arch: tensorcore.ForSM(d.sm)}
	for _, sh := range wmmaShapes {
		if q.Has(sh.q) {
			x.m, x.n, x.k = sh.m, sh.n, sh.k
		}
	}
	var types []wmmaElem
	var layouts []bool
	for _, v := range q.List {
		if t, ok := wmmaTypes[v]; ok {
			types = append(types, t)
		}
		if v == isa.QRow || v == isa.QCol {
			layouts = append(layouts, v == isa.QCol)
		}
	}
	if x.m == 0 || len(types) == 0 || len(layouts) == 0 {
		return d.Errorf(in, "wmma needs a shape, a layout and a type")
	}
	if q.Has(isa.QRz) || q.Has(isa.QRm) || q.Has(isa.QRp) {
		return d.Errorf(in, "the emulator implements wmma.mma on .f64 with .rn only")
	}
	out.Ext = x
	switch {
	case q.Has(isa.QMma):
		return decodeWmmaMma(d, in, out, x, types)
	case q.Has(isa.QLoad), q.Has(isa.QStore):
		return decodeWmmaMove(d, in, out, x, q, types[0], layouts[0])
	}
	return d.Errorf(in, "wmma needs .load, .store or .mma")
}

func decodeWmmaMove(d *Decoder, in *ast.Instruction, out *Inst, x *wmmaInst, q Quals, el wmmaElem, col bool) error {
	x.op, x.colMajor = isa.QLoad, col
	ab := q.Has(isa.QA) || q.Has(isa.QB)
	x.frag = wmmaFrag{rows: x.m, cols: x.n, el: el}
	switch {
	case q.Has(isa.QA):
		x.frag.cols = x.k
	case q.Has(isa.QB):
		x.frag.rows = x.k
	}
	vec, addr := 0, 1
	if q.Has(isa.QStore) {
		x.op, vec, addr = isa.QStore, 1, 0
	}
	if len(in.Operands) != 2 && len(in.Operands) != 3 {
		return d.Errorf(in, "%s takes a fragment, an address and an optional stride", in.FullOpcode())
	}
	var err error
	var sp Space
	if out.A, out.Off, sp, err = d.Addr(in.Operands[addr]); err != nil {
		return err
	}
	out.Space = memSpace(&q, sp)
	rt := TB32
	if el.bits == 64 {
		rt = TB64
	}
	if x.frag.regs, err = d.Vector(in.Operands[vec], rt, x.op == isa.QLoad); err != nil {
		return err
	}
	if want := x.frag.regsFor(ab); len(x.frag.regs) != want {
		return d.Errorf(in.Operands[vec], "%s needs %d registers, got %d", in.FullOpcode(), want, len(x.frag.regs))
	}
	if len(in.Operands) == 3 {
		if x.stride, err = d.Src(in.Operands[2], TU32); err != nil {
			return err
		}
	}
	out.Exec = execWmmaMove
	return nil
}

func decodeWmmaMma(d *Decoder, in *ast.Instruction, out *Inst, x *wmmaInst, types []wmmaElem) error {
	x.op = isa.QMma
	var dt, at, bt, ct wmmaElem
	switch len(types) {
	case 2: // .dtype.ctype: f16 inputs
		dt, ct = types[0], types[1]
		at, bt = wmmaTypes[isa.QF16], wmmaTypes[isa.QF16]
	case 4:
		dt, at, bt, ct = types[0], types[1], types[2], types[3]
	default:
		return d.Errorf(in, "wmma.mma needs its D, A, B and C types")
	}
	x.d = wmmaFrag{rows: x.m, cols: x.n, el: dt}
	x.a = wmmaFrag{rows: x.m, cols: x.k, el: at}
	x.b = wmmaFrag{rows: x.k, cols: x.n, el: bt}
	x.c = wmmaFrag{rows: x.m, cols: x.n, el: ct}
	if len(in.Operands) != 4 {
		return d.Errorf(in, "wmma.mma takes d, a, b, c")
	}
	for i, f := range []*wmmaFrag{&x.d, &x.a, &x.b, &x.c} {
		rt := TB32
		if f.el.bits == 64 {
			rt = TB64
		}
		var err error
		if f.regs, err = d.Vector(in.Operands[i], rt, i == 0); err != nil {
			return err
		}
		if want := f.regsFor(i == 1 || i == 2); len(f.regs) != want {
			return d.Errorf(in.Operands[i], "%s needs %d registers in operand %d, got %d", in.FullOpcode(), want, i+1, len(f.regs))
		}
		for _, s := range f.regs {
			if s < 0 {
				return d.Errorf(in.Operands[i], "wmma operands cannot be \"_\"")
			}
		}
	}
	out.Exec = execWmmaMma
	return nil
}

// slot returns the register and the bit offset of element i of a lane's
// fragment.
func (f *wmmaFrag) slot(i int) (reg int32, shift uint) {
	if f.el.bits >= 32 {
		return f.regs[i], 0
	}
	per := 32 / f.el.bits
	return f.regs[i/per], uint(i % per * f.el.bits)
}

// place is the (row, column) of element i of lane l.
func (f *wmmaFrag) place(l, i int) (row, col int) {
	idx := (l*f.perLane() + i) % (f.rows * f.cols)
	return idx / f.cols, idx % f.cols
}

func (f *wmmaFrag) mask() uint64 {
	if f.el.bits == 64 {
		return math.MaxUint64
	}
	return 1<<uint(f.el.bits) - 1
}

func wmmaWholeWarp(w *Warp) Status {
	if w.Exec != w.live || w.live != ^uint32(0) {
		return w.Fault(lane(w.Exec), RuleUnsupported, specWmma, "wmma executed by lanes %#08x; all 32 lanes of the warp must execute it (.sync.aligned)", w.Exec)
	}
	return Continue
}

func execWmmaMove(w *Warp, in *Inst) Status {
	if st := wmmaWholeWarp(w); st != Continue {
		return st
	}
	x := in.Ext.(*wmmaInst)
	f := &x.frag
	base := w.R[in.A] + uint64(in.Off)
	stride := uint64(f.cols)
	if x.colMajor {
		stride = uint64(f.rows)
	}
	if x.stride >= 0 {
		stride = uint64(uint32(w.R[x.stride]))
	}
	for l := range 32 {
		if w.R[in.A+int32(l)] != w.R[in.A] || x.stride >= 0 && w.R[x.stride+int32(l)] != w.R[x.stride] {
			return w.Fault(l, RuleUnsupported, specWmma, "%s: every lane must give the same address and stride", in.Opcode)
		}
	}
	store := x.op == isa.QStore
	if !store {
		for l := range 32 {
			for _, r := range f.regs {
				w.R[r+int32(l)] = 0
			}
		}
	}
	for l := range 32 {
		for i := range f.perLane() {
			r, c := f.place(l, i)
			pos := uint64(r)*stride + uint64(c)
			if x.colMajor {
				pos = uint64(c)*stride + uint64(r)
			}
			bitOff := pos * uint64(f.el.bits)
			n := max(f.el.bits/8, 1)
			b := w.Bytes(l, in.Space, base+bitOff/8-bitOff/8%uint64(n), n, store)
			if b == nil {
				return Fault
			}
			reg, sh := f.slot(i)
			if store {
				putElem(b, f.el.bits, uint(bitOff%8), w.R[reg+int32(l)]>>sh&f.mask())
				continue
			}
			w.R[reg+int32(l)] |= getElem(b, f.el.bits, uint(bitOff%8)) << sh
		}
	}
	return Continue
}

// getElem and putElem read and write an element of width bits at bit
// offset off of b (sub-byte elements inside one byte).
func getElem(b []byte, width int, off uint) uint64 {
	switch width {
	case 64:
		return binary.LittleEndian.Uint64(b)
	case 32:
		return uint64(binary.LittleEndian.Uint32(b))
	case 16:
		return uint64(binary.LittleEndian.Uint16(b))
	}
	return uint64(b[0]) >> off & (1<<uint(width) - 1)
}

func putElem(b []byte, width int, off uint, v uint64) {
	switch width {
	case 64:
		binary.LittleEndian.PutUint64(b, v)
	case 32:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 16:
		binary.LittleEndian.PutUint16(b, uint16(v))
	default:
		m := byte(1<<uint(width)-1) << off
		b[0] = b[0]&^m | byte(v)<<off&m
	}
}

// gather reads a fragment into a matrix of bit patterns (row-major).
func (f *wmmaFrag) gather(w *Warp) []uint64 {
	out := make([]uint64, f.rows*f.cols)
	for l := range 32 {
		for i := range f.perLane() {
			r, c := f.place(l, i)
			reg, sh := f.slot(i)
			out[r*f.cols+c] = w.R[reg+int32(l)] >> sh & f.mask()
		}
	}
	return out
}

// scatter writes a row-major matrix of bit patterns into a fragment.
func (f *wmmaFrag) scatter(w *Warp, m []uint64) {
	for l := range 32 {
		words := make([]uint64, len(f.regs))
		for i := range f.perLane() {
			r, c := f.place(l, i)
			_, sh := f.slot(i)
			k := i
			if f.el.bits < 32 {
				k = i / (32 / f.el.bits)
			}
			words[k] |= m[r*f.cols+c] & f.mask() << sh
		}
		for k, s := range f.regs {
			w.R[s+int32(l)] = words[k]
		}
	}
}

func execWmmaMma(w *Warp, in *Inst) Status {
	if st := wmmaWholeWarp(w); st != Continue {
		return st
	}
	x := in.Ext.(*wmmaInst)
	A, B, C := x.a.gather(w), x.b.gather(w), x.c.gather(w)
	D := make([]uint64, x.m*x.n)
	if x.a.el.f == 0 {
		wmmaInteger(x, A, B, C, D)
	} else {
		bt := make([]uint64, x.k*x.n) // by columns
		for kk := range x.k {
			for j := range x.n {
				bt[j*x.k+kk] = B[kk*x.n+j]
			}
		}
		x.arch.MMA(&tensorcore.Problem{Kind: tensorcore.Sync, In: x.a.el.f, Out: x.d.el.f, CIn: x.c.el.f,
			M: x.m, N: x.n, K: x.k, A: A, B: bt, C: C, D: D})
	}
	x.d.scatter(w, D)
	return Continue
}

// wmmaInteger is D = A·B + C on integers (s8/u8, s4/u4, or b1 with
// .xor/.and .popc), wrapping in 32 bits or clamped with .satfinite.
func wmmaInteger(x *wmmaInst, A, B, C, D []uint64) {
	ext := func(v uint64, el wmmaElem) int64 {
		if el.signed {
			return signExtend(v, el.bits)
		}
		return int64(v)
	}
	for i := range x.m {
		for j := range x.n {
			s := int64(int32(C[i*x.n+j]))
			for kk := range x.k {
				a, b := A[i*x.k+kk], B[kk*x.n+j]
				switch {
				case x.a.el.bits > 1:
					s += ext(a, x.a.el) * ext(b, x.b.el)
				case x.xor:
					s += int64(bits.OnesCount64(a ^ b))
				default:
					s += int64(bits.OnesCount64(a & b))
				}
			}
			if x.satfinite {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			D[i*x.n+j] = uint64(uint32(s))
		}
	}
}

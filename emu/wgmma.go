package emu

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// wgmma.mma_async (PTX ISA §9.7.15.5) on f16, bf16, tf32 and e4m3/e5m2
// with f32 or f16 accumulators (and s8/u8 and .b1.and.popc with s32), A from a shared-memory matrix descriptor
// or from registers, B from a descriptor, K-major (imm-trans 0) or, for
// f16 and bf16 (the only types with imm-trans operands), MN-major
// (imm-trans 1) in every swizzle mode; and wgmma.fence, commit_group and
// wait_group.
//
// Each warp of the warpgroup owns 16 rows of D (warp w%4 rows 16w..16w+15)
// and they depend only on those rows of A and on all of B, so each warp
// computes its slice when it issues the instruction, with the Hopper model
// of internal/tensorcore (Async: one operation, FP8 with 13 fraction
// bits). The asynchronous completion is not modelled separately: the
// results are in the registers once the instruction is issued, which is
// what a program that waits (wgmma.wait_group) before reading them sees.
//
// Fragment layout of D (per warp, N/2 f32 or N/4 f16x2 registers): element
// i is row 16w + g + 8·((i/2)%2), column 8·(i/4) + 2t + i%2 (g = lane/4,
// t = lane%4). A in registers is the mma.m16n8k16 A fragment of the warp's
// 16 rows.
//
// Matrix descriptor (64 bits): start address >> 4 in bits 0-13, leading
// dimension byte offset >> 4 in 16-29, stride dimension byte offset >> 4
// in 32-45, swizzle mode in 62-63 (0 none, 1 128B, 2 64B, 3 32B). K-major
// element (row r, k-byte b): without swizzle, core matrices of 8 rows × 16
// bytes: start + (r/8)·SBO + (b/16)·LBO + (r%8)·16 + b%16; with a swizzle
// of W bytes: start + (r/8)·SBO + (r%8)·W + b, then the 16-byte chunk
// bits [4, 4+log2(W/16)) of the address are XORed with bits [7, ...).

func init() { RegisterOpcode("wgmma", decodeWgmma) }

const specWgmma = "PTX ISA §9.7.15.5.2 (wgmma.mma_async)"

type wgmmaInst struct {
	n, k        int
	in, bin     tensorcore.Format
	out         tensorcore.Format
	d, a        []int32 // a: registers when A is not a descriptor
	aDesc       int32   // register slot of the A descriptor, or -1
	bDesc       int32
	scaleD      int32 // predicate or constant slot
	negA, negB  bool
	transA      bool
	transB      bool
	arch        *tensorcore.Arch
	fence, wait bool
	integer     bool    // .s32 accumulators of .s8/.u8 products
	binary      bool    // .s32.b1.b1.and.popc: bytes of 8 one-bit elements
	signed      [2]bool // A, B signed (integer)
	satfinite   bool
	sparse      *mmaSparse // .sp: the metadata (wgmma_sparse.go)
	shape       string     // shape and types as written (".m64n16k16.f32.f16.f16"), for wgmma_flight.go
	dNames      []string   // the registers of D and of A in registers, for reports
	aNames      []string
}

var wgmmaFormats = map[isa.Qual]tensorcore.Format{isa.QF16: tensorcore.F16, isa.QBF16: tensorcore.BF16,
	isa.QTf32: tensorcore.TF32, isa.QE4m3: tensorcore.E4M3, isa.QE5m2: tensorcore.E5M2, isa.QF32: tensorcore.F32}

func decodeWgmma(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	switch {
	case q.Has(isa.QFence):
		out.Exec = execWgmmaFence
		return nil
	case q.Has(isa.QCommit_Group):
		out.Exec = execWgmmaCommit
		return nil
	case q.Has(isa.QWait_Group):
		if len(in.Operands) != 1 {
			return d.Errorf(in, "wgmma.wait_group takes one operand, the number of groups left pending")
		}
		n, ok := parser.ConstValue(in.Operands[0])
		if !ok || n < 0 {
			return d.Errorf(in.Operands[0], "wgmma.wait_group needs a non-negative integer constant")
		}
		out.Imm = uint64(n)
		out.Exec = execWgmmaWait
		return nil
	case !q.Has(isa.QMma_Async):
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	x := &wgmmaInst{aDesc: -1, arch: tensorcore.ForSM(max(d.sm, 90))}
	var types []tensorcore.Format
	var ints []isa.Qual
	for _, v := range q.List {
		if f, ok := wgmmaFormats[v]; ok {
			types = append(types, f)
		}
		if v == isa.QS8 || v == isa.QU8 || v == isa.QS32 {
			ints = append(ints, v)
		}
		if m, n, k, ok := v.MatrixShape(); ok && m == 64 {
			x.n, x.k = n, k
		}
	}
	if q.Has(isa.QB1) && q.Has(isa.QAnd) && q.Has(isa.QPopc) && len(ints) == 1 && len(types) == 0 && x.n != 0 && x.k == 256 && !q.Has(isa.QSp) {
		// .s32.b1.b1.and.popc: 256 bits of K are 32 bytes, read as the 8-bit forms read theirs
		x.integer, x.binary, x.k = true, true, 32
		types = []tensorcore.Format{tensorcore.F32, tensorcore.E4M3, tensorcore.E4M3}
	} else if len(ints) == 3 && len(types) == 0 && x.n != 0 {
		// integers: the element widths of E4M3 stand in for the 8-bit inputs
		x.integer, x.satfinite = true, q.Has(isa.QSatfinite)
		x.signed = [2]bool{ints[1] == isa.QS8, ints[2] == isa.QS8}
		types = []tensorcore.Format{tensorcore.F32, tensorcore.E4M3, tensorcore.E4M3}
	}
	if len(types) != 3 || x.n == 0 {
		return d.Errorf(in, "the emulator implements wgmma.mma_async on f16, bf16, tf32, FP8, s8, u8 and b1 (not %s)", in.FullOpcode())
	}
	x.out, x.in, x.bin = types[0], types[1], types[2]
	ops := in.Operands
	if q.Has(isa.QSp) {
		var err error
		if ops, err = decodeWgmmaSparse(d, in, x); err != nil {
			return err
		}
	}
	want := 8
	switch {
	case x.integer:
		want = 4
	case x.in == tensorcore.TF32, x.in == tensorcore.E4M3, x.in == tensorcore.E5M2:
		want = 6
	}
	if len(ops) < 4 {
		return d.Errorf(in, "%s takes d, a, b, scale-d and its immediates", in.FullOpcode())
	}
	_, aIsVec := ops[1].(*ast.VectorExpr)
	if aIsVec && want == 8 {
		want = 7
	}
	if len(ops) != want {
		return d.Errorf(in, "%s takes %d operands, got %d", in.FullOpcode(), want, len(ops))
	}
	perReg := 1
	if x.out == tensorcore.F16 {
		perReg = 2
	}
	var err error
	if x.d, err = d.Vector(ops[0], TB32, true); err != nil {
		return err
	}
	if len(x.d) != x.n/2/perReg {
		return d.Errorf(ops[0], "%s needs %d registers in D, got %d", in.FullOpcode(), x.n/2/perReg, len(x.d))
	}
	if aIsVec {
		if x.a, err = d.Vector(ops[1], TB32, false); err != nil {
			return err
		}
		if len(x.a) != 4 {
			return d.Errorf(ops[1], "A in registers is 4 registers")
		}
	} else if x.aDesc, err = d.Src(ops[1], TB64); err != nil {
		return err
	}
	x.dNames = regNames(ops[0])
	if aIsVec {
		x.aNames = regNames(ops[1])
	}
	for _, v := range q.List {
		if s := v.String(); v != isa.QMma_Async && v != isa.QSync && v != isa.QAligned {
			x.shape += s
		}
	}
	if x.bDesc, err = d.Src(ops[2], TB64); err != nil {
		return err
	}
	if x.scaleD, err = d.Src(ops[3], TPred); err != nil {
		return err
	}
	imm := func(i int) (int64, error) {
		v, ok := parser.ConstValue(ops[i])
		if !ok {
			return 0, d.Errorf(ops[i], "expected an integer constant")
		}
		return v, nil
	}
	rest := []*bool{&x.negA, &x.negB, &x.transA, &x.transB}
	if aIsVec {
		rest = []*bool{&x.negA, &x.negB, &x.transB}
	}
	for i := 4; i < len(ops); i++ {
		v, err := imm(i)
		if err != nil {
			return err
		}
		p := rest[i-4]
		if p == &x.negA || p == &x.negB {
			if v != 1 && v != -1 {
				return d.Errorf(ops[i], "imm-scale must be 1 or -1, got %d", v)
			}
			*p = v == -1
		} else {
			if v != 0 && v != 1 {
				return d.Errorf(ops[i], "imm-trans must be 0 or 1, got %d", v)
			}
			*p = v == 1
		}
	}
	out.Ext = x
	out.Exec = execWgmma
	return nil
}

func execWgmmaFence(w *Warp, in *Inst) Status {
	wgmmaFence(w)
	return Continue
}

func execWgmmaCommit(w *Warp, in *Inst) Status {
	wgmmaCommit(w)
	return Continue
}

func execWgmmaWait(w *Warp, in *Inst) Status {
	wgmmaWait(w, int(in.Imm))
	return Continue
}

// swizzleWidth is the swizzle span in bytes of a matrix descriptor's mode
// (bits 62-63: 1 128B, 2 64B, 3 32B), 0 without swizzle.
func swizzleWidth(desc uint64) uint64 {
	switch desc >> 62 {
	case 1:
		return 128
	case 2:
		return 64
	case 3:
		return 32
	}
	return 0
}

// descAddr is the shared-memory address of the element of row r and k
// byte b of a K-major matrix described by desc.
func descAddr(desc uint64, r, b int) uint64 {
	start := (desc & 0x3fff) << 4
	lbo := (desc >> 16 & 0x3fff) << 4
	sbo := (desc >> 32 & 0x3fff) << 4
	width := swizzleWidth(desc)
	if width == 0 {
		return start + uint64(r/8)*sbo + uint64(b/16)*lbo + uint64(r%8)*16 + uint64(b%16)
	}
	a := start + uint64(r/8)*sbo + uint64(r%8)*width + uint64(b)
	chunks := width / 16 // 8, 4 or 2 chunks of 16 bytes: XOR with the row bits
	return a ^ (a >> 7 & (chunks - 1) << 4)
}

// operandAddr is the shared-memory address of the element of row (M or
// N index) r and k index kk, of eb bytes, of an operand described by desc:
// K-major (descAddr) or, when trans is set, MN-major. The MN-major
// canonical layouts (§9.7.15.5.1.2.1.3), with T = 16/eb elements per 16
// bytes: without swizzle ((T,1,m),(8,k)):((1,T,SBO),(T,LBO)): 16-byte
// runs of T consecutive rows, 8 values of k 16 bytes apart, the next T
// rows at SBO and the next 8 values of k at LBO; with a swizzle of W
// bytes ((T,W/16,m),(8,k)):((1,T,LBO),(W/16·T,SBO)): W-byte runs of
// W/eb consecutive rows, 8 values of k W bytes apart, the next W/eb rows
// at LBO and the next 8 values of k at SBO, then the same XOR of 16-byte
// chunk bits with bits 7 and up as K-major.
func operandAddr(desc uint64, trans bool, r, kk, eb int) uint64 {
	if !trans {
		return descAddr(desc, r, kk*eb)
	}
	start := (desc & 0x3fff) << 4
	lbo := (desc >> 16 & 0x3fff) << 4
	sbo := (desc >> 32 & 0x3fff) << 4
	width := swizzleWidth(desc)
	if width == 0 {
		t := 16 / eb
		return start + uint64(r/t)*sbo + uint64(r%t*eb) + uint64(kk/8)*lbo + uint64(kk%8)*16
	}
	run := int(width) / eb // rows in one W-byte run
	a := start + uint64(r/run)*lbo + uint64(r%run*eb) + uint64(kk/8)*sbo + uint64(kk%8)*width
	chunks := width / 16
	return a ^ (a >> 7 & (chunks - 1) << 4)
}

func execWgmma(w *Warp, in *Inst) Status {
	x := in.Ext.(*wgmmaInst)
	if w.Exec != w.live || w.live != ^uint32(0) {
		return w.Fault(lane(w.Exec), RuleUnsupported, specWgmma, "wgmma.mma_async executed by lanes %#08x; all 32 lanes of the warp must execute it", w.Exec)
	}
	if st := wgmmaIssue(w, in, x); st != Continue {
		return st
	}
	const m = 16 // this warp's rows
	eb := x.in.Bits() / 8
	ka := x.k // the columns of A as stored: half of K when A is sparse
	if x.sparse != nil {
		ka = x.k / 2
	}
	mats := make([]uint64, m*ka+x.n*x.k+2*m*x.n) // one allocation for A, B, C and D
	A, mats := mats[:m*ka], mats[m*ka:]
	B, mats := mats[:x.n*x.k], mats[x.n*x.k:]
	C, D := mats[:m*x.n], mats[m*x.n:]
	wr := w.Index % 4
	readElem := func(l int, desc uint64, trans bool, r, kk int, size int) (uint64, bool) {
		// a descriptor holds an offset in the executing CTA's shared memory
		a := operandAddr(desc, trans, r, kk, size)&sharedOffMask | uint64(w.CTA.Rank+1)<<sharedRankShift
		bts := w.Bytes(l, SpaceShared, a, size, false)
		if bts == nil {
			return 0, false
		}
		switch size {
		case 4:
			return uint64(binary.LittleEndian.Uint32(bts)), true
		case 2:
			return uint64(binary.LittleEndian.Uint16(bts)), true
		}
		return uint64(bts[0]), true
	}
	if x.aDesc >= 0 {
		desc := w.R[x.aDesc]
		for r := range m {
			for kk := range ka {
				v, ok := readElem(0, desc, x.transA, 16*wr+r, kk, eb)
				if !ok {
					return Fault
				}
				A[r*ka+kk] = v
			}
		}
	} else {
		e := 4 / eb
		for l := range 32 {
			for j := range 4 * e {
				r, c := mmaFragPlace('a', e, l, j)
				A[r*ka+c] = elemOf(w.R[x.a[j/e]+int32(l)], 8*eb, j%e)
			}
		}
	}
	desc := w.R[x.bDesc]
	for col := range x.n {
		for kk := range x.k {
			v, ok := readElem(0, desc, x.transB, col, kk, eb)
			if !ok {
				return Fault
			}
			B[col*x.k+kk] = v
		}
	}
	negate := func(v uint64, f tensorcore.Format) uint64 { return v ^ 1<<uint(f.Bits()-1) } // not for integers (no such operands)
	if x.negA {
		for i := range A {
			A[i] = negate(A[i], x.in)
		}
	}
	if x.negB {
		for i := range B {
			B[i] = negate(B[i], x.bin)
		}
	}
	ob := x.out.Bits()
	per := 32 / ob
	scale := w.R[x.scaleD] != 0
	for l := range 32 {
		for i := range len(x.d) * per {
			r, c := wgmmaDPlace(l, i)
			if scale {
				C[r*x.n+c] = elemOf(w.R[x.d[i/per]+int32(l)], ob, i%per)
			}
		}
	}
	switch {
	case x.sparse != nil:
		if st := wgmmaSparse(w, x, A, B, C, D); st != Continue {
			return st
		}
	case x.integer:
		wgmmaInteger(x, A, B, C, D)
	default:
		x.arch.MMA(&tensorcore.Problem{Kind: tensorcore.Async, In: x.in, BIn: x.bin, Out: x.out, M: m, N: x.n, K: x.k, A: A, B: B, C: C, D: D})
	}
	words := make([]uint64, len(x.d))
	for l := range 32 {
		clear(words)
		for i := range len(x.d) * per {
			r, c := wgmmaDPlace(l, i)
			v := D[r*x.n+c]
			if ob < 32 {
				v = (v & (1<<uint(ob) - 1)) << uint(ob*(i%per))
			}
			words[i/per] |= v
		}
		for i, s := range x.d {
			w.R[s+int32(l)] = words[i]
		}
	}
	return Continue
}

// wgmmaDPlace is the row (within the warp's 16) and column of element i
// of lane l's D fragment.
func wgmmaDPlace(l, i int) (row, col int) {
	g, t := l/4, l%4
	return g + 8*(i/2%2), 8*(i/4) + 2*t + i%2
}

// wgmmaInteger is the exact D = A·B + C of the .s32 forms (16 rows); for
// .b1.and.popc, D = C + the number of bits set in both a row of A and a
// column of B (wrapping in 32 bits).
func wgmmaInteger(x *wgmmaInst, A, B, C, D []uint64) {
	if !x.binary {
		mmaInteger(16, x.n, x.k, x.signed, x.satfinite, A, B, C, D)
		return
	}
	for i := range 16 {
		for j := range x.n {
			s := uint32(C[i*x.n+j])
			for kk := range x.k {
				s += uint32(bits.OnesCount8(uint8(A[i*x.k+kk] & B[j*x.k+kk])))
			}
			D[i*x.n+j] = uint64(s)
		}
	}
}

// mmaInteger is the exact m×n D = A·B + C of 8-bit integer inputs (signed
// says which of A and B are s8) with s32 accumulators, wrapping in 32 bits
// or clamped when saturate is set. A is m×k row-major, B by columns.
func mmaInteger(m, n, k int, signed [2]bool, saturate bool, A, B, C, D []uint64) {
	ext := func(v uint64, signed bool) int64 {
		if signed {
			return int64(int8(v))
		}
		return int64(uint8(v))
	}
	for i := range m {
		for j := range n {
			s := int64(int32(C[i*n+j]))
			for kk := range k {
				s += ext(A[i*k+kk], signed[0]) * ext(B[j*k+kk], signed[1])
			}
			if saturate {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			D[i*n+j] = uint64(uint32(s))
		}
	}
}

// regNames is the names of the registers of a vector operand.
func regNames(e ast.Expr) []string {
	v, ok := e.(*ast.VectorExpr)
	if !ok {
		return []string{ast.NameOf(e)}
	}
	out := make([]string, len(v.Elems))
	for i, x := range v.Elems {
		out[i] = ast.NameOf(x)
	}
	return out
}

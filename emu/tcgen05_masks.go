package emu

// The optional operands of tcgen05.mma (PTX ISA §9.7.16.10.9):
//
//   - disable-output-lane, a vector of 4 (.cta_group::1) or 8
//     (.cta_group::2) 32-bit registers before enable-input-d: bit i of the
//     mask (bit i%32 of element i/32, element 0 leftmost) set keeps Tensor
//     Memory lane i of D unchanged. With .cta_group::2 the emulator reads
//     bits 0-127 as the lanes of the even CTA of the pair and bits 128-255
//     as the odd CTA's (the manual numbers the bits by lane and gives the
//     pair twice the bits; which CTA gets which half is its reading).
//   - scale-input-d, an immediate 0-15 after enable-input-d, .kind::f16 and
//     .kind::tf32 only: D = A×B + D·2^-s, the scaling exact inside the
//     tensor-core model (tensorcore.Problem.CShift).
//   - zero-column-mask-desc (.ws), a 64-bit descriptor after enable-input-d
//     (§9.7.16.4.3): an N-bit mask, one sub-mask per N/(128/M) columns
//     (mask0..mask3 for M = 128, 64, 32), whose set bits make the column
//     of B zero, and a column shift s: column j of the MMA reads column
//     j+s of B. Sub-mask i is a periodic pattern of use-span+1 columns
//     that use B and skip-span+1 zero columns, starting with the zero run
//     when first-span i is 1, entered start-count i columns in (the
//     manual's examples; its table swaps the two span names). Non-zero
//     mask 0 gives an all-zero mask. The shift may not exceed the
//     idesc's maximum shift (bits 30-31: 0, 8, 16, 32) nor 16 for M = 32
//     and 32 otherwise; B is read (and a collector buffer filled) with N
//     plus the maximum shift columns, so a later ::use may shift within
//     what ::fill read.

import (
	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

const specTcZeroMask = "PTX ISA §9.7.16.4.3 (tcgen05 zero-column mask descriptor)"

// tcMMAExtras are the optional operands of a tcgen05.mma.
type tcMMAExtras struct {
	disable []int32 // disable-output-lane registers, nil when absent
	scaleD  int     // scale-input-d, 0 when absent
	zcm     int32   // zero-column-mask-desc slot, -1 when absent
}

// decodeTcMMAOperands parses the operands after idesc and returns the
// five core operands [d], a, b, idesc, enable-input-d.
func decodeTcMMAOperands(d *Decoder, in *ast.Instruction, x *tcMMAInst) ([]ast.Expr, error) {
	ops := in.Operands
	x.zcm = -1
	switch {
	case len(ops) < 5:
		return nil, d.Errorf(in, "%s takes [d-tmem], a, b-desc, idesc, ..., enable-input-d", in.FullOpcode())
	case x.kind.blockScaled():
		if len(ops) != 7 {
			return nil, d.Errorf(in, "%s takes [d-tmem], a, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d", in.FullOpcode())
		}
		var err error
		if x.sfa, x.sfaOff, _, err = d.Addr(ops[4]); err != nil {
			return nil, err
		}
		if x.sfb, x.sfbOff, _, err = d.Addr(ops[5]); err != nil {
			return nil, err
		}
		return append(ops[:4:4], ops[6]), nil
	case x.ws:
		if len(ops) > 6 {
			return nil, d.Errorf(in, "%s takes [d-tmem], a, b-desc, idesc, enable-input-d and an optional zero-column-mask-desc", in.FullOpcode())
		}
		if len(ops) == 6 {
			var err error
			if x.zcm, err = d.Src(ops[5], TB64); err != nil {
				return nil, err
			}
		}
		return ops[:5], nil
	}
	rest := ops[4:]
	if _, ok := rest[0].(*ast.VectorExpr); ok {
		want := 4
		if x.pair {
			want = 8
		}
		var err error
		if x.disable, err = d.Vector(rest[0], TB32, false); err != nil {
			return nil, err
		}
		if len(x.disable) != want {
			return nil, d.Errorf(rest[0], "%s: disable-output-lane has %d registers, got %d", in.FullOpcode(), want, len(x.disable))
		}
		for _, s := range x.disable {
			if s < 0 {
				return nil, d.Errorf(rest[0], "%s: disable-output-lane takes registers or constants, not _", in.FullOpcode())
			}
		}
		rest = rest[1:]
	}
	switch len(rest) {
	case 1:
	case 2:
		v, ok := parser.ConstValue(rest[1])
		switch {
		case !ok || v < 0 || v > 15:
			return nil, d.Errorf(rest[1], "%s: scale-input-d is an integer constant from 0 to 15", in.FullOpcode())
		case x.kind != tcKindF16 && x.kind != tcKindTF32:
			return nil, d.Errorf(rest[1], "%s: scale-input-d goes with .kind::f16 and .kind::tf32 only", in.FullOpcode())
		}
		x.scaleD = int(v)
	default:
		return nil, d.Errorf(in, "%s takes [d-tmem], a, b-desc, idesc, an optional {disable-output-lane}, enable-input-d and an optional scale-input-d", in.FullOpcode())
	}
	return append(ops[:4:4], rest[0]), nil
}

// readExtras reads lane l's disable-output-lane mask and zero-column mask
// descriptor into op, checking the descriptor.
func (op *tcMMAOp) readExtras(w *Warp, l int) Status {
	x := op.x
	for i, s := range x.disable {
		op.disable[i] = uint32(w.R[s+int32(l)])
	}
	if x.zcm < 0 {
		return Continue
	}
	desc := w.R[x.zcm+int32(l)]
	shift := int(desc >> 56 & 63)
	limit := 32
	if op.id.m == 32 {
		limit = 16
	}
	switch {
	case desc>>36&7 != 0 || desc>>62 != 0:
		return w.Fault(l, ruleTcgen05Idesc, specTcZeroMask, "tcgen05.mma.ws: zero-column-mask-desc %#016x sets a reserved bit (36-38 or 62-63)", desc)
	case shift > limit:
		return w.Fault(l, ruleTcgen05Idesc, specTcZeroMask, "tcgen05.mma.ws: zero-column-mask-desc %#016x shifts by %d columns; the most for M = %d is %d", desc, shift, op.id.m, limit)
	case shift > op.id.maxShift:
		return w.Fault(l, ruleTcgen05Idesc, specTcZeroMask, "tcgen05.mma.ws: zero-column-mask-desc %#016x shifts by %d columns, more than the instruction descriptor's maximum shift %d (bits 30-31)",
			desc, shift, op.id.maxShift)
	}
	op.zcm, op.hasZCM = desc, true
	return Continue
}

// laneDisabled reports whether disable-output-lane keeps lane ln of mem.
func (op *tcMMAOp) laneDisabled(mem *tmem.Memory, ln int) bool {
	if op.x.disable == nil {
		return false
	}
	bit := ln
	if op.pair != nil && mem == op.pair[1].memory() {
		bit += 128
	}
	return op.disable[bit/32]>>(bit%32)&1 != 0
}

// zeroColumnMask is the N-bit mask of descriptor desc for an M-row .ws MMA.
func zeroColumnMask(desc uint64, m, n int) []bool {
	mask := make([]bool, n)
	if desc>>39&1 == 0 {
		return mask
	}
	skip, use := int(desc>>40&255)+1, int(desc>>48&255)+1
	subs := 128 / m
	width := n / subs
	for i := range subs {
		start, zeroFirst := int(desc>>(8*i)&255), desc>>(32+i)&1 != 0
		for p := range width {
			q := (p + start) % (use + skip)
			if zeroFirst {
				mask[i*width+p] = q < skip
			} else {
				mask[i*width+p] = q >= use
			}
		}
	}
	return mask
}

// shiftedColumns returns the N columns of B the MMA uses: with a
// zero-column mask, column j is column j+shift of the B read (which has
// the idesc's maximum shift more columns) or zero where the mask is set;
// without one, the first N columns.
func (op *tcMMAOp) shiftedColumns(B []uint64) []uint64 {
	id := op.id
	if len(B) == id.n*id.k && !op.hasZCM {
		return B
	}
	shift := 0
	var mask []bool
	if op.hasZCM {
		shift = int(op.zcm >> 56 & 63)
		mask = zeroColumnMask(op.zcm, id.m, id.n)
	}
	out := make([]uint64, id.n*id.k)
	for j := range id.n {
		if mask != nil && mask[j] {
			continue
		}
		copy(out[j*id.k:(j+1)*id.k], B[(j+shift)*id.k:(j+shift+1)*id.k])
	}
	return out
}

// bColumns is the number of columns of B an MMA reads: N, plus the
// maximum shift of a .ws instruction descriptor.
func (id *tcIdesc) bColumns() int { return id.n + id.maxShift }

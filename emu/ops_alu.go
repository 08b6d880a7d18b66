package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math"
	"math/bits"
	"slices"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Arithmetic, logic, comparison and conversion instructions (§9.7.1-9.7.9).

func init() {
	RegisterOpcode("mov", decodeMov)
	for _, op := range []string{"add", "sub", "mul", "mad", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr", "fma", "addc", "subc", "madc", "copysign"} {
		RegisterOpcode(op, decodeBinary)
	}
	for _, op := range []string{"neg", "abs", "not", "cnot", "popc", "clz", "brev", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"} {
		RegisterOpcode(op, decodeUnary)
	}
	RegisterOpcode("setp", decodeSetp)
	RegisterOpcode("selp", decodeSelp)
	RegisterOpcode("cvt", decodeCvt)
}

// Operation codes kept in Inst.Imm by the arithmetic decoders.
const (
	opAdd = iota
	opSub
	opMul
	opMad
	opDiv
	opRem
	opMin
	opMax
	opAnd
	opOr
	opXor
	opShl
	opShr
	opCopysign
	opNeg
	opAbs
	opNot
	opCnot
	opPopc
	opClz
	opBrev
	opRcp
	opSqrt
	opRsqrt
	opEx2
	opLg2
	opSin
	opCos
	opTanh
)

var binaryOps = map[string]uint64{"add": opAdd, "addc": opAdd, "sub": opSub, "subc": opSub, "mul": opMul, "mad": opMad, "madc": opMad, "fma": opMad,
	"div": opDiv, "rem": opRem, "min": opMin, "max": opMax, "and": opAnd, "or": opOr, "xor": opXor, "shl": opShl, "shr": opShr, "copysign": opCopysign}

var unaryOps = map[string]uint64{"neg": opNeg, "abs": opAbs, "not": opNot, "cnot": opCnot, "popc": opPopc, "clz": opClz, "brev": opBrev,
	"rcp": opRcp, "sqrt": opSqrt, "rsqrt": opRsqrt, "ex2": opEx2, "lg2": opLg2, "sin": opSin, "cos": opCos, "tanh": opTanh}

// decodeMov lowers mov.type d, a including symbol addresses, special
// registers and vector pack/unpack forms (§9.7.9.4).
func decodeMov(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(in.Operands) != 2 {
		return d.Errorf(in, "mov takes two operands")
	}
	t := q.Type()
	out.Type = t
	dst, src := in.Operands[0], in.Operands[1]
	if r, ok := src.(*ast.Reg); ok && d.clockPart(r) != 0 {
		return decodeReadClock(d, r, dst, out)
	}
	var err error
	if v, ok := src.(*ast.VectorExpr); ok { // pack
		if out.D, err = d.Dst(dst); err != nil {
			return err
		}
		elems, err := d.Vector(v, t, false)
		if err != nil {
			return err
		}
		if len(elems) < 2 || len(elems) > 8 || t.Bits()%len(elems) != 0 {
			return d.Errorf(src, "cannot pack %d elements into %s", len(elems), t)
		}
		copy(out.V[:], elems)
		out.Vec = uint8(len(elems))
		out.Exec = execPack
		return nil
	}
	if v, ok := dst.(*ast.VectorExpr); ok { // unpack
		elems, err := d.Vector(v, t, true)
		if err != nil {
			return err
		}
		if len(elems) < 2 || len(elems) > 8 || t.Bits()%len(elems) != 0 {
			return d.Errorf(dst, "cannot unpack %s into %d elements", t, len(elems))
		}
		copy(out.V[:], elems)
		out.Vec = uint8(len(elems))
		if out.A, err = d.Src(src, t); err != nil {
			return err
		}
		out.Exec = execUnpack
		return nil
	}
	if out.D, err = d.Dst(dst); err != nil {
		return err
	}
	if out.A, err = d.Src(src, t); err != nil {
		return err
	}
	out.Exec = execMov
	if t == TB128 {
		out.Exec = execMov128
	}
	return nil
}

func execMov(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	if w.Exec == allLanes {
		movLanes(lanes(w.R, in.D), lanes(w.R, in.A), mask)
		return Continue
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = w.R[in.A+l] & mask
	}
	return Continue
}

func execMov128(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = w.R[in.A+l]
		w.R[in.D+32+l] = w.R[in.A+32+l]
	}
	return Continue
}

// execPack builds d from elements, element 0 in the lowest bits.
func execPack(w *Warp, in *Inst) Status {
	n := int(in.Vec)
	eb := uint(in.Type.Bits() / n)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		var lo, hi uint64
		for i := 0; i < n; i++ {
			v := w.R[in.V[i]+l]
			sh := uint(i) * eb
			if eb < 64 {
				v &= 1<<eb - 1
			}
			if sh < 64 {
				lo |= v << sh
				if sh > 0 && sh+eb > 64 {
					hi |= v >> (64 - sh)
				}
			} else {
				hi |= v << (sh - 64)
			}
		}
		w.R[in.D+l] = lo
		if in.Type == TB128 {
			w.R[in.D+32+l] = hi
		}
	}
	return Continue
}

func execUnpack(w *Warp, in *Inst) Status {
	n := int(in.Vec)
	eb := uint(in.Type.Bits() / n)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		lo := w.R[in.A+l]
		var hi uint64
		if in.Type == TB128 {
			hi = w.R[in.A+32+l]
		}
		for i := 0; i < n; i++ {
			if in.V[i] < 0 {
				continue
			}
			sh := uint(i) * eb
			var v uint64
			if sh < 64 {
				v = lo >> sh
				if sh > 0 {
					v |= hi << (64 - sh)
				}
			} else {
				v = hi >> (sh - 64)
			}
			if eb < 64 {
				v &= 1<<eb - 1
			}
			w.R[in.V[i]+l] = v
		}
	}
	return Continue
}

// decodeBinary lowers two- and three-source arithmetic and logic.
func decodeBinary(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	op := binaryOps[in.Opcode]
	t := q.Type()
	if t == TNone {
		return d.Errorf(in, "%s needs a type", in.Opcode)
	}
	nsrc := 2
	if op == opMad {
		nsrc = 3
	}
	if len(in.Operands) != nsrc+1 {
		return d.Errorf(in, "%s takes %d operands", in.FullOpcode(), nsrc+1)
	}
	out.Type, out.Imm, out.Round = t, op, q.Round
	flag := func(n isa.Qual, f uint16) {
		if q.Has(n) {
			out.Flags |= f
		}
	}
	flag(isa.QSat, FlagSat)
	flag(isa.QHi, FlagHi)
	flag(isa.QWide, FlagWide)
	flag(isa.QCc, FlagCC)
	flag(isa.QFtz, FlagFtz)
	flag(isa.QFull, FlagX)
	flag(isa.QRelu, FlagRelu)
	if in.Opcode == "addc" || in.Opcode == "subc" || in.Opcode == "madc" {
		out.Flags |= FlagUseCC
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	st := t
	if op == opShl || op == opShr {
		st = TU32
	}
	if out.A, err = d.Src(in.Operands[1], t); err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[2], st); err != nil {
		return err
	}
	if nsrc == 3 {
		ct := t
		if out.Flags&FlagWide != 0 {
			ct = widen(t)
		}
		if out.C, err = d.Src(in.Operands[3], ct); err != nil {
			return err
		}
	}
	out.Exec = pickBinary(out)
	return nil
}

func widen(t Type) Type {
	switch t {
	case TU16:
		return TU32
	case TU32:
		return TU64
	case TS16:
		return TS32
	case TS32:
		return TS64
	}
	return t
}

// pickBinary chooses a specialised handler for the common cases.
func pickBinary(in *Inst) ExecFunc {
	plain := in.Flags&(FlagSat|FlagHi|FlagWide|FlagCC|FlagUseCC) == 0
	switch {
	case f32Lanes(in):
		return execF32Lanes
	case in.Type.Float() || in.Type == TPred:
		return execFloatBinary
	case plain && in.Imm == opAdd:
		return execAddInt
	case plain && (in.Imm == opMul || in.Imm == opMad) && in.Type.Size() == 4:
		return execMulMadLo32
	case plain && in.Imm == opXor:
		return execXor
	case plain && in.Type.Size() == 4 && in.Imm == opAnd:
		return execAnd32
	case plain && in.Type.Size() == 4 && in.Imm == opOr:
		return execOr32
	case plain && in.Type.Size() == 4 && in.Imm == opShl:
		return execShl32
	case plain && in.Type.Size() == 4 && in.Imm == opShr && !in.Type.Signed():
		return execShrU32
	case in.Flags&FlagWide != 0 && in.Type.Size() == 4 && in.Imm == opMul:
		return execMulWide32
	case intLanes(in):
		return execIntLanes
	}
	return execIntBinary
}

func execAddInt(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	if w.Exec == allLanes {
		addLanes(lanes(w.R, in.D), lanes(w.R, in.A), lanes(w.R, in.B), mask)
		return Continue
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = (w.R[in.A+l] + w.R[in.B+l]) & mask
	}
	return Continue
}

func execXor(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	if d, a, b, ok := full(w, in); ok {
		xorLanes(d, a, b, mask)
		return Continue
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = (w.R[in.A+l] ^ w.R[in.B+l]) & mask
	}
	return Continue
}

// execMulMadLo32 is mul.lo / mad.lo on 32-bit integers.
func execMulMadLo32(w *Warp, in *Inst) Status {
	mad := in.Imm == opMad
	if d, a, b, ok := full(w, in); ok {
		if mad {
			madLo32Lanes(d, a, b, lanes(w.R, in.C))
		} else {
			mulLo32Lanes(d, a, b)
		}
		return Continue
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		v := uint32(w.R[in.A+l]) * uint32(w.R[in.B+l])
		if mad {
			v += uint32(w.R[in.C+l])
		}
		w.R[in.D+l] = uint64(v)
	}
	return Continue
}

func execMulWide32(w *Warp, in *Inst) Status {
	if w.Exec == allLanes {
		mulWide32Lanes(w, in)
		return Continue
	}
	signed := in.Type.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		if signed {
			w.R[in.D+l] = uint64(int64(int32(w.R[in.A+l])) * int64(int32(w.R[in.B+l])))
		} else {
			w.R[in.D+l] = uint64(uint32(w.R[in.A+l])) * uint64(uint32(w.R[in.B+l]))
		}
	}
	return Continue
}

// execIntBinary covers every integer form: .hi, .wide, .sat, carries,
// division, shifts, min/max.
func execIntBinary(w *Warp, in *Inst) Status {
	t := in.Type
	n := t.Bits()
	mask := t.mask()
	signed := t.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := intValue(t, w.R[in.A+l]), w.R[in.B+l]
		if in.Imm != opShl && in.Imm != opShr {
			b = intValue(t, b)
		}
		var c uint64
		if in.C >= 0 {
			c = w.R[in.C+l]
		}
		v, st := intOp(w, int(l), in, a, b, c, n, signed)
		if st != Continue {
			return st
		}
		if in.Flags&FlagWide != 0 {
			v &= widen(t).mask()
		} else if t != TPred {
			v &= mask
		}
		w.R[in.D+l] = v
	}
	return Continue
}

func intOp(w *Warp, l int, in *Inst, a, b, c uint64, n int, signed bool) (uint64, Status) {
	bit := uint32(1) << uint(l)
	carryIn := uint64(0)
	if in.Flags&FlagUseCC != 0 && w.carry&bit != 0 {
		carryIn = 1
	}
	setCarry := func(cy bool) {
		if in.Flags&FlagCC != 0 {
			if cy {
				w.carry |= bit
			} else {
				w.carry &^= bit
			}
		}
	}
	mask := in.Type.mask()
	switch in.Imm {
	case opAdd:
		s := a&mask + b&mask + carryIn
		setCarry(n < 64 && s>>uint(n) != 0 || n == 64 && (s < a || s == a && (b|carryIn) != 0))
		if in.Flags&FlagSat != 0 && signed {
			return satS(int64(a)+int64(b), n), Continue
		}
		return s, Continue
	case opSub:
		s := a&mask - b&mask - carryIn
		setCarry(a&mask < b&mask+carryIn)
		if in.Flags&FlagSat != 0 && signed {
			return satS(int64(a)-int64(b), n), Continue
		}
		return s, Continue
	case opMul, opMad:
		var p uint64
		switch {
		case in.Flags&FlagWide != 0:
			p = a * b
		case in.Flags&FlagHi != 0:
			if n == 64 {
				p = mulHi(a, b, signed)
			} else {
				p = (a * b) >> uint(n)
			}
		default:
			p = a * b
		}
		if in.Imm == opMad {
			s := p + c + carryIn
			setCarry(s < p)
			p = s
			if in.Flags&FlagSat != 0 && signed && n == 32 {
				return satS(int64(int32(a))*int64(int32(b))>>32+int64(int32(c)), 32), Continue
			}
		}
		return p, Continue
	case opDiv, opRem:
		if b&mask == 0 {
			return mask, Continue // undefined result; the emulator gives all ones
		}
		if signed {
			x, y := int64(a), int64(b)
			if y == -1 {
				if in.Imm == opDiv {
					return uint64(-x), Continue
				}
				return 0, Continue
			}
			if in.Imm == opDiv {
				return uint64(x / y), Continue
			}
			return uint64(x % y), Continue
		}
		if in.Imm == opDiv {
			return a / b, Continue
		}
		return a % b, Continue
	case opMin, opMax:
		less := a < b
		if signed {
			less = int64(a) < int64(b)
		}
		if less == (in.Imm == opMin) {
			return a, Continue
		}
		return b, Continue
	case opAnd:
		return a & b, Continue
	case opOr:
		return a | b, Continue
	case opXor:
		return a ^ b, Continue
	case opShl:
		b &= 0xffffffff
		if b >= uint64(n) {
			return 0, Continue
		}
		return a << b, Continue
	case opShr:
		b &= 0xffffffff
		if signed {
			if b >= uint64(n) {
				b = uint64(n - 1)
			}
			return uint64(int64(a) >> b), Continue
		}
		if b >= uint64(n) {
			return 0, Continue
		}
		return (a & mask) >> b, Continue
	}
	return 0, Continue
}

func satS(v int64, n int) uint64 {
	lo, hi := int64(-1)<<uint(n-1), int64(1)<<uint(n-1)-1
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return uint64(v)
}

// execFloatBinary evaluates float (and predicate logic) operations. Packed
// .f16x2/.bf16x2 compute each half.
func execFloatBinary(w *Warp, in *Inst) Status {
	t := in.Type
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := w.R[in.A+l], w.R[in.B+l]
		var c uint64
		if in.C >= 0 {
			c = w.R[in.C+l]
		}
		var v uint64
		switch t {
		case TPred:
			v = predOp(in.Imm, a, b)
		case TF16x2, TBF16x2:
			h := TF16
			if t == TBF16x2 {
				h = TBF16
			}
			lo := floatOp(in, h, a&0xffff, b&0xffff, c&0xffff)
			hi := floatOp(in, h, a>>16&0xffff, b>>16&0xffff, c>>16&0xffff)
			v = lo | hi<<16
		default:
			v = floatOp(in, t, a, b, c)
		}
		w.R[in.D+l] = v
	}
	return Continue
}

func predOp(op, a, b uint64) uint64 {
	switch op {
	case opAnd:
		return a & b & 1
	case opOr:
		return (a | b) & 1
	case opXor:
		return (a ^ b) & 1
	}
	return 0
}

// floatOp computes one float lane; the result is rounded once to t. With
// .ftz (f32 and f16), subnormal operands and results are sign-preserving
// zeros (§9.7.3).
func floatOp(in *Inst, t Type, ab, bb, cb uint64) uint64 {
	if in.Flags&FlagFtz != 0 && (t == TF32 || t == TF16) && in.Imm != opCopysign {
		return flushSubnormal(t, floatOpRounded(in, t, flushSubnormal(t, ab), flushSubnormal(t, bb), flushSubnormal(t, cb)))
	}
	return floatOpRounded(in, t, ab, bb, cb)
}

// floatOpRounded is floatOp without .ftz.
func floatOpRounded(in *Inst, t Type, ab, bb, cb uint64) uint64 {
	if r, ok := approxDiv(in, ab, bb); ok {
		return r
	}
	if t == TF32 && in.Round == RoundDefault && in.Flags&FlagSat == 0 {
		if r, ok := floatOpF32(in.Imm, ab, bb); ok {
			return r
		}
	}
	if in.Imm == opCopysign { // a bit operation: b's bits with a's sign
		sign := uint64(1) << uint(t.Bits()-1)
		return bb&^sign | ab&sign
	}
	a, b, c := floatValue(t, ab), floatValue(t, bb), floatValue(t, cb)
	var v float64
	switch in.Imm {
	case opAdd:
		v = a + b
	case opSub:
		v = a - b
	case opMul:
		v = a * b
	case opMad:
		v = math.FMA(a, b, c)
		if t != TF64 {
			v = fmaOdd(a, b, c) // rounded once to t below
		}
	case opDiv:
		v = a / b
	case opMin:
		v = fminmax(a, b, true)
	case opMax:
		v = fminmax(a, b, false)
	case opAnd, opOr, opXor, opShl, opShr, opRem:
		return 0
	}
	if in.Flags&FlagSat != 0 {
		v = sat01(v)
	}
	if in.Flags&FlagRelu != 0 && v < 0 {
		v = 0
	}
	if t == TF64 && v != v {
		n := 2
		if in.Imm == opMad {
			n = 3
		}
		return nan64Result(n, ab, bb, cb)
	}
	r := in.Round
	if r == RoundDefault {
		r = RoundNearest
	}
	return floatBits(t, v, r)
}

// floatOpF32 computes add, sub and mul in binary32 directly; ok is false
// for the other operations.
func floatOpF32(op, ab, bb uint64) (r uint64, ok bool) {
	a, b := math.Float32frombits(uint32(ab)), math.Float32frombits(uint32(bb))
	var v float32
	switch op {
	case opAdd:
		v = a + b
	case opSub:
		v = a - b
	case opMul:
		v = a * b
	default:
		return 0, false
	}
	if v != v {
		return canonicalNaN(TF32), true
	}
	return uint64(math.Float32bits(v)), true
}

func sat01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// fminmax returns the smaller (or larger) operand; a NaN operand yields
// the other one (§9.7.3.10-11).
func fminmax(a, b float64, isMin bool) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	case isMin:
		return math.Min(a, b)
	}
	return math.Max(a, b)
}

func decodeUnary(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	t := q.Type()
	if t == TNone || len(in.Operands) != 2 {
		return d.Errorf(in, "%s takes a type and two operands", in.Opcode)
	}
	out.Type, out.Imm, out.Round = t, unaryOps[in.Opcode], q.Round
	if q.Has(isa.QFtz) {
		out.Flags |= FlagFtz
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], t); err != nil {
		return err
	}
	out.Exec = execUnary
	return nil
}

func execUnary(w *Warp, in *Inst) Status {
	t := in.Type
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = unaryOp(in, t, w.R[in.A+l])
	}
	return Continue
}

func unaryOp(in *Inst, t Type, a uint64) uint64 {
	mask := t.mask()
	switch {
	case t == TF16x2 || t == TBF16x2:
		h := TF16
		if t == TBF16x2 {
			h = TBF16
		}
		return unaryOp(in, h, a&0xffff) | unaryOp(in, h, a>>16&0xffff)<<16
	case t.Float() && in.Flags&FlagFtz != 0 && (t == TF32 || t == TF16):
		if r, approx := approxUnary(in, a); approx { // the special function unit model flushes itself
			return r
		}
		f := *in
		f.Flags &^= FlagFtz
		return flushSubnormal(t, unaryOp(&f, t, flushSubnormal(t, a)))
	case t.Float():
		sign := uint64(1) << uint(t.Bits()-1)
		switch in.Imm {
		case opNeg:
			return (a ^ sign) & mask
		case opAbs:
			return a &^ sign & mask
		}
		if r, ok := approxUnary(in, a); ok {
			return r
		}
		x := floatValue(t, a)
		var v float64
		switch in.Imm {
		case opRcp:
			v = 1 / x
		case opSqrt:
			v = math.Sqrt(x)
		case opRsqrt:
			v = 1 / math.Sqrt(x)
		case opEx2:
			v = math.Exp2(x)
		case opLg2:
			v = math.Log2(x)
		case opSin:
			v = math.Sin(x)
		case opCos:
			v = math.Cos(x)
		case opTanh:
			v = math.Tanh(x)
		}
		if t == TF64 && v != v {
			return nan64Result(1, a, 0, 0)
		}
		r := in.Round
		if r == RoundDefault {
			r = RoundNearest
		}
		return floatBits(t, v, r)
	}
	switch in.Imm {
	case opNeg:
		return -a & mask
	case opAbs:
		v := intValue(t, a)
		if int64(v) < 0 {
			v = -v
		}
		return v & mask
	case opNot:
		if t == TPred {
			return ^a & 1
		}
		return ^a & mask
	case opCnot:
		return b2u(a&mask == 0)
	case opPopc:
		return uint64(bits.OnesCount64(a & mask))
	case opClz:
		return uint64(bits.LeadingZeros64(a&mask) - (64 - t.Bits()))
	case opBrev:
		return bits.Reverse64(a) >> uint(64-t.Bits())
	}
	return 0
}

// Comparison codes of setp (§9.7.3.x, §9.7.4.x).
var cmpCodes = map[isa.Qual]uint8{isa.QEq: 1, isa.QNe: 2, isa.QLt: 3, isa.QLe: 4, isa.QGt: 5, isa.QGe: 6,
	isa.QLo: 3, isa.QLs: 4, isa.QHi: 5, isa.QHs: 6, isa.QEqu: 7, isa.QNeu: 8, isa.QLtu: 9, isa.QLeu: 10,
	isa.QGtu: 11, isa.QGeu: 12, isa.QNum: 13, isa.QNan: 14}

// decodeSetp lowers setp.cmp{.bop}.type p{|q}, a, b{, {!}c}.
func decodeSetp(d *Decoder, in *ast.Instruction, out *Inst) error {
	return lowerSetp(d, in, out, d.quals())
}

// lowerSetp is decodeSetp with the qualifiers given (set passes its
// source type only).
func lowerSetp(d *Decoder, in *ast.Instruction, out *Inst, q Quals) error {
	t := q.Type()
	if q.Cmp == isa.QNone || t == TNone || len(in.Operands) < 3 {
		return d.Errorf(in, "setp needs a comparison, a type and three operands")
	}
	out.Cmp, out.Type = cmpCodes[q.Cmp], t
	var err error
	dst := in.Operands[0]
	if b, ok := dst.(*ast.BinaryExpr); ok && b.Op == "|" {
		if out.D2, err = d.Dst(b.Y); err != nil {
			return err
		}
		dst = b.X
	}
	if out.D, err = d.Dst(dst); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], t); err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[2], t); err != nil {
		return err
	}
	if q.Has(isa.QFtz) {
		out.Flags |= FlagFtz
	}
	switch q.BoolOp {
	case isa.QAnd:
		out.Imm = opAnd
	case isa.QOr:
		out.Imm = opOr
	case isa.QXor:
		out.Imm = opXor
	default:
		out.Imm = 0
	}
	if len(in.Operands) == 4 {
		c := in.Operands[3]
		if u, ok := c.(*ast.UnaryExpr); ok && u.Op == "!" {
			out.Flags |= FlagNeg
			c = u.X
		}
		if out.C, err = d.Src(c, TPred); err != nil {
			return err
		}
	}
	out.Exec = execSetp
	switch {
	case out.C < 0 && !t.Float() && t.Size() == 4 && out.Cmp <= 6:
		out.Exec = execSetp32
	case out.C < 0 && t == TF32 && out.Flags&FlagFtz == 0:
		out.Exec = execSetpF32Lanes
	}
	return nil
}

// execSetp writes p (and q): the comparison and its negation, or for
// packed sources the comparisons of the low and high halves (§9.7.7.2),
// each combined with c by the BoolOp.
func execSetp(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		p, q := comparePair(in, w.R[in.A+l], w.R[in.B+l])
		if in.C >= 0 {
			c := w.R[in.C+l] & 1
			if in.Flags&FlagNeg != 0 {
				c ^= 1
			}
			p, q = predOp(in.Imm, p, c), predOp(in.Imm, q, c)
		}
		if in.D >= 0 {
			w.R[in.D+l] = p
		}
		if in.D2 >= 0 {
			w.R[in.D2+l] = q
		}
	}
	return Continue
}

// compareFloat evaluates a comparison of floats; the u-forms are true on
// NaN.
func compareFloat[F float32 | float64](cmp uint8, x, y F) bool {
	nan := x != x || y != y
	switch cmp {
	case 1:
		return x == y
	case 2:
		return x != y && !nan
	case 3:
		return x < y
	case 4:
		return x <= y
	case 5:
		return x > y
	case 6:
		return x >= y
	case 7:
		return nan || x == y
	case 8:
		return nan || x != y
	case 9:
		return nan || x < y
	case 10:
		return nan || x <= y
	case 11:
		return nan || x > y
	case 12:
		return nan || x >= y
	case 13:
		return !nan
	case 14:
		return nan
	}
	return false
}

// compare evaluates one comparison; the u-forms are true on NaN.
func compare(cmp uint8, t Type, a, b uint64) bool {
	if t.Float() {
		return compareFloat(cmp, floatValue(t, a), floatValue(t, b))
	}
	x, y := intValue(t, a), intValue(t, b)
	less, eq := x < y, x == y
	if t.Signed() {
		less = int64(x) < int64(y)
	}
	switch cmp {
	case 1:
		return eq
	case 2:
		return !eq
	case 3:
		return less
	case 4:
		return less || eq
	case 5:
		return !less && !eq
	case 6:
		return !less
	}
	return false
}

func decodeSelp(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(in.Operands) != 4 {
		return d.Errorf(in, "selp takes four operands")
	}
	out.Type = q.Type()
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	if out.B, err = d.Src(in.Operands[2], out.Type); err != nil {
		return err
	}
	if out.C, err = d.Src(in.Operands[3], TPred); err != nil {
		return err
	}
	out.Exec = execSelpLanes
	return nil
}

func execSelp(w *Warp, in *Inst) Status {
	mask := in.Type.mask()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		if w.R[in.C+l]&1 != 0 {
			w.R[in.D+l] = w.R[in.A+l] & mask
		} else {
			w.R[in.D+l] = w.R[in.B+l] & mask
		}
	}
	return Continue
}

// decodeCvt lowers cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a (§9.7.9.21),
// and cvt.rn{.relu}.f16x2/.bf16x2.f32 d, a, b.
func decodeCvt(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.Types) != 2 || len(in.Operands) < 2 {
		return d.Errorf(in, "cvt needs a destination and a source type and at least two operands")
	}
	out.Type, out.Type2, out.Round = q.Types[0], q.Types[1], q.Round
	if q.Has(isa.QSat) {
		out.Flags |= FlagSat
	}
	if q.Has(isa.QFtz) {
		out.Flags |= FlagFtz
	}
	if q.Has(isa.QRelu) {
		out.Flags |= FlagX
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type2); err != nil {
		return err
	}
	switch {
	case (out.Type == TF16x2 || out.Type == TBF16x2) && len(in.Operands) == 3:
		if out.B, err = d.Src(in.Operands[2], out.Type2); err != nil {
			return err
		}
		out.Exec = execCvtPack
		return nil
	case len(in.Operands) != 2:
		return d.Errorf(in, "cvt takes two operands")
	case out.Type.Float() && out.Type.Size() > 2 && out.Type == TF16x2 || out.Type == TBF16x2 || out.Type2 == TF16x2 || out.Type2 == TBF16x2:
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	case cvtIntLanes(out):
		out.Exec = execCvtIntLanes
		return nil
	}
	out.Exec = execCvt
	return nil
}

func execCvt(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = convert(in, w.R[in.A+l])
	}
	return Continue
}

// convert performs one scalar conversion; .ftz makes subnormal f32
// sources and results sign-preserving zeros.
func convert(in *Inst, a uint64) uint64 {
	if in.Flags&FlagFtz == 0 {
		return convertExact(in, a)
	}
	if in.Type2 == TF32 {
		a = flushSubnormal(TF32, a)
	}
	d := convertExact(in, a)
	if in.Type == TF32 {
		d = flushSubnormal(TF32, d)
	}
	return d
}

// convertExact is convert without .ftz.
func convertExact(in *Inst, a uint64) uint64 {
	dt, st := in.Type, in.Type2
	sat := in.Flags&FlagSat != 0
	switch {
	case dt.Float() && st.Float():
		x := floatValue(st, a)
		if sat {
			x = sat01(x)
		}
		if in.Flags&FlagX != 0 && x < 0 {
			x = 0
		}
		r := in.Round
		if r == RoundDefault {
			r = RoundNearest
		}
		if dt == TF64 && x != x {
			if st == TF64 {
				return nan64Result(1, a, 0, 0)
			}
			return widenNaN64(st, a)
		}
		if dt == st && in.Round != RoundDefault { // cvt.rni.f32.f32: round to integer
			return floatBits(dt, roundInt(x, in.Round), RoundNearest)
		}
		return floatBits(dt, x, r)
	case dt.Float():
		v := intValue(st, a)
		var x float64
		if st.Signed() {
			x = float64(int64(v))
		} else {
			x = float64(v)
		}
		r := in.Round
		if r == RoundDefault {
			r = RoundNearest
		}
		if sat {
			x = sat01(x)
		}
		return floatBits(dt, x, r)
	case st.Float():
		r := in.Round
		if r == RoundDefault {
			r = RoundZero
		}
		return satInt(dt, floatValue(st, a), r)
	}
	v := intValue(st, a)
	if sat {
		return satIntInt(dt, st, v)
	}
	return v & dt.mask()
}

// satIntInt clamps an integer of type st to the range of dt.
func satIntInt(dt, st Type, v uint64) uint64 {
	n := dt.Bits()
	if st.Signed() {
		x := int64(v)
		if dt.Signed() {
			return satS(x, n) & dt.mask()
		}
		if x < 0 {
			return 0
		}
		if n < 64 && uint64(x) > dt.mask() {
			return dt.mask()
		}
		return uint64(x)
	}
	if dt.Signed() {
		if v > uint64(1)<<uint(n-1)-1 {
			return uint64(1)<<uint(n-1) - 1
		}
		return v
	}
	if v > dt.mask() {
		return dt.mask()
	}
	return v
}

// execCvtPack converts two f32 values into a packed pair; a goes to the
// upper half (§9.7.9.21).
func execCvtPack(w *Warp, in *Inst) Status {
	h := TF16
	if in.Type == TBF16x2 {
		h = TBF16
	}
	r := in.Round
	if r == RoundDefault {
		r = RoundNearest
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := floatValue(in.Type2, w.R[in.A+l]), floatValue(in.Type2, w.R[in.B+l])
		if in.Flags&FlagX != 0 {
			a, b = math.Max(a, 0), math.Max(b, 0)
		}
		w.R[in.D+l] = floatBits(h, a, r)<<16 | floatBits(h, b, r)
	}
	return Continue
}

func init() {
	RegisterOpcode("set", decodeSet)
	RegisterOpcode("slct", decodeSlct)
	RegisterOpcode("testp", decodeTestp)
}

// decodeSet lowers set.cmp{.bop}{.ftz}.dtype.stype d, a, b{, {!}c}
// (§9.7.6.1, §9.7.7.1): like setp, but the result is all ones or 1.0 in
// the destination type for true and 0 for false, half by half for packed
// sources.
func decodeSet(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	// ptxas accepts and ignores a .pred type on set
	types := slices.DeleteFunc(slices.Clone(q.Types), func(t Type) bool { return t == TPred })
	if len(types) != 2 {
		return d.Errorf(in, "set needs a destination and a source type")
	}
	dt := types[0]
	q.Types = types[1:] // the comparison sees the source type only
	if err := lowerSetp(d, in, out, q); err != nil {
		return err
	}
	out.Type2 = dt
	out.Exec = execSet
	return nil
}

func execSet(w *Warp, in *Inst) Status {
	one := setTrue(in.Type2, in.Type)
	_, packed := packedHalf(in.Type)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		lo, hi := comparePair(in, w.R[in.A+l], w.R[in.B+l])
		if in.C >= 0 {
			c := w.R[in.C+l] & 1
			if in.Flags&FlagNeg != 0 {
				c ^= 1
			}
			lo, hi = predOp(in.Imm, lo, c), predOp(in.Imm, hi, c)
		}
		d := one * lo
		if packed {
			d |= one * hi << 16
		}
		w.R[in.D+l] = d
	}
	return Continue
}

// decodeSlct lowers slct.dtype.{s32,f32} d, a, b, c: d = c >= 0 ? a : b.
func decodeSlct(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.Types) != 2 || len(in.Operands) != 4 {
		return d.Errorf(in, "slct takes two types and four operands")
	}
	out.Type, out.Type2 = q.Types[0], q.Types[1]
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if err := d.srcs(in.Operands[1:], out.Type, &out.A, &out.B); err != nil {
		return err
	}
	if out.C, err = d.Src(in.Operands[3], out.Type2); err != nil {
		return err
	}
	out.Exec = execSlct
	return nil
}

func execSlct(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		c := w.R[in.C+l]
		pick := int32(c) >= 0
		if in.Type2 == TF32 {
			f := math.Float32frombits(uint32(c))
			pick = f >= 0 || f == 0 // -0.0 selects a
		}
		if pick {
			w.R[in.D+l] = w.R[in.A+l] & in.Type.mask()
		} else {
			w.R[in.D+l] = w.R[in.B+l] & in.Type.mask()
		}
	}
	return Continue
}

// decodeTestp lowers testp.op.{f32,f64} p, a (§9.7.3.x).
func decodeTestp(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	for i, op := range []isa.Qual{isa.QFinite, isa.QInfinite, isa.QNumber, isa.QNotanumber, isa.QNormal, isa.QSubnormal} {
		if q.Has(op) {
			out.Imm = uint64(i + 1)
		}
	}
	if out.Imm == 0 || len(in.Operands) != 2 || (out.Type != TF32 && out.Type != TF64) {
		return d.Errorf(in, "testp needs a test, .f32 or .f64, and two operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	out.Exec = execTestp
	return nil
}

func execTestp(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		x := floatValue(in.Type, w.R[in.A+l])
		minNormal := math.Ldexp(1, -126)
		if in.Type == TF64 {
			minNormal = math.Ldexp(1, -1022)
		}
		a := math.Abs(x)
		var r bool
		switch in.Imm {
		case 1:
			r = !math.IsInf(x, 0) && !math.IsNaN(x)
		case 2:
			r = math.IsInf(x, 0)
		case 3:
			r = !math.IsNaN(x)
		case 4:
			r = math.IsNaN(x)
		case 5:
			r = a >= minNormal && !math.IsInf(x, 0) && !math.IsNaN(x)
		case 6:
			r = a > 0 && a < minNormal
		}
		w.R[in.D+l] = b2u(r)
	}
	return Continue
}

package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"math"
	"math/bits"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Bit-manipulation and packed-integer instructions (PTX ISA §9.7.1,
// §9.7.3): shf, bfind, fns, bmsk, szext, sad, dp4a, dp2a, the .u16x2 and
// .s16x2 forms of min/max and their .relu forms. Each handler computes
// one lane with a plain function (shf32, bfind, ...) that the tests
// compare with the manual's definitions.

func init() {
	RegisterOpcode("shf", decodeShf)
	RegisterOpcode("bfind", decodeBfind)
	RegisterOpcode("fns", decodeFns)
	RegisterOpcode("bmsk", decodeBmsk)
	RegisterOpcode("szext", decodeSzext)
	RegisterOpcode("sad", decodeSad)
	RegisterOpcode("dp4a", decodeDot)
	RegisterOpcode("dp2a", decodeDot)
	for _, op := range []string{"min", "max"} {
		for _, q := range []isa.Qual{isa.QU16x2, isa.QS16x2, isa.QRelu, isa.QNaN, isa.QXorsign} {
			RegisterVariant(op, q, decodeMinMaxPacked)
		}
	}
}

// lanes3 is the common decode of "op d, a, b{, c}" with every source of
// type t; it sets the handler.
func lanes3(d *Decoder, in *ast.Instruction, out *Inst, nsrc int, t Type, exec ExecFunc) error {
	if len(in.Operands) != nsrc+1 {
		return d.Errorf(in, "%s takes %d operands", in.FullOpcode(), nsrc+1)
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	fields := []*int32{&out.A, &out.B, &out.C}[:nsrc]
	out.Exec = exec
	return d.srcs(in.Operands[1:], t, fields...)
}

// shf32 is the funnel shift of §9.7.3.8: the 64-bit value hi:lo shifted
// left (the upper word is the result) or right (the lower word), by n
// masked to 0-31 (.wrap) or clamped to 32 (.clamp).
func shf32(left, clamp bool, lo, hi, n uint32) uint32 {
	if clamp {
		n = min(n, 32)
	} else {
		n &= 31
	}
	v := uint64(hi)<<32 | uint64(lo)
	if left {
		return uint32(v << n >> 32)
	}
	return uint32(v >> n)
}

func decodeShf(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if q.Has(isa.QL) {
		out.Flags |= FlagShift
	}
	if q.Has(isa.QClamp) {
		out.Flags |= FlagSat
	}
	if q.Type().Size() != 4 || q.Has(isa.QL) == q.Has(isa.QR) || q.Has(isa.QClamp) == q.Has(isa.QWrap) {
		return d.Errorf(in, "shf takes .l or .r, .wrap or .clamp, and .b32")
	}
	return lanes3(d, in, out, 3, TB32, execShf)
}

func execShf(w *Warp, in *Inst) Status {
	left, clamp := in.Flags&FlagShift != 0, in.Flags&FlagSat != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(shf32(left, clamp, uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), uint32(w.R[in.C+l])))
	}
	return Continue
}

// bfind returns the position of the most significant non-sign bit of the
// nbits-wide a (§9.7.1.19): the highest 1 of an unsigned value, the
// highest bit that differs from the sign of a signed one; 0xffffffff when
// there is none. .shiftamt gives nbits-1 minus the position instead.
func bfind(a uint64, nbits int, signed, shiftamt bool) uint32 {
	a &= 1<<uint(nbits-1)<<1 - 1
	if signed && a>>uint(nbits-1)&1 != 0 {
		a = ^a & (1<<uint(nbits-1)<<1 - 1)
	}
	if a == 0 {
		return 0xffffffff
	}
	pos := bits.Len64(a) - 1
	if shiftamt {
		return uint32(nbits - 1 - pos)
	}
	return uint32(pos)
}

func decodeBfind(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type != TU32 && out.Type != TS32 && out.Type != TU64 && out.Type != TS64 {
		return d.Errorf(in, "bfind takes .u32, .s32, .u64 or .s64")
	}
	if q.Has(isa.QShiftamt) {
		out.Flags |= FlagShift
	}
	return lanes3(d, in, out, 1, out.Type, execBfind)
}

func execBfind(w *Warp, in *Inst) Status {
	n, signed, sh := in.Type.Bits(), in.Type.Signed(), in.Flags&FlagShift != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(bfind(w.R[in.A+l], n, signed, sh))
	}
	return Continue
}

// fns finds the n-th set bit of mask counting from base (§9.7.1.20):
// upwards for a positive offset, downwards for a negative one, base
// itself for offset 0 (when set); 0xffffffff when there is no such bit.
func fns(mask, base uint32, offset int32) uint32 {
	if base > 31 {
		return 0xffffffff
	}
	if offset == 0 {
		if mask>>base&1 != 0 {
			return base
		}
		return 0xffffffff
	}
	step, count := int32(1), offset-1
	if offset < 0 {
		step, count = -1, -offset-1
	}
	for pos := int32(base); pos >= 0 && pos < 32; pos += step {
		if mask>>uint(pos)&1 == 0 {
			continue
		}
		if count == 0 {
			return uint32(pos)
		}
		count--
	}
	return 0xffffffff
}

func decodeFns(d *Decoder, in *ast.Instruction, out *Inst) error {
	return lanes3(d, in, out, 3, TB32, execFns)
}

func execFns(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(fns(uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), int32(uint32(w.R[in.C+l]))))
	}
	return Continue
}

// bmsk is the bit-field mask of §9.7.1.22: b bits set from bit a.
func bmsk(a, b uint32, clamp bool) uint32 {
	a1, b1 := a&31, b&31
	mask0 := ^uint32(0) << a1
	sum := a1 + b1
	mask1 := ^uint32(0) << (sum & 31)
	over := sum >= 32
	if clamp {
		if a >= 32 {
			mask0, over = 0, true
		}
		if b >= 32 {
			over = true
		}
	}
	switch {
	case over:
		mask1 = 0
	case b1 == 0:
		mask1 = ^uint32(0)
	}
	return mask0 &^ mask1
}

func decodeBmsk(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if q.Has(isa.QClamp) {
		out.Flags |= FlagSat
	}
	return lanes3(d, in, out, 2, TB32, execBmsk)
}

func execBmsk(w *Warp, in *Inst) Status {
	clamp := in.Flags&FlagSat != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(bmsk(uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), clamp))
	}
	return Continue
}

// szext sign- or zero-extends the low b bits of a (§9.7.1.23).
func szext(a, b uint32, signed, clamp bool) uint32 {
	b1 := b & 31
	tooLarge := b >= 32 && clamp
	mask := ^uint32(0) << b1
	if tooLarge {
		mask = 0
	}
	sign := false
	if b1 != 0 && !tooLarge && signed {
		sign = a>>((b1-1)&31)&1 != 0
	}
	d := a &^ mask
	if sign {
		d |= mask
	}
	return d
}

func decodeSzext(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type != TU32 && out.Type != TS32 {
		return d.Errorf(in, "szext takes .u32 or .s32")
	}
	if q.Has(isa.QClamp) {
		out.Flags |= FlagSat
	}
	return lanes3(d, in, out, 2, TU32, execSzext)
}

func execSzext(w *Warp, in *Inst) Status {
	signed, clamp := in.Type.Signed(), in.Flags&FlagSat != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(szext(uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), signed, clamp))
	}
	return Continue
}

// sad is c + |a - b| in the instruction type (§9.7.1.11).
func sad(t Type, a, b, c uint64) uint64 {
	var diff uint64
	if t.Signed() {
		x, y := signExtend(a, t.Bits()), signExtend(b, t.Bits())
		if x < y {
			x, y = y, x
		}
		diff = uint64(x - y)
	} else {
		x, y := a&t.mask(), b&t.mask()
		if x < y {
			x, y = y, x
		}
		diff = x - y
	}
	return (c + diff) & t.mask()
}

func signExtend(v uint64, n int) int64 { return int64(v<<uint(64-n)) >> uint(64-n) }

func decodeSad(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type.Float() || out.Type.Size() < 2 {
		return d.Errorf(in, "sad takes an integer type")
	}
	return lanes3(d, in, out, 3, out.Type, execSad)
}

func execSad(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = sad(in.Type, w.R[in.A+l], w.R[in.B+l], w.R[in.C+l])
	}
	return Continue
}

// dot is dp4a (four bytes of a times four bytes of b) or dp2a (two
// halves of a times two bytes of b, the low or high pair with hi) added to
// c, in 32 bits (§9.7.1.24, §9.7.1.25). aSigned and bSigned say how the
// parts extend.
func dot(four, hi, aSigned, bSigned bool, a, b, c uint32) uint32 {
	part := func(v uint32, i, width int, signed bool) int64 {
		x := uint64(v >> uint(i*width) & (1<<uint(width) - 1))
		if signed {
			return signExtend(x, width)
		}
		return int64(x)
	}
	acc := int64(int32(c))
	if four {
		for i := range 4 {
			acc += part(a, i, 8, aSigned) * part(b, i, 8, bSigned)
		}
		return uint32(acc)
	}
	off := 0
	if hi {
		off = 2
	}
	for i := range 2 {
		acc += part(a, i, 16, aSigned) * part(b, off+i, 8, bSigned)
	}
	return uint32(acc)
}

func decodeDot(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.Types) != 2 {
		return d.Errorf(in, "%s takes two types (.atype.btype)", in.Opcode)
	}
	out.Type, out.Type2 = q.Types[0], q.Types[1]
	if in.Opcode == "dp4a" {
		out.Flags |= FlagX
	} else if q.Has(isa.QHi) == q.Has(isa.QLo) {
		return d.Errorf(in, "dp2a takes .lo or .hi")
	}
	if q.Has(isa.QHi) {
		out.Flags |= FlagHi
	}
	return lanes3(d, in, out, 3, TB32, execDot)
}

func execDot(w *Warp, in *Inst) Status {
	four, hi := in.Flags&FlagX != 0, in.Flags&FlagHi != 0
	as, bs := in.Type.Signed(), in.Type2.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(dot(four, hi, as, bs, uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), uint32(w.R[in.C+l])))
	}
	return Continue
}

// minMax16x2 is min or max on each 16-bit half of a and b, with .relu
// clamping negative results of the signed form to 0 (§9.7.3.10-11).
func minMax16x2(isMax, signed, relu bool, a, b uint32) uint32 {
	var d uint32
	for i := range 2 {
		x, y := uint64(a>>(16*uint(i))&0xffff), uint64(b>>(16*uint(i))&0xffff)
		var r int64
		if signed {
			sx, sy := signExtend(x, 16), signExtend(y, 16)
			r = min(sx, sy)
			if isMax {
				r = max(sx, sy)
			}
			if relu && r < 0 {
				r = 0
			}
		} else {
			r = int64(min(x, y))
			if isMax {
				r = int64(max(x, y))
			}
		}
		d |= uint32(r&0xffff) << (16 * uint(i))
	}
	return d
}

// decodeMinMaxPacked lowers min/max on .u16x2/.s16x2, the .relu forms
// on .s32, and the floating-point forms with .relu, .NaN or .xorsign.abs.
func decodeMinMaxPacked(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	isMax := in.Opcode == "max"
	if isMax {
		out.Flags |= FlagX
	}
	if q.Has(isa.QRelu) {
		out.Flags |= FlagSat
	}
	switch {
	case q.Has(isa.QU16x2) || q.Has(isa.QS16x2):
		if q.Has(isa.QS16x2) {
			out.Type = TS32
		}
		return lanes3(d, in, out, 2, TB32, execMinMax16x2)
	case q.Type() == TS32 && q.Has(isa.QRelu):
		out.Type = TS32
		return lanes3(d, in, out, 2, TS32, execMinMaxRelu32)
	}
	switch q.Type() {
	case TF32, TF16, TBF16, TF16x2, TBF16x2:
	default:
		return d.Errorf(in, "%s with .relu, .NaN or .xorsign takes .s32, .s16x2 or a 16- or 32-bit floating-point type", in.Opcode)
	}
	out.Type = q.Type()
	if q.Has(isa.QNaN) {
		out.Flags |= FlagHi
	}
	if q.Has(isa.QXorsign) {
		out.Flags |= FlagWide
	}
	if q.Has(isa.QFtz) {
		out.Flags |= FlagFtz
	}
	return lanes3(d, in, out, 2, out.Type, execMinMaxFloat)
}

func execMinMax16x2(w *Warp, in *Inst) Status {
	isMax, signed, relu := in.Flags&FlagX != 0, in.Type == TS32, in.Flags&FlagSat != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(minMax16x2(isMax, signed, relu, uint32(w.R[in.A+l]), uint32(w.R[in.B+l])))
	}
	return Continue
}

func execMinMaxRelu32(w *Warp, in *Inst) Status {
	isMax := in.Flags&FlagX != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := int32(w.R[in.A+l]), int32(w.R[in.B+l])
		r := min(a, b)
		if isMax {
			r = max(a, b)
		}
		w.R[in.D+l] = uint64(uint32(max(r, 0)))
	}
	return Continue
}

// fminmaxMode is the set of min/max modifiers (§9.7.4.10-11).
type fminmaxMode struct {
	isMax, nan, xorsign, relu, ftz bool
}

// minMaxElem computes one floating-point element of type t (f32, f16 or
// bf16) from the bit patterns a and b: .xorsign.abs compares magnitudes
// and gives the result the xor of the operands' signs, .NaN makes a NaN
// operand give the canonical NaN (otherwise a NaN yields the other
// operand), .relu turns a negative result into +0.
func minMaxElem(t Type, md fminmaxMode, a, b uint64) uint64 {
	if md.ftz {
		a, b = flushSubnormal(t, a), flushSubnormal(t, b)
	}
	bits := uint(t.Bits())
	sign := uint64(1) << (bits - 1)
	canon := uint64(0x7fffffff)
	if bits == 16 {
		canon = 0x7fff
	}
	x, y := floatValue(t, a), floatValue(t, b)
	if md.nan && (math.IsNaN(x) || math.IsNaN(y)) || math.IsNaN(x) && math.IsNaN(y) {
		return canon
	}
	if md.xorsign {
		x, y = math.Abs(x), math.Abs(y)
	}
	r := fminmax(x, y, !md.isMax)
	out := floatBits(t, r, RoundNearest)
	if md.xorsign {
		out = out&^sign | (a^b)&sign
	}
	if md.relu && out&sign != 0 {
		out = 0
	}
	return out
}

func execMinMaxFloat(w *Warp, in *Inst) Status {
	md := fminmaxMode{isMax: in.Flags&FlagX != 0, nan: in.Flags&FlagHi != 0, xorsign: in.Flags&FlagWide != 0, relu: in.Flags&FlagSat != 0,
		ftz: in.Flags&FlagFtz != 0 && (in.Type == TF32 || in.Type == TF16 || in.Type == TF16x2)}
	elem, n := in.Type, 1
	switch in.Type {
	case TF16x2:
		elem, n = TF16, 2
	case TBF16x2:
		elem, n = TBF16, 2
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := w.R[in.A+l], w.R[in.B+l]
		var d uint64
		for i := range n {
			sh := uint(16 * i)
			d |= minMaxElem(elem, md, a>>sh&elem.mask(), b>>sh&elem.mask()) << sh
		}
		w.R[in.D+l] = d
	}
	return Continue
}

func init() {
	RegisterVariant("cvt", isa.QPack, decodeCvtPack)
}

// cvtPackTypes are the saturating targets of cvt.pack: bits and
// signedness.
var cvtPackTypes = map[isa.Qual][2]int{isa.QU16: {16, 0}, isa.QS16: {16, 1}, isa.QU8: {8, 0}, isa.QS8: {8, 1},
	isa.QU4: {4, 0}, isa.QS4: {4, 1}, isa.QU2: {2, 0}, isa.QS2: {2, 1}}

// decodeCvtPack lowers cvt.pack.sat.{u16,s16}.s32 d, a, b and
// cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c (§9.7.9.22).
func decodeCvtPack(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	var spec [2]int
	for _, n := range q.List {
		if s, ok := cvtPackTypes[n]; ok && spec[0] == 0 {
			spec = s
		}
	}
	nsrc := 3
	if spec[0] == 16 {
		nsrc = 2
	}
	if spec[0] == 0 || !q.Has(isa.QSat) || !q.Has(isa.QS32) {
		return d.Errorf(in, "cvt.pack takes .sat, a destination type (.u16 .s16 .u8 .s8 .u4 .s4 .u2 .s2) and .s32 sources")
	}
	out.Imm = uint64(spec[0])
	if spec[1] != 0 {
		out.Flags |= FlagX
	}
	return lanes3(d, in, out, nsrc, TB32, execCvtPackInt)
}

// cvtPack saturates a and b to n-bit integers and packs them, b in the
// low n bits and a above it; the remaining bits come from the low bits of
// c (none for 16-bit targets).
func cvtPack(n int, signed bool, a, b, c int32) uint32 {
	v := func(x int32) uint32 { return uint32(saturate(int64(x), n, signed)) & (1<<uint(n) - 1) }
	d := v(b) | v(a)<<uint(n)
	if n < 16 {
		d |= uint32(c) << uint(2*n)
	}
	return d
}

func execCvtPackInt(w *Warp, in *Inst) Status {
	n, signed := int(in.Imm), in.Flags&FlagX != 0
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		var c int32
		if in.C >= 0 {
			c = int32(w.R[in.C+l])
		}
		w.R[in.D+l] = uint64(cvtPack(n, signed, int32(w.R[in.A+l]), int32(w.R[in.B+l]), c))
	}
	return Continue
}

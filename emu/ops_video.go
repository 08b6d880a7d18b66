package emu

import (
	"cmp"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Video instructions: the scalar forms vadd, vsub, vabsdiff, vmin, vmax,
// vshl, vshr, vmad, vset (PTX ISA 9.7.19) and the SIMD forms vadd2/4,
// vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4, vset2/4 (9.7.20),
// with their operand selectors (ast.Reg.Sel, decoded by isa.VideoSel):
// a byte or half-word of a scalar source, a destination merged into c,
// the SIMD lanes' elements of {b, a} and the destination mask.

// Video operations kept in Inst.Imm.
const (
	vidAdd = iota
	vidSub
	vidAbsdiff
	vidMin
	vidMax
	vidAvrg
	vidShl
	vidShr
	vidSet
)

var videoOps = map[string]uint64{
	"vadd": vidAdd, "vsub": vidSub, "vabsdiff": vidAbsdiff, "vmin": vidMin, "vmax": vidMax, "vshl": vidShl, "vshr": vidShr, "vset": vidSet,
	"vadd2": vidAdd, "vsub2": vidSub, "vabsdiff2": vidAbsdiff, "vmin2": vidMin, "vmax2": vidMax, "vavrg2": vidAvrg, "vset2": vidSet,
	"vadd4": vidAdd, "vsub4": vidSub, "vabsdiff4": vidAbsdiff, "vmin4": vidMin, "vmax4": vidMax, "vavrg4": vidAvrg, "vset4": vidSet,
}

// Secondary operations of the scalar forms (Inst.Type2 holds the
// destination type).
const (
	vidOp2None = iota
	vidOp2Add
	vidOp2Min
	vidOp2Max
)

func init() {
	for op := range videoOps {
		RegisterOpcode(op, decodeVideo)
	}
	RegisterOpcode("vmad", decodeVmad)
}

// videoInfo is the Ext of a video instruction.
type videoInfo struct {
	op         uint64
	width      int // element bits: 32 (scalar), 16 (vop2), 8 (vop4)
	dSigned    bool
	aSigned    bool
	bSigned    bool
	sat        bool
	op2        int   // scalar: secondary operation; SIMD: vidOp2Add for .add
	cmp        uint8 // vset comparison
	clampShift bool  // vshl/vshr .clamp
	videoSels
}

// videoSels are the decoded operand selectors of a video instruction.
type videoSels struct {
	aPart, bPart part     // scalar: the part of a and b read (whole word by default)
	dPart        part     // scalar: the part of c the result replaces; bits 0: no merge
	aLane, bLane [4]uint8 // SIMD: the element of {b, a} each lane reads
	mask         uint8    // SIMD: the lanes written (or summed, with .add)
}

// part is a field of a 32-bit word.
type part struct{ shift, bits uint }

var wholeWord = part{0, 32}

// extend reads field p of v, sign- or zero-extended (partSelectSignExtend
// of PTX ISA 9.7.19).
func (p part) extend(v uint32, signed bool) int64 {
	x := uint64(v>>p.shift) & (1<<p.bits - 1)
	if signed {
		return signExtend(x, int(p.bits))
	}
	return int64(x)
}

func decodeVideo(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	vi := &videoInfo{op: videoOps[in.Opcode], width: 32, sat: q.Has(isa.QSat), clampShift: q.Has(isa.QClamp)}
	switch in.Opcode[len(in.Opcode)-1] {
	case '2':
		vi.width = 16
	case '4':
		vi.width = 8
	}
	types := q.Types
	if vi.op == vidSet {
		if len(types) != 2 || q.Cmp == isa.QNone {
			return d.Errorf(in, "%s takes .atype.btype and a comparison", in.Opcode)
		}
		types = append([]Type{TU32}, types...)
		c, ok := cmpCodes[q.Cmp]
		if !ok || c < 1 || c > 6 || q.Cmp == isa.QLo || q.Cmp == isa.QLs || q.Cmp == isa.QHi || q.Cmp == isa.QHs {
			return d.Errorf(in, "%s takes .eq, .ne, .lt, .le, .gt or .ge", in.Opcode)
		}
		vi.cmp = c
	}
	if len(types) != 3 {
		return d.Errorf(in, "%s takes .dtype.atype.btype", in.Opcode)
	}
	for _, t := range types {
		if t != TU32 && t != TS32 {
			return d.Errorf(in, "%s operand types are .u32 or .s32", in.Opcode)
		}
	}
	vi.dSigned, vi.aSigned, vi.bSigned = types[0] == TS32, types[1] == TS32, types[2] == TS32
	switch {
	case q.Has(isa.QAdd):
		vi.op2 = vidOp2Add
	case q.Has(isa.QMin):
		vi.op2 = vidOp2Min
	case q.Has(isa.QMax):
		vi.op2 = vidOp2Max
	}
	if vi.width < 32 && vi.op2 != vidOp2None && vi.op2 != vidOp2Add {
		return d.Errorf(in, "%s takes .add as its only secondary operation", in.Opcode)
	}
	if err := d.videoSelectors(in, vi); err != nil {
		return err
	}
	nsrc := len(in.Operands) - 1
	if vi.width < 32 || vi.op2 != vidOp2None || vi.dPart.bits != 0 {
		nsrc = 3
	}
	if nsrc != 2 && nsrc != 3 {
		return d.Errorf(in, "%s takes 3 or 4 operands", in.Opcode)
	}
	out.Ext = vi
	d.videoOperands = true // the selectors are read: the operands' registers resolve as plain ones
	defer func() { d.videoOperands = false }()
	return lanes3(d, in, out, nsrc, TB32, execVideo)
}

// videoSelectors decodes the selectors of a video instruction's operands
// into vi.
func (d *Decoder) videoSelectors(in *ast.Instruction, vi *videoInfo) error {
	fam := isa.VideoFamilyOf(in.Opcode)
	n := fam.Lanes()
	vi.aPart, vi.bPart, vi.mask = wholeWord, wholeWord, uint8(1)<<n-1
	for i := range n {
		vi.aLane[i], vi.bLane[i] = uint8(i), uint8(n+i)
	}
	for i, e := range in.Operands {
		r := selectorReg(e)
		if r == nil {
			continue
		}
		sel, _ := isa.ParseVideoSel(r.Sel.String())
		if err := d.videoSelector(in, vi, fam, i, r, sel); err != nil {
			return err
		}
	}
	return nil
}

// selectorReg returns the register of e ("%r1.b0" or vmad's "-%r1.b0")
// when it has a selector.
func selectorReg(e ast.Expr) *ast.Reg {
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	if r, ok := e.(*ast.Reg); ok && r.Sel != 0 {
		return r
	}
	return nil
}

// videoSelector records selector sel of operand i, register r.
func (d *Decoder) videoSelector(in *ast.Instruction, vi *videoInfo, fam isa.VideoFamily, i int, r *ast.Reg, sel isa.VideoSel) error {
	role := fam.Role(i)
	switch {
	case role == isa.VideoScalarDst && sel.BytePair():
		return d.Errorf(r, "selector .%s has no documented meaning; the emulator does not run it", r.Sel)
	case !sel.Fits(role):
		return d.Errorf(r, "%s takes no selector .%s on operand %d", in.Opcode, r.Sel, i)
	case role == isa.VideoScalarDst && (len(in.Operands) != 4 || vi.op2 != vidOp2None):
		return d.Errorf(r, "a destination selector needs the merge form %s d.dsel, a, b, c", in.Opcode)
	}
	switch role {
	case isa.VideoScalarSrc:
		sh, bits := sel.Part()
		*[]*part{&vi.aPart, &vi.bPart}[i-1] = part{sh, bits}
	case isa.VideoScalarDst:
		sh, bits := sel.Part()
		vi.dPart = part{sh, bits}
	case isa.VideoSIMD2Src, isa.VideoSIMD4Src:
		lanes := []*[4]uint8{&vi.aLane, &vi.bLane}[i-1]
		for l := range fam.Lanes() {
			lanes[l] = uint8(sel.Lane(l))
		}
	case isa.VideoSIMD2Mask, isa.VideoSIMD4Mask:
		vi.mask = sel.Mask()
	}
	return nil
}

func execVideo(w *Warp, in *Inst) Status {
	vi := in.Ext.(*videoInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := uint32(w.R[in.A+l]), uint32(w.R[in.B+l])
		var c uint32
		if in.C >= 0 {
			c = uint32(w.R[in.C+l])
		}
		if vi.width == 32 {
			w.R[in.D+l] = uint64(videoScalar(vi, a, b, c))
		} else {
			w.R[in.D+l] = uint64(videoSIMD(vi, a, b, c))
		}
	}
	return Continue
}

// ext32 extends a 32-bit word per its type.
func ext32(v uint32, signed bool) int64 {
	if signed {
		return int64(int32(v))
	}
	return int64(v)
}

// videoPrimary is the primary operation on exact values.
func videoPrimary(vi *videoInfo, a, b int64) int64 {
	switch vi.op {
	case vidAdd:
		return a + b
	case vidSub:
		return a - b
	case vidAbsdiff:
		return max(a-b, b-a)
	case vidMin:
		return min(a, b)
	case vidMax:
		return max(a, b)
	case vidAvrg:
		if s := a + b; s >= 0 {
			return (s + 1) >> 1
		} else {
			return s >> 1
		}
	case vidShl, vidShr:
		n := b & 0xffffffff
		if vi.clampShift {
			n = min(n, 32)
		} else {
			n &= 31
		}
		if vi.op == vidShl {
			if n >= 32 {
				return 0
			}
			return a << uint(n)
		}
		if n >= 32 {
			n = 63 // every bit of a shifted out: 0 or -1
		}
		return a >> uint(n)
	case vidSet:
		if compareInts(vi.cmp, a, b) {
			return 1
		}
		return 0
	}
	return 0
}

// compareInts evaluates a setp comparison on exact integers.
func compareInts(c uint8, a, b int64) bool {
	switch c { // the setp codes of cmpCodes
	case 1:
		return a == b
	case 2:
		return a != b
	case 3:
		return a < b
	case 4:
		return a <= b
	case 5:
		return a > b
	}
	return a >= b
}

// saturate clamps v to the range of a signed or unsigned bits-wide
// integer.
func saturate(v int64, bits int, signed bool) int64 {
	lo, hi := int64(0), int64(1)<<uint(bits)-1
	if signed {
		lo, hi = -(int64(1) << uint(bits-1)), int64(1)<<uint(bits-1)-1
	}
	return min(max(v, lo), hi)
}

// videoScalar is PTX ISA 9.7.19's scalar form: the primary operation on
// the selected and extended parts of a and b (b of a shift is .u32),
// optional saturation to the destination type or to the size of its
// merge selector (optSaturate), then the optional secondary operation
// with c (optSecondaryOp) or the merge into c (optMerge).
func videoScalar(vi *videoInfo, a, b, c uint32) uint32 {
	bSigned := vi.bSigned && vi.op != vidShl && vi.op != vidShr
	t := videoPrimary(vi, vi.aPart.extend(a, vi.aSigned), vi.bPart.extend(b, bSigned))
	if vi.sat && vi.op != vidSet {
		t = saturate(t, int(cmp.Or(vi.dPart.bits, 32)), vi.dSigned)
	}
	if p := vi.dPart; p.bits != 0 {
		m := uint32(1<<p.bits-1) << p.shift
		return uint32(t)<<p.shift&m | c&^m
	}
	return videoSecondary(vi.op2, vi.dSigned, uint32(t), c)
}

// videoSecondary applies the secondary operation in 32 bits.
func videoSecondary(op2 int, signed bool, t, c uint32) uint32 {
	switch op2 {
	case vidOp2Add:
		return t + c
	case vidOp2Min:
		return uint32(min(ext32(t, signed), ext32(c, signed)))
	case vidOp2Max:
		return uint32(max(ext32(t, signed), ext32(c, signed)))
	}
	return t
}

// videoSIMD is PTX ISA 9.7.20: each lane reads the elements its
// selectors name in {b, a} (extractAndSignExt_2/_4, extended per a's and
// b's types), applies the operation and the optional saturation to the
// element's range; without .add the lanes of the mask take the results
// and the others c's elements, with .add the results of the mask's lanes
// are added to c.
func videoSIMD(vi *videoInfo, a, b, c uint32) uint32 {
	w := uint(vi.width)
	m := uint64(1)<<w - 1
	pool := uint64(b)<<32 | uint64(a)
	elem := func(k uint8, signed bool) int64 {
		x := pool >> (uint(k) * w) & m
		if signed {
			return signExtend(x, int(w))
		}
		return int64(x)
	}
	d, acc := uint32(0), c
	for i := range uint(32 / w) {
		if vi.mask>>i&1 == 0 {
			d |= c & uint32(m<<(i*w))
			continue
		}
		t := videoPrimary(vi, elem(vi.aLane[i], vi.aSigned), elem(vi.bLane[i], vi.bSigned))
		if vi.sat && vi.op != vidSet {
			t = saturate(t, int(w), vi.dSigned)
		}
		acc += uint32(t)
		d |= uint32(uint64(t)&m) << (i * w)
	}
	if vi.op2 == vidOp2Add {
		return acc
	}
	return d
}

// vmadInfo is the Ext of vmad.
type vmadInfo struct {
	dSigned, aSigned, bSigned bool
	negA, negB, negC          bool
	po, sat                   bool
	shift                     uint // .shr7, .shr15
	aPart, bPart              part // the source selectors (the whole word by default)
}

// decodeVmad lowers vmad.dtype.atype.btype{.sat}{.scale} d, {-}a, {-}b,
// {-}c and its .po form.
func decodeVmad(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if len(q.Types) != 3 || len(in.Operands) != 4 {
		return d.Errorf(in, "vmad takes .dtype.atype.btype and four operands")
	}
	vi := &vmadInfo{dSigned: q.Types[0] == TS32, aSigned: q.Types[1] == TS32, bSigned: q.Types[2] == TS32,
		po: q.Has(isa.QPo), sat: q.Has(isa.QSat)}
	switch {
	case q.Has(isa.QShr7):
		vi.shift = 7
	case q.Has(isa.QShr15):
		vi.shift = 15
	}
	var sels videoInfo
	if err := d.videoSelectors(in, &sels); err != nil {
		return err
	}
	vi.aPart, vi.bPart = sels.aPart, sels.bPart
	ops := append([]ast.Expr(nil), in.Operands...)
	for i, neg := range []*bool{&vi.negA, &vi.negB, &vi.negC} {
		if u, ok := ops[i+1].(*ast.UnaryExpr); ok && u.Op == "-" {
			*neg, ops[i+1] = true, u.X
		}
	}
	if vi.po && (vi.negA || vi.negB || vi.negC) {
		return d.Errorf(in, "vmad.po takes no negated operands")
	}
	d.videoOperands = true // the selectors are read: the operands' registers resolve as plain ones
	defer func() { d.videoOperands = false }()
	var err error
	if out.D, err = d.Dst(ops[0]); err != nil {
		return err
	}
	out.Ext = vi
	out.Exec = execVmad
	return d.srcs(ops[1:], TB32, &out.A, &out.B, &out.C)
}

// vmad is PTX ISA 9.7.19.3's multiply-add: the exact product of the
// selected and extended parts of a and b, negated as written (or plus one
// with .po), plus c, shifted right by the scale, then saturated or
// truncated to 32 bits.
func vmad(vi *vmadInfo, a, b, c uint32) uint32 {
	ta, tb := vi.aPart.extend(a, vi.aSigned), vi.bPart.extend(b, vi.bSigned)
	hi, lo := mul64(ta, tb)
	if vi.negA != vi.negB {
		hi, lo = neg128(hi, lo)
	}
	tc := ext32(c, vi.dSigned || vi.aSigned || vi.bSigned)
	if vi.negC {
		tc = -tc
	}
	hi, lo = add128(hi, lo, tc)
	if vi.po {
		hi, lo = add128(hi, lo, 1)
	}
	if vi.shift > 0 {
		lo = lo>>vi.shift | uint64(hi)<<(64-vi.shift)
		hi >>= vi.shift
	}
	if vi.sat {
		v := int64(lo)
		switch {
		case hi > 0 || hi == 0 && v < 0:
			v = 1 << 40
		case hi < -1 || hi == -1 && v >= 0:
			v = -(1 << 40)
		}
		return uint32(saturate(v, 32, vi.dSigned))
	}
	return uint32(lo)
}

// mul64 is the exact 128-bit product of two values below 2^33 in
// magnitude, as a signed high word and a low word.
func mul64(a, b int64) (int64, uint64) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = uint64(-a)
	}
	if b < 0 {
		ub = uint64(-b)
	}
	h, l := mulU64(ua, ub)
	hi, lo := int64(h), l
	if neg {
		hi, lo = neg128(hi, lo)
	}
	return hi, lo
}

func mulU64(a, b uint64) (uint64, uint64) {
	a0, a1 := a&0xffffffff, a>>32
	b0, b1 := b&0xffffffff, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&0xffffffff + a0*b1
	return a1*b1 + t>>32 + w1>>32, a * b
}

func neg128(hi int64, lo uint64) (int64, uint64) {
	lo = ^lo + 1
	hi = ^hi
	if lo == 0 {
		hi++
	}
	return hi, lo
}

func add128(hi int64, lo uint64, v int64) (int64, uint64) {
	n := lo + uint64(v)
	if n < lo {
		hi++
	}
	if v < 0 {
		hi--
	}
	return hi, n
}

func execVmad(w *Warp, in *Inst) Status {
	vi := in.Ext.(*vmadInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(vmad(vi, uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), uint32(w.R[in.C+l])))
	}
	return Continue
}

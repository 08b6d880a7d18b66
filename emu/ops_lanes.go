package emu

import (
	"math"
)

// Converged-warp forms of the commonest compute instructions
// (docs/emu-warp.md). When every lane of a warp executes an instruction
// (w.Exec is all ones, which is most of the time), a handler works on the
// 32 lanes of each operand slot as one array: no walk over the mask, no
// bounds check per lane, and the operation chosen once per instruction
// rather than once per lane. Each handler here computes exactly what its
// general handler computes for every lane, and hands any other mask to
// that general handler, so a divergent warp runs today's path.

// allLanes is the execution mask of a converged full warp.
const allLanes = ^uint32(0)

// lanes returns the 32 lanes of slot s.
func lanes(r []uint64, s int32) *[32]uint64 { return (*[32]uint64)(r[s : s+32]) }

// predMask packs bit 0 of each lane of the predicate slot g.
func predMask(g *[32]uint64) uint32 {
	var m uint32
	for l := 0; l < 32; l += 8 {
		h := (*[8]uint64)(g[l : l+8])
		m |= (uint32(h[0]&1) | uint32(h[1]&1)<<1 | uint32(h[2]&1)<<2 | uint32(h[3]&1)<<3 |
			uint32(h[4]&1)<<4 | uint32(h[5]&1)<<5 | uint32(h[6]&1)<<6 | uint32(h[7]&1)<<7) << uint(l)
	}
	return m
}

// setp32Lanes is execSetp32 for a full warp.
func setp32Lanes(w *Warp, in *Inst) {
	r := w.R
	a, b := lanes(r, in.A), lanes(r, in.B)
	// An unsigned comparison of 32-bit values is the signed comparison of
	// the values with their sign bits flipped; each is a > or an = of the
	// operands in some order, inverted or not (lanes_vec.go).
	var flip uint32 = 1 << 31
	if in.Type.Signed() {
		flip = 0
	}
	// The kernels read each lane's operands before writing its result, so
	// the predicate goes straight to d, which may be an operand.
	var scratch [32]uint64
	p := &scratch
	if in.D >= 0 {
		p = lanes(r, in.D)
	}
	switch in.Cmp {
	case 1: // a == b
		cmpEq32Lanes(p, a, b, 0)
	case 2: // a != b
		cmpEq32Lanes(p, a, b, 1)
	case 3: // a < b: b > a
		cmpGt32Lanes(p, b, a, flip, 0)
	case 4: // a <= b: not a > b
		cmpGt32Lanes(p, a, b, flip, 1)
	case 5: // a > b
		cmpGt32Lanes(p, a, b, flip, 0)
	case 6: // a >= b: not b > a
		cmpGt32Lanes(p, b, a, flip, 1)
	default:
		*p = [32]uint64{}
	}
	if in.D2 >= 0 {
		q := lanes(r, in.D2)
		for l := range q {
			q[l] = p[l] ^ 1
		}
	}
}

// execSelpLanes is selp (execSelp).
func execSelpLanes(w *Warp, in *Inst) Status {
	if w.Exec != allLanes {
		return execSelp(w, in)
	}
	r := w.R
	mask := in.Type.mask()
	selpLanes(lanes(r, in.D), lanes(r, in.A), lanes(r, in.B), lanes(r, in.C), mask)
	return Continue
}

// mulWide32Lanes is execMulWide32 for a full warp.
func mulWide32Lanes(w *Warp, in *Inst) {
	r := w.R
	d, a, b := lanes(r, in.D), lanes(r, in.A), lanes(r, in.B)
	if in.Type.Signed() {
		for l := range d {
			d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
		}
		return
	}
	for l := range d {
		d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
	}
}

// f32Lanes reports whether execFloatBinary's work for in is one of the
// binary32 forms execF32Lanes computes: add, sub, mul and fma/mad of .f32
// without .ftz, .sat, .relu or any other flag, rounding to nearest.
func f32Lanes(in *Inst) bool {
	if in.Type != TF32 || in.Flags != 0 || (in.Round != RoundDefault && in.Round != RoundNearest) {
		return false
	}
	switch in.Imm {
	case opAdd, opSub, opMul, opMad:
		return true
	}
	return false
}

// execF32Lanes is execFloatBinary for the instructions f32Lanes accepts.
// Like floatOpRounded, add, sub and mul without a rounding qualifier
// compute in binary32, and the other forms compute in binary64 and round
// once to binary32; a NaN result is the canonical NaN.
func execF32Lanes(w *Warp, in *Inst) Status {
	if w.Exec != allLanes {
		return execFloatBinary(w, in)
	}
	r := w.R
	d, a, b := lanes(r, in.D), lanes(r, in.A), lanes(r, in.B)
	f := func(x uint64) float32 { return math.Float32frombits(uint32(x)) }
	if in.Imm == opMad {
		fmaF32Lanes(d, a, b, lanes(r, in.C))
		return Continue
	}
	if in.Round == RoundDefault {
		switch in.Imm {
		case opAdd:
			for l := range d {
				d[l] = f32Result(f(a[l]) + f(b[l]))
			}
		case opSub:
			for l := range d {
				d[l] = f32Result(f(a[l]) - f(b[l]))
			}
		case opMul:
			for l := range d {
				d[l] = f32Result(f(a[l]) * f(b[l]))
			}
		}
		return Continue
	}
	switch in.Imm {
	case opAdd:
		for l := range d {
			d[l] = f32Result(float32(float64(f(a[l])) + float64(f(b[l]))))
		}
	case opSub:
		for l := range d {
			d[l] = f32Result(float32(float64(f(a[l])) - float64(f(b[l]))))
		}
	case opMul:
		for l := range d {
			d[l] = f32Result(float32(float64(f(a[l])) * float64(f(b[l]))))
		}
	}
	return Continue
}

// f32Result is the register value of a binary32 result: its bits, or the
// canonical NaN.
func f32Result(v float32) uint64 {
	if v != v {
		return 0x7fffffff
	}
	return uint64(math.Float32bits(v))
}

// intLanes reports whether execIntLanes computes in: plain (no .sat, .hi,
// .wide or carry) sub, and, or, shr, shl, min, max, div and rem of an
// integer type.
func intLanes(in *Inst) bool {
	if in.Flags&(FlagSat|FlagHi|FlagWide|FlagCC|FlagUseCC) != 0 || in.Type.Float() || in.Type == TPred || in.Type.Bits() == 0 {
		return false
	}
	switch in.Imm {
	case opSub, opAnd, opOr, opShr, opShl, opMin, opMax, opDiv, opRem:
		return true
	}
	return false
}

// execIntLanes is execIntBinary (intOp) for the instructions intLanes
// accepts.
func execIntLanes(w *Warp, in *Inst) Status {
	if w.Exec != allLanes {
		return execIntBinary(w, in)
	}
	r := w.R
	d, a, b := lanes(r, in.D), lanes(r, in.A), lanes(r, in.B)
	t := in.Type
	n := uint64(t.Bits())
	mask := t.mask()
	signed := t.Signed()
	switch in.Imm {
	case opSub:
		subLanes(d, a, b, mask)
	case opAnd:
		andLanes(d, a, b, mask)
	case opOr:
		orLanes(d, a, b, mask)
	case opShl:
		for l := range d {
			var v uint64
			if s := b[l] & 0xffffffff; s < n {
				v = a[l] << s
			}
			d[l] = v & mask
		}
	case opShr:
		if signed && n == 32 {
			shrS32Lanes(d, a, b)
			break
		}
		if signed {
			for l := range d {
				s := min(b[l]&0xffffffff, n-1)
				d[l] = uint64(int64(sext(a[l]&mask, int(n)))>>s) & mask
			}
			break
		}
		for l := range d {
			var v uint64
			if s := b[l] & 0xffffffff; s < n {
				v = (a[l] & mask) >> s
			}
			d[l] = v
		}
	case opMin, opMax:
		// The smaller (larger) operand; as intOp, b when they are equal
		// for min and a when they are equal for max.
		isMin := in.Imm == opMin
		for l := range d {
			x, y := intValue(t, a[l]), intValue(t, b[l])
			less := x < y
			if signed {
				less = int64(x) < int64(y)
			}
			v := y
			if less == isMin {
				v = x
			}
			d[l] = v & mask
		}
	case opDiv, opRem:
		divLanes(d, a, b, t, in.Imm == opDiv)
	}
	return Continue
}

// divLanes is intOp's div or rem for 32 lanes: a zero divisor gives all
// ones, a signed division by -1 the negation (and remainder 0).
func divLanes(d, a, b *[32]uint64, t Type, div bool) {
	mask := t.mask()
	if !t.Signed() {
		for l := range d {
			x, y := a[l]&mask, b[l]&mask
			switch {
			case y == 0:
				d[l] = mask
			case div:
				d[l] = x / y
			default:
				d[l] = x % y
			}
		}
		return
	}
	n := t.Bits()
	for l := range d {
		x, y := int64(sext(a[l]&mask, n)), int64(sext(b[l]&mask, n))
		var v uint64
		switch {
		case y == 0:
			v = mask
		case y == -1 && div:
			v = uint64(-x)
		case y == -1:
			v = 0
		case div:
			v = uint64(x / y)
		default:
			v = uint64(x % y)
		}
		d[l] = v & mask
	}
}

// shflLanes is execShfl for a full warp: every lane executes, so no lane
// reads one that does not; only the member mask of shfl.sync is checked
// (before anything is written, the destinations written even when a lane
// is outside it, as execShfl does). The results go straight to d and p:
// each lane reads its own b and c before its results are written, and the
// source is read from a copy when d or p shares its slot.
func shflLanes(w *Warp, in *Inst) Status {
	r := w.R
	outside := -1
	if in.Flags&FlagX != 0 {
		outside = shflOutside(lanes(r, in.V[0]))
	}
	if in.D < 0 || in.D2 < 0 {
		return shflLanesScratch(w, in, outside)
	}
	src := lanes(r, in.A)
	if in.D == in.A || in.D2 == in.A {
		c := *src
		src = &c
	}
	v, ok := lanes(r, in.D), lanes(r, in.D2)
	bs, cs := lanes(r, in.B), lanes(r, in.C)
	if !shflUniform(src, bs, cs, in.Imm, v, ok) {
		shflPerLane(src, bs, cs, in.Imm, v, ok)
	}
	return shflMemberFault(w, in, outside)
}

// shflLanesScratch is shflLanes for a shuffle without d or without p: the
// missing result goes to a scratch array.
func shflLanesScratch(w *Warp, in *Inst, outside int) Status {
	r := w.R
	src := *lanes(r, in.A)
	bs, cs := lanes(r, in.B), lanes(r, in.C)
	var vs, oks [32]uint64
	v, ok := &vs, &oks
	if in.D >= 0 {
		v = lanes(r, in.D)
	}
	if in.D2 >= 0 {
		ok = lanes(r, in.D2)
	}
	if !shflUniform(&src, bs, cs, in.Imm, v, ok) {
		shflPerLane(&src, bs, cs, in.Imm, v, ok)
	}
	return shflMemberFault(w, in, outside)
}

// shflOutside returns the lowest lane whose member mask (mm) leaves it
// out, or -1: at once when every mask has its low 32 bits set.
func shflOutside(mm *[32]uint64) int {
	all := ^uint64(0)
	for l := 0; l < 32; l += 4 {
		q := (*[4]uint64)(mm[l : l+4])
		all &= q[0] & q[1] & q[2] & q[3]
	}
	if uint32(all) == ^uint32(0) {
		return -1
	}
	var bad uint32
	for l := range mm {
		bad |= ^uint32(mm[l]) & (1 << uint(l))
	}
	if bad == 0 {
		return -1
	}
	return lane(bad)
}

// shflMemberFault reports lane outside (when not -1) as outside its
// member mask.
func shflMemberFault(w *Warp, in *Inst, outside int) Status {
	if outside < 0 {
		return Continue
	}
	return w.Fault(outside, ruleShflMembermask, specShfl, "lane %d executes %s but is not in its member mask %#08x",
		outside, in.Opcode, uint32(w.R[in.V[0]+int32(outside)]))
}

// shflUniform computes the shuffle when every lane has the same b and c
// (immediates, most of the time) and c has no segment mask: lane l reads
// lane j(l) when it is in range, as shflPerLane decides per lane. It
// reports false, computing nothing, for other operands; it reads b and c
// before writing v and ok, which may be either.
func shflUniform(src, bs, cs *[32]uint64, mode uint64, v, ok *[32]uint64) bool {
	b0, c0 := bs[0], cs[0]
	var diff uint64
	for l := 0; l < 32; l += 4 {
		x, y := (*[4]uint64)(bs[l:l+4]), (*[4]uint64)(cs[l:l+4])
		// ^ and | bind equally in Go: each difference is parenthesised.
		diff |= (x[0] ^ b0) | (x[1] ^ b0) | (x[2] ^ b0) | (x[3] ^ b0) |
			(y[0] ^ c0) | (y[1] ^ c0) | (y[2] ^ c0) | (y[3] ^ c0)
	}
	b, c := int(b0&31), int(c0)
	if diff != 0 || c>>8&31 != 0 {
		return false
	}
	clamp := c & 31
	switch mode {
	case shflUp: // lanes from b+clamp on read lane l-b
		k := min(b+clamp, 32)
		for l := range k {
			v[l], ok[l] = src[l]&0xffffffff, 0
		}
		for l := k; l < 32; l++ {
			v[l], ok[l] = src[(l-b)&31]&0xffffffff, 1
		}
	case shflDown: // lanes up to clamp-b read lane l+b
		k := min(max(clamp-b+1, 0), 32)
		for l := range k {
			v[l], ok[l] = src[(l+b)&31]&0xffffffff, 1
		}
		for l := k; l < 32; l++ {
			v[l], ok[l] = src[l]&0xffffffff, 0
		}
	case shflBfly:
		for l := range v {
			if j := l ^ b; j <= clamp {
				v[l], ok[l] = src[j&31]&0xffffffff, 1
			} else {
				v[l], ok[l] = src[l]&0xffffffff, 0
			}
		}
	default:
		for l := range v {
			if b <= clamp {
				v[l], ok[l] = src[b&31]&0xffffffff, 1
			} else {
				v[l], ok[l] = src[l]&0xffffffff, 0
			}
		}
	}
	return true
}

// shflPerLane computes the shuffle lane by lane (§9.7.8.6's pseudocode).
func shflPerLane(src, bs, cs *[32]uint64, mode uint64, v, ok *[32]uint64) {
	switch mode {
	case shflUp:
		for l := range v {
			b, c := int(bs[l]&31), int(cs[l])
			seg := c >> 8 & 31
			j := l - b
			v[l], ok[l] = shflPick(src, l, j, j >= l&seg|c&31&^seg)
		}
	case shflDown:
		for l := range v {
			b, c := int(bs[l]&31), int(cs[l])
			seg := c >> 8 & 31
			j := l + b
			v[l], ok[l] = shflPick(src, l, j, j <= l&seg|c&31&^seg)
		}
	case shflBfly:
		for l := range v {
			b, c := int(bs[l]&31), int(cs[l])
			seg := c >> 8 & 31
			j := l ^ b
			v[l], ok[l] = shflPick(src, l, j, j <= l&seg|c&31&^seg)
		}
	default:
		for l := range v {
			b, c := int(bs[l]&31), int(cs[l])
			seg := c >> 8 & 31
			j := l&seg | b&^seg
			v[l], ok[l] = shflPick(src, l, j, j <= l&seg|c&31&^seg)
		}
	}
}

// shflPick is lane l's result of a shuffle reading lane j when inRange:
// the 32-bit value and the predicate.
func shflPick(src *[32]uint64, l, j int, inRange bool) (v, ok uint64) {
	if inRange {
		return src[j&31] & 0xffffffff, 1
	}
	return src[l] & 0xffffffff, 0
}

// cvtIntLanes reports whether in is a conversion execCvtIntLanes computes:
// between integer types, without .sat.
func cvtIntLanes(in *Inst) bool {
	dt, st := in.Type, in.Type2
	return in.Flags&FlagSat == 0 && !dt.Float() && !st.Float() && dt != TPred && st != TPred &&
		dt.Bits() > 0 && st.Bits() > 0
}

// execCvtIntLanes is execCvt (convertExact) for the conversions
// cvtIntLanes accepts: the source's value, sign-extended when it is
// signed, truncated to the destination.
func execCvtIntLanes(w *Warp, in *Inst) Status {
	if w.Exec != allLanes {
		return execCvt(w, in)
	}
	d, a := lanes(w.R, in.D), lanes(w.R, in.A)
	smask, dmask := in.Type2.mask(), in.Type.mask()
	if in.Type2.Signed() {
		n := in.Type2.Bits()
		for l := range d {
			d[l] = sext(a[l]&smask, n) & dmask
		}
		return Continue
	}
	for l := range d {
		d[l] = a[l] & smask & dmask
	}
	return Continue
}

// execSetpF32Lanes is execSetp for setp.cmp.f32 without .ftz or a
// combining predicate: compare's float comparisons, in binary32 (which
// orders the values as their exact binary64 conversions do).
func execSetpF32Lanes(w *Warp, in *Inst) Status {
	if w.Exec != allLanes {
		return execSetp(w, in)
	}
	r := w.R
	a, b := lanes(r, in.A), lanes(r, in.B)
	var p [32]uint64
	for l := range p {
		x, y := math.Float32frombits(uint32(a[l])), math.Float32frombits(uint32(b[l]))
		p[l] = b2u(compareF32(in.Cmp, x, y))
	}
	if in.D >= 0 {
		*lanes(r, in.D) = p
	}
	if in.D2 >= 0 {
		q := lanes(r, in.D2)
		for l := range q {
			q[l] = p[l] ^ 1
		}
	}
	return Continue
}

// compareF32 is compare for .f32 operands.
func compareF32(cmp uint8, x, y float32) bool { return compareFloat(cmp, x, y) }

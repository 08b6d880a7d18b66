package emu

import (
	"encoding/binary"
	"github.com/ptxkit/ptxkit/isa"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Warp-level data exchange and bit-manipulation instructions that
// compilers emit around stores: shfl.sync, vote.sync, activemask,
// redux.sync, bar.warp.sync (§9.7.8.x, §9.7.13.x), prmt, bfe, bfi, lop3,
// mul24/mad24 (§9.7.1, §9.7.7).

func init() {
	RegisterOpcode("shfl", decodeShfl)
	RegisterOpcode("vote", decodeVote)
	RegisterOpcode("activemask", decodeActivemask)
	RegisterOpcode("redux", decodeRedux)
	RegisterOpcode("prmt", decodePrmt)
	RegisterOpcode("bfe", decodeBfe)
	RegisterOpcode("bfi", decodeBfi)
	RegisterOpcode("lop3", decodeLop3)
	RegisterOpcode("mul24", decodeMul24)
	RegisterOpcode("mad24", decodeMul24)
}

// srcs resolves operands ops[i] as sources of type t into the given fields.
func (d *Decoder) srcs(ops []ast.Expr, t Type, fields ...*int32) error {
	for i, f := range fields {
		if i >= len(ops) {
			return d.Errorf(ops[len(ops)-1], "missing operand")
		}
		var err error
		if *f, err = d.Src(ops[i], t); err != nil {
			return err
		}
	}
	return nil
}

// dstPair resolves "d" or "d|p".
func (d *Decoder) dstPair(e ast.Expr) (int32, int32, error) {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == "|" {
		x, err := d.Dst(b.X)
		if err != nil {
			return 0, 0, err
		}
		y, err := d.Dst(b.Y)
		return x, y, err
	}
	x, err := d.Dst(e)
	return x, -1, err
}

const (
	shflUp = iota
	shflDown
	shflBfly
	shflIdx
)

// decodeShfl lowers shfl.sync.mode.b32 d[|p], a, b, c, membermask.
func decodeShfl(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	switch {
	case q.Has(isa.QUp):
		out.Imm = shflUp
	case q.Has(isa.QDown):
		out.Imm = shflDown
	case q.Has(isa.QBfly):
		out.Imm = shflBfly
	case q.Has(isa.QIdx):
		out.Imm = shflIdx
	default:
		return d.Errorf(in, "shfl needs a mode (.up, .down, .bfly, .idx)")
	}
	if len(in.Operands) < 4 {
		return d.Errorf(in, "shfl takes d, a, b, c and a member mask")
	}
	var err error
	if out.D, out.D2, err = d.dstPair(in.Operands[0]); err != nil {
		return err
	}
	if err = d.srcs(in.Operands[1:], TB32, &out.A, &out.B, &out.C); err != nil {
		return err
	}
	if len(in.Operands) > 4 { // shfl.sync: the member mask
		if out.V[0], err = d.Src(in.Operands[4], TB32); err != nil {
			return err
		}
		out.Flags |= FlagX
	}
	out.Exec = execShfl
	return nil
}

// Sanitizer rules of shfl.sync: the ISA leaves the result undefined when a
// thread reads a lane that does not execute the instruction or a thread
// outside the member mask executes it (§9.7.8.6).
const (
	ruleShflInactive   = "shfl-inactive-lane"
	ruleShflMembermask = "shfl-membermask"
	specShfl           = "PTX ISA §9.7.8.6 (shfl.sync)"
)

// execShfl follows the pseudocode of §9.7.8.6: lanes outside the source
// range keep their own value. A lane that reads a lane that does not
// execute the instruction gets 0, as the H100 writes; that read, and a
// shfl.sync executed by a lane outside its member mask, are reported once
// every lane has its value.
func execShfl(w *Warp, in *Inst) Status {
	if w.Exec == allLanes {
		return shflLanes(w, in)
	}
	var src [32]uint64
	copy(src[:], w.R[in.A:in.A+32])
	badLane, badSrc, outside := -1, -1, -1
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		b := int(w.R[in.B+int32(l)] & 31)
		c := int(w.R[in.C+int32(l)])
		seg := c >> 8 & 31
		maxLane := l&seg | c&31&^seg
		minLane := l & seg
		var j int
		var ok bool
		switch in.Imm {
		case shflUp:
			j = l - b
			ok = j >= maxLane
		case shflDown:
			j = l + b
			ok = j <= maxLane
		case shflBfly:
			j = l ^ b
			ok = j <= maxLane
		default:
			j = minLane | b&^seg
			ok = j <= maxLane
		}
		v := src[l]
		if ok {
			v = src[j]
			if w.Exec&(1<<uint(j)) == 0 {
				v = 0
				if badLane < 0 {
					badLane, badSrc = l, j
				}
			}
		}
		if in.Flags&FlagX != 0 && outside < 0 && uint32(w.R[in.V[0]+int32(l)])&(1<<uint(l)) == 0 {
			outside = l
		}
		if in.D >= 0 {
			w.R[in.D+int32(l)] = v & 0xffffffff
		}
		if in.D2 >= 0 {
			w.R[in.D2+int32(l)] = b2u(ok)
		}
	}
	switch {
	case outside >= 0:
		return w.Fault(outside, ruleShflMembermask, specShfl, "lane %d executes %s but is not in its member mask %#08x",
			outside, in.Opcode, uint32(w.R[in.V[0]+int32(outside)]))
	case badLane >= 0:
		return w.Fault(badLane, ruleShflInactive, specShfl, "lane %d reads lane %d, which does not execute %s (the value is undefined; the H100 returns 0)",
			badLane, badSrc, in.Opcode)
	}
	return Continue
}

// decodeVote lowers vote{.sync}.{all,any,uni}.pred d, {!}a{, mask} and
// vote{.sync}.ballot.b32 d, {!}a{, mask}.
func decodeVote(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	for i, m := range []isa.Qual{isa.QAll, isa.QAny, isa.QUni, isa.QBallot} {
		if q.Has(m) {
			out.Imm = uint64(i)
		}
	}
	if len(in.Operands) < 2 {
		return d.Errorf(in, "vote takes a destination and a predicate")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	a := in.Operands[1]
	if u, ok := a.(*ast.UnaryExpr); ok && u.Op == "!" {
		out.Flags |= FlagNeg
		a = u.X
	}
	if out.A, err = d.Src(a, TPred); err != nil {
		return err
	}
	out.Exec = execVote
	return nil
}

func execVote(w *Warp, in *Inst) Status {
	var ballot uint32
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		p := w.R[in.A+int32(l)] & 1
		if in.Flags&FlagNeg != 0 {
			p ^= 1
		}
		ballot |= uint32(p) << uint(l)
	}
	var v uint64
	switch in.Imm {
	case 0:
		v = b2u(ballot == w.Exec)
	case 1:
		v = b2u(ballot != 0)
	case 2:
		v = b2u(ballot == 0 || ballot == w.Exec)
	default:
		v = uint64(ballot)
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		w.R[in.D+int32(lane(m))] = v
	}
	return Continue
}

func decodeActivemask(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 1 {
		return d.Errorf(in, "activemask takes one destination")
	}
	var err error
	out.D, err = d.Dst(in.Operands[0])
	out.Exec = execActivemask
	return err
}

func execActivemask(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		w.R[in.D+int32(lane(m))] = uint64(w.Exec)
	}
	return Continue
}

// decodeRedux lowers redux.sync.op.type d, a, membermask.
func decodeRedux(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	op := -1
	for i, n := range []isa.Qual{isa.QAdd, isa.QMin, isa.QMax, isa.QAnd, isa.QOr, isa.QXor} {
		if q.Has(n) {
			op = []int{opAdd, opMin, opMax, opAnd, opOr, opXor}[i]
		}
	}
	if op < 0 || len(in.Operands) < 2 || q.Type().Size() != 4 {
		return d.Errorf(in, "the emulator implements redux.sync add/min/max/and/or/xor on 32-bit types")
	}
	out.Imm, out.Type = uint64(op), q.Type()
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	out.B = -1
	if len(in.Operands) > 2 {
		if out.B, err = d.Src(in.Operands[2], TB32); err != nil {
			return err
		}
	}
	out.Exec = execRedux
	return nil
}

// execRedux reduces a over the lanes of each lane's membermask that
// execute the instruction: lanes of one warp may name different masks
// (cooperative groups' labeled partitions do), and each group gets its
// own result.
func execRedux(w *Warp, in *Inst) Status {
	done := uint32(0)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		if done&(1<<uint(l)) != 0 {
			continue
		}
		members := w.Exec
		if in.B >= 0 {
			members &= uint32(w.R[in.B+l])
		}
		// The lanes that name the same mask share one result.
		group := uint32(1) << uint(l)
		for x := members; x != 0; x &= x - 1 {
			j := int32(lane(x))
			if in.B < 0 || uint32(w.R[in.B+j])&w.Exec == members {
				group |= 1 << uint(j)
			}
		}
		if members == 0 { // l outside its own mask: undefined; l's own value
			members = 1 << uint(l)
		}
		acc := reduxOver(w, in, members)
		for x := group; x != 0; x &= x - 1 {
			w.R[in.D+int32(lane(x))] = acc & 0xffffffff
		}
		done |= group
	}
	return Continue
}

// reduxOver applies redux's operation to a over the lanes of members.
func reduxOver(w *Warp, in *Inst, members uint32) uint64 {
	first := true
	var acc uint64
	for m := members; m != 0; m &= m - 1 {
		v := intValue(in.Type, w.R[in.A+int32(lane(m))])
		if first {
			acc, first = v, false
			continue
		}
		switch in.Imm {
		case opAdd:
			acc += v
		case opAnd:
			acc &= v
		case opOr:
			acc |= v
		case opXor:
			acc ^= v
		case opMin, opMax:
			less := v < acc
			if in.Type.Signed() {
				less = int64(v) < int64(acc)
			}
			if less == (in.Imm == opMin) {
				acc = v
			}
		}
	}
	return acc
}

// prmtModes numbers prmt's modes (§9.7.8.7); 0 is the default
// (generic byte selection).
var prmtModes = map[isa.Qual]uint64{isa.QF4e: 1, isa.QB4e: 2, isa.QRc8: 3, isa.QEcl: 4, isa.QEcr: 5, isa.QRc16: 6}

// decodePrmt lowers prmt.b32{.mode} d, a, b, c.
func decodePrmt(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	for name, m := range prmtModes {
		if q.Has(name) {
			out.Imm = m
		}
	}
	if len(in.Operands) != 4 {
		return d.Errorf(in, "prmt takes four operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	out.Exec = execPrmt
	return d.srcs(in.Operands[1:], TB32, &out.A, &out.B, &out.C)
}

func execPrmt(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		w.R[in.D+l] = uint64(prmt(in.Imm, uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), uint32(w.R[in.C+l])))
	}
	return Continue
}

// prmt picks four bytes of the eight of b:a (§9.7.8.7). The default mode
// reads a selector nibble per result byte (bit 3 replicates the byte's
// sign); the other modes derive all four from c's two low bits.
func prmt(mode uint64, a, b, c uint32) uint32 {
	src := uint64(a) | uint64(b)<<32
	byteAt := func(i uint32) uint32 { return uint32(src >> (8 * (i & 7)) & 0xff) }
	var v uint32
	s := c & 3
	for i := range uint32(4) {
		var sel uint32
		switch mode {
		case 0:
			n := c >> (4 * i) & 0xf
			b := byteAt(n)
			if n&8 != 0 {
				b = uint32(int32(int8(b)) >> 7 & 0xff)
			}
			v |= b << (8 * i)
			continue
		case 1: // f4e: forward 4 extract
			sel = s + i
		case 2: // b4e: backward 4 extract
			sel = s - i
		case 3: // rc8: replicate byte s
			sel = s
		case 4: // ecl: edge clamp left
			sel = max(i, s)
		case 5: // ecr: edge clamp right
			sel = min(i, s)
		case 6: // rc16: replicate half s&1
			sel = 2*(s&1) + i&1
		}
		v |= byteAt(sel) << (8 * i)
	}
	return v
}

// decodeBfe lowers bfe.type d, a, pos, len.
func decodeBfe(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type.Size() != 4 && out.Type.Size() != 8 || len(in.Operands) != 4 {
		return d.Errorf(in, "bfe takes a 32- or 64-bit type and four operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(in.Operands[1], out.Type); err != nil {
		return err
	}
	out.Exec = execBfe
	return d.srcs(in.Operands[2:], TU32, &out.B, &out.C)
}

func execBfe(w *Warp, in *Inst) Status {
	n := uint64(in.Type.Bits())
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a := w.R[in.A+l] & in.Type.mask()
		pos, ln := w.R[in.B+l]&0xff, w.R[in.C+l]&0xff
		var sbit uint64
		if in.Type.Signed() && ln != 0 {
			sbit = a >> min(pos+ln-1, n-1) & 1
		}
		var v uint64
		for i := uint64(0); i < n; i++ {
			bit := sbit
			if i < ln && pos+i < n {
				bit = a >> (pos + i) & 1
			}
			v |= bit << i
		}
		w.R[in.D+l] = v
	}
	return Continue
}

// decodeBfi lowers bfi.type f, a, b, pos, len.
func decodeBfi(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if out.Type.Size() != 4 && out.Type.Size() != 8 || len(in.Operands) != 5 {
		return d.Errorf(in, "bfi takes a 32- or 64-bit type and five operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if err := d.srcs(in.Operands[1:], out.Type, &out.A, &out.B); err != nil {
		return err
	}
	out.Exec = execBfi
	return d.srcs(in.Operands[3:], TU32, &out.C, &out.D2)
}

func execBfi(w *Warp, in *Inst) Status {
	n := uint64(in.Type.Bits())
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := w.R[in.A+l], w.R[in.B+l]&in.Type.mask()
		pos, ln := w.R[in.C+l]&0xff, w.R[in.D2+l]&0xff
		for i := uint64(0); i < ln && pos+i < n; i++ {
			b = b&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
		}
		w.R[in.D+l] = b
	}
	return Continue
}

// decodeLop3 lowers lop3.b32 d, a, b, c, immLut.
func decodeLop3(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 5 {
		return d.Errorf(in, "lop3 takes five operands")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	lut, ok := d.constValue(in.Operands[4], TB32)
	if !ok {
		return d.Errorf(in.Operands[4], "lop3 needs a constant lookup table")
	}
	out.Imm = lut & 0xff
	out.Exec = execLop3
	return d.srcs(in.Operands[1:], TB32, &out.A, &out.B, &out.C)
}

// execLop3 evaluates the lookup table: bit i of immLut is the result for
// a, b, c bits forming i = a<<2 | b<<1 | c (ta=0xF0, tb=0xCC, tc=0xAA).
func execLop3(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b, c := uint32(w.R[in.A+l]), uint32(w.R[in.B+l]), uint32(w.R[in.C+l])
		var v uint32
		for i := range 8 {
			if in.Imm>>uint(i)&1 == 0 {
				continue
			}
			t := ^uint32(0)
			for k, x := range [3]uint32{c, b, a} {
				if i>>uint(k)&1 != 0 {
					t &= x
				} else {
					t &= ^x
				}
			}
			v |= t
		}
		w.R[in.D+l] = uint64(v)
	}
	return Continue
}

// decodeMul24 lowers mul24/mad24.{lo,hi}.{u32,s32}.
func decodeMul24(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Type = q.Type()
	if q.Has(isa.QHi) {
		out.Flags |= FlagHi
	}
	n := 3
	if in.Opcode == "mad24" {
		n = 4
	}
	if len(in.Operands) != n || out.Type.Size() != 4 {
		return d.Errorf(in, "%s takes a 32-bit type and %d operands", in.Opcode, n)
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	out.Exec = execMul24
	if n == 4 {
		return d.srcs(in.Operands[1:], out.Type, &out.A, &out.B, &out.C)
	}
	return d.srcs(in.Operands[1:], out.Type, &out.A, &out.B)
}

func execMul24(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(lane(m))
		a, b := w.R[in.A+l]&0xffffff, w.R[in.B+l]&0xffffff
		if in.Type.Signed() {
			a, b = sext(a, 24), sext(b, 24)
		}
		p := a * b
		v := p
		if in.Flags&FlagHi != 0 {
			v = p >> 16
		}
		if in.C >= 0 {
			v += w.R[in.C+l]
		}
		w.R[in.D+l] = v & 0xffffffff
	}
	return Continue
}

func init() { RegisterOpcode("stmatrix", decodeStmatrix) }

const specStmatrix = "PTX ISA §9.7.14.5.16 (stmatrix)"

// decodeStmatrix lowers stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}
// {.shared{::cta}}.b16 [p], {r...}: a warp stores one, two or four 8x8
// matrices of 16-bit elements to shared memory. Lane 8*i+row supplies the
// address of row `row` of matrix i (16 contiguous bytes); the 32-bit
// register i of lane 4*row+col/2 holds elements (row, col) and
// (row, col+1) of matrix i, the lower column in the low half.
func decodeStmatrix(d *Decoder, in *ast.Instruction, out *Inst) error {
	if err := decodeStmatrixShape(d, in, out, false); err != nil {
		return err
	}
	out.Exec = execStmatrix
	return nil
}

// decodeStmatrixShape decodes the operands shared by stmatrix and
// ldmatrix (given in stmatrix order: address, registers).
func decodeStmatrixShape(d *Decoder, in *ast.Instruction, out *Inst, load bool) error {
	q := d.quals()
	if !q.Has(isa.QM8n8) || q.Type() != TB16 {
		return d.Errorf(in, "the emulator implements %s only for .m8n8 .b16", in.Opcode)
	}
	n := 0
	for i, x := range []isa.Qual{isa.QX1, isa.QX2, isa.QX4} {
		if q.Has(x) {
			n = 1 << uint(i)
		}
	}
	if n == 0 || len(in.Operands) != 2 {
		return d.Errorf(in, "%s needs .x1, .x2 or .x4, an address and a vector of registers", in.Opcode)
	}
	if q.Has(isa.QTrans) {
		out.Flags |= FlagX
	}
	var err error
	var sp Space
	if out.A, out.Off, sp, err = d.Addr(in.Operands[0]); err != nil {
		return err
	}
	out.Space = memSpace(&q, sp)
	if out.Space != SpaceShared && out.Space != SpaceGeneric {
		return d.Errorf(in, "%s accesses .shared memory", in.Opcode)
	}
	v, err := d.Vector(in.Operands[1], TB32, load)
	if err != nil {
		return err
	}
	if len(v) != n {
		return d.Errorf(in.Operands[1], "%s%s needs %d registers, got %d", in.Opcode, []string{"", ".x1", ".x2", "", ".x4"}[n], n, len(v))
	}
	copy(out.V[:], v)
	out.Vec = uint8(n)
	return nil
}

// matrixRow returns the 16 bytes of the matrix row whose address lane l
// supplies.
func (w *Warp) matrixRow(l int, in *Inst, write bool) []byte {
	a := w.R[in.A+int32(l)] + uint64(in.Off)
	sp := in.Space
	if sp == SpaceGeneric {
		if genericSpace(a) != SpaceSharedCluster {
			w.Fault(l, ruleWrongWindow, specStmatrix, "%s address %#x is not in the shared window", in.Opcode, a)
			return nil
		}
		a -= sharedWindow
		sp = SpaceShared
	}
	return w.Bytes(l, sp, a, 16, write)
}

func execStmatrix(w *Warp, in *Inst) Status {
	if w.Exec != w.live || w.live != ^uint32(0) {
		return w.Fault(lane(w.Exec), RuleUnsupported, specStmatrix, "stmatrix executed by lanes %#08x; all 32 lanes of the warp must execute it (.sync.aligned)", w.Exec)
	}
	trans := in.Flags&FlagX != 0
	for m := 0; m < int(in.Vec); m++ {
		reg := in.V[m]
		for row := range 8 {
			b := w.matrixRow(8*m+row, in, true)
			if b == nil {
				return Fault
			}
			for col := range 8 {
				r, c := row, col // element of the fragment stored at (row, col)
				if trans {
					r, c = col, row
				}
				v := w.R[reg+int32(4*r+c/2)] >> (16 * uint(c%2)) & 0xffff
				binary.LittleEndian.PutUint16(b[2*col:], uint16(v))
			}
		}
	}
	return Continue
}

func init() { RegisterOpcode("ldmatrix", decodeLdmatrix) }

// decodeLdmatrix lowers ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}
// {.shared{::cta}}.b16 {d...}, [p], the inverse of stmatrix (§9.7.14.5.15).
func decodeLdmatrix(d *Decoder, in *ast.Instruction, out *Inst) error {
	if len(in.Operands) != 2 {
		return d.Errorf(in, "ldmatrix takes a vector of registers and an address")
	}
	swapped := *in
	swapped.Operands = []ast.Expr{in.Operands[1], in.Operands[0]}
	if err := decodeStmatrixShape(d, &swapped, out, true); err != nil {
		return err
	}
	out.Exec = execLdmatrix
	return nil
}

func execLdmatrix(w *Warp, in *Inst) Status {
	if w.Exec != w.live || w.live != ^uint32(0) {
		return w.Fault(lane(w.Exec), RuleUnsupported, specStmatrix, "ldmatrix executed by lanes %#08x; all 32 lanes of the warp must execute it (.sync.aligned)", w.Exec)
	}
	trans := in.Flags&FlagX != 0
	var vals [4][32]uint64
	for m := 0; m < int(in.Vec); m++ {
		for row := range 8 {
			l := 8*m + row
			b := w.matrixRow(l, in, false)
			if b == nil {
				return Fault
			}
			for col := range 8 {
				r, c := row, col
				if trans {
					r, c = col, row
				}
				vals[m][4*r+c/2] |= uint64(binary.LittleEndian.Uint16(b[2*col:])) << (16 * uint(c%2))
			}
		}
	}
	for m := 0; m < int(in.Vec); m++ {
		if s := in.V[m]; s >= 0 {
			copy(w.R[s:s+32], vals[m][:])
		}
	}
	return Continue
}

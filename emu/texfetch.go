package emu

import (
	"encoding/binary"
	"math"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// texInfo is what a decoded tex, suld or sust needs besides its slots.
type texInfo struct {
	dims   int     // 1 or 2
	coords []int32 // coordinate slots
	vals   []int32 // destination (tex, suld) or source (sust) slots
	mode   isa.Qual
}

// decodeTex lowers tex.{1d,2d}.v4.dtype.ctype d, [obj, {c}].
func decodeTex(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	dims, err := geometry(d, in, q)
	if err != nil {
		return err
	}
	if len(q.Types) != 2 || q.Vec != 4 || len(in.Operands) != 2 {
		return d.Errorf(in, "the emulator implements tex.{1d,2d}.v4.dtype.ctype d, [object, {coordinates}]")
	}
	out.Type, out.Type2 = q.Types[0], q.Types[1]
	ti := &texInfo{dims: dims}
	if ti.vals, err = d.Vector(in.Operands[0], out.Type, true); err != nil {
		return err
	}
	if out.A, ti.coords, err = texOperands(d, in.Operands[1], out.Type2, dims); err != nil {
		return err
	}
	out.Ext = ti
	out.Exec = execTex
	return nil
}

func execTex(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t, ok := w.textureOf(l, w.R[in.A+int32(l)])
		if !ok {
			return Fault
		}
		var c [2]uint64
		for i := range ti.dims {
			c[i] = w.R[ti.coords[i]+int32(l)]
		}
		v := t.fetch(ti.dims, in.Type2 == TF32, c)
		for i, s := range ti.vals {
			w.R[s+int32(l)] = t.resultBits(in.Type, v[i])
		}
	}
	return Continue
}

// decodeTld4 lowers tld4.comp.2d.v4.dtype.f32 d, [obj, {x, y}].
func decodeTld4(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	if !q.Has(isa.Q2d) || len(q.Types) != 2 || q.Types[1] != TF32 || len(in.Operands) != 2 {
		return d.Errorf(in, "the emulator implements tld4.{r,g,b,a}.2d.v4.dtype.f32 d, [object, {x, y}]")
	}
	out.Type, out.Type2 = q.Types[0], TF32
	for i, c := range []isa.Qual{isa.QR, isa.QG, isa.QB, isa.QA} {
		if q.Has(c) {
			out.Imm = uint64(i)
		}
	}
	ti := &texInfo{dims: 2}
	var err error
	if ti.vals, err = d.Vector(in.Operands[0], out.Type, true); err != nil {
		return err
	}
	if out.A, ti.coords, err = texOperands(d, in.Operands[1], TF32, 2); err != nil {
		return err
	}
	out.Ext = ti
	out.Exec = execTld4
	return nil
}

// execTld4 returns channel Imm of the four texels linear filtering would
// weigh, counter-clockwise from the lower left (PTX ISA §9.7.10.4): (i0,
// j1), (i1, j1), (i1, j0), (i0, j0), rows growing downward.
func execTld4(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t, ok := w.textureOf(l, w.R[in.A+int32(l)])
		if !ok {
			return Fault
		}
		i0 := int(math.Floor(t.scaled(w.R[ti.coords[0]+int32(l)], t.Width) - 0.5))
		j0 := int(math.Floor(t.scaled(w.R[ti.coords[1]+int32(l)], t.Height) - 0.5))
		for k, at := range [4][2]int{{i0, j0 + 1}, {i0 + 1, j0 + 1}, {i0 + 1, j0}, {i0, j0}} {
			if k < len(ti.vals) {
				w.R[ti.vals[k]+int32(l)] = t.resultBits(in.Type, t.texel(2, at)[in.Imm])
			}
		}
	}
	return Continue
}

// fetch returns the four channels a texture read at coordinates c (f32
// bits when float, else texel indices) gives.
func (t *texObject) fetch(dims int, float bool, c [2]uint64) [4]float64 {
	size := [2]int{t.Width, t.Height}
	if !float || t.Filter == TexPoint {
		var idx [2]int
		for i := range dims {
			if float {
				idx[i] = int(math.Floor(t.scaled(c[i], size[i])))
			} else {
				idx[i] = int(int32(c[i]))
			}
		}
		return t.texel(dims, idx)
	}
	var base [2]int
	var wt [2]float64
	for i := range dims {
		u := t.scaled(c[i], size[i]) - 0.5
		f := math.Floor(u)
		base[i] = int(f)
		wt[i] = math.Round((u-f)*256) / 256 // the weight in 1.8 fixed point
	}
	var sum [4]float64
	for k := range 1 << dims {
		weight := 1.0
		idx := base
		for i := range dims {
			if k>>i&1 == 1 {
				idx[i]++
				weight *= wt[i]
			} else {
				weight *= 1 - wt[i]
			}
		}
		if weight == 0 {
			continue
		}
		v := t.texel(dims, idx)
		for ch := range sum {
			sum[ch] += weight * v[ch]
		}
	}
	return sum
}

// scaled returns coordinate bits x in texels, clamping huge values.
func (t *texObject) scaled(x uint64, n int) float64 {
	u := float64(math.Float32frombits(uint32(x)))
	if t.NormalizedCoords {
		u *= float64(n)
	}
	if math.IsNaN(u) {
		return 0
	}
	return max(min(u, 1<<30), -(1 << 30))
}

// address maps texel index j of a dimension of n texels by mode a; ok is
// false for a border texel.
func address(j, n int, a TexAddress) (int, bool) {
	switch a {
	case TexWrap:
		return (j%n + n) % n, true
	case TexMirror:
		p := (j%(2*n) + 2*n) % (2 * n)
		if p >= n {
			p = 2*n - 1 - p
		}
		return p, true
	case TexBorder:
		return j, j >= 0 && j < n
	}
	return min(max(j, 0), n-1), true
}

// texel returns the channels of the texel at idx (after addressing),
// missing channels reading 0 and the fourth 1, border texels all 0.
func (t *texObject) texel(dims int, idx [2]int) [4]float64 {
	var out [4]float64
	size := [2]int{t.Width, t.Height}
	var at [2]int
	for i := range dims {
		j, ok := address(idx[i], size[i], t.Address[i])
		if !ok {
			return out
		}
		at[i] = j
	}
	n := t.Format.Size()
	off := (at[1]*t.Width + at[0]) * t.texelBytes()
	for ch := range t.Channels {
		out[ch] = t.channel(t.region.Data[off+ch*n:])
	}
	if t.Channels < 4 {
		out[3] = 1
	}
	return out
}

// channel reads one channel value from b.
func (t *texObject) channel(b []byte) float64 {
	switch t.Format {
	case TF32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case TU8:
		return t.norm(float64(b[0]), 255)
	case TS8:
		return t.norm(float64(int8(b[0])), 127)
	case TU16:
		return t.norm(float64(binary.LittleEndian.Uint16(b)), 65535)
	case TS16:
		return t.norm(float64(int16(binary.LittleEndian.Uint16(b))), 32767)
	case TU32:
		return float64(binary.LittleEndian.Uint32(b))
	}
	return float64(int32(binary.LittleEndian.Uint32(b)))
}

func (t *texObject) norm(v, scale float64) float64 {
	if !t.NormalizedRead {
		return v
	}
	return max(v/scale, -1)
}

// resultBits converts a fetched channel to the destination type dt.
func (t *texObject) resultBits(dt Type, v float64) uint64 {
	if dt == TF32 {
		return floatBits(TF32, v, RoundNearest)
	}
	if dt.Signed() {
		return uint64(uint32(int32(v)))
	}
	return uint64(uint32(v))
}

// decodeSuld lowers suld.b.{1d,2d}{.vN}.bT{.trap,.clamp,.zero} d, [obj, {x, y}].
func decodeSuld(d *Decoder, in *ast.Instruction, out *Inst) error {
	return decodeSurface(d, in, out, false)
}

// decodeSust lowers sust.b.{1d,2d}{.vN}.bT{.trap,.clamp,.zero} [obj, {x, y}], a.
func decodeSust(d *Decoder, in *ast.Instruction, out *Inst) error {
	return decodeSurface(d, in, out, true)
}

func decodeSurface(d *Decoder, in *ast.Instruction, out *Inst, store bool) error {
	q := d.quals()
	dims, err := geometry(d, in, q)
	if err != nil {
		return err
	}
	if !q.Has(isa.QB) || len(q.Types) != 1 || len(in.Operands) != 2 {
		return d.Errorf(in, "the emulator implements the unformatted surface accesses %s.b.{1d,2d}{.v2,.v4}.bN{.trap,.clamp,.zero}", in.Opcode)
	}
	out.Type, out.Vec = q.Types[0], uint8(max(q.Vec, 1))
	ti := &texInfo{dims: dims, mode: isa.QTrap}
	for _, m := range []isa.Qual{isa.QClamp, isa.QZero} {
		if q.Has(m) {
			ti.mode = m
		}
	}
	addr, val := in.Operands[1], in.Operands[0]
	if store {
		addr, val = val, addr
	}
	if out.A, ti.coords, err = texOperands(d, addr, TS32, dims); err != nil {
		return err
	}
	if _, vec := val.(*ast.VectorExpr); vec || out.Vec > 1 { // nvcc writes {%r1} for one element
		ti.vals, err = d.Vector(val, out.Type, !store)
		if err == nil && len(ti.vals) != int(out.Vec) {
			err = d.Errorf(val, "%d elements for a .v%d access", len(ti.vals), out.Vec)
		}
	} else {
		var s int32
		if store {
			s, err = d.Src(val, out.Type)
		} else {
			s, err = d.Dst(val)
		}
		ti.vals = []int32{s}
	}
	if err != nil {
		return err
	}
	out.Ext = ti
	out.Exec = execSuld
	if store {
		out.Exec = execSust
	}
	return nil
}

// surfaceBytes resolves a surface access of lane l: the bytes, or nil
// when .zero drops it; ok is false after a fault.
func (w *Warp) surfaceBytes(l int, in *Inst, ti *texInfo) (b []byte, ok bool) {
	t, ok := w.textureOf(l, w.R[in.A+int32(l)])
	if !ok {
		return nil, false
	}
	n := int(in.Vec) * in.Type.Size()
	x := int(int32(w.R[ti.coords[0]+int32(l)]))
	y := 0
	if ti.dims == 2 {
		y = int(int32(w.R[ti.coords[1]+int32(l)]))
	}
	row := t.Width * t.texelBytes()
	if x%n != 0 {
		w.Fault(l, ruleMisaligned, specSurface, "%s at byte %d of a row: the access of %d bytes must be aligned to its size", in.Opcode, x, n)
		return nil, false
	}
	if x < 0 || x+n > row || y < 0 || y >= t.Height {
		switch ti.mode {
		case isa.QZero:
			return nil, true
		case isa.QClamp:
			x = min(max(x, 0), row-n)
			y = min(max(y, 0), t.Height-1)
		default:
			w.Fault(l, ruleSurfaceTrap, specSurface, "%s at (byte %d, row %d) of a surface of %d bytes x %d rows", in.Opcode, x, y, row, t.Height)
			return nil, false
		}
	}
	off := y*row + x
	return t.region.Data[off : off+n], true
}

func execSuld(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	size := in.Type.Size()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		b, ok := w.surfaceBytes(l, in, ti)
		if !ok {
			return Fault
		}
		for i, s := range ti.vals {
			var v uint64
			if b != nil {
				v = getN(b[i*size : (i+1)*size])
			}
			w.R[s+int32(l)] = v
		}
	}
	return Continue
}

func execSust(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	size := in.Type.Size()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		b, ok := w.surfaceBytes(l, in, ti)
		if !ok {
			return Fault
		}
		for i, s := range ti.vals {
			if b != nil {
				putN(b[i*size:(i+1)*size], w.R[s+int32(l)])
			}
		}
	}
	return Continue
}

// decodeTxq lowers txq.query.b32 d, [obj] and suq.query.b32 d, [obj] for
// width, height, depth, normalized_coords and filter_mode.
func decodeTxq(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	out.Imm = uint64(isa.QNone)
	for _, n := range []isa.Qual{isa.QWidth, isa.QHeight, isa.QDepth, isa.QNormalized_Coords, isa.QFilter_Mode} {
		if q.Has(n) {
			out.Imm = uint64(n)
		}
	}
	a, ok := in.Operands[len(in.Operands)-1].(*ast.Address)
	if out.Imm == uint64(isa.QNone) || len(in.Operands) != 2 || !ok || len(a.Index) != 0 {
		return d.Errorf(in, "the emulator implements %s.{width,height,depth,normalized_coords,filter_mode}.b32 d, [object]", in.Opcode)
	}
	if _, isReg := a.Base.(*ast.Reg); !isReg {
		return d.Errorf(a, "the emulator emulates texture and surface objects held in registers, not references")
	}
	var err error
	if out.D, err = d.Dst(in.Operands[0]); err != nil {
		return err
	}
	if out.A, err = d.Src(a.Base, TU64); err != nil {
		return err
	}
	out.Exec = execTxq
	return nil
}

func execTxq(w *Warp, in *Inst) Status {
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t, ok := w.textureOf(l, w.R[in.A+int32(l)])
		if !ok {
			return Fault
		}
		var v int
		switch isa.Qual(in.Imm) {
		case isa.QWidth:
			v = t.Width
		case isa.QHeight:
			v = t.Height
		case isa.QDepth:
			v = 1
		case isa.QNormalized_Coords:
			v = int(b2u(t.NormalizedCoords))
		case isa.QFilter_Mode:
			v = int(t.Filter)
		}
		w.R[in.D+int32(l)] = uint64(v)
	}
	return Continue
}

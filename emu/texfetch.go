package emu

import (
	"encoding/binary"
	"math"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// texInfo is what a decoded tex, tld4, suld or sust needs besides its
// slots (the handle is in Inst.A).
type texInfo struct {
	texGeometry
	layer  int32    // slot of the layer index (layered geometries)
	coords []int32  // coordinate slots
	vals   []int32  // destination (tex, tld4, suld) or source (sust) slots
	mode   isa.Qual // suld/sust: .trap, .clamp or .zero
}

// decodeTex lowers tex.geom.v4.dtype.ctype d, [obj, {c}].
func decodeTex(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	g, err := geometry(d, in, q, true)
	if err != nil {
		return err
	}
	if len(q.Types) != 2 || q.Vec != 4 || len(in.Operands) != 2 || q.Has(isa.QBase) || q.Has(isa.QLevel) || q.Has(isa.QGrad) {
		return d.Errorf(in, "the emulator implements tex.geom.v4.dtype.ctype d, [object, {coordinates}] (no mipmaps), not %s", in.FullOpcode())
	}
	out.Type, out.Type2 = q.Types[0], q.Types[1]
	if out.Type != TF32 && out.Type != TS32 && out.Type != TU32 || out.Type2 != TF32 && out.Type2 != TS32 {
		return d.Errorf(in, "the emulator implements tex with f32, s32 or u32 results and f32 or s32 coordinates, not %s", in.FullOpcode())
	}
	if g.cube && out.Type2 != TF32 {
		return d.Errorf(in, "cubemap coordinates are f32")
	}
	ti := &texInfo{texGeometry: g}
	if ti.vals, err = d.Vector(in.Operands[0], out.Type, true); err != nil {
		return err
	}
	if out.A, ti.layer, ti.coords, err = texOperands(d, in.Operands[1], out.Type2, g); err != nil {
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
		var c [3]float64
		for k, s := range ti.coords {
			if v := w.R[s+int32(l)]; in.Type2 == TF32 {
				c[k] = float64(math.Float32frombits(uint32(v)))
			} else {
				c[k] = float64(int32(v))
			}
		}
		layer, dims := 0, ti.dims
		if ti.layered {
			layer = int(int32(w.R[ti.layer+int32(l)]))
		}
		scale := t.NormalizedCoords && in.Type2 == TF32
		if ti.cube {
			var face int
			face, c = cubeFace(c)
			layer, dims, scale = layer*6+face, 2, true
		}
		layer = min(max(layer, 0), t.Layers-1)
		if scale {
			size := [3]int{t.Width, t.Height, t.Depth}
			for k := range dims {
				c[k] *= float64(size[k])
			}
		}
		var v [4]float64
		var raw [4]uint32
		if !t.sample(w, l, dims, in.Type2 == TF32 && in.Type == TF32, c, layer, &v, &raw) {
			return Fault
		}
		for k, s := range ti.vals {
			if in.Type == TF32 {
				w.R[s+int32(l)] = floatBits(TF32, v[k], RoundNearest)
			} else {
				w.R[s+int32(l)] = uint64(raw[k])
			}
		}
	}
	return Continue
}

// sample computes tex's four results at texel coordinates c: floats in
// out, the integer texels in raw (for .s32/.u32 results). Filtering
// applies only when filter is set (float coordinates and results).
func (t *Texture) sample(w *Warp, l, dims int, filter bool, c [3]float64, layer int, out *[4]float64, raw *[4]uint32) bool {
	if !filter || t.Filter == TexPoint {
		var idx [3]int
		for k := range dims {
			idx[k] = int(math.Floor(clampCoord(c[k])))
		}
		return t.fetch(w, l, dims, idx, layer, out, raw)
	}
	// Linear filtering between the 2^dims nearest texels, with weights of
	// 8 fractional bits as the hardware computes them.
	var base [3]int
	var frac [3]float64
	for k := range dims {
		x := clampCoord(c[k]) - 0.5
		f := math.Floor(x)
		base[k], frac[k] = int(f), math.Round((x-f)*256)/256
	}
	*out = [4]float64{}
	for corner := range 1 << dims {
		wt := 1.0
		idx := base
		for k := range dims {
			if corner>>k&1 == 1 {
				idx[k]++
				wt *= frac[k]
			} else {
				wt *= 1 - frac[k]
			}
		}
		if wt == 0 {
			continue
		}
		var v [4]float64
		if !t.fetch(w, l, dims, idx, layer, &v, raw) {
			return false
		}
		for ch := range out {
			out[ch] += wt * v[ch]
		}
	}
	return true
}

// clampCoord bounds a coordinate in texels, NaN reading as 0.
func clampCoord(u float64) float64 {
	if math.IsNaN(u) {
		return 0
	}
	return max(min(u, 1<<30), -(1 << 30))
}

// cubeFace selects the face a direction points at and the coordinates in
// [0, 1] on it (CUDA C++ Programming Guide, Cubemap Textures).
func cubeFace(c [3]float64) (int, [3]float64) {
	x, y, z := c[0], c[1], c[2]
	ax, ay, az := math.Abs(x), math.Abs(y), math.Abs(z)
	var face int
	var s, t, m float64
	switch {
	case ax >= ay && ax >= az:
		m, t = ax, -y
		if x >= 0 {
			face, s = 0, -z
		} else {
			face, s = 1, z
		}
	case ay >= az:
		m, s = ay, x
		if y >= 0 {
			face, t = 2, z
		} else {
			face, t = 3, -z
		}
	default:
		m, t = az, -y
		if z >= 0 {
			face, s = 4, x
		} else {
			face, s = 5, -x
		}
	}
	if m == 0 {
		return face, [3]float64{0.5, 0.5, 0}
	}
	return face, [3]float64{(s/m + 1) / 2, (t/m + 1) / 2, 0}
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

// fetch reads the texel at idx after addressing: its channels as floats
// in out (missing channels 0, a missing fourth 1) and raw in raw.
func (t *Texture) fetch(w *Warp, l, dims int, idx [3]int, layer int, out *[4]float64, raw *[4]uint32) bool {
	size := [3]int{t.Width, t.Height, t.Depth}
	for k := range dims {
		i, ok := address(idx[k], size[k], t.Address[k])
		if !ok {
			for ch := range out {
				out[ch] = float64(t.Border[ch])
				raw[ch] = uint32(int32(t.Border[ch]))
			}
			return true
		}
		idx[k] = i
	}
	n := t.texelBytes()
	a := t.Base + uint64((idx[2]+layer*t.Depth)*t.SlicePitch+idx[1]*t.Pitch+idx[0]*n)
	r := w.CTA.cluster.Mem.global.find(a, n)
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specTexture, "texel (%d, %d, %d) of layer %d at %#x lies outside the texture's memory", idx[0], idx[1], idx[2], layer, a)
		return false
	}
	b := r.Data[a-r.Base:]
	*out = [4]float64{0, 0, 0, 1}
	*raw = [4]uint32{0, 0, 0, 1}
	for ch := range t.Channels {
		out[ch], raw[ch] = t.channel(b[ch*t.Format.Size():])
	}
	return true
}

// channel reads one channel from b: its value as a float (normalized when
// the texture reads normalized) and its integer bits.
func (t *Texture) channel(b []byte) (float64, uint32) {
	switch t.Format {
	case TF32:
		u := binary.LittleEndian.Uint32(b)
		return float64(math.Float32frombits(u)), u
	case TF16:
		u := binary.LittleEndian.Uint16(b)
		return f16ToFloat(u), uint32(u)
	case TU8:
		return t.norm(float64(b[0]), 255), uint32(b[0])
	case TS8:
		return t.norm(float64(int8(b[0])), 127), uint32(int32(int8(b[0])))
	case TU16:
		u := binary.LittleEndian.Uint16(b)
		return t.norm(float64(u), 65535), uint32(u)
	case TS16:
		s := int16(binary.LittleEndian.Uint16(b))
		return t.norm(float64(s), 32767), uint32(int32(s))
	case TU32:
		u := binary.LittleEndian.Uint32(b)
		return float64(u), u
	}
	u := binary.LittleEndian.Uint32(b)
	return float64(int32(u)), u
}

func (t *Texture) norm(v, scale float64) float64 {
	if !t.NormalizedRead {
		return v
	}
	return max(v/scale, -1)
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
	ti := &texInfo{texGeometry: texGeometry{dims: 2}}
	var err error
	if ti.vals, err = d.Vector(in.Operands[0], out.Type, true); err != nil {
		return err
	}
	if out.A, _, ti.coords, err = texOperands(d, in.Operands[1], TF32, ti.texGeometry); err != nil {
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
		var ij [2]int
		for k, n := range []int{t.Width, t.Height} {
			u := float64(math.Float32frombits(uint32(w.R[ti.coords[k]+int32(l)])))
			if t.NormalizedCoords {
				u *= float64(n)
			}
			ij[k] = int(math.Floor(clampCoord(u) - 0.5))
		}
		i0, j0 := ij[0], ij[1]
		for k, at := range [4][2]int{{i0, j0 + 1}, {i0 + 1, j0 + 1}, {i0 + 1, j0}, {i0, j0}} {
			var v [4]float64
			var raw [4]uint32
			if !t.fetch(w, l, 2, [3]int{at[0], at[1]}, 0, &v, &raw) {
				return Fault
			}
			if k >= len(ti.vals) {
				continue
			}
			if in.Type == TF32 {
				w.R[ti.vals[k]+int32(l)] = floatBits(TF32, v[in.Imm], RoundNearest)
			} else {
				w.R[ti.vals[k]+int32(l)] = uint64(raw[in.Imm])
			}
		}
	}
	return Continue
}

// decodeSuld lowers suld.b.geom{.vN}.bT{.trap,.clamp,.zero} d, [obj, {c}].
func decodeSuld(d *Decoder, in *ast.Instruction, out *Inst) error {
	return decodeSurface(d, in, out, false)
}

// decodeSust lowers sust.b.geom{.vN}.bT{.trap,.clamp,.zero} [obj, {c}], a.
func decodeSust(d *Decoder, in *ast.Instruction, out *Inst) error {
	return decodeSurface(d, in, out, true)
}

func decodeSurface(d *Decoder, in *ast.Instruction, out *Inst, store bool) error {
	q := d.quals()
	g, err := geometry(d, in, q, false)
	if err != nil {
		return err
	}
	if !q.Has(isa.QB) || len(q.Types) != 1 || len(in.Operands) != 2 {
		return d.Errorf(in, "the emulator implements the unformatted surface accesses %s.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.bN{.trap,.clamp,.zero}", in.Opcode)
	}
	out.Type, out.Vec = q.Types[0], uint8(max(q.Vec, 1))
	ti := &texInfo{texGeometry: g, mode: isa.QTrap}
	for _, m := range []isa.Qual{isa.QClamp, isa.QZero} {
		if q.Has(m) {
			ti.mode = m
		}
	}
	addr, val := in.Operands[1], in.Operands[0]
	if store {
		addr, val = val, addr
	}
	if out.A, ti.layer, ti.coords, err = texOperands(d, addr, TS32, g); err != nil {
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
	var c [4]int // x in bytes, y, z, layer
	for k, s := range ti.coords {
		c[k] = int(int32(w.R[s+int32(l)]))
	}
	if ti.layered {
		c[3] = int(int32(w.R[ti.layer+int32(l)]))
	}
	if c[0]%n != 0 {
		w.Fault(l, ruleMisaligned, specSurface, "%s at byte %d of a row: the access of %d bytes must be aligned to its size", in.Opcode, c[0], n)
		return nil, false
	}
	hi := [4]int{t.Width*t.texelBytes() - n, t.Height - 1, t.Depth - 1, t.Layers - 1}
	for k := range c {
		if c[k] >= 0 && c[k] <= hi[k] {
			continue
		}
		switch ti.mode {
		case isa.QZero:
			return nil, true
		case isa.QClamp:
			c[k] = min(max(c[k], 0), hi[k])
		default:
			w.Fault(l, ruleSurfaceTrap, specSurface, "%s at (byte %d, row %d, slice %d, layer %d) of a surface of %d bytes x %d rows x %d slices x %d layers",
				in.Opcode, c[0], c[1], c[2], c[3], t.Width*t.texelBytes(), t.Height, t.Depth, t.Layers)
			return nil, false
		}
	}
	a := t.Base + uint64((c[2]+c[3]*t.Depth)*t.SlicePitch+c[1]*t.Pitch+c[0])
	r := w.CTA.cluster.Mem.global.find(a, n)
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specSurface, "%s at %#x lies outside the surface's memory", in.Opcode, a)
		return nil, false
	}
	return r.Data[a-r.Base : a-r.Base+uint64(n)], true
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
			v = t.Depth
		case isa.QNormalized_Coords:
			v = int(b2u(t.NormalizedCoords))
		case isa.QFilter_Mode:
			v = int(t.Filter)
		}
		w.R[in.D+int32(l)] = uint64(v)
	}
	return Continue
}

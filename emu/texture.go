package emu

import (
	"encoding/binary"
	"math"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Texture and surface objects (PTX ISA §9.7.10 tex, §9.7.11 suld/sust):
// the driver creates them over global memory and registers each under
// its 64-bit handle in the Memory the kernels run in; tex samples them
// (point or linear filtering with the hardware's 8-bit weight fraction,
// wrap/clamp/mirror/border addressing, normalized coordinates, reads
// normalized to [0,1] or [-1,1]), suld and sust read and write their
// texels as raw bytes with x in bytes.

// Texel channel kinds.
const (
	TexelUnsigned = iota
	TexelSigned
	TexelFloat
	TexelHalf
)

// Address modes and filters (CUaddress_mode, CUfilter_mode).
const (
	AddressWrap = iota
	AddressClamp
	AddressMirror
	AddressBorder
)

// Texture is a texture or surface object's view of its texels.
type Texture struct {
	Base                 uint64 // global address of texel (0,0,0)
	Width, Height, Depth int    // texels (1 for missing dimensions)
	Pitch, SlicePitch    int    // bytes per row and per 2-D slice
	Kind                 int    // TexelUnsigned ...
	Bits                 int    // bits per channel: 8, 16 or 32
	Channels             int    // 1, 2 or 4
	Linear               bool   // linear filtering (else point)
	Address              [3]int
	Layers               int  // layers of a layered texture (1 otherwise)
	Normalized           bool // coordinates in [0, 1)
	ReadNormalized       bool // integer texels read as floats in [0,1] or [-1,1]
	Border               [4]float32
}

func (t *Texture) texelBytes() int { return t.Bits / 8 * t.Channels }

// SetTexture registers the object under handle h for the kernels that run
// in m; SetTexture(h, nil) removes it.
func (m *Memory) SetTexture(h uint64, t *Texture) {
	if m.textures == nil {
		m.textures = map[uint64]*Texture{}
	}
	if t == nil {
		delete(m.textures, h)
		return
	}
	m.textures[h] = t
}

const specTex = "PTX ISA §9.7.10.3 (tex)"
const specSurf = "PTX ISA §9.7.11 (suld, sust)"

// texInfo is a decoded tex, suld or sust.
type texInfo struct {
	dims    int
	layered bool     // .a1d, .a2d, .acube: the first coordinate is the layer
	cube    bool     // .cube, .acube: the coordinates are a direction
	layer   int32    // slot of the layer index
	handle  int32    // slot of the object's handle
	coords  [3]int32 // slots of the coordinates
	vals    []int32  // destination (tex, suld) or source (sust) slots
	cInt    bool     // integer coordinates
	dst     Type     // tex result type: f32, s32 or u32
	size    int      // suld/sust element bytes
	oob     isa.Qual // .trap, .clamp or .zero
}

func texDims(q *Quals) int {
	switch {
	case q.Has(isa.Q1d):
		return 1
	case q.Has(isa.Q2d):
		return 2
	case q.Has(isa.Q3d):
		return 3
	case q.Has(isa.QA1d):
		return -1
	case q.Has(isa.QA2d):
		return -2
	}
	return 0
}

// decodeTexOperands reads "[obj, {c...}]" and the value vector.
func decodeTexOperands(d *Decoder, in *ast.Instruction, addr ast.Expr, vals ast.Expr, ti *texInfo, ct, vt Type, dst bool) error {
	a, ok := addr.(*ast.Address)
	if !ok || a.Base == nil || len(a.Index) != 1 {
		return d.Errorf(in, "%s takes [object, {coordinates}]", in.Opcode)
	}
	var err error
	if ti.handle, err = d.Src(a.Base, TU64); err != nil {
		return err
	}
	var cs []int32
	if v, ok := a.Index[0].(*ast.VectorExpr); ok {
		cs, err = d.Vector(v, ct, false)
	} else {
		var s int32
		s, err = d.Src(a.Index[0], ct)
		cs = []int32{s}
	}
	if err != nil {
		return err
	}
	if ti.layered {
		if len(cs) < ti.dims+1 {
			return d.Errorf(in, "%s.a%dd needs a layer and %d coordinates", in.Opcode, ti.dims, ti.dims)
		}
		ti.layer, cs = cs[0], cs[1:]
	}
	if len(cs) < ti.dims {
		return d.Errorf(in, "%s.%dd needs %d coordinates", in.Opcode, ti.dims, ti.dims)
	}
	copy(ti.coords[:], cs[:ti.dims])
	if v, ok := vals.(*ast.VectorExpr); ok {
		ti.vals, err = d.Vector(v, vt, dst)
	} else if dst {
		var s int32
		s, err = d.Dst(vals)
		ti.vals = []int32{s}
	} else {
		var s int32
		s, err = d.Src(vals, vt)
		ti.vals = []int32{s}
	}
	return err
}

func decodeTex(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	ti := &texInfo{dims: texDims(&q)}
	if ti.dims < 0 {
		ti.dims, ti.layered = -ti.dims, true
	}
	if q.Has(isa.QCube) || q.Has(isa.QAcube) {
		ti.dims, ti.cube, ti.layered = 3, true, q.Has(isa.QAcube)
	}
	if ti.dims == 0 || q.Vec != 4 || len(q.Types) != 2 || len(in.Operands) != 2 ||
		q.Has(isa.QBase) || q.Has(isa.QLevel) || q.Has(isa.QGrad) {
		return d.Errorf(in, "the emulator implements tex.{1d,2d,3d}.v4 with texture objects, not %s", in.FullOpcode())
	}
	ti.dst = q.Types[0]
	if ti.dst != TF32 && ti.dst != TS32 && ti.dst != TU32 || q.Types[1] != TF32 && q.Types[1] != TS32 {
		return d.Errorf(in, "the emulator does not implement %s", in.FullOpcode())
	}
	ti.cInt = q.Types[1] == TS32
	if err := decodeTexOperands(d, in, in.Operands[1], in.Operands[0], ti, q.Types[1], ti.dst, true); err != nil {
		return err
	}
	out.Ext, out.Exec = ti, execTex
	return nil
}

func decodeSurf(d *Decoder, in *ast.Instruction, out *Inst) error {
	q := d.quals()
	ti := &texInfo{dims: texDims(&q), oob: isa.QTrap}
	if ti.dims < 0 {
		ti.dims, ti.layered = -ti.dims, true
	}
	if q.Has(isa.QClamp) {
		ti.oob = isa.QClamp
	} else if q.Has(isa.QZero) {
		ti.oob = isa.QZero
	}
	t := q.Type()
	if ti.dims == 0 || !q.Has(isa.QB) || len(in.Operands) != 2 || t == TNone {
		return d.Errorf(in, "the emulator implements %s.b.{1d,2d,3d}, not %s", in.Opcode, in.FullOpcode())
	}
	ti.size = t.Size()
	load := in.Opcode == "suld"
	addr, vals := in.Operands[0], in.Operands[1]
	if load {
		addr, vals = vals, addr
	}
	if err := decodeTexOperands(d, in, addr, vals, ti, TS32, t, load); err != nil {
		return err
	}
	out.Ext = ti
	if load {
		out.Exec = execSuld
	} else {
		out.Exec = execSust
	}
	return nil
}

func init() {
	RegisterOpcode("tex", decodeTex)
	RegisterOpcode("suld", decodeSurf)
	RegisterOpcode("sust", decodeSurf)
}

// object returns the texture object of a handle, or reports its absence.
func (w *Warp) object(l int, h uint64, spec string) *Texture {
	t := w.CTA.cluster.Mem.textures[h]
	if t == nil {
		w.Fault(l, "bad-texture", spec, "%#x is not a texture or surface object", h)
	}
	return t
}

func execTex(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t := w.object(l, w.R[int(ti.handle)+l], specTex)
		if t == nil {
			return Fault
		}
		var c [3]float64
		for k := range ti.dims {
			v := w.R[int(ti.coords[k])+l]
			if ti.cInt {
				c[k] = float64(int32(v))
			} else {
				c[k] = float64(math.Float32frombits(uint32(v)))
			}
		}
		layer := 0
		if ti.layered {
			layer = int(int32(w.R[int(ti.layer)+l]))
		}
		st := ti
		if ti.cube {
			var face int
			face, c = cubeFace(c)
			layer = layer*6 + face
			st = &texInfo{dims: 2, dst: ti.dst, cube: true}
		}
		layer = min(max(layer, 0), t.Layers-1)
		var out [4]float64
		var raw [4]uint32
		ok := t.sample(w, l, st, c, layer, &out, &raw)
		if !ok {
			return Fault
		}
		for k, s := range ti.vals {
			if s < 0 {
				continue
			}
			if ti.dst == TF32 {
				w.R[int(s)+l] = uint64(math.Float32bits(float32(out[k])))
			} else {
				w.R[int(s)+l] = uint64(raw[k])
			}
		}
	}
	return Continue
}

// sample computes tex's four results: floats in out, integer texels in
// raw (for .s32/.u32 results).
func (t *Texture) sample(w *Warp, l int, ti *texInfo, c [3]float64, layer int, out *[4]float64, raw *[4]uint32) bool {
	size := [3]int{t.Width, max(t.Height, 1), max(t.Depth, 1)}
	if (t.Normalized || ti.cube) && !ti.cInt {
		for k := range ti.dims {
			c[k] *= float64(size[k])
		}
	}
	if !t.Linear || ti.cInt || ti.dst != TF32 {
		var idx [3]int
		for k := range ti.dims {
			idx[k] = int(math.Floor(c[k]))
		}
		return t.fetch(w, l, ti.dims, idx, layer, out, raw)
	}
	// Linear filtering between the 2^dims nearest texels, with weights of
	// 8 fractional bits as the hardware computes them.
	var base [3]int
	var frac [3]float64
	for k := range ti.dims {
		x := c[k] - 0.5
		f := math.Floor(x)
		base[k], frac[k] = int(f), math.Round((x-f)*256)/256
	}
	*out = [4]float64{}
	for corner := range 1 << ti.dims {
		wt := 1.0
		idx := base
		for k := range ti.dims {
			if corner>>k&1 == 1 {
				idx[k]++
				wt *= frac[k]
			} else {
				wt *= 1 - frac[k]
			}
		}
		var v [4]float64
		if !t.fetch(w, l, ti.dims, idx, layer, &v, raw) {
			return false
		}
		for ch := range 4 {
			out[ch] += wt * v[ch]
		}
	}
	return true
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

// fetch reads the texel at idx after addressing, converted to floats in
// out and kept raw in raw.
func (t *Texture) fetch(w *Warp, l, dims int, idx [3]int, layer int, out *[4]float64, raw *[4]uint32) bool {
	size := [3]int{t.Width, max(t.Height, 1), max(t.Depth, 1)}
	for k := range dims {
		i, n := idx[k], size[k]
		if i >= 0 && i < n {
			continue
		}
		switch t.Address[k] {
		case AddressWrap:
			i = (i%n + n) % n
		case AddressMirror:
			p := (i%(2*n) + 2*n) % (2 * n)
			if p >= n {
				p = 2*n - 1 - p
			}
			i = p
		case AddressBorder:
			for ch := range 4 {
				out[ch] = float64(t.Border[ch])
				raw[ch] = uint32(int32(t.Border[ch]))
			}
			return true
		default:
			i = min(max(i, 0), n-1)
		}
		idx[k] = i
	}
	a := t.Base + uint64((idx[2]+layer)*t.SlicePitch+idx[1]*t.Pitch+idx[0]*t.texelBytes())
	r := w.CTA.cluster.Mem.global.find(a, t.texelBytes())
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specTex, "texel (%d,%d,%d) at %#x lies outside the texture's memory", idx[0], idx[1], idx[2], a)
		return false
	}
	b := r.Data[a-r.Base:]
	*out = [4]float64{0, 0, 0, 1}
	*raw = [4]uint32{0, 0, 0, 1}
	for ch := range t.Channels {
		out[ch], raw[ch] = t.channel(b[ch*t.Bits/8:])
	}
	return true
}

// channel converts one channel's bytes.
func (t *Texture) channel(b []byte) (float64, uint32) {
	var u uint32
	switch t.Bits {
	case 8:
		u = uint32(b[0])
	case 16:
		u = uint32(binary.LittleEndian.Uint16(b))
	default:
		u = binary.LittleEndian.Uint32(b)
	}
	switch t.Kind {
	case TexelFloat:
		return float64(math.Float32frombits(u)), u
	case TexelHalf:
		return halfToFloat(uint16(u)), u
	case TexelSigned:
		s := int32(u<<(32-t.Bits)) >> (32 - t.Bits)
		if t.ReadNormalized {
			return max(float64(s)/float64(int32(1)<<(t.Bits-1)-1), -1), uint32(s)
		}
		return float64(s), uint32(s)
	}
	if t.ReadNormalized {
		return float64(u) / float64(uint64(1)<<t.Bits-1), u
	}
	return float64(u), u
}

func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, f := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * f * math.Pow(2, -24)
	case 31:
		if f == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * (1 + f/1024) * math.Pow(2, float64(e-15))
}

// surfAddr returns the bytes a suld or sust reaches, nil with ok for a
// .zero access out of range, or reports a .trap one.
func (w *Warp) surfAddr(l int, ti *texInfo, t *Texture) ([]byte, bool) {
	n := len(ti.vals) * ti.size
	var c [3]int
	for k := range ti.dims {
		c[k] = int(int32(w.R[int(ti.coords[k])+l]))
	}
	lim := [3]int{t.Width * t.texelBytes(), max(t.Height, 1), max(t.Depth, 1)}
	for k := range ti.dims {
		hi := lim[k] - 1
		if k == 0 {
			hi = lim[0] - n
		}
		if c[k] >= 0 && c[k] <= hi {
			continue
		}
		switch ti.oob {
		case isa.QClamp:
			c[k] = min(max(c[k], 0), hi)
		case isa.QZero:
			return nil, true
		default:
			w.Fault(l, ruleOutOfBounds, specSurf, "surface coordinate %d (%d) is outside [0, %d]", k, c[k], hi)
			return nil, false
		}
	}
	layer := 0
	if ti.layered {
		layer = int(int32(w.R[int(ti.layer)+l]))
		if layer < 0 || layer >= t.Layers {
			if ti.oob == isa.QZero {
				return nil, true
			}
			if ti.oob != isa.QClamp {
				w.Fault(l, ruleOutOfBounds, specSurf, "surface layer %d is outside [0, %d]", layer, t.Layers-1)
				return nil, false
			}
			layer = min(max(layer, 0), t.Layers-1)
		}
	}
	a := t.Base + uint64((c[2]+layer)*t.SlicePitch+c[1]*t.Pitch+c[0])
	r := w.CTA.cluster.Mem.global.find(a, n)
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specSurf, "surface access at %#x lies outside the surface's memory", a)
		return nil, false
	}
	return r.Data[a-r.Base : a-r.Base+uint64(n)], true
}

func execSuld(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t := w.object(l, w.R[int(ti.handle)+l], specSurf)
		if t == nil {
			return Fault
		}
		b, ok := w.surfAddr(l, ti, t)
		if !ok {
			return Fault
		}
		for k, s := range ti.vals {
			if s < 0 {
				continue
			}
			var v uint64
			if b != nil {
				v = getLE(b[k*ti.size:], ti.size)
			}
			w.R[int(s)+l] = v
		}
	}
	return Continue
}

func execSust(w *Warp, in *Inst) Status {
	ti := in.Ext.(*texInfo)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		t := w.object(l, w.R[int(ti.handle)+l], specSurf)
		if t == nil {
			return Fault
		}
		b, ok := w.surfAddr(l, ti, t)
		if !ok {
			return Fault
		}
		if b == nil {
			continue
		}
		for k, s := range ti.vals {
			putLE(b[k*ti.size:], w.R[int(s)+l], ti.size)
		}
	}
	return Continue
}

// getLE reads an n-byte little-endian value.
func getLE(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

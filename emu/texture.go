package emu

import (
	"fmt"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Textures and surfaces (PTX ISA §9.7.10-9.7.11), a subset: texture and
// surface objects, each a view of texels in global memory registered under
// its opaque 64-bit handle in the Memory the kernels run in. A launch makes
// one for each argument given as Arg.Texture (ptxkit run --arg tex:/surf:);
// a driver registers its own with Memory.SetTexture (package cudrv: CUDA
// arrays, cuTexObjectCreate, cuSurfObjectCreate).
//
// tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4 samples them (f32 or s32
// coordinates; point and linear filtering with the hardware's 1.8
// fixed-point weights; clamp, wrap, mirror and border addressing;
// normalized coordinates and reads), tld4.{r,g,b,a}.2d gathers the
// bilinear footprint, suld.b/sust.b.{1d,2d,3d,a1d,a2d} read and write
// texels as raw bytes (x in bytes) with .trap, .clamp or .zero outside,
// and txq/suq answer the width, height, depth, normalized_coords and
// filter_mode queries. Texture references (.texref), the independent
// sampler mode, mipmaps and the formatted surface accesses (sust.p) are
// not emulated (docs/emu.md).

// TexFilter is a texture's filter mode.
type TexFilter uint8

const (
	TexPoint  TexFilter = iota // the nearest texel
	TexLinear                  // (bi/tri)linear interpolation of the nearest 2, 4 or 8 texels
)

// TexAddress is a texture's addressing mode for one dimension.
type TexAddress uint8

const (
	TexClamp  TexAddress = iota // coordinates outside clamp to the edge texel
	TexWrap                     // the texture repeats (normalized coordinates)
	TexMirror                   // the texture repeats mirrored (normalized coordinates)
	TexBorder                   // texels outside read as the border color
)

// Texture describes a texture or surface object: Width x Height x Depth
// texels (0 or 1 for a missing dimension) of Channels channels of type
// Format, in Layers layers (a layered texture; the six faces of a cubemap
// are six layers), starting at global address Base.
type Texture struct {
	Base                 uint64 // global address of texel (0, 0, 0) of layer 0; a launch sets it for an argument
	Width, Height, Depth int
	Layers               int  // layers of a layered or cubemap texture (0 or 1 otherwise)
	Pitch, SlicePitch    int  // bytes from row to row and from slice (or layer) to slice; 0: packed
	Format               Type // TF32, TF16, TU8, TS8, TU16, TS16, TU32 or TS32
	Channels             int  // 1, 2 or 4
	Filter               TexFilter
	Address              [3]TexAddress
	NormalizedCoords     bool       // coordinates in [0, 1) rather than [0, Width)
	NormalizedRead       bool       // 8- and 16-bit integer channels read as floats in [0, 1] ([-1, 1] signed)
	Border               [4]float32 // the color of TexBorder texels
}

// texelBytes is the size of one texel.
func (t *Texture) texelBytes() int { return t.Channels * t.Format.Size() }

// settle fills in the defaults of the zero fields: one texel, one layer
// and packed rows and slices where unset.
func (t *Texture) settle() {
	t.Height, t.Depth, t.Layers = max(t.Height, 1), max(t.Depth, 1), max(t.Layers, 1)
	if t.Pitch == 0 {
		t.Pitch = t.Width * t.texelBytes()
	}
	if t.SlicePitch == 0 {
		t.SlicePitch = t.Pitch * t.Height
	}
}

// check validates an argument's texture t against its buffer of n bytes.
func (t *Texture) check(n int) error {
	switch t.Format {
	case TF32, TF16, TU8, TS8, TU16, TS16, TU32, TS32:
	default:
		return fmt.Errorf("texel format %s (want f32, f16, u8, s8, u16, s16, u32 or s32)", t.Format)
	}
	h, d := max(t.Height, 1), max(t.Depth, 1)
	switch {
	case t.Channels != 1 && t.Channels != 2 && t.Channels != 4:
		return fmt.Errorf("%d channels (want 1, 2 or 4)", t.Channels)
	case t.Width < 1 || t.Width > 1<<16 || h > 1<<16 || d > 1<<11 || t.Layers > 1 || t.Pitch != 0 || t.SlicePitch != 0:
		return fmt.Errorf("%dx%dx%d texels (width and height 1..65536, depth 1..2048, packed, one layer)", t.Width, h, d)
	case t.Width*h*d*t.texelBytes() != n:
		return fmt.Errorf("%dx%dx%d texels of %d bytes need %d bytes; the buffer has %d", t.Width, h, d, t.texelBytes(), t.Width*h*d*t.texelBytes(), n)
	case t.Filter == TexLinear && (t.Format == TU32 || t.Format == TS32 || !t.NormalizedRead && t.Format != TF32 && t.Format != TF16):
		return fmt.Errorf("linear filtering needs float texels (f32, f16, or 8/16-bit integers read normalized)")
	}
	for _, a := range t.Address {
		if (a == TexWrap || a == TexMirror) && !t.NormalizedCoords {
			return fmt.Errorf("wrap and mirror addressing need normalized coordinates")
		}
	}
	return nil
}

// SetTexture registers t under handle h for the kernels that run in m, its
// zero Height, Depth, Layers, Pitch and SlicePitch settled to one texel,
// one layer and packed; SetTexture(h, nil) removes the object. Objects
// change only between launches.
func (m *Memory) SetTexture(h uint64, t *Texture) {
	if m.textures == nil {
		m.textures = map[uint64]*Texture{}
	}
	if t == nil {
		delete(m.textures, h)
		return
	}
	t.settle()
	m.textures[h] = t
}

// addArgTexture registers a launch argument's texture over its buffer r
// under the lowest free handle (1 on), and returns the handle.
func (m *Memory) addArgTexture(t Texture, r *Region) uint64 {
	t.Base = r.Base
	h := uint64(1)
	for m.textures[h] != nil {
		h++
	}
	m.SetTexture(h, &t)
	m.argTextures = append(m.argTextures, h)
	return h
}

// textureOf returns the object handle h names, or faults.
func (w *Warp) textureOf(l int, h uint64) (*Texture, bool) {
	t := w.CTA.cluster.Mem.textures[h]
	if t == nil {
		w.Fault(l, ruleBadTexture, specTexture, "%#x is not a texture or surface object of the launch", h)
		return nil, false
	}
	return t, true
}

const (
	ruleBadTexture  = "bad-texture"
	ruleSurfaceTrap = "surface-out-of-bounds"
	specTexture     = "PTX ISA §9.7.10 (texture instructions)"
	specSurface     = "PTX ISA §9.7.11 (surface instructions)"
)

// texGeometry is an instruction's geometry.
type texGeometry struct {
	dims    int  // coordinates (3 for a cube's direction)
	layered bool // .a1d, .a2d, .acube: the first coordinate is the layer
	cube    bool // .cube, .acube
}

// geometry returns the geometry of in's qualifiers; cube geometries only
// when cubes is set (tex).
func geometry(d *Decoder, in *ast.Instruction, q Quals, cubes bool) (texGeometry, error) {
	switch {
	case q.Has(isa.Q1d):
		return texGeometry{dims: 1}, nil
	case q.Has(isa.Q2d):
		return texGeometry{dims: 2}, nil
	case q.Has(isa.Q3d):
		return texGeometry{dims: 3}, nil
	case q.Has(isa.QA1d):
		return texGeometry{dims: 1, layered: true}, nil
	case q.Has(isa.QA2d):
		return texGeometry{dims: 2, layered: true}, nil
	case cubes && q.Has(isa.QCube):
		return texGeometry{dims: 3, cube: true}, nil
	case cubes && q.Has(isa.QAcube):
		return texGeometry{dims: 3, cube: true, layered: true}, nil
	}
	return texGeometry{}, d.Errorf(in, "the emulator does not implement the geometry of %s", in.FullOpcode())
}

// texOperands decodes "[h, {c...}]" into the handle slot, the layer slot
// of a layered geometry and the coordinate slots of type ct.
func texOperands(d *Decoder, e ast.Expr, ct Type, g texGeometry) (h, layer int32, c []int32, err error) {
	a, ok := e.(*ast.Address)
	if !ok || len(a.Index) != 1 || a.HasOffset {
		return 0, 0, nil, d.Errorf(e, "the emulator takes a texture or surface object and coordinates as [handle, {coords}] (texture references and independent samplers are not emulated)")
	}
	if _, isReg := a.Base.(*ast.Reg); !isReg {
		return 0, 0, nil, d.Errorf(e, "the emulator emulates texture and surface objects held in registers, not texture or surface references")
	}
	if h, err = d.Src(a.Base, TU64); err != nil {
		return 0, 0, nil, err
	}
	if v, ok := a.Index[0].(*ast.VectorExpr); ok {
		c, err = d.Vector(v, ct, false)
	} else {
		var s int32
		s, err = d.Src(a.Index[0], ct)
		c = []int32{s}
	}
	if err != nil {
		return 0, 0, nil, err
	}
	if g.layered {
		if len(c) < g.dims+1 {
			return 0, 0, nil, d.Errorf(e, "%d coordinates for a layered access: the layer and %d coordinates", len(c), g.dims)
		}
		layer = c[0] // the layer is an integer even among float coordinates
		c = c[1:]
	}
	if len(c) < g.dims {
		return 0, 0, nil, d.Errorf(e, "%d coordinates for a %dd access", len(c), g.dims)
	}
	return h, layer, c[:g.dims], nil
}

func init() {
	RegisterOpcode("tex", decodeTex)
	RegisterOpcode("tld4", decodeTld4)
	RegisterOpcode("suld", decodeSuld)
	RegisterOpcode("sust", decodeSust)
	RegisterOpcode("txq", decodeTxq)
	RegisterOpcode("suq", decodeTxq)
}

package emu

import (
	"fmt"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Textures and surfaces (PTX ISA §9.7.10-9.7.11), a subset: texture and
// surface objects (a kernel argument given as Arg.Texture, passed to the
// kernel as an opaque 64-bit handle) of one or two dimensions, read by
// tex.{1d,2d}.v4 (f32 or s32 coordinates; point and linear filtering with
// the hardware's 1.8 fixed-point weights; clamp, wrap, mirror and border
// addressing), tld4.{r,g,b,a}.2d (the bilinear footprint), suld.b/sust.b.{1d,2d} with .trap, .clamp and .zero, and the
// width/height/depth, normalized_coords and filter_mode queries of txq and
// suq. Texture references (.texref), the independent sampler mode, 3D,
// layered and cube geometries, mipmaps and the formatted surface
// accesses (sust.p) are not emulated (docs/emu.md).

// TexFilter is a texture's filter mode.
type TexFilter uint8

const (
	TexPoint  TexFilter = iota // the nearest texel
	TexLinear                  // (bi)linear interpolation of the nearest two (four) texels
)

// TexAddress is a texture's addressing mode for one dimension.
type TexAddress uint8

const (
	TexClamp  TexAddress = iota // coordinates outside clamp to the edge texel
	TexWrap                     // the texture repeats (normalized coordinates)
	TexMirror                   // the texture repeats mirrored (normalized coordinates)
	TexBorder                   // texels outside read as zero
)

// Texture describes a texture or surface object: Width x Height texels
// (Height 1 for one dimension) of Channels channels of type Format, row
// after row in the argument's buffer.
type Texture struct {
	Width, Height    int
	Format           Type // TF32, TU8, TS8, TU16, TS16, TU32 or TS32
	Channels         int  // 1, 2 or 4
	Filter           TexFilter
	Address          [2]TexAddress
	NormalizedCoords bool // coordinates in [0, 1) rather than [0, Width)
	NormalizedRead   bool // 8- and 16-bit integer channels read as floats in [0, 1] ([-1, 1] signed)
}

// texelBytes is the size of one texel.
func (t *Texture) texelBytes() int { return t.Channels * t.Format.Size() }

// check validates t against a buffer of n bytes.
func (t *Texture) check(n int) error {
	switch t.Format {
	case TF32, TU8, TS8, TU16, TS16, TU32, TS32:
	default:
		return fmt.Errorf("texel format %s (want f32, u8, s8, u16, s16, u32 or s32)", t.Format)
	}
	switch {
	case t.Channels != 1 && t.Channels != 2 && t.Channels != 4:
		return fmt.Errorf("%d channels (want 1, 2 or 4)", t.Channels)
	case t.Width < 1 || t.Height < 1 || t.Width > 1<<16 || t.Height > 1<<16:
		return fmt.Errorf("%dx%d texels (each side 1..65536)", t.Width, t.Height)
	case t.Width*t.Height*t.texelBytes() != n:
		return fmt.Errorf("%dx%d texels of %d bytes need %d bytes; the buffer has %d", t.Width, t.Height, t.texelBytes(), t.Width*t.Height*t.texelBytes(), n)
	case t.Filter == TexLinear && (t.Format == TU32 || t.Format == TS32 || !t.NormalizedRead && t.Format != TF32):
		return fmt.Errorf("linear filtering needs float texels (f32, or 8/16-bit integers read normalized)")
	}
	for _, a := range t.Address {
		if (a == TexWrap || a == TexMirror) && !t.NormalizedCoords {
			return fmt.Errorf("wrap and mirror addressing need normalized coordinates")
		}
	}
	return nil
}

// texObject is a texture or surface object of a launch.
type texObject struct {
	Texture
	region *Region
}

// textureOf returns the object handle h names, or faults.
func (w *Warp) textureOf(l int, h uint64) (*texObject, bool) {
	objs := w.CTA.cluster.Mem.textures
	if h == 0 || h > uint64(len(objs)) {
		w.Fault(l, ruleBadTexture, specTexture, "%#x is not a texture or surface object of the launch", h)
		return nil, false
	}
	return objs[h-1], true
}

const (
	ruleBadTexture  = "bad-texture"
	ruleSurfaceTrap = "surface-out-of-bounds"
	specTexture     = "PTX ISA §9.7.10 (texture instructions)"
	specSurface     = "PTX ISA §9.7.11 (surface instructions)"
)

// texOperands decodes "[h, {c...}]" into the handle slot and n coordinate
// slots of type ct.
func texOperands(d *Decoder, e ast.Expr, ct Type, n int) (h int32, c []int32, err error) {
	a, ok := e.(*ast.Address)
	if !ok || len(a.Index) != 1 || a.HasOffset {
		return 0, nil, d.Errorf(e, "the emulator takes a texture or surface object and coordinates as [handle, {coords}] (texture references and independent samplers are not emulated)")
	}
	if _, isReg := a.Base.(*ast.Reg); !isReg {
		return 0, nil, d.Errorf(e, "the emulator emulates texture and surface objects held in registers, not texture or surface references")
	}
	if h, err = d.Src(a.Base, TU64); err != nil {
		return 0, nil, err
	}
	if v, ok := a.Index[0].(*ast.VectorExpr); ok {
		c, err = d.Vector(v, ct, false)
	} else {
		var s int32
		s, err = d.Src(a.Index[0], ct)
		c = []int32{s}
	}
	if err == nil && len(c) < n {
		err = d.Errorf(e, "%d coordinates for a %dd access", len(c), n)
	}
	return h, c, err
}

// geometry returns 1 or 2 for .1d and .2d.
func geometry(d *Decoder, in *ast.Instruction, q Quals) (int, error) {
	switch {
	case q.Has(isa.Q1d):
		return 1, nil
	case q.Has(isa.Q2d):
		return 2, nil
	}
	return 0, d.Errorf(in, "the emulator implements only the .1d and .2d geometries of %s", in.Opcode)
}

func init() {
	RegisterOpcode("tex", decodeTex)
	RegisterOpcode("tld4", decodeTld4)
	RegisterOpcode("suld", decodeSuld)
	RegisterOpcode("sust", decodeSust)
	RegisterOpcode("txq", decodeTxq)
	RegisterOpcode("suq", decodeTxq)
}

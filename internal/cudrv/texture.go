package cudrv

import (
	"fmt"

	"github.com/ptxkit/ptxkit/emu"
)

// Array is a CUDA array: texels in device memory, rows packed.
type Array struct {
	Base                    uint64
	Width, Height, Depth    int
	Format, Channels, Flags int
	Texel                   emu.Type // the channel type of Format
}

// Bytes returns the size of one element.
func (a *Array) Bytes() int { return a.Texel.Size() * a.Channels }

// formats maps CUarray_format to the emulator's channel type.
var formats = map[int]emu.Type{
	0x01: emu.TU8, 0x02: emu.TU16, 0x03: emu.TU32,
	0x08: emu.TS8, 0x09: emu.TS16, 0x0a: emu.TS32,
	0x10: emu.TF16, 0x20: emu.TF32,
}

// addressModes maps CUaddress_mode (wrap, clamp, mirror, border) to the
// emulator's.
var addressModes = [4]emu.TexAddress{emu.TexWrap, emu.TexClamp, emu.TexMirror, emu.TexBorder}

// CreateArray is cuArrayCreate and cuArray3DCreate (height and depth 0
// for missing dimensions).
func (d *Driver) CreateArray(w, h, depth, format, channels, flags int) (Handle, Result) {
	f, ok := formats[format]
	if !ok || w <= 0 || h < 0 || depth < 0 || channels != 1 && channels != 2 && channels != 4 {
		return 0, ErrInvalidValue
	}
	a := &Array{Width: w, Height: h, Depth: depth, Format: format, Channels: channels, Flags: flags, Texel: f}
	n := uint64(w) * uint64(max(h, 1)) * uint64(max(depth, 1)) * uint64(a.Bytes())
	base, r := d.MemAlloc(n)
	if r != Success {
		return 0, r
	}
	a.Base = base
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.newHandle(a), Success
}

// ArrayOf returns an array.
func (d *Driver) ArrayOf(h Handle) (*Array, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := lookup[*Array](d, h)
	if !ok {
		return nil, ErrInvalidHandle
	}
	return a, Success
}

// DestroyArray is cuArrayDestroy.
func (d *Driver) DestroyArray(h Handle) Result {
	a, r := d.ArrayOf(h)
	if r != Success {
		return r
	}
	d.MemFree(a.Base)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.destroy(h)
	return Success
}

// Resource is what a texture or surface object views (CUDA_RESOURCE_DESC).
type Resource struct {
	Type                 int    // 0 array, 2 linear, 3 pitch 2-D
	Array                Handle // Type 0
	Ptr                  uint64 // Types 2 and 3
	Format, Channels     int
	Size                 uint64 // Type 2: bytes
	Width, Height, Pitch int    // Type 3
}

// Sampling is a texture object's CUDA_TEXTURE_DESC.
type Sampling struct {
	Address    [3]int
	Linear     bool
	Flags      int // CU_TRSF_*
	Border     [4]float32
	Normalized bool
}

// CreateTexture is cuTexObjectCreate and (surface true, no sampling)
// cuSurfObjectCreate: the object's handle is what kernels receive.
func (d *Driver) CreateTexture(res Resource, s Sampling, surface bool) (uint64, Result, string) {
	t := &emu.Texture{Border: s.Border, NormalizedCoords: s.Flags&2 != 0, NormalizedRead: s.Flags&1 == 0}
	if s.Linear {
		t.Filter = emu.TexLinear
	}
	for k, m := range s.Address {
		if m < 0 || m >= len(addressModes) {
			return 0, ErrInvalidValue, fmt.Sprintf("address mode %d", m)
		}
		t.Address[k] = addressModes[m]
	}
	switch res.Type {
	case 0:
		a, r := d.ArrayOf(res.Array)
		if r != Success {
			return 0, r, "not an array"
		}
		t.Base, t.Width, t.Height, t.Depth = a.Base, a.Width, max(a.Height, 1), max(a.Depth, 1)
		if a.Flags&5 != 0 { // CUDA_ARRAY3D_LAYERED, _CUBEMAP: depth counts layers (faces)
			t.Depth, t.Layers = 1, max(a.Depth, 1)
		}
		t.Format, t.Channels = a.Texel, a.Channels
	case 2, 3:
		f, ok := formats[res.Format]
		if !ok || res.Channels != 1 && res.Channels != 2 && res.Channels != 4 {
			return 0, ErrInvalidValue, fmt.Sprintf("texel format %#x with %d channels", res.Format, res.Channels)
		}
		t.Format, t.Channels, t.Base = f, res.Channels, res.Ptr
		if res.Type == 2 {
			t.Width, t.Height, t.Depth = int(res.Size)/(f.Size()*res.Channels), 1, 1
		} else {
			t.Width, t.Height, t.Depth, t.Pitch = res.Width, res.Height, 1, res.Pitch
		}
	default:
		return 0, ErrNotSupported, fmt.Sprintf("resource type %d (mipmapped arrays are not supported)", res.Type)
	}
	if surface {
		t.NormalizedRead, t.Filter = false, emu.TexPoint
	}
	if t.Format == emu.TF32 || t.Format == emu.TF16 {
		t.NormalizedRead = false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.newHandle(t)
	d.mem.SetTexture(uint64(h), t)
	return uint64(h), Success, ""
}

// DestroyTexture is cuTexObjectDestroy and cuSurfObjectDestroy.
func (d *Driver) DestroyTexture(h uint64) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := lookup[*emu.Texture](d, Handle(h)); !ok {
		return ErrInvalidHandle
	}
	d.mem.SetTexture(h, nil)
	d.destroy(Handle(h))
	return Success
}

package emu

import (
	"encoding/binary"
	"math"
	"testing"
)

const texPTX = header + `
.visible .entry k(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [surf];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %tid.x;
	cvt.rn.f32.u32 %f1, %r1;
	mul.f32 %f1, %f1, 0f3F000000;
	mov.f32 %f2, 0f3F000000;
	tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd3, %rd4;
	st.global.f32 [%rd5], %f3;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, 0;
	suld.b.2d.b32.trap {%r4}, [%rd2, {%r2, %r3}];
	add.s32 %r4, %r4, 100;
	sust.b.2d.b32.trap [%rd2, {%r2, %r3}], {%r4};
	ret;
}
`

func TestTextureAndSurface(t *testing.T) {
	p := compile(t, texPTX)
	mem := NewMemory()
	texels := mem.Alloc("texels", 16, 256)
	for i, v := range []float32{0, 10, 20, 30} {
		binary.LittleEndian.PutUint32(texels.Data[4*i:], math.Float32bits(v))
	}
	surf := mem.Alloc("surface", 32, 256)
	for i := range 8 {
		binary.LittleEndian.PutUint32(surf.Data[4*i:], uint32(i))
	}
	out := mem.Alloc("out", 32, 256)
	mem.SetTexture(1, &Texture{Base: texels.Base, Width: 4, Height: 1, Depth: 1, Pitch: 16, Kind: TexelFloat, Bits: 32, Channels: 1,
		Linear: true, Address: [3]int{AddressClamp, AddressClamp, AddressClamp}})
	mem.SetTexture(2, &Texture{Base: surf.Base, Width: 8, Height: 1, Depth: 1, Pitch: 32, Kind: TexelSigned, Bits: 32, Channels: 1})
	l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(8, 1, 1)},
		Args: []Arg{scalar(1), scalar(2), scalar(out.Base)}}
	res, err := l.Run()
	if err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	// x = 0, 0.5, 1, ...: linear filtering between texel centres, clamped.
	want := []float32{0, 0, 5, 10, 15, 20, 25, 30}
	for i, w := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*i:])); got != w {
			t.Errorf("tex at x=%g: %g, want %g", float32(i)/2, got, w)
		}
	}
	for i := range 8 {
		if got := binary.LittleEndian.Uint32(surf.Data[4*i:]); got != uint32(i+100) {
			t.Errorf("surface[%d] = %d", i, got)
		}
	}
	// A surface access past the width with .trap stops the kernel.
	mem.SetTexture(2, &Texture{Base: surf.Base, Width: 4, Height: 1, Depth: 1, Pitch: 32, Kind: TexelSigned, Bits: 32, Channels: 1})
	res, err = l.Run()
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, "out-of-bounds", "surface coordinate 0 (16)")
	// An unknown object is a report, not a crash.
	mem.SetTexture(1, nil)
	res, _ = l.Run()
	wantReport(t, res, "bad-texture", "not a texture or surface object")
}

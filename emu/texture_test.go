package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"
)

func f32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// texKernel reads texture t at the coordinates of thread i (two per
// thread, of type ctype) with tex.GEOM.v4.f32.ctype and stores the four
// channels, and txq's width and height.
func texKernel(geom, ctype string) string {
	coords := "{%c1}"
	if geom == "2d" {
		coords = "{%c1, %c2}"
	}
	return header + fmt.Sprintf(`.visible .entry k(.param .u64 t, .param .u64 in, .param .u64 out) {
	.reg .b32 %%r<4>;
	.reg .%s %%c<3>;
	.reg .f32 %%f<5>;
	.reg .b64 %%rd<8>;
	ld.param.u64 %%rd1, [t];
	ld.param.u64 %%rd2, [in];
	ld.param.u64 %%rd3, [out];
	mov.u32 %%r1, %%tid.x;
	mul.wide.u32 %%rd4, %%r1, 8;
	add.u64 %%rd4, %%rd2, %%rd4;
	ld.global.%s %%c1, [%%rd4];
	ld.global.%s %%c2, [%%rd4+4];
	tex.%s.v4.f32.%s {%%f1, %%f2, %%f3, %%f4}, [%%rd1, %s];
	mul.wide.u32 %%rd5, %%r1, 16;
	add.u64 %%rd5, %%rd3, %%rd5;
	st.global.v4.f32 [%%rd5], {%%f1, %%f2, %%f3, %%f4};
	txq.width.b32 %%r2, [%%rd1];
	txq.height.b32 %%r3, [%%rd1];
	st.global.v2.u32 [%%rd3+1024], {%%r2, %%r3};
	ret;
}`, ctype, ctype, ctype, geom, ctype, coords)
}

// runTex fetches tex at each coordinate pair and returns the four
// channels per pair.
func runTex(t *testing.T, tex Texture, texels []byte, geom, ctype string, coords []byte) [][4]float32 {
	t.Helper()
	n := len(coords) / 8
	res := launch(t, texKernel(geom, ctype), Config{Block: dims(n, 1, 1)},
		Arg{IsBuffer: true, Buffer: texels, Texture: &tex}, Arg{IsBuffer: true, Buffer: coords}, buf(1032))
	out := res.Buffers[2].Data
	if w, h := binary.LittleEndian.Uint32(out[1024:]), binary.LittleEndian.Uint32(out[1028:]); int(w) != tex.Width || int(h) != tex.Height {
		t.Errorf("txq: %dx%d, want %dx%d", w, h, tex.Width, tex.Height)
	}
	got := make([][4]float32, n)
	for i := range got {
		for c := range 4 {
			got[i][c] = math.Float32frombits(binary.LittleEndian.Uint32(out[16*i+4*c:]))
		}
	}
	return got
}

// TestTextureLinear1D: linear filtering weights are 1.8 fixed point
// (x = 1.3 weighs texel 1 by 205/256, not 0.8), clamp addressing holds
// the edge texels, and a one-channel texture reads (x, 0, 0, 1).
func TestTextureLinear1D(t *testing.T) {
	tex := Texture{Width: 4, Height: 1, Format: TF32, Channels: 1, Filter: TexLinear}
	xs := []float32{0.5, 1.0, 1.25, 1.3, -1, 10, 3.5}
	want := []float32{0, 5, 7.5, float32(10 * 205.0 / 256), 0, 40, 40}
	var coords []byte
	for _, x := range xs {
		coords = append(coords, f32Bytes(x, 0)...)
	}
	got := runTex(t, tex, f32Bytes(0, 10, 20, 40), "1d", "f32", coords)
	for i, x := range xs {
		if got[i] != [4]float32{want[i], 0, 0, 1} {
			t.Errorf("x=%v: got %v, want (%v, 0, 0, 1)", x, got[i], want[i])
		}
	}
}

// TestTextureAddressModes2D: a 2x2 four-channel texture read with
// normalized coordinates, point and bilinear filtering, under wrap,
// mirror, clamp and border addressing.
func TestTextureAddressModes2D(t *testing.T) {
	// texel (x, y) has channels (x + 2y, 10, 20, 30)
	texels := f32Bytes(0, 10, 20, 30, 1, 10, 20, 30, 2, 10, 20, 30, 3, 10, 20, 30)
	cases := []struct {
		filter TexFilter
		addr   TexAddress
		u, v   float32
		want   [4]float32
	}{
		{TexPoint, TexWrap, 0.25, 0.75, [4]float32{2, 10, 20, 30}},
		{TexPoint, TexWrap, 1.75, -0.25, [4]float32{3, 10, 20, 30}},
		{TexPoint, TexMirror, 1.25, 0.25, [4]float32{1, 10, 20, 30}},
		{TexPoint, TexMirror, -0.25, 0.25, [4]float32{0, 10, 20, 30}},
		{TexPoint, TexBorder, 1.25, 0.25, [4]float32{0, 0, 0, 0}},
		{TexPoint, TexClamp, 1.25, 0.75, [4]float32{3, 10, 20, 30}},
		{TexLinear, TexClamp, 0.5, 0.5, [4]float32{1.5, 10, 20, 30}},
		{TexLinear, TexWrap, 0, 0, [4]float32{1.5, 10, 20, 30}},              // the four corners, wrapped
		{TexLinear, TexBorder, 1, 0.25, [4]float32{0.5, 5, 10, 15}},          // half of it outside
		{TexLinear, TexMirror, 1, 0.25, [4]float32{1, 10, 20, 30}},           // the column mirrored onto itself
		{TexLinear, TexClamp, 0.375, 0.25, [4]float32{0.25, 10, 20, 30}},     // weight 0.25 in x
		{TexLinear, TexClamp, 0.4, 0.25, [4]float32{0.30078125, 10, 20, 30}}, // 0.3 -> 77/256
	}
	for _, c := range cases {
		tex := Texture{Width: 2, Height: 2, Format: TF32, Channels: 4, Filter: c.filter, Address: [3]TexAddress{c.addr, c.addr}, NormalizedCoords: true}
		got := runTex(t, tex, texels, "2d", "f32", f32Bytes(c.u, c.v))
		if got[0] != c.want {
			t.Errorf("filter %d address %d at (%v, %v): got %v, want %v", c.filter, c.addr, c.u, c.v, got[0], c.want)
		}
	}
}

// TestTextureIntegerCoordinates: s32 coordinates address texels directly;
// 8-bit texels read normalized give v/255.
func TestTextureIntegerCoordinates(t *testing.T) {
	tex := Texture{Width: 3, Height: 2, Format: TU8, Channels: 2, Address: [3]TexAddress{TexBorder, TexClamp}, NormalizedRead: true}
	texels := []byte{0, 255, 51, 102, 153, 204, 1, 2, 3, 4, 5, 255}
	coords := make([]byte, 24)
	for i, c := range []int32{1, 0, 2, 5, -1, 0} {
		binary.LittleEndian.PutUint32(coords[4*i:], uint32(c))
	}
	got := runTex(t, tex, texels, "2d", "s32", coords)
	want := [][4]float32{{51.0 / 255, 102.0 / 255, 0, 1}, {5.0 / 255, 1, 0, 1}, {0, 0, 0, 0}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("coordinates %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestSurfaceLoadStore: sust.b and suld.b on a 2D surface of 4x2 u32
// texels (x in bytes), with .zero dropping and .clamp moving accesses
// outside, and .trap reporting them.
func TestSurfaceLoadStore(t *testing.T) {
	kernel := func(mode string) string {
		return header + `.visible .entry k(.param .u64 s, .param .u64 out) {
	.reg .b32 %r<12>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [s];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, 12;
	mov.u32 %r2, 1;
	sust.b.2d.b32.trap [%rd1, {%r1, %r2}], 77;
	mov.u32 %r1, 8;
	suld.b.2d.v2.b32.trap {%r3, %r4}, [%rd1, {%r1, %r2}];
	mov.u32 %r1, 16;
	suld.b.2d.b32` + mode + ` %r5, [%rd1, {%r1, %r2}];
	sust.b.2d.b32` + mode + ` [%rd1, {%r1, %r2}], 99;
	suq.width.b32 %r6, [%rd1];
	st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
	ret;
}`
	}
	surf := Texture{Width: 4, Height: 2, Format: TU32, Channels: 1}
	run := func(mode string) (*Result, []uint32) {
		res := launchReport(t, kernel(mode), Config{Block: dims(1, 1, 1)}, Arg{IsBuffer: true, Size: 32, Texture: &surf}, buf(16))
		return res, u32s(res.Buffers[1].Data)
	}
	res, got := run(".zero")
	if res.Report != nil || got[0] != 0 || got[1] != 77 || got[2] != 0 || got[3] != 4 {
		t.Errorf(".zero: %v %v", res.Report, got)
	}
	if s := u32s(res.Buffers[0].Data); s[7] != 77 || s[4] != 0 {
		t.Errorf(".zero: the surface holds %v", s)
	}
	res, got = run(".clamp")
	if s := u32s(res.Buffers[0].Data); res.Report != nil || got[2] != 77 || s[7] != 99 {
		t.Errorf(".clamp: %v %v, surface %v", res.Report, got, s)
	}
	res, _ = run(".trap")
	wantReport(t, res, ruleSurfaceTrap, "byte 16, row 1")
}

// TestTextureGather: tld4 returns one channel of the bilinear footprint,
// counter-clockwise from the lower left.
func TestTextureGather(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 t, .param .u64 out) {
	.reg .f32 %f<7>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [t];
	ld.param.u64 %rd2, [out];
	mov.f32 %f5, 0f3FC00000;
	mov.f32 %f6, 0f3FC00000;
	tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
	st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
	ret;
}`
	// 3x3 texels of two channels: (x + 3y, 100 + x + 3y)
	var vals []float32
	for i := range 9 {
		vals = append(vals, float32(i), float32(100+i))
	}
	tex := Texture{Width: 3, Height: 3, Format: TF32, Channels: 2}
	res := launch(t, src, Config{Block: dims(1, 1, 1)}, Arg{IsBuffer: true, Buffer: f32Bytes(vals...), Texture: &tex}, buf(16))
	var got [4]float32
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(res.Buffers[1].Data[4*i:]))
	}
	// (1.5, 1.5) - 0.5 = (1, 1): texels (1,2), (2,2), (2,1), (1,1)
	if want := [4]float32{107, 108, 105, 104}; got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestTextureNVCC runs nvcc 12.5's code for tex2D, tex1Dfetch,
// tex2Dgather, surf2Dread/surf2Dwrite (boundary mode zero, a scalar
// written as a one-element vector) and txq (testdata/texture_nvcc.cu).
func TestTextureNVCC(t *testing.T) {
	src, err := os.ReadFile("testdata/texture_nvcc.ptx")
	if err != nil {
		t.Fatal(err)
	}
	var vals []float32
	for i := range 32 {
		vals = append(vals, float32(i)) // texel (x, y) channel c: 4*(4y+x)+c
	}
	tex := Texture{Width: 4, Height: 2, Format: TF32, Channels: 4}
	surf := Texture{Width: 4, Height: 2, Format: TU32, Channels: 1}
	res := launch(t, string(src), Config{Grid: dims(2, 1, 1), Block: dims(4, 1, 1)},
		Arg{IsBuffer: true, Buffer: f32Bytes(vals...), Texture: &tex}, Arg{IsBuffer: true, Size: 32, Texture: &surf}, buf(128), scalar(4))
	out := res.Buffers[2].Data
	at := func(x, y, k int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(out[4*(4*(4*y+x)+k):]))
	}
	for _, c := range []struct {
		x, y int
		want [4]float32
	}{{0, 0, [4]float32{0, 1, 18, 4}}, {3, 1, [4]float32{28, 41, 18, 4}}} {
		for k := range 4 {
			if got := at(c.x, c.y, k); got != c.want[k] {
				t.Errorf("thread (%d, %d) word %d: got %v, want %v", c.x, c.y, k, got, c.want[k])
			}
		}
	}
	for i, got := range u32s(res.Buffers[1].Data) {
		if want := uint32(i%4 + 10*(i/4)); got != want {
			t.Errorf("surface element %d: %d, want %d", i, got, want)
		}
	}
}

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

// TestTextureAndSurface: objects a driver registers over its allocations
// (Memory.SetTexture) in a memory shared by launches.
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
	mem.SetTexture(1, &Texture{Base: texels.Base, Width: 4, Height: 1, Depth: 1, Pitch: 16, Format: TF32, Channels: 1,
		Filter: TexLinear, Address: [3]TexAddress{TexClamp, TexClamp, TexClamp}})
	mem.SetTexture(2, &Texture{Base: surf.Base, Width: 8, Height: 1, Depth: 1, Pitch: 32, Format: TS32, Channels: 1})
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
	mem.SetTexture(2, &Texture{Base: surf.Base, Width: 4, Height: 1, Depth: 1, Pitch: 32, Format: TS32, Channels: 1})
	res, err = l.Run()
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleSurfaceTrap, "byte 16, row 0")
	// An unknown object is a report, not a crash.
	mem.SetTexture(1, nil)
	res, _ = l.Run()
	wantReport(t, res, "bad-texture", "not a texture or surface object")
}

// TestTextureGeometries: the geometries a driver's CUDA arrays give — a
// 3-D texture (trilinear filtering, txq.depth), a layered 2-D texture
// (integer results, the layer clamped), a layered 1-D surface (sust.b.a1d,
// .trap past the layers) and a cubemap (face selection) — registered with
// Memory.SetTexture.
func TestTextureGeometries(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 t3, .param .u64 ta, .param .u64 s, .param .u64 tc, .param .u64 out, .param .u32 layer)
{
	.reg .b32 %r<12>;
	.reg .f32 %f<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [t3];
	ld.param.u64 %rd2, [ta];
	ld.param.u64 %rd3, [s];
	ld.param.u64 %rd4, [tc];
	ld.param.u64 %rd5, [out];
	ld.param.u32 %r9, [layer];
	mov.f32 %f1, 0f3F800000;
	tex.3d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1, %f1, %f1}];
	st.global.f32 [%rd5], %f2;
	mov.f32 %f6, 0f3FC00000;
	mov.f32 %f7, 0f3F000000;
	tex.3d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f6, %f7, %f6, %f6}];
	st.global.f32 [%rd5+4], %f2;
	txq.depth.b32 %r1, [%rd1];
	st.global.u32 [%rd5+8], %r1;
	mov.u32 %r2, 2;
	mov.u32 %r3, 1;
	mov.u32 %r4, 0;
	tex.a2d.v4.u32.s32 {%r5, %r6, %r7, %r8}, [%rd2, {%r2, %r3, %r4, %r4}];
	st.global.u32 [%rd5+12], %r5;
	mov.u32 %r2, 7;
	tex.a2d.v4.u32.s32 {%r5, %r6, %r7, %r8}, [%rd2, {%r2, %r4, %r4, %r4}];
	st.global.u32 [%rd5+16], %r5;
	mov.u32 %r10, 4;
	mov.u32 %r11, 99;
	sust.b.a1d.b32.trap [%rd3, {%r9, %r10}], {%r11};
	mov.f32 %f8, 0fBF800000;
	mov.f32 %f9, 0f3E4CCCCD;
	mov.f32 %f10, 0f3DCCCCCD;
	tex.cube.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd4, {%f8, %f9, %f10, %f10}];
	st.global.f32 [%rd5+20], %f2;
	mov.f32 %f11, 0fC0400000;
	mov.f32 %f1, 0f00000000;
	tex.cube.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd4, {%f1, %f1, %f11, %f1}];
	st.global.f32 [%rd5+24], %f2;
	ret;
}
`
	p := compile(t, src)
	mem := NewMemory()
	put := func(name string, vals []uint32) *Region {
		r := mem.Alloc(name, 4*len(vals), 256)
		for i, v := range vals {
			binary.LittleEndian.PutUint32(r.Data[4*i:], v)
		}
		return r
	}
	var v3, va, vc []uint32
	for i := range 8 { // texel (x, y, z) = x + 2y + 4z
		v3 = append(v3, math.Float32bits(float32(i)))
	}
	for l := range 3 { // 2x1 texels per layer: 10*layer + x
		va = append(va, uint32(10*l), uint32(10*l+1))
	}
	for f := range 6 { // one texel per face: the face
		vc = append(vc, math.Float32bits(float32(f)))
	}
	t3, ta, tc := put("t3", v3), put("ta", va), put("tc", vc)
	surf := put("surf", make([]uint32, 4)) // 2x1 texels, 2 layers
	out := mem.Alloc("out", 28, 256)
	mem.SetTexture(1, &Texture{Base: t3.Base, Width: 2, Height: 2, Depth: 2, Format: TF32, Channels: 1, Filter: TexLinear})
	mem.SetTexture(2, &Texture{Base: ta.Base, Width: 2, Layers: 3, Format: TU32, Channels: 1})
	mem.SetTexture(3, &Texture{Base: surf.Base, Width: 2, Layers: 2, Format: TU32, Channels: 1})
	mem.SetTexture(4, &Texture{Base: tc.Base, Width: 1, Height: 1, Layers: 6, Format: TF32, Channels: 1})
	l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1)},
		Args: []Arg{scalar(1), scalar(2), scalar(3), scalar(4), scalar(out.Base), scalar(1)}}
	res, err := l.Run()
	if err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	got := u32s(out.Data)
	f := func(i int) float32 { return math.Float32frombits(got[i]) }
	// (1, 1, 1) - 0.5: every texel weighs 1/8; (1.5, 0.5, 1.5): texel (1, 0, 1).
	if f(0) != 3.5 || f(1) != 5 || got[2] != 2 {
		t.Errorf("3-D: linear %v, point %v, depth %d; want 3.5, 5, 2", f(0), f(1), got[2])
	}
	if got[3] != 21 || got[4] != 20 {
		t.Errorf("layered: layer 2 x 1 = %d, layer 7 (clamped) x 0 = %d; want 21, 20", got[3], got[4])
	}
	if s := u32s(surf.Data); s != nil && s[3] != 99 {
		t.Errorf("sust.b.a1d to layer 1, byte 4: the surface holds %v", s)
	}
	if f(5) != 1 || f(6) != 5 {
		t.Errorf("cube: direction (-1, 0.2, 0.1) read face %v, (0, 0, -3) face %v; want 1, 5", f(5), f(6))
	}
	l.Args[5] = scalar(5)
	res, err = l.Run()
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleSurfaceTrap, "layer 5")
}

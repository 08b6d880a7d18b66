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
		tex := Texture{Width: 2, Height: 2, Format: TF32, Channels: 4, Filter: c.filter, Address: [2]TexAddress{c.addr, c.addr}, NormalizedCoords: true}
		got := runTex(t, tex, texels, "2d", "f32", f32Bytes(c.u, c.v))
		if got[0] != c.want {
			t.Errorf("filter %d address %d at (%v, %v): got %v, want %v", c.filter, c.addr, c.u, c.v, got[0], c.want)
		}
	}
}

// TestTextureIntegerCoordinates: s32 coordinates address texels directly;
// 8-bit texels read normalized give v/255.
func TestTextureIntegerCoordinates(t *testing.T) {
	tex := Texture{Width: 3, Height: 2, Format: TU8, Channels: 2, Address: [2]TexAddress{TexBorder, TexClamp}, NormalizedRead: true}
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

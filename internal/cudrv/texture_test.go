package cudrv

import (
	"encoding/binary"
	"math"
	"testing"
)

const gatherPTX = `.version 8.5
.target sm_90
.address_size 64
.visible .entry gather(.param .u64 t, .param .u64 out)
{
	.reg .b32 %r<3>;
	.reg .f32 %f<9>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [t];
	ld.param.u64 %rd2, [out];
	mov.f32 %f5, 0f3FC00000;
	tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
	st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
	mov.f32 %f6, 0fC0000000;
	tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f6, %f5}];
	st.global.v2.f32 [%rd2+16], {%f1, %f2};
	txq.width.b32 %r1, [%rd1];
	txq.height.b32 %r2, [%rd1];
	st.global.v2.u32 [%rd2+24], {%r1, %r2};
	ret;
}
`

// TestTextureObjectOverArray: a texture object over a CUDA array of
// float2 texels (CUarray_format FLOAT, two channels) is read by tld4 and
// txq, and CUaddress_mode BORDER gives the border color.
func TestTextureObjectOverArray(t *testing.T) {
	d, errs := newTestDriver(t)
	mod, r, detail := d.LoadModule([]byte(gatherPTX))
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, _ := d.GetFunction(mod, "gather")
	arr, r := d.CreateArray(3, 3, 0, 0x20, 2, 0)
	if r != Success {
		t.Fatal(r)
	}
	a, _ := d.ArrayOf(arr)
	var vals []float32
	for i := range 9 { // texel (x, y): (x + 3y, 100 + x + 3y)
		vals = append(vals, float32(i), float32(100+i))
	}
	ab, _ := d.Device(a.Base, uint64(len(vals)*4))
	copy(ab, f32s(vals...))
	s := Sampling{Address: [3]int{3, 1, 1}, Border: [4]float32{-1, -2, -3, -4}}
	if _, r, _ := d.CreateTexture(Resource{Type: 0, Array: arr}, Sampling{Address: [3]int{7, 1, 1}}, false); r != ErrInvalidValue {
		t.Errorf("address mode 7: %v, want CUDA_ERROR_INVALID_VALUE", r)
	}
	tex, r, detail := d.CreateTexture(Resource{Type: 0, Array: arr}, s, false)
	if r != Success {
		t.Fatal(r, detail)
	}
	out, _ := d.MemAlloc(32)
	if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}}, [][]byte{u64(tex), u64(out)}); r != Success || d.State() != Success {
		t.Fatal(r, d.State(), errs)
	}
	ob, _ := d.Device(out, 32)
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(ob[4*i:])) }
	// (1.5, 1.5) - 0.5 = (1, 1): texels (1,2), (2,2), (2,1), (1,1), channel g.
	if got := [4]float32{f(0), f(1), f(2), f(3)}; got != [4]float32{107, 108, 105, 104} {
		t.Errorf("tld4.g: %v", got)
	}
	if f(4) != -1 || f(5) != -2 {
		t.Errorf("x = -2 with a border: (%v, %v), want the border color (-1, -2)", f(4), f(5))
	}
	if w, h := binary.LittleEndian.Uint32(ob[24:]), binary.LittleEndian.Uint32(ob[28:]); w != 3 || h != 3 {
		t.Errorf("txq: %dx%d, want 3x3", w, h)
	}
	if r := d.DestroyTexture(tex); r != Success {
		t.Error(r)
	}
}

package tensormap

import (
	"strings"
	"testing"
)

func im2colTestMap() Map {
	return Map{Mode: ModeIm2col, Type: F16, Rank: 4, Dims: [MaxRank]uint64{64, 10, 8, 2},
		Strides:     [MaxRank - 1]uint64{128, 1280, 10240},
		ElemStrides: [MaxRank]uint32{1, 2, 1, 1},
		Im2col:      Im2col{Lower: [3]int32{-1, -2}, Upper: [3]int32{-1, 0}, ChannelsPerPixel: 64, PixelsPerColumn: 128},
		Swizzle:     Swizzle128B}
}

// TestIm2colEncodeRoundTrip: the im2col fields survive the 128 bytes, and
// negative corners keep their sign.
func TestIm2colEncodeRoundTrip(t *testing.T) {
	m := im2colTestMap()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b[:])
	if err != nil {
		t.Fatal(err)
	}
	if *got != m {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *got, m)
	}
	if got.BoxBytes() != 128*64*2 {
		t.Errorf("box bytes %d", got.BoxBytes())
	}
}

// TestIm2colValidate: cuTensorMapEncodeIm2col's limits.
func TestIm2colValidate(t *testing.T) {
	for _, c := range []struct {
		edit func(*Map)
		want string
	}{
		{func(m *Map) { m.Rank = 2 }, "rank 3 to 5"},
		{func(m *Map) { m.Im2col.Lower[0] = -129 }, "pixelBoxLowerCorner[0] = -129 must be between -128 and 127"},
		{func(m *Map) {
			m.Rank, m.Dims[4], m.ElemStrides[4], m.Strides[3], m.Im2col.Upper[1] = 5, 1, 1, 20480, 16
		}, "pixelBoxUpperCorner[1] = 16 must be between -16 and 15"},
		{func(m *Map) { m.Im2col.ChannelsPerPixel = 0 }, "channelsPerPixel = 0"},
		{func(m *Map) { m.Im2col.PixelsPerColumn = 1025 }, "pixelsPerColumn = 1025"},
		{func(m *Map) { m.Im2col.ChannelsPerPixel = 4 }, "channelsPerPixel * element size = 8 bytes must be a multiple of 16"},
		{func(m *Map) { m.Swizzle = Swizzle64B }, "must not exceed the 64B swizzle span"},
		{func(m *Map) { m.Im2col.Upper[0] = -12 }, "bounding box of spatial dimension 0 is empty"},
		{func(m *Map) { m.ElemStrides[0] = 2 }, "channel stride"},
	} {
		m := im2colTestMap()
		c.edit(&m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	m := im2colTestMap()
	m.Box = [MaxRank]uint32{} // boxDim is not an im2col argument
	if err := m.Validate(); err != nil {
		t.Errorf("valid map: %v", err)
	}
}

// TestIm2colTraversal follows the pixel walk by hand on a 3D tensor (C 8,
// W 4, N 2) with corners -1 and 0 (bounding box W -1..3) and W stride 2:
// positions -1, 1, 3, then batch 1 at -1, 1, 3; offset 1 reads W 0, 2, 4
// (4 is out of the tensor).
func TestIm2colTraversal(t *testing.T) {
	m := Map{Mode: ModeIm2col, Type: F16, Rank: 3, Dims: [MaxRank]uint64{8, 4, 2}, Strides: [MaxRank - 1]uint64{16, 64},
		ElemStrides: [MaxRank]uint32{1, 2, 1}, Im2col: Im2col{Lower: [3]int32{-1}, ChannelsPerPixel: 8, PixelsPerColumn: 6}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	st := Start{Coords: [MaxRank]int64{0, -1, 0}, Offsets: [3]int64{1}}
	var got []int64
	m.Each(st, 0, func(e Elem) {
		if e.Shared%16 != 0 { // first channel of each pixel
			return
		}
		if !e.InBounds {
			got = append(got, -1)
			return
		}
		got = append(got, int64(e.Global-m.Address)/2)
	})
	// element index = w*8 + n*32
	want := []int64{0, 16, -1, 32, 48, -1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if lo, hi, n, ok := m.Bounds(st); !ok || lo != m.Address || hi != m.Address+2*(48+8) || n != 32 {
		t.Errorf("bounds %d %d %d %v", lo, hi, n, ok)
	}
	if err := m.CheckStart(Start{Coords: [MaxRank]int64{0, 4, 0}}); err == nil {
		t.Error("a start past the bounding box is accepted")
	}
}

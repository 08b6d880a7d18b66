package tensormap

import (
	"strings"
	"testing"
)

func valid() Map {
	return Map{Type: F16, Rank: 2, Address: 0x1000, Dims: [5]uint64{64, 32}, Strides: [4]uint64{128},
		Box: [5]uint32{64, 8}, ElemStrides: [5]uint32{1, 1, 1, 1, 1}, Swizzle: Swizzle128B}
}

func TestValidate(t *testing.T) {
	if err := (&Map{}).Validate(); err == nil {
		t.Fatal("zero map validated")
	}
	m := valid()
	if err := m.Validate(); err != nil {
		t.Fatalf("valid map: %v", err)
	}
	cases := []struct {
		edit func(*Map)
		want string
	}{
		{func(m *Map) { m.Type = 13 }, "tensorDataType 13"},
		{func(m *Map) { m.Rank = 0 }, "tensorRank 0 must be between 1 and 5"},
		{func(m *Map) { m.Rank = 6 }, "tensorRank 6"},
		{func(m *Map) { m.Address = 0x1008 }, "globalAddress 0x1008 must be 16-byte aligned"},
		{func(m *Map) { m.Dims[1] = 0 }, "globalDim[1] = 0"},
		{func(m *Map) { m.Dims[0] = 1<<32 + 1 }, "globalDim[0] = 4294967297"},
		{func(m *Map) { m.Strides[0] = 136 }, "globalStrides[0] = 136 must be a multiple of 16"},
		{func(m *Map) { m.Strides[0] = 1 << 40 }, "below 2^40"},
		{func(m *Map) { m.Box[1] = 0 }, "boxDim[1] = 0 must be between 1 and 256"},
		{func(m *Map) { m.Box[1] = 257 }, "boxDim[1] = 257"},
		{func(m *Map) { m.ElemStrides[1] = 9 }, "elementStrides[1] = 9 must be between 1 and 8"},
		{func(m *Map) { m.ElemStrides[0] = 0 }, "elementStrides[0] = 0"},
		{func(m *Map) { m.Box[0] = 4 }, "boxDim[0] * element size = 8 bytes must be a multiple of 16"},
		{func(m *Map) { m.Box[0] = 72 }, "144 bytes must not exceed the 128B swizzle span"},
		{func(m *Map) { m.Swizzle = Swizzle64B }, "128 bytes must not exceed the 64B swizzle span"},
		{func(m *Map) { m.Swizzle = 4 }, "swizzle 4"},
		{func(m *Map) { m.Interleave = Interleave16B }, "interleaved layout needs a rank of at least 3"},
		{func(m *Map) { m.Type = U32; m.Box[0] = 32; m.Fill = FillNaNRequestZeroFMA }, "NaN_REQUEST_ZERO_FMA needs a floating-point"},
		{func(m *Map) { m.L2 = 4 }, "l2Promotion 4"},
		{func(m *Map) {
			m.Rank, m.Dims[2], m.Strides[1], m.Box[2], m.Interleave = 3, 2, 4096, 1, Interleave32B
			m.Strides[0] = 128
		}, "interleave 32B needs swizzle 32B"},
		{func(m *Map) {
			m.Rank, m.Dims[2], m.Strides[1], m.Box[2], m.Interleave, m.Swizzle = 3, 2, 4096, 1, Interleave32B, Swizzle32B
			m.Strides[0] = 144
		}, "globalStrides[0] = 144 must be a multiple of 32"},
	}
	for _, c := range cases {
		m := valid()
		c.edit(&m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	m := Map{Type: BF16, Rank: 5, Address: 0x10_0000_0100, Dims: [5]uint64{64, 3, 5, 7, 1 << 32},
		Strides: [4]uint64{128, 384, 1920, 13440}, Box: [5]uint32{32, 2, 5, 7, 1}, ElemStrides: [5]uint32{1, 2, 3, 4, 8},
		Swizzle: Swizzle64B, L2: L2Promote256B, Fill: FillNaNRequestZeroFMA}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(b[8:12]) != "TMAP" || b[14] != byte(BF16) || b[15] != 5 {
		t.Fatalf("header bytes % x", b[:20])
	}
	got, err := Decode(b[:])
	if err != nil {
		t.Fatal(err)
	}
	if *got != m {
		t.Fatalf("decoded %+v, want %+v", *got, m)
	}
	b[8] = 'X'
	if _, err := Decode(b[:]); err == nil || !strings.Contains(err.Error(), "not an encoded tensor map") {
		t.Fatalf("got %v", err)
	}
	b[8] = 'T'
	b[20+4] = 0 // boxDim[1] = 0
	b[21+4] = 0
	if _, err := Decode(b[:]); err == nil || !strings.Contains(err.Error(), "invalid tensor map: boxDim[1] = 0") {
		t.Fatalf("got %v", err)
	}
	bad := valid()
	bad.Rank = 0
	if _, err := bad.Encode(); err == nil {
		t.Fatal("invalid map encoded")
	}
}

// The swizzle tables: the 16-byte chunk each logical chunk of a row lands
// in, for rows 0..7 of 128 bytes, written out by hand from the pattern
// NVIDIA documents (128B: chunk ^ row; 64B: chunk ^ (row/2 mod 4) on
// 64-byte rows, here shown on 128-byte lines; 32B: chunk ^ (row mod 2)
// with a period of 256 bytes).
var swizzleTables = map[Swizzle][8][8]uint32{
	Swizzle128B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{5, 4, 7, 6, 1, 0, 3, 2},
		{6, 7, 4, 5, 2, 3, 0, 1},
		{7, 6, 5, 4, 3, 2, 1, 0},
	},
	Swizzle64B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
	},
	Swizzle32B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	},
	SwizzleNone: {
		{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
		{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
	},
}

func TestSwizzleOffset(t *testing.T) {
	for sw, tab := range swizzleTables {
		for atom := uint32(0); atom < 2; atom++ { // the pattern repeats every 1024 bytes
			for row := uint32(0); row < 8; row++ {
				for chunk := uint32(0); chunk < 8; chunk++ {
					for _, within := range []uint32{0, 5, 15} {
						a := atom*1024 + row*128 + chunk*16 + within
						want := atom*1024 + row*128 + tab[row][chunk]*16 + within
						if got := SwizzleOffset(sw, a); got != want {
							t.Fatalf("%s: address %#x -> %#x, want %#x", sw, a, got, want)
						}
					}
				}
			}
		}
	}
}

// TestForEach walks a 2D box of a 128B-swizzled f16 tensor hanging over
// the tensor's right and bottom edges.
func TestForEach(t *testing.T) {
	m := valid() // 64x32 f16, rows of 128 bytes, box 64x8
	var got []Elem
	m.ForEach([5]int64{-4, 28}, 0, func(e Elem) { got = append(got, e) })
	if len(got) != 64*8 {
		t.Fatalf("%d elements, want %d", len(got), 64*8)
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 64; x++ {
			e := got[y*64+x]
			gx, gy := x-4, 28+y
			in := gx >= 0 && gy < 32
			if e.InBounds != in {
				t.Fatalf("(%d,%d) in bounds %v, want %v", x, y, e.InBounds, in)
			}
			if in && e.Global != 0x1000+uint64(gy*128+gx*2) {
				t.Fatalf("(%d,%d) at %#x", x, y, e.Global)
			}
			chunk := uint32(x*2/16) ^ uint32(y%8)
			if want := uint32(y*128) + chunk*16 + uint32(x*2%16); e.Shared != want {
				t.Fatalf("(%d,%d) shared %#x, want %#x", x, y, e.Shared, want)
			}
		}
	}
	lo, hi, ok := m.GlobalBounds([5]int64{-4, 28})
	if !ok || lo != 0x1000+28*128 || hi != 0x1000+31*128+60*2 {
		t.Fatalf("bounds %#x..%#x %v", lo, hi, ok)
	}
	if n := m.InBoundElems([5]int64{-4, 28}); n != 60*4 {
		t.Fatalf("%d elements in bounds, want %d", n, 60*4)
	}
	if n := m.InBoundElems([5]int64{64, 0}); n != 0 {
		t.Fatalf("%d elements in bounds of a box outside", n)
	}
	if _, _, ok := m.GlobalBounds([5]int64{64, 0}); ok {
		t.Fatal("a box wholly outside has bounds")
	}
	if _, _, ok := m.GlobalBounds([5]int64{-64, 0}); ok {
		t.Fatal("a box wholly outside on the left has bounds")
	}
}

func TestBoxBytesAndExtent(t *testing.T) {
	m := Map{Type: F32, Rank: 3, Dims: [5]uint64{8, 10, 3}, Strides: [4]uint64{32, 320},
		Box: [5]uint32{4, 6, 2}, ElemStrides: [5]uint32{1, 4, 1, 1, 1}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := m.BoxBytes(); n != 4*2*2*4 { // ceil(6/4) = 2 rows
		t.Fatalf("box bytes %d", n)
	}
	if e := m.Extent(); e != 7*4+9*32+2*320+4 {
		t.Fatalf("extent %d", e)
	}
	if _, err := ParseDataType("F16"); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseDataType("f8"); err == nil || !strings.Contains(err.Error(), "want one of u8") {
		t.Fatalf("got %v", err)
	}
}

// TestForEachSharedBase: the swizzle follows the absolute shared address,
// so a 128B-swizzled box placed 128 bytes into a 1024-byte atom starts
// with the pattern of line 1 (chunk 0 lands in chunk 1).
func TestForEachSharedBase(t *testing.T) {
	m := valid()
	m.Box[1] = 2
	var got []uint32
	m.ForEach([5]int64{0, 0}, 128, func(e Elem) { got = append(got, e.Shared) })
	want := map[int]uint32{0: 16, 8: 0, 63: 96 + 14, 64: 128 + 32, 72: 128 + 48}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("element %d at shared offset %d, want %d", i, got[i], w)
		}
	}
}

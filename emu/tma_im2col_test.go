package emu

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tmaIm2colSource turns tmaLoadKernel into an im2col load with the
// im2col offsets from three more parameters.
func tmaIm2colSource(rank, bytes int) string {
	s := tmaLoadSource(rank, bytes)
	offs := []string{"%rs1", "%rs2", "%rs3"}[:rank-2]
	for _, r := range [][2]string{
		{".param .u64 tensor\n", ".param .u64 tensor,\n\t.param .u32 o0, .param .u32 o1, .param .u32 o2\n"},
		{".reg .b64 %rd<10>;", ".reg .b64 %rd<10>;\n\t.reg .b16 %rs<4>;"},
		{"\tmbarrier.arrive.expect_tx", "\tld.param.u32 %r13, [o0];\n\tcvt.u16.u32 %rs1, %r13;\n\tld.param.u32 %r13, [o1];\n\tcvt.u16.u32 %rs2, %r13;\n\tld.param.u32 %r13, [o2];\n\tcvt.u16.u32 %rs3, %r13;\n\tmbarrier.arrive.expect_tx"},
		{"global.tile.mbarrier::complete_tx::bytes", "global.im2col.mbarrier::complete_tx::bytes"},
		{"], [%r2];\n", "], [%r2], {" + strings.Join(offs, ", ") + "};\n"},
	} {
		if !strings.Contains(s, r[0]) {
			panic("tmaIm2colSource: no " + r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return s
}

// conv is a convolution's geometry in the terms of an im2col GEMM: an
// input tensor (channels fastest, then W, H, D, batch), a filter of
// extent[s] taps per spatial dimension with padding pad[s] and stride
// stride[s].
type conv struct {
	dims   []int // C, spatial..., N
	pad    []int
	filter []int
	stride []int
}

func (c conv) spatial() int { return len(c.dims) - 2 }

// outSize is the number of output positions along spatial dimension s.
func (c conv) outSize(s int) int {
	return (c.dims[1+s]+2*c.pad[s]-c.filter[s])/c.stride[s] + 1
}

// im2colRef is the im2col matrix of the convolution written from its
// definition: row i is output pixel m0+i (W fastest, then H, D, batch);
// its columns are channels c0..c0+cpp-1 of the input element under filter
// tap tap (one index per spatial dimension), zero where the tap falls in
// the padding. Elements are the u16 values tensorBytes writes.
func im2colRef(c conv, m0, pixels, c0, cpp int, tap []int) [][]uint16 {
	rows := make([][]uint16, pixels)
	for i := range rows {
		rows[i] = make([]uint16, cpp)
		rest := m0 + i
		idx := make([]int, c.spatial()) // input index per spatial dimension
		inside := true
		for s := range c.spatial() {
			o := rest % c.outSize(s)
			rest /= c.outSize(s)
			idx[s] = o*c.stride[s] - c.pad[s] + tap[s]
			inside = inside && idx[s] >= 0 && idx[s] < c.dims[1+s]
		}
		n := rest
		inside = inside && n < c.dims[len(c.dims)-1]
		for k := range cpp {
			if !inside {
				continue
			}
			lin, mul := c0+k, c.dims[0]
			for s := range c.spatial() {
				lin += idx[s] * mul
				mul *= c.dims[1+s]
			}
			lin += n * mul
			rows[i][k] = uint16(lin + 1)
		}
	}
	return rows
}

// im2colMap is the tensor map a convolution kernel builds for c, as
// CUTLASS does: the corners are -pad and pad - (filter - 1), the element
// strides the convolution's strides.
func im2colMap(c conv, pixels, cpp int, sw tensormap.Swizzle) tensormap.Map {
	m := tensormap.Map{Mode: tensormap.ModeIm2col, Type: tensormap.U16, Rank: len(c.dims), Swizzle: sw,
		ElemStrides: [5]uint32{1, 1, 1, 1, 1}}
	stride := uint64(2)
	for i, d := range c.dims {
		m.Dims[i] = uint64(d)
		if i > 0 {
			m.Strides[i-1] = stride
		}
		stride *= uint64(d)
	}
	for s := range c.spatial() {
		m.Im2col.Lower[s] = int32(-c.pad[s])
		m.Im2col.Upper[s] = int32(c.pad[s] - (c.filter[s] - 1))
		m.ElemStrides[1+s] = uint32(c.stride[s])
	}
	m.Im2col.PixelsPerColumn, m.Im2col.ChannelsPerPixel = uint32(pixels), uint32(cpp)
	return m
}

// TestTMAIm2col loads im2col boxes of 3D, 4D and 5D tensors (padding,
// conv strides, a box running across the batch, swizzle) and compares the
// shared tile with the im2col matrix written from the convolution's
// definition.
func TestTMAIm2col(t *testing.T) {
	cases := []struct {
		name        string
		c           conv
		m0, c0, cpp int
		pixels      int
		tap         []int
		sw          tensormap.Swizzle
	}{
		{"4d/pad1/across-batch", conv{[]int{16, 5, 4, 2}, []int{1, 1}, []int{3, 3}, []int{1, 1}}, 3, 8, 8, 24, []int{2, 1}, tensormap.SwizzleNone},
		{"4d/tap0/128B", conv{[]int{64, 6, 3, 1}, []int{1, 1}, []int{3, 3}, []int{1, 1}}, 0, 0, 64, 16, []int{0, 0}, tensormap.Swizzle128B},
		{"3d/stride2/64B", conv{[]int{32, 11, 2}, []int{2}, []int{5}, []int{2}}, 2, 0, 32, 8, []int{3}, tensormap.Swizzle64B},
		{"5d/stride2", conv{[]int{8, 4, 3, 3, 2}, []int{1, 0, 1}, []int{3, 2, 3}, []int{2, 1, 2}}, 1, 0, 8, 30, []int{1, 1, 2}, tensormap.SwizzleNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			m := im2colMap(c, tc.pixels, tc.cpp, tc.sw)
			total := 2
			for _, d := range c.dims {
				total *= d
			}
			tensor := tensorBytes(total)
			// The start: output pixel m0's top-left input position in
			// each spatial dimension, and its batch.
			coords := []int{tc.c0}
			rest := tc.m0
			for s := range c.spatial() {
				coords = append(coords, rest%c.outSize(s)*c.stride[s]-c.pad[s])
				rest /= c.outSize(s)
			}
			coords = append(coords, rest)
			for len(coords) < 5 {
				coords = append(coords, 0)
			}
			offs := append(append([]int(nil), tc.tap...), 0, 0)[:3]
			got := runIm2col(t, m, tensor, coords, offs)
			want := im2colRef(c, tc.m0, tc.pixels, tc.c0, tc.cpp, tc.tap)
			rowBytes := 2 * tc.cpp
			for i, row := range want {
				for k, v := range row {
					pos := swizzledPos(tc.sw, k, i, 2, rowBytes)
					if g := binary.LittleEndian.Uint16(got[pos:]); g != v {
						t.Fatalf("pixel %d channel %d: got %d, want %d", i, k, g, v)
					}
				}
			}
		})
	}
}

// runIm2col runs an im2col load of m's box at coords with offsets offs
// and returns the shared tile.
func runIm2col(t *testing.T, m tensormap.Map, tensor []byte, coords, offs []int) []byte {
	t.Helper()
	res := runIm2colReport(t, m, tensor, coords, offs)
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	return res.Buffers[1].Data
}

func runIm2colReport(t *testing.T, m tensormap.Map, tensor []byte, coords, offs []int) *Result {
	t.Helper()
	bytes := m.BoxBytes()
	p := compile(t, tmaIm2colSource(m.Rank, bytes))
	args := []Arg{{TensorMap: &m, MapOf: 7}, {IsBuffer: true, Buffer: make([]byte, bytes)},
		s32(coords[0]), s32(coords[1]), s32(coords[2]), s32(coords[3]), s32(coords[4]), {IsBuffer: true, Buffer: tensor},
		s32(offs[0]), s32(offs[1]), s32(offs[2])}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTMAIm2colReports: a start outside the bounding box, and a load
// mode that is not the map's, are reported.
func TestTMAIm2colReports(t *testing.T) {
	c := conv{[]int{16, 5, 4, 1}, []int{1, 1}, []int{3, 3}, []int{1, 1}}
	m := im2colMap(c, 4, 8, tensormap.SwizzleNone)
	tensor := tensorBytes(2 * 16 * 5 * 4)
	res := runIm2colReport(t, m, tensor, []int{0, -2, 0, 0, 0}, []int{0, 0, 0})
	wantReport(t, res, ruleTensMap, "outside the bounding box [-1, 3]")
	// A tiled load with the im2col map.
	p := compile(t, tmaLoadSource(4, m.BoxBytes()))
	args := []Arg{{TensorMap: &m, MapOf: 7}, buf(m.BoxBytes()), s32(0), s32(0), s32(0), s32(0), s32(0), {IsBuffer: true, Buffer: tensor}}
	r2, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, r2, ruleTensMap, "uses the tiled mode, but its tensor map is in im2col mode")
	// An im2col load with a tiled map.
	tiled := tensormap.Map{Type: tensormap.U16, Rank: 4, Dims: m.Dims, Strides: m.Strides, Box: [5]uint32{8, 1, 1, 1},
		ElemStrides: [5]uint32{1, 1, 1, 1, 1}}
	res = runIm2colReport(t, tiled, tensor, []int{0, 0, 0, 0, 0}, []int{0, 0, 0})
	wantReport(t, res, ruleTensMap, "uses the im2col mode, but its tensor map is in tiled mode")
}

// TestTMAIm2colDecode: .im2col needs 3 to 5 dimensions and the offsets;
// the multicast and prefetch forms decode.
func TestTMAIm2colDecode(t *testing.T) {
	src := strings.Replace(tmaIm2colSource(4, 256), "[%r2], {%rs1, %rs2};",
		"[%r2], {%rs1, %rs2};\n\tcp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd1, {%r4, %r5, %r6, %r11}], [%r2], {%rs1, %rs2}, %rs3;"+
			"\n\tcp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd1, {%r4, %r5, %r6, %r11}], {%rs1, %rs2};", 1)
	if !strings.Contains(src, "prefetch") {
		t.Fatal("the prefetch was not added")
	}
	compile(t, src)
	for body, want := range map[string]string{
		"cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r1}], [%r4], {};":               "needs .3d, .4d or .5d",
		"cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r1, %r1, %r1}], [%r4];":         "takes 4 operands, not 3",
		"cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r1, %r1, %r1}], [%r4], {%rs1};": "2 im2col offsets",
	} {
		src := strings.Replace(mbarrierKernel, "BODY", body, 1)
		src = strings.Replace(src, "{\n", "{\n\t.reg .b16 %rs<2>;\n", 1)
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", body, errs)
		}
		_, derrs := Decode(m, "")
		if !derrs.HasErrors() || !strings.Contains(derrs[0].Message, want) {
			t.Errorf("%s: got %v, want %q", body, derrs, want)
		}
	}
}

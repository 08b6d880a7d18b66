package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensormap"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tmaLoadKernel is a TMA tile load written the way CUTLASS and Triton emit
// it: thread 0 initializes the mbarrier, arms it with expect_tx and issues
// the copy; every thread waits on the phase's parity and then copies the
// raw shared tile (swizzled as it landed) to out. BYTES is the box size,
// DIMS the rank, COORDS the coordinate registers.
const tmaLoadKernel = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma_load(
	.param .align 64 .b8 tmap[128],
	.param .u64 out,
	.param .u32 c0, .param .u32 c1, .param .u32 c2, .param .u32 c3, .param .u32 c4,
	.param .u64 tensor
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<10>;
	.shared .align 1024 .b8 smem[BYTES];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, smem;
	mov.u32 %r10, 0;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra SYNC;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
SYNC:
	bar.sync 0;
	@!%p1 bra WAIT;
	mov.u64 %rd1, tmap;
	ld.param.u32 %r4, [c0];
	ld.param.u32 %r5, [c1];
	ld.param.u32 %r6, [c2];
	ld.param.u32 %r11, [c3];
	ld.param.u32 %r12, [c4];
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], BYTES;
	cp.async.bulk.tensor.DIMSd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {COORDS}], [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r10;
	@!%p2 bra WAIT;
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r7, %r1;
	shl.b32 %r7, %r7, 2;
COPY:
	setp.ge.u32 %p3, %r7, BYTES;
	@%p3 bra DONE;
	add.u32 %r8, %r3, %r7;
	ld.shared.u32 %r9, [%r8];
	cvt.u64.u32 %rd4, %r7;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r9;
	add.u32 %r7, %r7, 128;
	bra COPY;
DONE:
	ret;
}
`

func tmaLoadSource(rank, bytes int) string {
	coords := []string{"%r4", "%r5", "%r6", "%r11", "%r12"}[:rank]
	s := strings.ReplaceAll(tmaLoadKernel, "BYTES", fmt.Sprint(bytes))
	s = strings.Replace(s, "DIMS", fmt.Sprint(rank), 1)
	return strings.Replace(s, "COORDS", strings.Join(coords, ", "), 1)
}

// tensorBytes returns a tensor of n bytes whose every 2-byte element holds
// its own index plus 1 (never zero, so a zero fill is visible).
func tensorBytes(n int) []byte {
	b := make([]byte, n)
	for i := 0; i+1 < n; i += 2 {
		binary.LittleEndian.PutUint16(b[i:], uint16(i/2+1))
	}
	return b
}

func s32(v int) Arg { return scalar(uint64(uint32(int32(v)))) }

// runTMALoad loads the box of m at coords into shared memory and returns
// the shared tile's bytes; m describes argument 0's tensor.
func runTMALoad(t *testing.T, m tensormap.Map, tensor []byte, coords ...int) []byte {
	t.Helper()
	bytes := m.BoxBytes()
	for len(coords) < 5 {
		coords = append(coords, 0)
	}
	src := tmaLoadSource(m.Rank, bytes)
	p := compile(t, src)
	args := []Arg{{TensorMap: &m, MapOf: 7}, {IsBuffer: true, Buffer: make([]byte, bytes)},
		s32(coords[0]), s32(coords[1]), s32(coords[2]), s32(coords[3]), s32(coords[4]), {IsBuffer: true, Buffer: tensor}}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	return res.Buffers[1].Data
}

func map2D(typ tensormap.DataType, w, h, box0, box1 int, sw tensormap.Swizzle) tensormap.Map {
	es := typ.ElemSize()
	return tensormap.Map{Type: typ, Rank: 2, Dims: [5]uint64{uint64(w), uint64(h)},
		Strides: [4]uint64{uint64(w * es)}, Box: [5]uint32{uint32(box0), uint32(box1)},
		ElemStrides: [5]uint32{1, 1, 1, 1, 1}, Swizzle: sw}
}

// swizzledPos is where element (x, y) of a box with rows of rowBytes
// lands, written from the row and 16-byte column (the documented TMA
// pattern), not from address bits: the column's 16-byte chunk is XORed
// with the row's index within the pattern's period, a row of 128 bytes
// counting as one, a row of 64 as half, a row of 32 as a quarter.
func swizzledPos(sw tensormap.Swizzle, x, y, es, rowBytes int) int {
	byteX := x * es
	chunk, within := byteX/16, byteX%16
	rowsPer128 := 128 / rowBytes
	line := y / rowsPer128 // 128-byte line of the box
	switch sw {
	case tensormap.Swizzle128B:
		chunk ^= line % 8
	case tensormap.Swizzle64B:
		chunk ^= line % 4
	case tensormap.Swizzle32B:
		chunk ^= line % 2
	}
	return y*rowBytes + chunk*16 + within
}

func TestTMALoad2DSwizzle(t *testing.T) {
	const W, H = 96, 40
	tensor := tensorBytes(W * H * 2)
	for _, tc := range []struct {
		sw   tensormap.Swizzle
		box0 int
	}{{tensormap.SwizzleNone, 16}, {tensormap.Swizzle32B, 16}, {tensormap.Swizzle64B, 32}, {tensormap.Swizzle128B, 64}} {
		t.Run(tc.sw.String(), func(t *testing.T) {
			const box1, cx, cy = 16, 16, 8
			m := map2D(tensormap.F16, W, H, tc.box0, box1, tc.sw)
			got := runTMALoad(t, m, tensor, cx, cy)
			want := make([]byte, len(got))
			rowBytes := tc.box0 * 2
			for y := 0; y < box1; y++ {
				for x := 0; x < tc.box0; x++ {
					v := uint16((cy+y)*W + cx + x + 1)
					binary.LittleEndian.PutUint16(want[swizzledPos(tc.sw, x, y, 2, rowBytes):], v)
				}
			}
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("shared tile differs at byte %d: got %#x, want %#x", i, got[i], want[i])
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if len(b) > len(a) {
		return len(a)
	}
	return -1
}

// TestTMALoadOOB loads boxes hanging over every edge of the tensor: the
// elements outside read zero, or NaN with the NaN fill, and the mbarrier
// is credited with the whole box (else the wait never completes).
func TestTMALoadOOB(t *testing.T) {
	const W, H = 40, 24
	tensor := tensorBytes(W * H * 2)
	for _, tc := range []struct {
		cx, cy int
		fill   tensormap.OOBFill
	}{{-8, -3, tensormap.FillNone}, {32, 20, tensormap.FillNone}, {-8, 20, tensormap.FillNaNRequestZeroFMA}, {100, 0, tensormap.FillNone}} {
		t.Run(fmt.Sprintf("%d,%d,fill%d", tc.cx, tc.cy, tc.fill), func(t *testing.T) {
			m := map2D(tensormap.F16, W, H, 16, 8, tensormap.SwizzleNone)
			m.Fill = tc.fill
			got := runTMALoad(t, m, tensor, tc.cx, tc.cy)
			for y := 0; y < 8; y++ {
				for x := 0; x < 16; x++ {
					gx, gy := tc.cx+x, tc.cy+y
					want := uint16(0)
					if gx >= 0 && gx < W && gy >= 0 && gy < H {
						want = uint16(gy*W + gx + 1)
					} else if tc.fill == tensormap.FillNaNRequestZeroFMA {
						want = 0x7fff
					}
					if g := binary.LittleEndian.Uint16(got[(y*16+x)*2:]); g != want {
						t.Fatalf("element (%d,%d): got %#x, want %#x", x, y, g, want)
					}
				}
			}
		})
	}
}

// TestTMALoad3DElementStrides loads a 3D f32 box with an element stride of
// 2 in dimension 1.
func TestTMALoad3DElementStrides(t *testing.T) {
	const X, Y, Z = 8, 10, 3
	tensor := make([]byte, X*Y*Z*4)
	for i := 0; i < X*Y*Z; i++ {
		binary.LittleEndian.PutUint32(tensor[i*4:], math.Float32bits(float32(i)+0.5))
	}
	m := tensormap.Map{Type: tensormap.F32, Rank: 3, Dims: [5]uint64{X, Y, Z}, Strides: [4]uint64{X * 4, X * Y * 4},
		Box: [5]uint32{4, 6, 2}, ElemStrides: [5]uint32{1, 2, 1, 1, 1}}
	got := runTMALoad(t, m, tensor, 4, 1, 1)
	if len(got) != 4*3*2*4 {
		t.Fatalf("box of %d bytes, want %d", len(got), 4*3*2*4)
	}
	i := 0
	for z := 0; z < 2; z++ {
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				gx, gy, gz := 4+x, 1+2*y, 1+z
				want := float32(0)
				if gz < Z {
					want = float32((gz*Y+gy)*X+gx) + 0.5
				}
				if g := math.Float32frombits(binary.LittleEndian.Uint32(got[i*4:])); g != want {
					t.Fatalf("element (%d,%d,%d): got %v, want %v", x, y, z, g, want)
				}
				i++
			}
		}
	}
}

// tmaStoreKernel fills a shared tile (element i holds i + 1000, u32) and
// stores it with a TMA store (or reduction) at (c0, c1), completing through
// a bulk async-group, the way CUTLASS epilogues do.
const tmaStoreKernel = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma_store(
	.param .align 64 .b8 tmap[128],
	.param .u32 c0, .param .u32 c1,
	.param .u64 tensor
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<10>;
	.shared .align 1024 .b8 smem[BYTES];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, smem;
	mov.u32 %r10, 0;
	shl.b32 %r7, %r1, 2;
FILL:
	setp.ge.u32 %p3, %r7, BYTES;
	@%p3 bra FILLED;
	shr.u32 %r9, %r7, 2;
	add.u32 %r9, %r9, 1000;
	add.u32 %r8, %r3, %r7;
	st.shared.u32 [%r8], %r9;
	add.u32 %r7, %r7, 128;
	bra FILL;
FILLED:
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra DONE;
	mov.u64 %rd1, tmap;
	cvta.param.u64 %rd1, %rd1;
	ld.param.u32 %r4, [c0];
	ld.param.u32 %r5, [c1];
	OP [%rd1, {%r4, %r5}], [%r3];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
DONE:
	ret;
}
`

func runTMAStore(t *testing.T, op string, m tensormap.Map, tensor []byte, cx, cy int) []byte {
	t.Helper()
	src := strings.ReplaceAll(tmaStoreKernel, "BYTES", fmt.Sprint(m.BoxBytes()))
	src = strings.Replace(src, "OP", op, 1)
	p := compile(t, src)
	args := []Arg{{TensorMap: &m, MapOf: 3}, s32(cx), s32(cy), {IsBuffer: true, Buffer: tensor}}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	// the statistics count the box's in-bound elements, not the range around them
	if got, want := res.Stats.Stored[SpaceGlobal], uint64(m.InBoundElems([5]int64{int64(cx), int64(cy)})*m.Type.ElemSize()); got != want {
		t.Errorf("%d global bytes stored, want %d", got, want)
	}
	return res.Buffers[3].Data
}

// TestTMAStore stores a u32 box as wide as each swizzle span at the
// tensor's corner: the in-bound part lands, the rest is skipped, bytes
// outside stay.
func TestTMAStore(t *testing.T) {
	const W, H = 40, 12
	for _, tc := range []struct {
		sw   tensormap.Swizzle
		box0 int // u32 elements: the swizzle span's width
	}{{tensormap.SwizzleNone, 16}, {tensormap.Swizzle32B, 8}, {tensormap.Swizzle64B, 16}, {tensormap.Swizzle128B, 32}} {
		sw, box0 := tc.sw, tc.box0
		t.Run(sw.String(), func(t *testing.T) {
			m := map2D(tensormap.U32, W, H, box0, 8, sw)
			tensor := make([]byte, W*H*4)
			for i := range tensor {
				tensor[i] = 0xee
			}
			cx := W - box0 + 4 // the box hangs 4 columns and 2 rows over the edges
			got := runTMAStore(t, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", m, tensor, cx, 6)
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					want := uint32(0xeeeeeeee)
					if bx, by := x-cx, y-6; bx >= 0 && bx < box0 && by >= 0 && by < 8 {
						// shared element at byte p holds p/4 + 1000; find p for (bx, by)
						want = uint32(swizzledPos(sw, bx, by, 4, box0*4)/4 + 1000)
					}
					if g := binary.LittleEndian.Uint32(got[(y*W+x)*4:]); g != want {
						t.Fatalf("(%d,%d): got %#x, want %#x", x, y, g, want)
					}
				}
			}
		})
	}
}

func TestTMAReduce(t *testing.T) {
	const W, H = 16, 8
	m := map2D(tensormap.U32, W, H, 16, 8, tensormap.SwizzleNone)
	for _, tc := range []struct {
		op string
		f  func(old, v uint32) uint32
	}{
		{"add", func(o, v uint32) uint32 { return o + v }},
		{"min", func(o, v uint32) uint32 { return min(o, v) }},
		{"xor", func(o, v uint32) uint32 { return o ^ v }},
	} {
		t.Run(tc.op, func(t *testing.T) {
			tensor := make([]byte, W*H*4)
			for i := 0; i < W*H; i++ {
				binary.LittleEndian.PutUint32(tensor[i*4:], uint32(i*17))
			}
			got := runTMAStore(t, "cp.reduce.async.bulk.tensor.2d.global.shared::cta."+tc.op+".tile.bulk_group", m, tensor, 0, 0)
			for i := 0; i < W*H; i++ {
				want := tc.f(uint32(i*17), uint32(i+1000))
				if g := binary.LittleEndian.Uint32(got[i*4:]); g != want {
					t.Fatalf("element %d: got %d, want %d", i, g, want)
				}
			}
		})
	}
}

func TestTMAReports(t *testing.T) {
	m := map2D(tensormap.F16, 32, 32, 16, 16, tensormap.SwizzleNone)
	src := tmaLoadSource(2, m.BoxBytes())
	p := compile(t, src)
	// A tensor map whose bytes were never encoded.
	args := []Arg{{Raw: make([]byte, 128)}, buf(512), s32(0), s32(0), s32(0), s32(0), s32(0), buf(512)}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleTensMap, "not an encoded tensor map")
	// The map describes a buffer too small for it.
	args = []Arg{{TensorMap: &m, MapOf: 7}, buf(512), s32(0), s32(0), s32(0), s32(0), s32(0), buf(512)}
	if _, err := execute(p, Config{Block: dims(32, 1, 1)}, args); err == nil || !strings.Contains(err.Error(), "spans 2048 bytes") {
		t.Fatalf("got %v, want a launch error about the tensor's extent", err)
	}
}

// tmaMulticastKernel: a cluster of CTAs each initialize their mbarrier
// and arm it for one box; after a cluster barrier, rank 0 multicasts the
// box to the CTAs of the mask; every CTA waits on its own mbarrier and
// writes its shared tile to out[rank*BYTES:]. CTAs outside the mask do not
// wait and write nothing.
const tmaMulticastKernel = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma_mc(
	.param .align 64 .b8 tmap[128],
	.param .u64 out,
	.param .u32 mask,
	.param .u64 tensor
)
{
	.reg .pred %p<6>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<10>;
	.reg .b16 %rs<2>;
	.shared .align 128 .b8 smem[256];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, smem;
	mov.u32 %r10, 0;
	mov.u32 %r11, %cluster_ctarank;
	ld.param.u32 %r12, [mask];
	shr.u32 %r13, %r12, %r11;
	and.b32 %r13, %r13, 1;
	setp.eq.u32 %p4, %r13, 1;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra SYNC;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	@%p4 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 256;
SYNC:
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	setp.eq.u32 %p5, %r11, 0;
	and.pred %p5, %p5, %p1;
	@!%p5 bra WAIT;
	mov.u64 %rd1, tmap;
	mov.u32 %r4, 8;
	mov.u32 %r5, 2;
	cvt.u16.u32 %rs1, %r12;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd1, {%r4, %r5}], [%r2], %rs1;
WAIT:
	@!%p4 bra DONE;
LOOP:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r10;
	@!%p2 bra LOOP;
	ld.param.u64 %rd3, [out];
	mul.wide.u32 %rd6, %r11, 256;
	add.u64 %rd3, %rd3, %rd6;
	shl.b32 %r7, %r1, 2;
	add.u32 %r8, %r3, %r7;
	ld.shared.u32 %r9, [%r8];
	cvt.u64.u32 %rd4, %r7;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r9;
DONE:
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	ret;
}
`

// TestTMAMulticast multicasts a 16x8 f16 box (256 bytes) to ranks 0, 2
// and 3 of a cluster of 4: each lands at the same offset of each masked
// CTA, whose own mbarrier completes; rank 1's memory stays untouched.
func TestTMAMulticast(t *testing.T) {
	const W, H = 32, 16
	p := compile(t, tmaMulticastKernel)
	m := map2D(tensormap.F16, W, H, 16, 8, tensormap.SwizzleNone)
	tensor := tensorBytes(W * H * 2)
	out := make([]byte, 4*256)
	for i := range out {
		out[i] = 0xab
	}
	args := []Arg{{TensorMap: &m, MapOf: 3}, {IsBuffer: true, Buffer: out}, scalar(0b1101), {IsBuffer: true, Buffer: tensor}}
	for _, pol := range []AsyncPolicy{AsyncEager, AsyncDelayed, AsyncRandom} {
		res, err := execute(p, Config{Grid: dims(4, 1, 1), Cluster: dims(4, 1, 1), Block: dims(64, 1, 1), Async: pol, Seed: 3}, args)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report != nil {
			t.Fatalf("%v: unexpected report: %v", pol, res.Report)
		}
		checkMulticast(t, res.Buffers[1].Data, W)
	}
}

func checkMulticast(t *testing.T, got []byte, W int) {
	t.Helper()
	for rank := 0; rank < 4; rank++ {
		for i := 0; i < 128; i++ {
			x, y := i%16, i/16
			want := uint16((2+y)*W + 8 + x + 1)
			if rank == 1 {
				want = 0xabab
			}
			if g := binary.LittleEndian.Uint16(got[rank*256+i*2:]); g != want {
				t.Fatalf("rank %d element (%d,%d): got %#x, want %#x", rank, x, y, g, want)
			}
		}
	}
}

// TestTMASanitizer: reading the tile before waiting on the mbarrier is a
// read of an asynchronous copy's destination in flight; a prefetch
// validates its map.
func TestTMASanitizer(t *testing.T) {
	m := map2D(tensormap.F16, 32, 32, 16, 16, tensormap.SwizzleNone)
	src := strings.Replace(tmaLoadSource(2, m.BoxBytes()), "@!%p2 bra WAIT;", "", 1)
	src = strings.Replace(src, "mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r10;", "", 1)
	p := compile(t, src)
	args := []Arg{{TensorMap: &m, MapOf: 7}, buf(512), s32(0), s32(0), s32(0), s32(0), s32(0), buf(2048)}
	res, err := execute(p, Config{Block: dims(32, 1, 1), Async: AsyncDelayed}, args)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, "async-read-destination", "cp.async.bulk.tensor")

	pf := strings.Replace(tmaLoadSource(2, m.BoxBytes()), "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r2];",
		"cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r4, %r5}];\n\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 0;", 1)
	pf = strings.Replace(pf, "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 512;", "", 1)
	p = compile(t, pf)
	res, err = execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil || res.Report != nil {
		t.Fatalf("prefetch with a valid map: %v %v", err, res.Report)
	}
	args[0] = Arg{Raw: make([]byte, 128)}
	res, err = execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleTensMap, "cp.async.bulk.prefetch.tensor", "not an encoded tensor map")
}

// TestTMALoadRanks loads a box of every rank from 1 to 5 out of a dense
// u16 tensor with padded rows (dimension 1's stride is 16 bytes more than
// a row), the box starting at coordinate 1 in every dimension, so that
// the last element of each dimension falls outside.
func TestTMALoadRanks(t *testing.T) {
	for rank := 1; rank <= 5; rank++ {
		t.Run(fmt.Sprintf("%dd", rank), func(t *testing.T) {
			dimsOf := []int{24, 3, 4, 2, 3}[:rank]
			boxOf := []int{24, 3, 4, 2, 3}[:rank]
			m := tensormap.Map{Type: tensormap.U16, Rank: rank, ElemStrides: [5]uint32{1, 1, 1, 1, 1}}
			strides := make([]int, rank) // bytes
			strides[0] = 2
			size := 0
			for i := 0; i < rank; i++ {
				m.Dims[i], m.Box[i] = uint64(dimsOf[i]), uint32(boxOf[i])
				if i > 0 {
					strides[i] = strides[i-1] * dimsOf[i-1]
					if i == 1 {
						strides[i] += 16
					}
					m.Strides[i-1] = uint64(strides[i])
				}
				size += (dimsOf[i] - 1) * strides[i]
			}
			tensor := tensorBytes(size + 2)
			coords := []int{1, 1, 1, 1, 1}[:rank]
			got := runTMALoad(t, m, tensor, coords...)
			idx := make([]int, rank)
			for e := 0; e < m.BoxElems(); e++ {
				want, in, off := uint16(0), true, 0
				for i := 0; i < rank; i++ {
					c := coords[i] + idx[i]
					in = in && c < dimsOf[i]
					off += c * strides[i]
				}
				if in {
					want = binary.LittleEndian.Uint16(tensor[off:])
				}
				if g := binary.LittleEndian.Uint16(got[2*e:]); g != want {
					t.Fatalf("element %v: got %#x, want %#x", idx, g, want)
				}
				for i := 0; i < rank; i++ {
					if idx[i]++; idx[i] < boxOf[i] {
						break
					}
					idx[i] = 0
				}
			}
		})
	}
}

func TestTMAReduceFloat(t *testing.T) {
	const W, H = 16, 4
	for _, tc := range []struct {
		typ tensormap.DataType
		op  string
		old func(i int) uint64
		f   func(old uint64, i int) uint64 // i: the element index; shared holds u32 i+1000 per 4 bytes
	}{
		{tensormap.F32, "add", func(i int) uint64 { return uint64(math.Float32bits(float32(i) * 0.25)) },
			func(o uint64, i int) uint64 {
				return uint64(math.Float32bits(math.Float32frombits(uint32(o)) + math.Float32frombits(uint32(i+1000))))
			}},
		{tensormap.F32FTZ, "add", func(i int) uint64 { return uint64(math.Float32bits(float32(i) * 0.25)) },
			func(o uint64, i int) uint64 { return o }}, // the shared operands, i+1000 as bits, are subnormal
		{tensormap.S32, "min", func(i int) uint64 { return uint64(uint32(int32(-i))) },
			func(o uint64, i int) uint64 { return uint64(uint32(min(int32(uint32(o)), int32(i+1000)))) }},
		{tensormap.U32, "inc", func(i int) uint64 { return uint64(i * 100) },
			func(o uint64, i int) uint64 {
				if o >= uint64(i+1000) {
					return 0
				}
				return o + 1
			}},
	} {
		t.Run(tc.typ.String()+"."+tc.op, func(t *testing.T) {
			m := map2D(tc.typ, W, H, 16, 4, tensormap.SwizzleNone)
			tensor := make([]byte, W*H*4)
			for i := 0; i < W*H; i++ {
				binary.LittleEndian.PutUint32(tensor[i*4:], uint32(tc.old(i)))
			}
			got := runTMAStore(t, "cp.reduce.async.bulk.tensor.2d.global.shared::cta."+tc.op+".tile.bulk_group", m, tensor, 0, 0)
			for i := 0; i < W*H; i++ {
				want := uint32(tc.f(tc.old(i), i))
				if g := binary.LittleEndian.Uint32(got[i*4:]); g != want {
					t.Fatalf("element %d: got %#x, want %#x", i, g, want)
				}
			}
		})
	}
}

func TestTMADecodeErrors(t *testing.T) {
	for body, want := range map[string]string{
		"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1}], [%r4];":                          "needs 2 coordinates",
		"cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1}];":                                 "takes 3 operands, not 2",
		"cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1], [%r4];":                                 "[tensorMap, {coordinates}]",
		"cp.reduce.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd1, {%r1}], [%r3];":                                                "needs a reduction operation",
		"cp.async.bulk.prefetch.tensor.1d.L2.global.im2col [%rd1, {%r1}];":                                                                       "im2col",
		"cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r4];": "does not implement the .tile::gather4 mode",
		"cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r1, %r1}], [%r4], {1, 2};":       "does not implement the .im2col::w mode",
		"cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r3];":                         "does not implement the .tile::scatter4 mode",
	} {
		src := strings.Replace(mbarrierKernel, "BODY", body, 1)
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", body, errs)
		}
		_, derrs := Decode(m, "")
		if !derrs.HasErrors() || !strings.Contains(derrs[0].Message, want) {
			t.Errorf("%s: got %v, want an error containing %q", body, derrs, want)
		}
	}
}

// TestTMAPrefetchLoadModes86: a prefetch in a load mode of PTX ISA 8.6 is
// a hint the emulator lets pass; it decodes and runs with no effect.
func TestTMAPrefetchLoadModes86(t *testing.T) {
	for _, body := range []string{
		"cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r1, %r1, %r1, %r1}];",
		"cp.async.bulk.prefetch.tensor.4d.L2.global.im2col::w::128 [%rd1, {%r1, %r1, %r1, %r1}], {1, 2};",
	} {
		src := strings.Replace(mbarrierKernel, "BODY", body, 1)
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", body, errs)
		}
		if _, derrs := Decode(m, ""); derrs.HasErrors() {
			t.Errorf("%s: %v", body, derrs)
		}
	}
}

// TestTMAHostileMap: a map whose tensor wraps around the address space,
// and one describing more than the memory it points at, are reported.
func TestTMAHostileMap(t *testing.T) {
	m := map2D(tensormap.F16, 32, 32, 16, 16, tensormap.SwizzleNone)
	p := compile(t, tmaLoadSource(2, m.BoxBytes()))
	huge := m
	huge.Address, huge.Dims[1], huge.Strides[0] = 0x10_0000_0000, 1<<32, 1<<39
	enc, err := huge.Encode()
	if err != nil {
		t.Fatal(err)
	}
	args := []Arg{{Raw: enc[:]}, buf(512), s32(0), s32(1 << 30), s32(0), s32(0), s32(0), buf(512)}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, res, ruleTensMap, "past the end of the address space")
	small := m
	small.Address = 0x10_0000_0000 // the first buffer: 512 bytes, the box reaches row 15 of 64-byte rows
	if enc, err = small.Encode(); err != nil {
		t.Fatal(err)
	}
	args[0], args[3] = Arg{Raw: enc[:]}, s32(0)
	res, err = execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report == nil || res.Report.Rule != ruleOutOfBounds {
		t.Fatalf("got %v, want an out-of-bounds report", res.Report)
	}
}

// tmaPipelineKernel walks the tiles of a row of 16x8 u32 boxes with one
// mbarrier reused phase after phase (parity = iteration & 1), as a
// single-stage producer/consumer loop does: thread 0 arms and issues, all
// wait, each thread sums its 4 elements of every tile, and bar.sync
// protects the tile before it is overwritten.
const tmaPipelineKernel = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma_pipe(
	.param .align 64 .b8 tmap[128],
	.param .u64 out,
	.param .u32 tiles,
	.param .u64 tensor
)
{
	.reg .pred %p<6>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<10>;
	.shared .align 1024 .b8 smem[512];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, smem;
	ld.param.u32 %r20, [tiles];
	mov.u64 %rd1, tmap;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra START;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
START:
	bar.sync 0;
	mov.u32 %r10, 0;
	mov.u32 %r11, 0;
	mov.u32 %r12, 0;
LOOP:
	setp.ge.u32 %p3, %r10, %r20;
	@%p3 bra END;
	@!%p1 bra WAIT;
	shl.b32 %r4, %r10, 4;
	mov.u32 %r5, 0;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 512;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r11;
	@!%p2 bra WAIT;
	shl.b32 %r13, %r1, 4;
	add.u32 %r13, %r3, %r13;
	ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r13];
	add.u32 %r12, %r12, %r14;
	add.u32 %r12, %r12, %r15;
	add.u32 %r12, %r12, %r16;
	add.u32 %r12, %r12, %r17;
	bar.sync 0;
	xor.b32 %r11, %r11, 1;
	add.u32 %r10, %r10, 1;
	bra LOOP;
END:
	ld.param.u64 %rd3, [out];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r12;
	ret;
}
`

func TestTMAPipeline(t *testing.T) {
	const W, H, tiles = 72, 8, 5 // the last tile hangs 8 columns over the edge
	m := map2D(tensormap.U32, W, H, 16, 8, tensormap.SwizzleNone)
	tensor := make([]byte, W*H*4)
	for i := 0; i < W*H; i++ {
		binary.LittleEndian.PutUint32(tensor[i*4:], uint32(i*i+3))
	}
	p := compile(t, tmaPipelineKernel)
	args := []Arg{{TensorMap: &m, MapOf: 3}, buf(32 * 4), scalar(tiles), {IsBuffer: true, Buffer: tensor}}
	for _, pol := range []AsyncPolicy{AsyncEager, AsyncDelayed, AsyncRandom} {
		res, err := execute(p, Config{Block: dims(32, 1, 1), Async: pol, Seed: 7}, args)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report != nil {
			t.Fatalf("%v: unexpected report: %v", pol, res.Report)
		}
		got := u32s(res.Buffers[1].Data)
		for th := 0; th < 32; th++ {
			var want uint32
			for k := 0; k < tiles; k++ {
				for e := th * 4; e < th*4+4; e++ { // element e of the 16x8 box
					x, y := k*16+e%16, e/16
					if x < W {
						want += uint32((y*W+x)*(y*W+x) + 3)
					}
				}
			}
			if got[th] != want {
				t.Fatalf("%v: thread %d sum %d, want %d", pol, th, got[th], want)
			}
		}
	}
}

// TestTMAMapOperandForms names the map directly ([tmap, {..}]), the way
// some compilers write a __grid_constant__ parameter's use.
func TestTMAMapOperandForms(t *testing.T) {
	m := map2D(tensormap.U32, 8, 8, 8, 4, tensormap.SwizzleNone)
	tensor := make([]byte, 8*8*4)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(tensor[i*4:], uint32(i+1))
	}
	named := strings.Replace(tmaLoadSource(2, m.BoxBytes()), "[%rd1, {", "[tmap, {", 1)
	// CUTLASS's form: no .tile, with an L2 cache policy operand
	hinted := strings.Replace(tmaLoadSource(2, m.BoxBytes()), ".global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r2];",
		".global.mbarrier::complete_tx::bytes.L2::cache_hint [%r3], [%rd1, {%r4, %r5}], [%r2], %rd2;", 1)
	for _, src := range []string{named, hinted} {
		p := compile(t, src)
		args := []Arg{{TensorMap: &m, MapOf: 7}, buf(m.BoxBytes()), s32(0), s32(2), s32(0), s32(0), s32(0), {IsBuffer: true, Buffer: tensor}}
		res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
		if err != nil || res.Report != nil {
			t.Fatalf("%v %v", err, res.Report)
		}
		for i, v := range u32s(res.Buffers[1].Data) {
			if v != uint32(16+i+1) {
				t.Fatalf("element %d = %d, want %d", i, v, 16+i+1)
			}
		}
	}
}

// TestTMAMapOwnBuffer: a tensor-map argument with a buffer of its own (a
// kernel that receives only the maps of its tensors) loads the same tile
// as a map of another buffer argument; a map larger than its own buffer is
// a launch error.
func TestTMAMapOwnBuffer(t *testing.T) {
	const W, H = 32, 32
	tensor := make([]byte, 2*W*H)
	for i := range tensor {
		tensor[i] = byte(i*7 + i/64)
	}
	m := map2D(tensormap.F16, W, H, 16, 8, tensormap.Swizzle32B)
	want := runTMALoad(t, m, tensor, 16, 8)
	p := compile(t, tmaLoadSource(2, m.BoxBytes()))
	args := []Arg{{TensorMap: &m, IsBuffer: true, Buffer: tensor}, buf(m.BoxBytes()),
		s32(16), s32(8), s32(0), s32(0), s32(0), buf(16)}
	res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	if got := res.Buffers[1].Data; string(got) != string(want) {
		t.Fatalf("own-buffer map loaded %x, want %x", got, want)
	}
	args[0].Buffer = tensor[:len(tensor)/2]
	if _, err := execute(p, Config{Block: dims(32, 1, 1)}, args); err == nil || !strings.Contains(err.Error(), "the buffer of argument 0") {
		t.Fatalf("a map past its own buffer: got %v", err)
	}
}

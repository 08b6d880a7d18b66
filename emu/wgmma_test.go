package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// wgmmaKernel: a warpgroup (128 threads) copies a prepared shared-memory
// image from global memory, builds the A and B descriptors from the
// buffer's address (masked to 18 bits, as Triton writes it) and the given
// high bits (LBO, SBO, swizzle), runs one
// wgmma.mma_async.m64n16k16.f32.f16.f16 between fence, commit and wait,
// and stores D as a 64×16 row-major f32 matrix.
const wgmmaKernel = `.version 8.5
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 img, .param .u64 out, .param .u64 ahi, .param .u64 bhi, .param .u32 boff)
{
	.shared .align 1024 .b8 smem[16384];
	.reg .pred %p<2>;
	.reg .b32 %r<20>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<20>;
	ld.param.u64 %rd1, [img];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %r1;
COPY:
	mul.wide.u32 %rd3, %r2, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r3, [%rd4];
	shl.b32 %r4, %r2, 2;
	mov.u32 %r5, smem;
	add.u32 %r6, %r5, %r4;
	st.shared.u32 [%r6], %r3;
	add.u32 %r2, %r2, 128;
	setp.lt.u32 %p1, %r2, 4096;
	@%p1 bra COPY;
	bar.sync 0;
	mov.u32 %r5, smem;
	cvt.u64.u32 %rd5, %r5;
	and.b64 %rd5, %rd5, 262143;
	shr.u64 %rd6, %rd5, 4;
	ld.param.u64 %rd7, [ahi];
	or.b64 %rd8, %rd7, %rd6;
	ld.param.u32 %r7, [boff];
	add.u32 %r8, %r5, %r7;
	cvt.u64.u32 %rd9, %r8;
	and.b64 %rd9, %rd9, 262143;
	shr.u64 %rd10, %rd9, 4;
	ld.param.u64 %rd11, [bhi];
	or.b64 %rd12, %rd11, %rd10;
	mov.f32 %f0, 0f3F800000;
	mov.f32 %f1, 0f3F800000;
	mov.f32 %f2, 0f3F800000;
	mov.f32 %f3, 0f3F800000;
	mov.f32 %f4, 0f3F800000;
	mov.f32 %f5, 0f3F800000;
	mov.f32 %f6, 0f3F800000;
	mov.f32 %f7, 0f3F800000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd8, %rd12, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	// D element i of lane l of warp w: row 16w + g + 8((i/2)%2), column 8(i/4) + 2t + i%2
	shr.u32 %r9, %r1, 5;
	and.b32 %r10, %r1, 31;
	shr.u32 %r11, %r10, 2;
	and.b32 %r12, %r10, 3;
	shl.b32 %r13, %r9, 4;
	add.u32 %r13, %r13, %r11;
	shl.b32 %r14, %r12, 1;
	mad.lo.u32 %r15, %r13, 16, %r14;
	mul.wide.u32 %rd13, %r15, 4;
	add.u64 %rd14, %rd2, %rd13;
	st.global.v2.f32 [%rd14], {%f0, %f1};
	st.global.v2.f32 [%rd14+512], {%f2, %f3};
	st.global.v2.f32 [%rd14+32], {%f4, %f5};
	st.global.v2.f32 [%rd14+544], {%f6, %f7};
	ret;
}
`

// canonicalKMajor is the byte offset of element (row r, k) of a K-major
// f16 operand in the canonical layouts of the wgmma section: without
// swizzle, 8×8 core matrices of 128 contiguous bytes, the next along K at
// lbo and the next 8 rows at sbo; with a swizzle of w bytes, rows of w
// bytes, 8-row atoms sbo apart, and the 16-byte chunk index XORed with the
// row within the 8-row group (Swizzle<log2(w/16), 4, 3> on the offset).
func canonicalKMajor(r, k, w, lbo, sbo int) int {
	if w == 0 {
		return (r/8)*sbo + (k/8)*lbo + (r%8)*16 + (k%8)*2
	}
	chunk := (k * 2) / 16
	// the row bits above the w-byte row that fall on address bits 7 and up
	phys := chunk ^ map[int]int{32: r % 8 / 4, 64: r % 8 / 2, 128: r % 8}[w]
	return (r/8)*sbo + (r%8)*w + phys*16 + (k*2)%16
}

func TestWgmmaSwizzleModes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, mode := range []struct{ code, width int }{{0, 0}, {3, 32}, {2, 64}, {1, 128}} {
		const m, n, k = 64, 16, 16
		A := make([]int, m*k)
		B := make([]int, n*k) // B[col*k + kk]
		for i := range A {
			A[i] = r.IntN(9) - 4
		}
		for i := range B {
			B[i] = r.IntN(9) - 4
		}
		lbo, sbo := 128, 256
		if mode.width != 0 {
			lbo, sbo = 0, 8*mode.width
		}
		img := make([]byte, 16384)
		const boff = 8192
		for row := range m {
			for kk := range k {
				binary.LittleEndian.PutUint16(img[canonicalKMajor(row, kk, mode.width, lbo, sbo):], uint16(fbits("f16", A[row*k+kk])))
			}
		}
		for col := range n {
			for kk := range k {
				binary.LittleEndian.PutUint16(img[boff+canonicalKMajor(col, kk, mode.width, lbo, sbo):], uint16(fbits("f16", B[col*k+kk])))
			}
		}
		hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | uint64(mode.code)<<62
		res := launch(t, wgmmaKernel, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
			scalar(hi), scalar(hi), scalar(boff))
		out := u32s(res.Buffers[1].Data)
		for i := range m {
			for j := range n {
				want := 1
				for kk := range k {
					want += A[i*k+kk] * B[j*k+kk]
				}
				if got := math.Float32frombits(out[i*n+j]); got != float32(want) {
					t.Fatalf("swizzle %dB: D[%d][%d] = %v, want %d", mode.width, i, j, got, want)
				}
			}
		}
	}
}

// TestWgmmaBadImmediates: an imm-trans other than 0 or 1 is reported at decode.
func TestWgmmaBadImmediates(t *testing.T) {
	bad := `.version 8.5
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 2, 0;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", bad)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	if _, errs := Decode(m, ""); !errs.HasErrors() || !strings.Contains(errs.Err().Error(), "imm-trans must be 0 or 1") {
		t.Fatalf("imm-trans-a 2 was not reported: %v", errs)
	}
}

// TestWgmmaMalformed: missing operands are a diagnostic, not a crash.
func TestWgmmaMalformed(t *testing.T) {
	for _, body := range []string{
		"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3};",
		"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1;",
		"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1}, %rd1, %rd2, 1, 1, 1, 0, 0;",
	} {
		src := ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n\t" + body + "\n\tret;\n}\n"
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatal(errs.Err())
		}
		if _, errs := Decode(m, ""); !errs.HasErrors() {
			t.Errorf("%s: no diagnostic", body)
		}
	}
}

// TestWgmmaInteger: m64n16k32.s32.s8.u8 with scale-d 0 (D = A·B), 128B swizzle.
func TestWgmmaInteger(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const m, n, k, w = 64, 16, 32, 128
	A := make([]int, m*k)
	B := make([]int, n*k)
	for i := range A {
		A[i] = r.IntN(256) - 128
	}
	for i := range B {
		B[i] = r.IntN(256)
	}
	img := make([]byte, 16384)
	const boff = 8192
	place := func(row, b int) int { // 128B swizzle: chunk ^= row%8
		return (row/8)*8*w + (row%8)*w + ((b/16)^(row%8))*16 + b%16
	}
	for row := range m {
		for kk := range k {
			img[place(row, kk)] = byte(A[row*k+kk])
		}
	}
	for col := range n {
		for kk := range k {
			img[boff+place(col, kk)] = byte(B[col*k+kk])
		}
	}
	src := strings.Replace(wgmmaKernel, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd8, %rd12, 1, 1, 1, 0, 0;",
		"wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd8, %rd12, 0;", 1)
	// s32 accumulators live in .b32 registers (ptxas 12.5 refuses .f32 ones)
	src = strings.ReplaceAll(strings.Replace(src, ".reg .f32 %f<8>;", ".reg .b32 %f<8>;", 1), "st.global.v2.f32", "st.global.v2.b32")
	hi := uint64(8*w>>4)<<32 | 1<<62
	res := launch(t, src, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n), scalar(hi), scalar(hi), scalar(boff))
	out := u32s(res.Buffers[1].Data)
	for i := range m {
		for j := range n {
			want := 0
			for kk := range k {
				want += A[i*k+kk] * B[j*k+kk]
			}
			if got := int32(out[i*n+j]); int(got) != want {
				t.Fatalf("D[%d][%d] = %d, want %d", i, j, got, want)
			}
		}
	}
}

// TestWgmmaBinary: m64n16k256.s32.b1.b1.and.popc (A and B 256 bits of K
// per row and column, 128B swizzle): D = C + the number of K positions
// where both bits are set, with scale-d 0 (C = 0) and 1 (C = the
// kernel's initial 0x3f800000).
func TestWgmmaBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const m, n, kb, w = 64, 16, 32, 128 // kb: bytes of K
	img := make([]byte, 16384)
	const boff = 8192
	place := func(row, b int) int { return (row/8)*8*w + (row%8)*w + ((b/16)^(row%8))*16 + b%16 }
	A, B := make([]byte, m*kb), make([]byte, n*kb)
	for i := range A {
		A[i] = byte(r.IntN(256))
		img[place(i/kb, i%kb)] = A[i]
	}
	for i := range B {
		B[i] = byte(r.IntN(256))
		img[boff+place(i/kb, i%kb)] = B[i]
	}
	for _, scale := range []int{0, 1} {
		src := strings.Replace(wgmmaKernel, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd8, %rd12, 1, 1, 1, 0, 0;",
			fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc {%%f0, %%f1, %%f2, %%f3, %%f4, %%f5, %%f6, %%f7}, %%rd8, %%rd12, %d;", scale), 1)
		src = strings.ReplaceAll(strings.Replace(src, ".reg .f32 %f<8>;", ".reg .b32 %f<8>;", 1), "st.global.v2.f32", "st.global.v2.b32")
		src = strings.ReplaceAll(src, "mov.f32 %f", "mov.b32 %f")
		hi := uint64(8*w>>4)<<32 | 1<<62
		res := launch(t, src, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n), scalar(hi), scalar(hi), scalar(boff))
		out := u32s(res.Buffers[1].Data)
		for i := range m {
			for j := range n {
				want := uint32(0)
				if scale == 1 {
					want = 0x3f800000
				}
				for p := range 8 * kb {
					want += uint32((A[i*kb+p/8] >> (p % 8)) & (B[j*kb+p/8] >> (p % 8)) & 1)
				}
				if out[i*n+j] != want {
					t.Fatalf("scale-d %d: D[%d][%d] = %#x, want %#x", scale, i, j, out[i*n+j], want)
				}
			}
		}
	}
}

package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// wgmmaSparseCase is one wgmma.mma_async.sp form under test.
type wgmmaSparseCase struct {
	ty, dty string
	k, n    int
	width   int // swizzle of A and B (0, 32, 64, 128)
	sel     int
	aRegs   bool // A from registers (f16/bf16)
}

func (c wgmmaSparseCase) bytes() int {
	switch c.ty {
	case "tf32":
		return 4
	case "f16", "bf16":
		return 2
	}
	return 1
}

func (c wgmmaSparseCase) integer() bool { return c.ty == "s8" || c.ty == "u8" }

// kmajor is the byte offset of (row, byte b) of a K-major operand whose
// rows are rowBytes long, in the canonical layout of the swizzle width
// (core matrices of 8 rows × 16 bytes, LBO 128 and SBO 128·rowBytes/16
// without swizzle; rows of width bytes, atoms of 8 rows, the 16-byte chunk
// bits [4, 4+log2(width/16)) XORed with bits 7 and up, SBO 8·width, with
// one).
func (c wgmmaSparseCase) kmajor(row, b, rowBytes int) int {
	if c.width == 0 {
		return (row/8)*(rowBytes/16)*128 + (b/16)*128 + (row%8)*16 + b%16
	}
	off := (row/8)*8*c.width + (row%8)*c.width + b
	return off ^ (off>>7&(c.width/16-1))<<4 // Swizzle<log2(width/16), 4, 3>
}

func (c wgmmaSparseCase) hi(rowBytes int) uint64 {
	code := map[int]uint64{0: 0, 32: 3, 64: 2, 128: 1}[c.width]
	if c.width == 0 {
		return 128>>4<<16 | uint64(rowBytes/16*128)>>4<<32
	}
	return uint64(8*c.width)>>4<<32 | code<<62
}

// TestWgmmaSparse: wgmma.mma_async.sp with A (stored 64 × K/2) and B from
// descriptors, the metadata read from shared memory into a register, on
// random structured-sparse small-integer matrices; D is compared with
// A·B + 1 (A·B for the integers, scale-d 0) computed exactly.
func TestWgmmaSparse(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for _, c := range []wgmmaSparseCase{
		{"f16", "f32", 32, 16, 128, 1, false}, {"bf16", "f32", 32, 8, 0, 0, false}, {"f16", "f32", 32, 24, 64, 0, false},
		{"tf32", "f32", 16, 16, 0, 1, false}, {"tf32", "f32", 16, 8, 64, 0, false},
		{"e4m3", "f32", 64, 16, 128, 0, false}, {"s8", "s32", 64, 16, 0, 0, false},
		{"f16", "f32", 32, 16, 128, 1, true}, {"bf16", "f32", 32, 8, 0, 0, true},
	} {
		t.Run(fmt.Sprintf("%s/k%d/n%d/W%d/sel%d/aRegs=%v", c.ty, c.k, c.n, c.width, c.sel, c.aRegs), func(t *testing.T) {
			const m = 64
			eb := c.bytes()
			half := c.k / 2
			val := func() int {
				if c.integer() {
					return r.IntN(256) - 128
				}
				return r.IntN(9) - 4
			}
			A := make([][]int, m) // dense
			stored := make([][]int, m)
			fields := make([][]int, m)
			for row := range m {
				A[row] = make([]int, c.k)
				if c.ty == "tf32" {
					for ch := range c.k / 2 {
						pick := r.IntN(2)
						stored[row] = append(stored[row], 2*ch+pick)
						fields[row] = append(fields[row], []int{0b0100, 0b1110}[pick])
					}
				} else {
					for ch := range c.k / 4 {
						i0 := r.IntN(3)
						i1 := i0 + 1 + r.IntN(3-i0)
						stored[row] = append(stored[row], 4*ch+i0, 4*ch+i1)
						fields[row] = append(fields[row], i0|i1<<2)
					}
				}
				for _, col := range stored[row] {
					if A[row][col] = val(); A[row][col] == 0 {
						A[row][col] = 1
					}
				}
			}
			B := make([][]int, c.n) // by columns: B[col][k]
			for col := range B {
				B[col] = make([]int, c.k)
				for k := range B[col] {
					B[col][k] = val()
				}
			}
			img := make([]byte, 16384)
			const boff, moff, roff = 8192, 12288, 13312
			enc := func(v int) uint64 {
				if c.integer() {
					return uint64(uint8(int8(v)))
				}
				return fbits(c.ty, v)
			}
			put := func(off int, v uint64) {
				for i := range eb {
					img[off+i] = byte(v >> (8 * i))
				}
			}
			for row := range m {
				for j, col := range stored[row] {
					put(c.kmajor(row, j*eb, half*eb), enc(A[row][col]))
				}
			}
			for col := range c.n {
				for k := range c.k {
					put(boff+c.kmajor(col, k*eb, c.k*eb), enc(B[col][k]))
				}
			}
			if c.aRegs { // thread's registers r = 0-3: row g + 8(r%2) of its warp, dense columns 4t + 16(r/2) .. +3
				for tid := range 128 {
					w, g, tt := tid/32, tid%32/4, tid%4
					for reg := range 4 {
						row, first := 16*w+g+8*(reg%2), 4*tt+16*(reg/2)
						i := 0
						for _, col := range stored[row] {
							if col >= first && col < first+4 {
								put(roff+16*tid+4*reg+2*i, enc(A[row][col]))
								i++
							}
						}
					}
				}
			}
			per := len(fields[0]) / 4
			for row := range m {
				w, rr := row/16, row%16
				for ch, f := range fields[row] {
					tid := 32*w + 4*(rr%8) + c.sel*per + ch/4
					o := moff + 4*tid
					binary.LittleEndian.PutUint32(img[o:], binary.LittleEndian.Uint32(img[o:])|uint32(f)<<(16*(rr/8)+4*(ch%4)))
				}
			}
			ty := c.ty
			imm := ", 1, 1, 1"
			switch {
			case c.integer():
				imm = ", 0"
			case c.ty == "f16" || c.ty == "bf16":
				imm = ", 1, 1, 1, 0, 0"
			}
			aOp := "%rd8"
			if c.aRegs {
				aOp, imm = "{%r20, %r21, %r22, %r23}", ", 1, 1, 1, 0"
			}
			instr := fmt.Sprintf("shl.b32 %%r17, %%r1, 2;\n\tadd.u32 %%r17, %%r17, %%r5;\n\tld.shared.u32 %%r16, [%%r17+%d];\n\t"+
				"shl.b32 %%r17, %%r1, 4;\n\tadd.u32 %%r17, %%r17, %%r5;\n\tld.shared.v4.b32 {%%r20, %%r21, %%r22, %%r23}, [%%r17+%d];\n\t"+
				"wgmma.fence.sync.aligned;\n\t"+ // orders the loads of A before the wgmma.mma_async that reads them
				"wgmma.mma_async.sp.sync.aligned.m64n%dk%d.%s.%s.%s {D}, %s, %%rd12, %%r16, %d%s;", moff, roff, c.n, c.k, c.dty, ty, ty, aOp, c.sel, imm)
			src := strings.Replace(wgmmaTile(c.n, instr), ".reg .b32 %r<20>;", ".reg .b32 %r<24>;", 1)
			if c.integer() { // s32 accumulators live in .b32 registers (ptxas refuses .f32 ones)
				src = strings.ReplaceAll(strings.Replace(src, ".reg .f32 %f<", ".reg .b32 %f<", 1), "st.global.f32", "st.global.b32")
			}
			res := launch(t, src, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*c.n),
				scalar(c.hi(half*eb)), scalar(c.hi(c.k*eb)), scalar(boff))
			out := u32s(res.Buffers[1].Data)
			for i := range m {
				for j := range c.n {
					want := big.NewRat(1, 1)
					if c.integer() {
						want = new(big.Rat)
					}
					for k := range c.k {
						want.Add(want, big.NewRat(int64(A[i][k]*B[j][k]), 1))
					}
					got := new(big.Rat).SetFloat64(float64(math.Float32frombits(out[i*c.n+j])))
					if c.integer() {
						got = big.NewRat(int64(int32(out[i*c.n+j])), 1)
					}
					if got.Cmp(want) != 0 {
						t.Fatalf("D[%d][%d] = %s, want %s", i, j, got.RatString(), want.RatString())
					}
				}
			}
		})
	}
}

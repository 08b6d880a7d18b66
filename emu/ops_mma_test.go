package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// fragment layouts of the 8-bit integer mma shapes as the manual states
// them (§9.7.14.5.14), per register index r and byte i of the register:
// groupID = lane>>2, threadID_in_group = lane%4.
func mmaAPos(m, lane, r, i int) (row, col int) {
	g, t := lane>>2, lane%4
	row = g
	if m == 16 && (r == 1 || r == 3) {
		row = g + 8
	}
	col = t*4 + i
	if r >= 2 {
		col = t*4 + i + 16
	}
	return
}

func mmaBPos(lane, r, i int) (row, col int) {
	row = (lane%4)*4 + i
	if r == 1 {
		row += 16
	}
	return row, lane >> 2
}

func mmaCPos(lane, r int) (row, col int) {
	row = lane >> 2
	if r >= 2 {
		row += 8
	}
	return row, (lane%4)*2 + r%2
}

// TestMmaInteger multiplies random 8-bit matrices with each integer shape
// and signedness and compares D with A*B + C computed here.
func TestMmaInteger(t *testing.T) {
	shapes := []struct{ m, n, k int }{{8, 8, 16}, {16, 8, 16}, {16, 8, 32}}
	seed := uint32(12345)
	rnd := func() uint32 {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return seed
	}
	for _, sh := range shapes {
		for _, ty := range [][2]string{{"s8", "s8"}, {"u8", "s8"}, {"u8", "u8"}} {
			for _, sat := range []bool{false, true} {
				op := fmt.Sprintf("mma.sync.aligned.m%dn%dk%d.row.col", sh.m, sh.n, sh.k)
				if sat {
					op += ".satfinite"
				}
				op += ".s32." + ty[0] + "." + ty[1] + ".s32"
				t.Run(op, func(t *testing.T) {
					na, nb, nc := sh.m*sh.k/128, sh.k*sh.n/128, sh.m*sh.n/32
					A := make([][]int64, sh.m)
					for i := range A {
						A[i] = make([]int64, sh.k)
					}
					B := make([][]int64, sh.k)
					for i := range B {
						B[i] = make([]int64, sh.n)
					}
					C := make([][]int64, sh.m)
					for i := range C {
						C[i] = make([]int64, sh.n)
					}
					in := make([]byte, 4*32*(na+nb+nc))
					put := func(reg, lane int, v uint32) { binary.LittleEndian.PutUint32(in[4*(reg*32+lane):], v) }
					val := func(b uint8, typ string) int64 {
						if typ == "s8" {
							return int64(int8(b))
						}
						return int64(b)
					}
					for lane := range 32 {
						for r := range na {
							var word uint32
							for i := range 4 {
								b := uint8(rnd())
								row, col := mmaAPos(sh.m, lane, r, i)
								A[row][col] = val(b, ty[0])
								word |= uint32(b) << (8 * i)
							}
							put(r, lane, word)
						}
						for r := range nb {
							var word uint32
							for i := range 4 {
								b := uint8(rnd())
								row, col := mmaBPos(lane, r, i)
								B[row][col] = val(b, ty[1])
								word |= uint32(b) << (8 * i)
							}
							put(na+r, lane, word)
						}
						for r := range nc {
							v := rnd()
							if r == 1 && lane%3 == 0 { // near the s32 limits, for .satfinite
								v = 0x7fffff00 | v&0xff
							}
							row, col := mmaCPos(lane, r)
							C[row][col] = int64(int32(v))
							put(na+nb+r, lane, v)
						}
					}
					res := launch(t, mmaKernel(op, na, nb, nc), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(4*32*nc))
					out := u32s(res.Buffers[1].Data)
					for lane := range 32 {
						for r := range nc {
							row, col := mmaCPos(lane, r)
							s := C[row][col]
							for k := range sh.k {
								s += A[row][k] * B[k][col]
							}
							if sat {
								s = min(max(s, math.MinInt32), math.MaxInt32)
							}
							if got := out[r*32+lane]; got != uint32(s) {
								t.Fatalf("lane %d d%d (row %d col %d): %#x, want %#x", lane, r, row, col, got, uint32(s))
							}
						}
					}
				})
			}
		}
	}
}

// mmaKernel loads register r of lane l from in[r*32+l], runs op and
// stores d register r at out[r*32+l].
func mmaKernel(op string, na, nb, nc int) string {
	var b strings.Builder
	b.WriteString(header + ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n\t.reg .b64 %rd<8>;\n\t.reg .b32 %r<40>;\n")
	b.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r0, %laneid;\n\tmul.wide.u32 %rd3, %r0, 4;\n\tadd.u64 %rd4, %rd1, %rd3;\n\tadd.u64 %rd5, %rd2, %rd3;\n")
	regs := func(first, n int) string {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("%%r%d", first+i))
		}
		return "{" + strings.Join(names, ", ") + "}"
	}
	for i := range na + nb + nc {
		fmt.Fprintf(&b, "\tld.global.u32 %%r%d, [%%rd4+%d];\n", 10+i, 128*i)
	}
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", op, regs(30, nc), regs(10, na), regs(10+na, nb), regs(10+na+nb, nc))
	for i := range nc {
		fmt.Fprintf(&b, "\tst.global.u32 [%%rd5+%d], %%r%d;\n", 128*i, 30+i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// TestMmaNeedsTheWholeWarp: mma.sync.aligned in divergent code is
// reported, and floating-point shapes are refused at decode.
func TestMmaNeedsTheWholeWarp(t *testing.T) {
	src := strings.Replace(mmaKernel("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", 1, 1, 2),
		"\tld.global.u32 %r10", "\tsetp.lt.u32 %p1, %r0, 16;\n\t@%p1 bra DONE;\n\tld.global.u32 %r10", 1)
	src = strings.Replace(src, "\tret;", "DONE:\n\tret;", 1)
	src = strings.Replace(src, ".reg .b32 %r<40>;", ".reg .b32 %r<40>;\n\t.reg .pred %p<2>;", 1)
	res := launchReport(t, src, Config{Block: dims(32, 1, 1)}, buf(4*32*4), buf(4*32*2))
	wantReport(t, res, RuleUnsupported, "every thread of the warp")
}

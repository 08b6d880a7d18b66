package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Fragment layouts of the integer mma shapes as the manual states them
// (§9.7.14.5.14), per register index r and element i of the register
// (e = 32/bits elements per register): groupID = lane>>2,
// threadID_in_group = lane%4.
func mmaAPos(m, k, e, lane, r, i int) (row, col int) {
	g, t := lane>>2, lane%4
	row = g
	if m == 16 && (r == 1 || r == 3) {
		row = g + 8
	}
	col = t*e + i
	if r >= 2 {
		col = t*e + i + k/2
	}
	return
}

func mmaBPos(k, e, lane, r, i int) (row, col int) {
	row = (lane%4)*e + i
	if r == 1 {
		row += k / 2
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

// TestMmaInteger multiplies random integer matrices with each shape,
// element width and signedness and compares D with A*B + C computed here
// (for .b1: C + popc(A row AND/XOR B column)).
func TestMmaInteger(t *testing.T) {
	type shape struct{ m, n, k, bits int }
	shapes := []shape{{8, 8, 16, 8}, {16, 8, 16, 8}, {16, 8, 32, 8}, {8, 8, 32, 4}, {16, 8, 32, 4}, {16, 8, 64, 4},
		{8, 8, 128, 1}, {16, 8, 128, 1}, {16, 8, 256, 1}}
	seed := uint32(12345)
	rnd := func() uint32 {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return seed
	}
	for _, sh := range shapes {
		types := [][2]string{{"s8", "s8"}, {"u8", "s8"}, {"u8", "u8"}}
		switch sh.bits {
		case 4:
			types = [][2]string{{"s4", "s4"}, {"u4", "s4"}, {"u4", "u4"}}
		case 1:
			types = [][2]string{{"b1", "and"}, {"b1", "xor"}}
		}
		for _, ty := range types {
			for _, sat := range []bool{false, true} {
				if sh.bits == 1 && sat {
					continue
				}
				op := fmt.Sprintf("mma.sync.aligned.m%dn%dk%d.row.col", sh.m, sh.n, sh.k)
				if sat {
					op += ".satfinite"
				}
				if sh.bits == 1 {
					op += ".s32.b1.b1.s32." + ty[1] + ".popc"
				} else {
					op += ".s32." + ty[0] + "." + ty[1] + ".s32"
				}
				t.Run(op, func(t *testing.T) {
					e := 32 / sh.bits
					na, nb, nc := sh.m*sh.k/32/e, sh.k*sh.n/32/e, sh.m*sh.n/32
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
					val := func(word uint32, i int, typ string) int64 {
						v := int64(word >> (i * sh.bits) & (1<<sh.bits - 1))
						if typ[0] == 's' && v>>(sh.bits-1) == 1 {
							v -= 1 << sh.bits
						}
						return v
					}
					for lane := range 32 {
						for r := range na {
							word := rnd()
							for i := range e {
								row, col := mmaAPos(sh.m, sh.k, e, lane, r, i)
								A[row][col] = val(word, i, ty[0])
							}
							put(r, lane, word)
						}
						for r := range nb {
							word := rnd()
							for i := range e {
								row, col := mmaBPos(sh.k, e, lane, r, i)
								B[row][col] = val(word, i, ty[1])
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
								switch {
								case sh.bits > 1:
									s += A[row][k] * B[k][col]
								case ty[1] == "xor":
									s += A[row][k] ^ B[k][col]
								default:
									s += A[row][k] & B[k][col]
								}
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

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

// mma884Kernel: every lane loads its A (2 words), B (2) and C (nc)
// registers from in[lane*16 ...], runs the m8n8k4 mma and stores its nd D
// words to out[lane*8 ...].
func mma884Kernel(target, layouts, dty, cty string) string {
	nd, nc := 8, 8
	if dty == "f16" {
		nd = 4
	}
	if cty == "f16" {
		nc = 4
	}
	var b strings.Builder
	fmt.Fprintf(&b, ".version 8.5\n.target %s\n.address_size 64\n.visible .entry k(.param .u64 in, .param .u64 out)\n{\n", target)
	b.WriteString("\t.reg .b32 %a<2>, %b<2>, %c<8>, %d<8>, %r<2>;\n\t.reg .b64 %rd<6>;\n")
	b.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r0, %laneid;\n")
	b.WriteString("\tmul.wide.u32 %rd3, %r0, 64;\n\tadd.u64 %rd4, %rd1, %rd3;\n\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.u64 %rd5, %rd2, %rd3;\n")
	regs := func(p string, n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	for i := range 2 {
		fmt.Fprintf(&b, "\tld.global.b32 %%a%d, [%%rd4+%d];\n\tld.global.b32 %%b%d, [%%rd4+%d];\n", i, 4*i, i, 8+4*i)
	}
	for i := range nc {
		fmt.Fprintf(&b, "\tld.global.b32 %%c%d, [%%rd4+%d];\n", i, 16+4*i)
	}
	fmt.Fprintf(&b, "\tmma.sync.aligned.m8n8k4.%s.%s.f16.f16.%s %s, %s, %s, %s;\n", layouts, dty, cty, regs("d", nd), regs("a", 2), regs("b", 2), regs("c", nc))
	for i := range nd {
		fmt.Fprintf(&b, "\tst.global.b32 [%%rd5+%d], %%d%d;\n", 4*i, i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// Positions of the m8n8k4 fragments, transcribed from the manual's
// formulas (§9.7.14.5.1) for the quad-pair that holds lane.
func pos884A(row bool, lane, i int) (int, int) {
	hi := 0
	if lane >= 16 {
		hi = 4
	}
	if row {
		return lane%4 + hi, i
	}
	return i%4 + hi, lane % 4
}

func pos884B(row bool, lane, i int) (int, int) {
	hi := 0
	if lane >= 16 {
		hi = 4
	}
	if row {
		return lane % 4, i + hi
	}
	return i, lane%4 + hi
}

func pos884C(f32 bool, lane, i int) (int, int) {
	hi := 0
	if lane >= 16 {
		hi = 4
	}
	if !f32 {
		return lane%4 + hi, i
	}
	x := lane&0b1 + i&0b10
	return x + hi, i&0b100 + lane&0b10 + i&0b1
}

// halfRat is the exact value of the f16 bit pattern h (finite).
func halfRat(h uint16) *big.Rat {
	e, m := int(h>>10&31), int64(h&1023)
	v := new(big.Rat)
	if e == 0 {
		v.SetFrac(big.NewInt(m), new(big.Int).Lsh(big.NewInt(1), 24))
	} else {
		num := big.NewInt(1024 + m)
		if e >= 25 {
			v.SetInt(num.Lsh(num, uint(e-25)))
		} else {
			v.SetFrac(num, new(big.Int).Lsh(big.NewInt(1), uint(25-e)))
		}
	}
	if h>>15 != 0 {
		v.Neg(v)
	}
	return v
}

// TestMma884: every layout pair and D/C format combination ptxas accepts
// on sm_70, on small integers (exact in any model): the four quad-pair
// products are compared with A·B + C computed in the test.
func TestMma884(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, lay := range []string{"row.col", "col.row", "row.row", "col.col"} {
		for _, tys := range [][2]string{{"f16", "f16"}, {"f32", "f32"}, {"f32", "f16"}} {
			dty, cty := tys[0], tys[1]
			t.Run(lay+"."+dty+"."+cty, func(t *testing.T) {
				var A [4][8][4]int
				var B [4][4][8]int
				var C [4][8][8]int
				in := make([]byte, 32*64)
				for l := range 32 {
					p := l % 16 / 4
					word := func(j int) []byte { return in[l*64+4*j:] }
					for i := range 4 {
						ar, ac := pos884A(strings.HasPrefix(lay, "row"), l, i)
						A[p][ar][ac] = r.IntN(9) - 4
						br, bc := pos884B(strings.HasSuffix(lay, "row"), l, i)
						B[p][br][bc] = r.IntN(9) - 4
						binary.LittleEndian.PutUint32(word(i/2), binary.LittleEndian.Uint32(word(i/2))|uint32(fbits("f16", A[p][ar][ac]))<<(16*(i%2)))
						binary.LittleEndian.PutUint32(word(2+i/2), binary.LittleEndian.Uint32(word(2+i/2))|uint32(fbits("f16", B[p][br][bc]))<<(16*(i%2)))
					}
					for i := range 8 {
						cr, cc := pos884C(cty == "f32", l, i)
						C[p][cr][cc] = r.IntN(17) - 8
						if cty == "f32" {
							binary.LittleEndian.PutUint32(word(4+i), math.Float32bits(float32(C[p][cr][cc])))
						} else {
							binary.LittleEndian.PutUint32(word(4+i/2), binary.LittleEndian.Uint32(word(4+i/2))|uint32(fbits("f16", C[p][cr][cc]))<<(16*(i%2)))
						}
					}
				}
				res := launch(t, mma884Kernel("sm_70", lay, dty, cty), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(32*32))
				out := res.Buffers[1].Data
				for l := range 32 {
					p := l % 16 / 4
					for i := range 8 {
						row, col := pos884C(dty == "f32", l, i)
						want := big.NewRat(int64(C[p][row][col]), 1)
						for k := range 4 {
							want.Add(want, big.NewRat(int64(A[p][row][k]*B[p][k][col]), 1))
						}
						var got *big.Rat
						if dty == "f32" {
							got = new(big.Rat).SetFloat64(float64(math.Float32frombits(binary.LittleEndian.Uint32(out[l*32+4*i:]))))
						} else {
							got = halfRat(binary.LittleEndian.Uint16(out[l*32+2*i:]))
						}
						if got.Cmp(want) != 0 {
							t.Fatalf("lane %d element %d (MMA %d, D[%d][%d]) = %s, want %s", l, i, p, row, col, got.RatString(), want.RatString())
						}
					}
				}
			})
		}
	}
}

// TestMma884VoltaTruncation: C = 1 and four products of 2^-24 each. On
// sm_70 (F = 23) every product is below the unit 2^-23 of the block's
// largest exponent (that of C) and is truncated away: D = 1. On sm_75
// (F = 24) each is kept and the sum 1 + 2^-22 is a binary32 number.
func TestMma884VoltaTruncation(t *testing.T) {
	const tiny = 0x0c00 // f16 2^-12
	in := make([]byte, 32*64)
	for l := range 32 {
		w := in[l*64:]
		binary.LittleEndian.PutUint32(w[0:], tiny|tiny<<16)
		binary.LittleEndian.PutUint32(w[4:], tiny|tiny<<16)
		binary.LittleEndian.PutUint32(w[8:], tiny|tiny<<16)
		binary.LittleEndian.PutUint32(w[12:], tiny|tiny<<16)
		for i := range 8 {
			binary.LittleEndian.PutUint32(w[16+4*i:], math.Float32bits(1))
		}
	}
	for _, c := range []struct {
		target string
		want   float32
	}{{"sm_70", 1}, {"sm_75", 1 + 0x1p-22}} {
		res := launch(t, mma884Kernel(c.target, "row.col", "f32", "f32"), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(32*32))
		for i, v := range u32s(res.Buffers[1].Data) {
			if got := math.Float32frombits(v); got != c.want {
				t.Fatalf("%s: word %d = %v, want %v", c.target, i, got, c.want)
			}
		}
	}
}

package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// sparseCase is one mma.sp form under test.
type sparseCase struct {
	target, ty, dty string
	k               int
	ordered         bool
	sel             int
}

// elems is the number of A/B elements per register.
func (c sparseCase) elems() int {
	if c.integer() {
		return 4
	}
	return 32 / fwidth(c.ty)
}

func (c sparseCase) integer() bool { return c.ty == "s8" || c.ty == "u8" }

// regs is the register count of D/C, A and B.
func (c sparseCase) regs() (dc, a, b int) {
	dc = 4
	if c.dty == "f16" {
		dc = 2
	}
	return dc, 16 * c.k / 2 / 32 / c.elems(), c.k * 8 / 32 / c.elems()
}

func (c sparseCase) opcode() string {
	sp := "mma.sp"
	if c.ordered {
		sp += "::ordered_metadata"
	}
	if c.integer() {
		return fmt.Sprintf("%s.sync.aligned.m16n8k%d.row.col.s32.%s.%s.s32", sp, c.k, c.ty, c.ty)
	}
	return fmt.Sprintf("%s.sync.aligned.m16n8k%d.row.col.%s.%s.%s.%s", sp, c.k, c.dty, c.ty, c.ty, c.dty)
}

// kernel: every lane loads A, B, C and the metadata from in[lane*64 ...]
// (A at word 0, B at 4, C at 8, e at 12), runs the mma.sp and stores D
// to out[lane*16 ...].
func (c sparseCase) kernel() string {
	dc, na, nb := c.regs()
	var b strings.Builder
	fmt.Fprintf(&b, ".version 8.5\n.target %s\n.address_size 64\n.visible .entry k(.param .u64 in, .param .u64 out)\n{\n", c.target)
	b.WriteString("\t.reg .b32 %a<4>, %b<4>, %c<4>, %d<4>, %e, %r<2>;\n\t.reg .b64 %rd<6>;\n")
	b.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r0, %laneid;\n")
	b.WriteString("\tmul.wide.u32 %rd3, %r0, 64;\n\tadd.u64 %rd4, %rd1, %rd3;\n\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.u64 %rd5, %rd2, %rd3;\n")
	list := func(p string, n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
			fmt.Fprintf(&b, "\tld.global.b32 %%%s%d, [%%rd4+%d];\n", p, i, 4*(map[string]int{"a": 0, "b": 4, "c": 8}[p]+i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	as, bs, cs := list("a", na), list("b", nb), list("c", dc)
	b.WriteString("\tld.global.b32 %e, [%rd4+48];\n")
	var ds []string
	for i := range dc {
		ds = append(ds, fmt.Sprintf("%%d%d", i))
	}
	fmt.Fprintf(&b, "\t%s {%s}, %s, %s, %s, %%e, %d;\n", c.opcode(), strings.Join(ds, ", "), as, bs, cs, c.sel)
	for i := range dc {
		fmt.Fprintf(&b, "\tst.global.b32 [%%rd5+%d], %%d%d;\n", 4*i, i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// sparseInput is a random structured-sparse A (16×K dense, with the
// positions of the stored elements), a dense B (K×8) and C (16×8), all
// small integers, encoded into the per-lane words of the kernel: the A
// fragments by the manual's firstcol formulas (§9.7.14.6.2), B, C by the
// dense layouts, and the metadata by the distribution docs/tensorcore.md
// gives.
type sparseInput struct {
	A          [16][64]int
	B          [64][8]int
	C          [16][8]int
	in         []byte
	stored     [16][]int // dense columns of the stored elements, in order
	metaFields [16][]int // the 4-bit field of each chunk
}

func newSparseInput(r *rand.Rand, c sparseCase) *sparseInput {
	s := &sparseInput{in: make([]byte, 32*64)}
	e := c.elems()
	val := func() int {
		switch c.ty {
		case "u8":
			return r.IntN(256)
		case "s8":
			return r.IntN(256) - 128
		}
		return r.IntN(9) - 4
	}
	for row := range 16 {
		if c.ty == "tf32" { // one of each two columns; field 0b0100 (first) or 0b1110 (second)
			for ch := range c.k / 2 {
				pick := r.IntN(2)
				s.stored[row] = append(s.stored[row], 2*ch+pick)
				s.metaFields[row] = append(s.metaFields[row], []int{0b0100, 0b1110}[pick])
			}
		} else { // two of each four columns
			for ch := range c.k / 4 {
				i0 := r.IntN(3)
				i1 := i0 + 1 + r.IntN(3-i0)
				if !c.ordered && r.IntN(2) == 0 {
					i0, i1 = i1, i0 // mma.sp allows either order
				}
				s.stored[row] = append(s.stored[row], 4*ch+i0, 4*ch+i1)
				s.metaFields[row] = append(s.metaFields[row], i0|i1<<2)
			}
		}
		for _, col := range s.stored[row] {
			s.A[row][col] = val()
			if s.A[row][col] == 0 {
				s.A[row][col] = 1
			}
		}
		for j := range 8 {
			s.C[row][j] = val()
		}
	}
	for k := range c.k {
		for j := range 8 {
			s.B[k][j] = val()
		}
	}
	enc := func(v int) uint32 {
		if c.integer() {
			return uint32(uint8(int8(v)))
		}
		return uint32(fbits(c.ty, v))
	}
	put := func(l, word, sub, bits int, v uint32) {
		p := s.in[l*64+4*word:]
		binary.LittleEndian.PutUint32(p, binary.LittleEndian.Uint32(p)|v<<(bits*sub))
	}
	_, na, nb := c.regs()
	w := fwidth(c.ty)
	if c.integer() {
		w = 8
	}
	for l := range 32 {
		g, t := l/4, l%4
		for reg := range na { // firstcol = 2e·t (+ K/2 for registers 2, 3); row g + 8·(reg%2)
			row := g + 8*(reg%2)
			first := 2*e*t + reg/2*c.k/2
			var in []int
			for _, col := range s.stored[row] {
				if col >= first && col < first+2*e {
					in = append(in, col)
				}
			}
			for i, col := range in {
				put(l, reg, i, w, enc(s.A[row][col]))
			}
		}
		for reg := range nb { // rows e·t + i + 4e·reg, column g
			for i := range e {
				put(l, 4+reg, i, w, enc(s.B[e*t+i+4*e*reg][g]))
			}
		}
		for i := range 4 { // C element i: row g + 8(i/2), column 2t + i%2
			row, col := g+8*(i/2), 2*t+i%2
			switch {
			case c.integer():
				put(l, 8+i, 0, 32, uint32(int32(s.C[row][col])))
			case c.dty == "f16":
				put(l, 8+i/2, i%2, 16, uint32(fbits("f16", s.C[row][col])))
			default:
				put(l, 8+i, 0, 32, math.Float32bits(float32(s.C[row][col])))
			}
		}
	}
	// metadata: thread sel·P + c/4 of quad g holds field c of row g in
	// bits 4(c%4) and of row g+8 in bits 16 + 4(c%4)
	fields := len(s.metaFields[0])
	for row := range 16 {
		for ch, f := range s.metaFields[row] {
			lane := 4*(row%8) + c.sel*(fields/4) + ch/4
			put(lane, 12, 0, 32, uint32(f)<<(16*(row/8)+4*(ch%4)))
		}
	}
	return s
}

func TestMmaSparse(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	cases := []sparseCase{
		{"sm_80", "f16", "f32", 16, false, 0}, {"sm_80", "f16", "f32", 16, true, 3}, {"sm_80", "f16", "f16", 16, true, 1},
		{"sm_80", "f16", "f32", 32, true, 0}, {"sm_80", "f16", "f32", 32, false, 1}, {"sm_90", "bf16", "f32", 32, true, 1},
		{"sm_80", "bf16", "f32", 16, true, 2}, {"sm_80", "tf32", "f32", 8, true, 1}, {"sm_90", "tf32", "f32", 16, true, 1},
		{"sm_80", "s8", "s32", 32, true, 1}, {"sm_80", "u8", "s32", 64, false, 0}, {"sm_90", "s8", "s32", 64, true, 0},
		{"sm_89", "e4m3", "f32", 64, true, 0},
	}
	for _, c := range cases {
		t.Run(c.target+"/"+c.opcode()+fmt.Sprintf("/sel%d", c.sel), func(t *testing.T) {
			s := newSparseInput(r, c)
			res := launch(t, c.kernel(), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: s.in}, buf(32*16))
			out := res.Buffers[1].Data
			for l := range 32 {
				g, tt := l/4, l%4
				for i := range 4 {
					row, col := g+8*(i/2), 2*tt+i%2
					want := big.NewRat(int64(s.C[row][col]), 1)
					for k := range c.k {
						want.Add(want, big.NewRat(int64(s.A[row][k]*s.B[k][col]), 1))
					}
					var got *big.Rat
					switch {
					case c.integer():
						got = big.NewRat(int64(int32(binary.LittleEndian.Uint32(out[l*16+4*i:]))), 1)
					case c.dty == "f16":
						got = halfRat(binary.LittleEndian.Uint16(out[l*16+2*i:]))
					default:
						got = new(big.Rat).SetFloat64(float64(math.Float32frombits(binary.LittleEndian.Uint32(out[l*16+4*i:]))))
					}
					if got.Cmp(want) != 0 {
						t.Fatalf("lane %d D element %d (row %d, column %d) = %s, want %s", l, i, row, col, got.RatString(), want.RatString())
					}
				}
			}
		})
	}
}

// TestMmaSparseMetadataReports: undefined metadata stops the run.
func TestMmaSparseMetadataReports(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for _, c := range []struct {
		sc    sparseCase
		field uint32
		frag  string
	}{
		{sparseCase{"sm_80", "f16", "f32", 16, false, 0}, 0b0101, "two equal positions"},
		{sparseCase{"sm_80", "f16", "f32", 16, true, 0}, 0b0001, "out of order"},
		{sparseCase{"sm_80", "tf32", "f32", 8, true, 0}, 0b1000, "only 0b0100 and 0b1110"},
	} {
		s := newSparseInput(r, c.sc)
		w := s.in[0*64+48:] // lane 0 holds field 0 of row 0 in bits 0-3
		binary.LittleEndian.PutUint32(w, binary.LittleEndian.Uint32(w)&^0xf|c.field)
		res := launchReport(t, c.sc.kernel(), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: s.in}, buf(32*16))
		wantReport(t, res, ruleSparseMetadata, c.frag, "row 0")
	}
}

// TestMmaSparseRefused: forms the emulator does not model are decode errors.
func TestMmaSparseRefused(t *testing.T) {
	for _, c := range []struct {
		sc   sparseCase
		frag string
	}{
		{sparseCase{"sm_90", "e4m3", "f32", 64, true, 0}, "sparse FP8"},
		{sparseCase{"sm_80", "f16", "f32", 32, true, 2}, "selector"},
	} {
		if _, errs := decodeString(t, c.sc.kernel()); errs == "" || !strings.Contains(errs, c.frag) {
			t.Errorf("%s: got %q, want a diagnostic with %q", c.sc.opcode(), errs, c.frag)
		}
	}
}

// decodeString parses and decodes src and returns the decoder's
// diagnostics ("" when there are none).
func decodeString(t *testing.T, src string) (*Program, string) {
	t.Helper()
	m, errs := parser.ParseString("t.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	p, derrs := Decode(m, "")
	if derrs.HasErrors() {
		return nil, derrs.Err().Error()
	}
	return p, ""
}

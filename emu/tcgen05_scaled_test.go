package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tcNarrowSource fills in tcNarrowKernel for qualifiers quals; scaled adds
// the scale-factor operands (columns 64 and 72).
func tcNarrowSource(quals string, scaled bool) string {
	regs := func(first, n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%%r%d", first+i))
		}
		return strings.Join(s, ", ")
	}
	loads := func(first, n int, base string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\tld.global.u32 %%r%d, [%s+%d];\n", first+i, base, 4*i)
		}
		return b.String()
	}
	var stores strings.Builder
	for i := range 64 {
		fmt.Fprintf(&stores, "\tst.global.u32 [%%rd17+%d], %%r%d;\n", 4*i, 100+i)
	}
	ops := ""
	if scaled {
		ops = ", [%r30], [%r31]"
	}
	src := fmt.Sprintf(tcNarrowKernel, loads(100, 64, "%%rd22"), regs(100, 64), loads(170, 16, "%%rd25"), regs(170, 16),
		quals, ops, regs(100, 64), stores.String())
	return strings.ReplaceAll(src, "%%", "%")
}

// narrowCase is one narrow-kind MMA: element codes of A (128×k by row) and
// B (64×k by column), scale codes per row/column and group, and C.
type narrowCase struct {
	kind   string // qualifiers after .cta_group::1
	a, b   tensorcore.Format
	packed bool
	k, vec int
	scale  tensorcore.Format // 0: none
	sfid   [2]int
	A, B   []uint64
	SA, SB []uint64
	C      []uint32
	idesc  uint32
	av, bv []float64 // decoded A and B (values)
}

// narrowBytes lays out the k element codes of one row in 32 bytes, as the
// test reads the manual: bytes for 8-bit types, 16-element groups of 6 or
// 4 bits packed in 16 bytes, or E2M1 pairs.
func narrowBytes(codes []uint64, bits int, packed bool) []byte {
	row := make([]byte, 32)
	switch {
	case packed:
		for i, c := range codes {
			row[i/2] |= byte(c << (4 * (i % 2)))
		}
	case bits == 8:
		for i, c := range codes {
			row[i] = byte(c)
		}
	default:
		for g := range 2 {
			var lo, hi uint64 // 16 elements of at most 6 bits: 96 bits in two halves
			for i := range 16 {
				c := codes[16*g+i]
				pos := i * bits
				if pos < 64 {
					lo |= c << pos
					if pos+bits > 64 {
						hi |= c >> (64 - pos)
					}
				} else {
					hi |= c << (pos - 64)
				}
			}
			binary.LittleEndian.PutUint64(row[16*g:], lo)
			binary.LittleEndian.PutUint32(row[16*g+8:], uint32(hi))
		}
	}
	return row
}

func runNarrow(t *testing.T, c *narrowCase, cfg Config) []uint32 {
	t.Helper()
	return runNarrowSource(t, c, tcNarrowSource(c.kind, c.scale != 0), cfg)
}

// runNarrowSource stages c as runNarrow does and runs src, a form of
// tcNarrowKernel.
func runNarrowSource(t *testing.T, c *narrowCase, src string, cfg Config) []uint32 {
	t.Helper()
	img := make([]byte, 8192)
	lbo, sbo := 128, 256 // core matrices: 16 bytes × 8 rows; 2 along K
	put := func(base, r int, row []byte) {
		for b, v := range row {
			img[base+kMajorByte(r, b, 0, lbo, sbo)] = v
		}
	}
	for r := range 128 {
		put(0, r, narrowBytes(c.A[r*c.k:(r+1)*c.k], tensorcore.ElemBits(c.a), c.packed))
	}
	for j := range 64 {
		put(4096, j, narrowBytes(c.B[j*c.k:(j+1)*c.k], tensorcore.ElemBits(c.b), c.packed))
	}
	// Scale factors: row r of A in lane r, column 64 + r/32, byte sfid+g;
	// column j of B in lanes 32s + j%32 of every sub-partition s, column
	// 72 + j/32.
	sf := make([]uint32, 128*16)
	if c.scale != 0 {
		groups := c.k / c.vec
		for r := range 128 {
			for g := range groups {
				sf[r*16+r/32] |= uint32(c.SA[r*groups+g]) << (8 * (c.sfid[0] + g))
			}
		}
		for s := range 4 {
			for j := range 64 {
				for g := range groups {
					sf[(32*s+j%32)*16+8+j/32] |= uint32(c.SB[j*groups+g]) << (8 * (c.sfid[1] + g))
				}
			}
		}
	}
	cin := make([]byte, 4*len(c.C))
	for i, v := range c.C {
		binary.LittleEndian.PutUint32(cin[4*i:], v)
	}
	sfb := make([]byte, 4*len(sf))
	for i, v := range sf {
		binary.LittleEndian.PutUint32(sfb[4*i:], v)
	}
	hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46
	cfg.Block = dims(128, 1, 1)
	res := launch(t, src, cfg, Arg{IsBuffer: true, Buffer: img},
		Arg{IsBuffer: true, Buffer: cin}, Arg{IsBuffer: true, Buffer: sfb}, buf(4*128*64), scalar(hi), scalar(uint64(c.idesc)))
	return u32s(res.Buffers[3].Data)
}

// narrowValue is the value of code x of format f, written from the formats'
// definitions (sign, exponent bits, bias, mantissa bits; E4M3 and the
// FP6/FP4 formats without infinities).
func narrowValue(f tensorcore.Format, x uint64) float64 {
	p := narrowSplits[f]
	eb, mb, bias := p[0], p[1], p[2]
	e := int(x>>mb) & (1<<eb - 1)
	m := float64(x & (1<<mb - 1))
	v := math.Ldexp(m, 1-bias-mb)
	if e != 0 {
		v = math.Ldexp(m+float64(int(1)<<mb), e-bias-mb)
	}
	if x>>(eb+mb)&1 == 1 {
		v = -v
	}
	return v
}

// narrowSplits are the exponent bits, mantissa bits and bias of each format.
var narrowSplits = map[tensorcore.Format][3]int{tensorcore.E4M3: {4, 3, 7}, tensorcore.E5M2: {5, 2, 15},
	tensorcore.E2M3: {2, 3, 1}, tensorcore.E3M2: {3, 2, 3}, tensorcore.E2M1: {2, 1, 1}}

// smallCode draws a code of f whose value's magnitude is in [1/4, 8], so
// that every sum of the test is exact in binary32.
func smallCode(r *rand.Rand, f tensorcore.Format) uint64 {
	for {
		x := uint64(r.IntN(1 << (tensorcore.ElemBits(f))))
		if v := math.Abs(narrowValue(f, x)); v == 0 || v >= 0.25 && v <= 8 {
			return x
		}
	}
}

func scaleValue(f tensorcore.Format, x uint64) float64 {
	if f == tensorcore.UE8M0 {
		return math.Ldexp(1, int(x)-127)
	}
	return narrowValue(tensorcore.E4M3, x&0x7f)
}

// exactNarrowCase fills c with small values, power-of-two UE8M0 scales or
// UE4M3 scales of 1, 1.5, 2 and 3, and small-integer C: every D is exact.
func exactNarrowCase(r *rand.Rand, c *narrowCase) {
	c.A, c.B, c.C = make([]uint64, 128*c.k), make([]uint64, 64*c.k), make([]uint32, 128*64)
	for i := range c.A {
		c.A[i] = smallCode(r, c.a)
	}
	for i := range c.B {
		c.B[i] = smallCode(r, c.b)
	}
	for i := range c.C {
		c.C[i] = math.Float32bits(float32(r.IntN(17) - 8))
	}
	if c.scale == 0 {
		return
	}
	groups := c.k / c.vec
	c.SA, c.SB = make([]uint64, 128*groups), make([]uint64, 64*groups)
	for _, s := range [][]uint64{c.SA, c.SB} {
		for i := range s {
			if c.scale == tensorcore.UE8M0 {
				s[i] = uint64(127 - 3 + r.IntN(7))
			} else {
				s[i] = []uint64{0x38, 0x3c, 0x40, 0x44}[r.IntN(4)]
			}
		}
	}
}

// values are the values of row i of A and column j of B, decoded once.
func (c *narrowCase) values(i, j int) ([]float64, []float64) {
	if c.av == nil {
		c.av, c.bv = make([]float64, len(c.A)), make([]float64, len(c.B))
		for x, v := range c.A {
			c.av[x] = narrowValue(c.a, v)
		}
		for x, v := range c.B {
			c.bv[x] = narrowValue(c.b, v)
		}
	}
	return c.av[i*c.k : (i+1)*c.k], c.bv[j*c.k : (j+1)*c.k]
}

// expectNarrow is C + Σ_g sa·sb·Σ a·b in float64 (exact for exactNarrowCase).
func expectNarrow(c *narrowCase, i, j int) float64 {
	d := float64(math.Float32frombits(c.C[i*64+j]))
	av, bv := c.values(i, j)
	vec := c.vec
	if c.scale == 0 {
		vec = c.k
	}
	for g := range c.k / vec {
		var s float64
		for kk := g * vec; kk < (g+1)*vec; kk++ {
			s += av[kk] * bv[kk]
		}
		if c.scale != 0 {
			groups := c.k / c.vec
			s *= scaleValue(c.scale, c.SA[i*groups+g]) * scaleValue(c.scale, c.SB[j*groups+g])
		}
		d += s
	}
	return d
}

func tcScaledIdesc(atype, btype, m, n int, ue8m0 bool, sfidA, sfidB int) uint32 {
	v := uint32(atype)<<7 | uint32(btype)<<10 | uint32(n>>3)<<17 | uint32(m>>4)<<24 | uint32(sfidA)<<29 | uint32(sfidB)<<4
	if ue8m0 {
		v |= 1 << 23
	}
	return v
}

// TestTcgen05MMANarrowKinds runs every narrow kind on values whose result
// is exact, against A·B + C computed here from the formats' definitions:
// the operand layouts (8-bit, padded 6- and 4-bit groups, packed E2M1),
// the scale factors' Tensor Memory layout and IDs, and accumulation.
func TestTcgen05MMANarrowKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	codes := map[tensorcore.Format]int{tensorcore.E4M3: 0, tensorcore.E5M2: 1, tensorcore.E2M3: 3, tensorcore.E3M2: 4, tensorcore.E2M1: 5}
	var cases []*narrowCase
	for _, p := range [][2]tensorcore.Format{{tensorcore.E4M3, tensorcore.E5M2}, {tensorcore.E2M3, tensorcore.E3M2}, {tensorcore.E2M1, tensorcore.E4M3}, {tensorcore.E3M2, tensorcore.E2M1}} {
		cases = append(cases, &narrowCase{kind: "kind::f8f6f4", a: p[0], b: p[1], k: 32,
			idesc: tcIdescOf(1, codes[p[0]], codes[p[1]], 128, 64)})
		cases = append(cases, &narrowCase{kind: "kind::mxf8f6f4.block_scale.scale_vec::1X", a: p[0], b: p[1], k: 32, vec: 32,
			scale: tensorcore.UE8M0, sfid: [2]int{3, 1}, idesc: tcScaledIdesc(codes[p[0]], codes[p[1]], 128, 64, true, 3, 1)})
	}
	cases = append(cases,
		&narrowCase{kind: "kind::mxf8f6f4.block_scale", a: tensorcore.E4M3, b: tensorcore.E4M3, k: 32, vec: 32,
			scale: tensorcore.UE8M0, idesc: tcScaledIdesc(0, 0, 128, 64, true, 0, 0)},
		&narrowCase{kind: "kind::mxf4.block_scale.scale_vec::2X", a: tensorcore.E2M1, b: tensorcore.E2M1, packed: true, k: 64, vec: 32,
			scale: tensorcore.UE8M0, sfid: [2]int{2, 0}, idesc: tcScaledIdesc(1, 1, 128, 64, true, 2, 0)},
		&narrowCase{kind: "kind::mxf4nvf4.block_scale.scale_vec::2X", a: tensorcore.E2M1, b: tensorcore.E2M1, packed: true, k: 64, vec: 32,
			scale: tensorcore.UE8M0, sfid: [2]int{0, 2}, idesc: tcScaledIdesc(1, 1, 128, 64, true, 0, 2)},
		&narrowCase{kind: "kind::mxf4nvf4.block_scale.scale_vec::4X", a: tensorcore.E2M1, b: tensorcore.E2M1, packed: true, k: 64, vec: 16,
			scale: tensorcore.UE4M3, idesc: tcScaledIdesc(1, 1, 128, 64, false, 0, 0)},
		&narrowCase{kind: "kind::mxf4nvf4.block_scale.scale_vec::4X", a: tensorcore.E2M1, b: tensorcore.E2M1, packed: true, k: 64, vec: 16,
			scale: tensorcore.UE8M0, idesc: tcScaledIdesc(1, 1, 128, 64, true, 0, 0)},
	)
	for n, c := range cases {
		name := fmt.Sprintf("%s/%s.%s", c.kind, tensorcore.Name(c.a), tensorcore.Name(c.b))
		if c.scale != 0 {
			name += "/" + tensorcore.Name(c.scale)
		}
		t.Run(name, func(t *testing.T) {
			exactNarrowCase(r, c)
			cfg := Config{}
			if n == 0 {
				cfg.Async = AsyncDelayed // the MMA lands at the commit
			}
			out := runNarrow(t, c, cfg)
			for i := range 128 {
				for j := range 64 {
					if got, want := math.Float32frombits(out[i*64+j]), expectNarrow(c, i, j); float64(got) != want {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMAScaledModel: full-range e4m3 × e2m1 data and scales (every
// group rounds) give the bits of tensorcore's block-scaled model.
func TestTcgen05MMAScaledModel(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	c := &narrowCase{kind: "kind::mxf8f6f4.block_scale.scale_vec::1X", a: tensorcore.E4M3, b: tensorcore.E2M1, k: 32, vec: 32,
		scale: tensorcore.UE8M0, sfid: [2]int{1, 2}, idesc: tcScaledIdesc(0, 5, 128, 64, true, 1, 2)}
	c.A, c.B, c.C = make([]uint64, 128*32), make([]uint64, 64*32), make([]uint32, 128*64)
	for i := range c.A {
		c.A[i] = uint64(r.IntN(0x7f)) | uint64(r.IntN(2))<<7 // no NaN
	}
	for i := range c.B {
		c.B[i] = uint64(r.IntN(16))
	}
	for i := range c.C {
		c.C[i] = math.Float32bits(float32(r.NormFloat64()))
	}
	c.SA, c.SB = make([]uint64, 128), make([]uint64, 64)
	for i := range c.SA {
		c.SA[i] = uint64(100 + r.IntN(50))
	}
	for i := range c.SB {
		c.SB[i] = uint64(100 + r.IntN(50))
	}
	out := runNarrow(t, c, Config{})
	C := make([]uint64, len(c.C))
	for i, v := range c.C {
		C[i] = uint64(v)
	}
	D := make([]uint64, len(C))
	tensorcore.Blackwell.ScaledMMA(&tensorcore.ScaledProblem{In: c.a, BIn: c.b, Out: tensorcore.F32, Scale: c.scale, Vec: 32,
		M: 128, N: 64, K: 32, A: c.A, B: c.B, SA: c.SA, SB: c.SB, C: C, D: D})
	for i := range D {
		if uint32(D[i]) != out[i] {
			t.Fatalf("D[%d][%d] = %#x, want %#x", i/64, i%64, out[i], D[i])
		}
	}
}

// TestTcgen05IdescScaled: the block-scaled descriptor's fields and the
// combinations the manual does not allow.
func TestTcgen05IdescScaled(t *testing.T) {
	x, err := decodeIdescScaled(tcKindMXF4NVF4, 4, tcScaledIdesc(1, 1, 128, 256, false, 0, 0)|1<<13, false)
	if err != nil || x.k != 64 || x.vec != 16 || x.scale != tensorcore.UE4M3 || !x.packed || x.n != 256 || !x.negA {
		t.Fatalf("nvf4: %+v %v", x, err)
	}
	x, err = decodeIdescScaled(tcKindMXF8F6F4, 1, tcScaledIdesc(4, 3, 64, 8, true, 3, 2), false)
	if err != nil || x.a != tensorcore.E3M2 || x.b != tensorcore.E2M3 || x.sfid != [2]int{3, 2} || x.vec != 32 || x.m != 64 {
		t.Fatalf("mxf8f6f4: %+v %v", x, err)
	}
	bad := []struct {
		kind tcKind
		vec  int
		v    uint32
		msg  string
		pair bool
	}{
		{tcKindMXF4, 2, tcScaledIdesc(1, 1, 128, 64, false, 0, 0), "ue4m3", false},
		{tcKindMXF4, 4, tcScaledIdesc(1, 1, 128, 64, true, 0, 0), "does not take .scale_vec::4X", false},
		{tcKindMXF8F6F4, 2, tcScaledIdesc(0, 0, 128, 64, true, 0, 0), "does not take .scale_vec::2X", false},
		{tcKindMXF4NVF4, 2, tcScaledIdesc(1, 1, 128, 64, true, 1, 0), "scale factor ID of A is 1", false},
		{tcKindMXF4NVF4, 4, tcScaledIdesc(1, 1, 128, 64, false, 0, 2), "scale factor ID of B is 2", false},
		{tcKindMXF4, 2, tcScaledIdesc(5, 5, 128, 64, true, 0, 0), "must be 1 (e2m1)", false},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(2, 0, 128, 64, true, 0, 0), "atype/btype", false},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 128, 64, true, 0, 0) | 1<<2, "sparsity", false},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 128, 64, true, 0, 0) | 1<<6, "reserved", false},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 32, 64, true, 0, 0), "M = 32", false},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 128, 64, true, 0, 0), "block scaling with .cta_group::2 at M = 256", true},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 256, 72, true, 0, 0), "N is 16 to 256 in steps of 16", true},
		{tcKindMXF8F6F4, 1, tcScaledIdesc(0, 0, 64, 64, true, 0, 0), "M = 64", true},
	}
	for _, b := range bad {
		if _, err := decodeIdescScaled(b.kind, b.vec, b.v, b.pair); err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s %dX %#x: %v, want %q", b.kind, b.vec, b.v, err, b.msg)
		}
	}
	if _, err := decodeIdesc(tcKindF8F6F4, tcIdescOf(1, 2, 0, 128, 64)); err == nil || !strings.Contains(err.Error(), "atype/btype") {
		t.Errorf("f8f6f4 type 2: %v", err)
	}
	if x, err := decodeIdesc(tcKindF8F6F4, tcIdescOf(0, 5, 3, 128, 64)); err != nil || x.k != 32 || x.out != tensorcore.F16 || x.a != tensorcore.E2M1 {
		t.Errorf("f8f6f4 f16: %+v %v", x, err)
	}
}

// TestTcgen05MMANarrowDecode: .block_scale goes with the block-scaled
// kinds only, and they take the scale operands.
func TestTcgen05MMANarrowDecode(t *testing.T) {
	for _, c := range []struct{ quals, ops, msg string }{
		{"kind::mxf4", ", [%r30], [%r31]", "needs .block_scale"},
		{"kind::f8f6f4.block_scale", ", [%r30], [%r31]", "go with .kind::mxf8f6f4"},
		{"kind::mxf4.block_scale", "", "[scale-A-tmem], [scale-B-tmem]"},
	} {
		src := strings.Replace(tcNarrowSource(c.quals, false), "%r14, %p4;", "%r14"+c.ops+", %p4;", 1)
		m, errs := parser.ParseString("n.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: parse: %v", c.quals, errs)
		}
		if _, errs := Decode(m, ""); !errs.HasErrors() || !strings.Contains(errs[0].Message, c.msg) {
			t.Errorf("%s: decode diagnostics %v, want %q", c.quals, errs, c.msg)
		}
	}
}

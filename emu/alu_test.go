package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

// aluCase runs "OP d, a, b[, c]" over many inputs and compares with want,
// computed here with Go arithmetic on typed values.
type aluCase struct {
	op     string // full opcode with qualifiers, e.g. "mul.hi.s32"
	srcT   string // register type of sources: ".b16", ".b32", ".b64", ".f32", ".f64", ".pred"
	dstT   string // register type of the destination
	ldT    string // ld type for sources
	stT    string // st type for the destination
	nsrc   int
	want   func(a, b, c uint64) uint64
	skip   func(a, b, c uint64) bool // inputs the case does not define
	wideC  bool                      // c has the destination's type (mad.wide)
	negate [3]bool                   // write the source operand negated ("-%a1")
	sel    [4]string                 // video selectors of d, a, b, c ("b1" writes "%a1.b1"), or ""
}

var intInputs = []uint64{0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x12345678, 0x7fffffff, 0x80000000, 0xffffffff,
	0xdeadbeefcafef00d, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff, 0x0123456789abcdef, 31, 32, 33, 63, 64}

func (c aluCase) kernel() string {
	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, ".visible .entry k(.param .u64 in, .param .u64 out) {\n\t.reg .b64 %%rd<8>;\n\t.reg .b32 %%r<4>;\n\t.reg %s %%a<4>;\n\t.reg %s %%d<2>;\n", c.srcT, c.dstT)
	cT := c.srcT
	if c.wideC {
		cT = c.dstT
	}
	fmt.Fprintf(&b, "\t.reg %s %%c<2>;\n", cT)
	b.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmad.lo.u32 %r1, %r1, %r2, %r3;\n")
	b.WriteString("\tmul.wide.u32 %rd3, %r1, 24;\n\tadd.u64 %rd3, %rd1, %rd3;\n\tmul.wide.u32 %rd4, %r1, 8;\n\tadd.u64 %rd4, %rd2, %rd4;\n")
	fmt.Fprintf(&b, "\tld.global%s %%a1, [%%rd3];\n", c.ldT)
	ops := []string{"%d1", "%a1"}
	if c.nsrc >= 2 {
		fmt.Fprintf(&b, "\tld.global%s %%a2, [%%rd3+8];\n", c.ldT)
		ops = append(ops, "%a2")
	}
	if c.nsrc >= 3 {
		ldc := c.ldT
		if c.wideC {
			ldc = c.stT
		}
		fmt.Fprintf(&b, "\tld.global%s %%c1, [%%rd3+16];\n", ldc)
		ops = append(ops, "%c1")
	}
	for i, neg := range c.negate {
		if neg && i+1 < len(ops) {
			ops[i+1] = "-" + ops[i+1]
		}
	}
	for i, s := range c.sel {
		if s != "" && i < len(ops) {
			ops[i] += "." + s
		}
	}
	fmt.Fprintf(&b, "\t%s %s;\n", c.op, strings.Join(ops, ", "))
	fmt.Fprintf(&b, "\tst.global%s [%%rd4], %%d1;\n\tret;\n}\n", c.stT)
	return b.String()
}

func runALU(t *testing.T, c aluCase, inputs []uint64) {
	t.Helper()
	var tri [][3]uint64
	for i, a := range inputs {
		for j, b := range inputs {
			cc := inputs[(i*7+j*3)%len(inputs)]
			if c.skip != nil && c.skip(a, b, cc) {
				continue
			}
			tri = append(tri, [3]uint64{a, b, cc})
		}
	}
	in := make([]byte, 24*((len(tri)+63)/64*64))
	for i, x := range tri {
		for k := range 3 {
			binary.LittleEndian.PutUint64(in[24*i+8*k:], x[k])
		}
	}
	res := launch(t, c.kernel(), Config{Grid: dims((len(tri)+63)/64, 1, 1), Block: dims(64, 1, 1)},
		Arg{IsBuffer: true, Buffer: in}, buf(8*((len(tri)+63)/64*64)))
	stT, _ := ParseType(c.stT)
	mask := stT.mask()
	for i, x := range tri {
		got := binary.LittleEndian.Uint64(res.Buffers[1].Data[8*i:]) & mask
		want := c.want(x[0], x[1], x[2]) & mask
		if got != want {
			t.Fatalf("%s a=%#x b=%#x c=%#x: got %#x, want %#x", c.op, x[0], x[1], x[2], got, want)
		}
	}
}

// intCases builds the integer instruction table for one width.
func intCases(bitsN int) []aluCase {
	n := uint(bitsN)
	mask := uint64(1)<<n - 1
	if n == 64 {
		mask = ^uint64(0)
	}
	reg := fmt.Sprintf(".b%d", n)
	wreg := fmt.Sprintf(".b%d", 2*n)
	u := fmt.Sprintf(".u%d", n)
	s := fmt.Sprintf(".s%d", n)
	sx := func(v uint64) int64 { return int64(v<<(64-n)) >> (64 - n) }
	ux := func(v uint64) uint64 { return v & mask }
	nz := func(a, b, c uint64) bool { return b&mask == 0 || (sx(b) == -1 && sx(a) == int64(-1)<<(n-1)) }
	big2 := func(x int64) *big.Int { return big.NewInt(x) }
	ubig := func(x uint64) *big.Int { return new(big.Int).SetUint64(x) }
	hi := func(p *big.Int) uint64 {
		q := new(big.Int).Rsh(p, n)
		q.And(q, ubig(mask))
		return q.Uint64()
	}
	sprod := func(a, b uint64) *big.Int {
		p := new(big.Int).Mul(big2(sx(a)), big2(sx(b)))
		return p.And(p, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 2*n), big.NewInt(1)))
	}
	uprod := func(a, b uint64) *big.Int { return new(big.Int).Mul(ubig(ux(a)), ubig(ux(b))) }
	bin := func(op, typ string, f func(a, b uint64) uint64) aluCase {
		return aluCase{op: op + typ, srcT: reg, dstT: reg, ldT: typ, stT: typ, nsrc: 2, want: func(a, b, _ uint64) uint64 { return f(a, b) }}
	}
	cases := []aluCase{
		bin("add", u, func(a, b uint64) uint64 { return a + b }),
		bin("add", s, func(a, b uint64) uint64 { return uint64(sx(a) + sx(b)) }),
		bin("sub", u, func(a, b uint64) uint64 { return a - b }),
		bin("sub", s, func(a, b uint64) uint64 { return uint64(sx(a) - sx(b)) }),
		bin("mul.lo", u, func(a, b uint64) uint64 { return a * b }),
		bin("mul.lo", s, func(a, b uint64) uint64 { return uint64(sx(a) * sx(b)) }),
		bin("mul.hi", u, func(a, b uint64) uint64 { return hi(uprod(a, b)) }),
		bin("mul.hi", s, func(a, b uint64) uint64 { return hi(sprod(a, b)) }),
		bin("min", u, func(a, b uint64) uint64 { return min(ux(a), ux(b)) }),
		bin("min", s, func(a, b uint64) uint64 { return uint64(min(sx(a), sx(b))) }),
		bin("max", u, func(a, b uint64) uint64 { return max(ux(a), ux(b)) }),
		bin("max", s, func(a, b uint64) uint64 { return uint64(max(sx(a), sx(b))) }),
		bin("and", fmt.Sprintf(".b%d", n), func(a, b uint64) uint64 { return a & b }),
		bin("or", fmt.Sprintf(".b%d", n), func(a, b uint64) uint64 { return a | b }),
		bin("xor", fmt.Sprintf(".b%d", n), func(a, b uint64) uint64 { return a ^ b }),
		{op: "div" + u, srcT: reg, dstT: reg, ldT: u, stT: u, nsrc: 2, skip: nz, want: func(a, b, _ uint64) uint64 { return ux(a) / ux(b) }},
		{op: "div" + s, srcT: reg, dstT: reg, ldT: s, stT: s, nsrc: 2, skip: nz, want: func(a, b, _ uint64) uint64 { return uint64(sx(a) / sx(b)) }},
		{op: "rem" + u, srcT: reg, dstT: reg, ldT: u, stT: u, nsrc: 2, skip: nz, want: func(a, b, _ uint64) uint64 { return ux(a) % ux(b) }},
		{op: "rem" + s, srcT: reg, dstT: reg, ldT: s, stT: s, nsrc: 2, skip: nz, want: func(a, b, _ uint64) uint64 { return uint64(sx(a) % sx(b)) }},
		{op: "mad.lo" + u, srcT: reg, dstT: reg, ldT: u, stT: u, nsrc: 3, want: func(a, b, c uint64) uint64 { return a*b + c }},
		{op: "mad.lo" + s, srcT: reg, dstT: reg, ldT: s, stT: s, nsrc: 3, want: func(a, b, c uint64) uint64 { return uint64(sx(a)*sx(b) + sx(c)) }},
		{op: "mad.hi" + u, srcT: reg, dstT: reg, ldT: u, stT: u, nsrc: 3, want: func(a, b, c uint64) uint64 { return hi(uprod(a, b)) + c }},
		{op: "neg" + s, srcT: reg, dstT: reg, ldT: s, stT: s, nsrc: 1, want: func(a, _, _ uint64) uint64 { return uint64(-sx(a)) }},
		{op: "abs" + s, srcT: reg, dstT: reg, ldT: s, stT: s, nsrc: 1, want: func(a, _, _ uint64) uint64 {
			if sx(a) < 0 {
				return uint64(-sx(a))
			}
			return uint64(sx(a))
		}},
		{op: fmt.Sprintf("not.b%d", n), srcT: reg, dstT: reg, ldT: u, stT: u, nsrc: 1, want: func(a, _, _ uint64) uint64 { return ^a }},
	}
	shift := func(op, typ string, f func(a uint64, s uint32) uint64) aluCase {
		return aluCase{op: op + typ, srcT: reg, dstT: reg, ldT: typ, stT: typ, nsrc: 2, want: func(a, b, _ uint64) uint64 { return f(a, uint32(b)) }}
	}
	cases = append(cases,
		shift("shl", fmt.Sprintf(".b%d", n), func(a uint64, s uint32) uint64 {
			if s >= uint32(n) {
				return 0
			}
			return a << s
		}),
		shift("shr", u, func(a uint64, s uint32) uint64 {
			if s >= uint32(n) {
				return 0
			}
			return ux(a) >> s
		}),
		shift("shr", s, func(a uint64, s uint32) uint64 {
			if s >= uint32(n) {
				s = uint32(n) - 1
			}
			return uint64(sx(a) >> s)
		}),
	)
	// shift amounts are .u32 registers: fix the kernels' register types
	for i := range cases {
		if strings.HasPrefix(cases[i].op, "sh") && n != 32 {
			cases[i].srcT = reg
		}
	}
	if n == 32 {
		clamp := func(v int64) uint64 { return uint64(max(min(v, math.MaxInt32), math.MinInt32)) }
		cases = append(cases,
			bin("add.sat", s, func(a, b uint64) uint64 { return clamp(sx(a) + sx(b)) }),
			bin("sub.sat", s, func(a, b uint64) uint64 { return clamp(sx(a) - sx(b)) }),
		)
	}
	if n <= 32 {
		cases = append(cases,
			aluCase{op: "mul.wide" + u, srcT: reg, dstT: wreg, ldT: u, stT: fmt.Sprintf(".u%d", 2*n), nsrc: 2,
				want: func(a, b, _ uint64) uint64 { return ux(a) * ux(b) }},
			aluCase{op: "mul.wide" + s, srcT: reg, dstT: wreg, ldT: s, stT: fmt.Sprintf(".s%d", 2*n), nsrc: 2,
				want: func(a, b, _ uint64) uint64 { return uint64(sx(a) * sx(b)) }},
			aluCase{op: "mad.wide" + u, srcT: reg, dstT: wreg, ldT: u, stT: fmt.Sprintf(".u%d", 2*n), nsrc: 3, wideC: true,
				want: func(a, b, c uint64) uint64 { return ux(a)*ux(b) + c }},
		)
	}
	return cases
}

func TestIntegerArithmetic(t *testing.T) {
	for _, n := range []int{16, 32, 64} {
		for _, c := range intCases(n) {
			if strings.HasPrefix(c.op, "sh") && n != 32 {
				continue // shift amounts must be 32-bit registers; covered at 32 bits
			}
			t.Run(c.op, func(t *testing.T) { runALU(t, c, intInputs) })
		}
	}
}

var floatInputs32 = []uint64{0, 0x80000000, 0x3f800000, 0xbf800000, 0x40490fdb, 0x7f7fffff, 0x00000001, 0x00800000, 0x7f800000, 0xff800000,
	0x3eaaaaab, 0x4b800000, 0xc2f6e979, 0x3dcccccd, 0x7fc00000}

var floatInputs64 = []uint64{0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x400921fb54442d18, 0x7fefffffffffffff,
	1, 0x7ff0000000000000, 0xfff0000000000000, 0x3fd5555555555555, 0xc05edd2f1a9fbe77, 0x3fb999999999999a}

func TestFloatArithmetic(t *testing.T) {
	f := func(b uint64) float32 { return math.Float32frombits(uint32(b)) }
	fb := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	d := func(b uint64) float64 { return math.Float64frombits(b) }
	db := math.Float64bits
	fmin := func(a, b float64, isMin bool) float64 {
		switch {
		case math.IsNaN(a):
			return b
		case math.IsNaN(b):
			return a
		case isMin:
			return math.Min(a, b)
		}
		return math.Max(a, b)
	}
	cases := []aluCase{
		{op: "add.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(f(a) + f(b)) }},
		{op: "sub.rn.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(f(a) - f(b)) }},
		{op: "mul.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(f(a) * f(b)) }},
		{op: "div.rn.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(f(a) / f(b)) }},
		{op: "fma.rn.f32", nsrc: 3, want: func(a, b, c uint64) uint64 { return fb(float32(math.FMA(float64(f(a)), float64(f(b)), float64(f(c))))) }},
		{op: "min.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(float32(fmin(float64(f(a)), float64(f(b)), true))) }},
		{op: "max.f32", nsrc: 2, want: func(a, b, _ uint64) uint64 { return fb(float32(fmin(float64(f(a)), float64(f(b)), false))) }},
		{op: "neg.f32", nsrc: 1, want: func(a, _, _ uint64) uint64 { return a ^ 0x80000000 }},
		{op: "abs.f32", nsrc: 1, want: func(a, _, _ uint64) uint64 { return a &^ 0x80000000 }},
	}
	for _, c := range cases {
		c.srcT, c.dstT, c.ldT, c.stT = ".f32", ".f32", ".f32", ".f32"
		t.Run(c.op, func(t *testing.T) { runALUFloat(t, c, floatInputs32, true) })
	}
	cases64 := []aluCase{
		{op: "add.f64", nsrc: 2, want: func(a, b, _ uint64) uint64 { return db(d(a) + d(b)) }},
		{op: "sub.f64", nsrc: 2, want: func(a, b, _ uint64) uint64 { return db(d(a) - d(b)) }},
		{op: "mul.rn.f64", nsrc: 2, want: func(a, b, _ uint64) uint64 { return db(d(a) * d(b)) }},
		{op: "div.rn.f64", nsrc: 2, want: func(a, b, _ uint64) uint64 { return db(d(a) / d(b)) }},
		{op: "fma.rn.f64", nsrc: 3, want: func(a, b, c uint64) uint64 { return db(math.FMA(d(a), d(b), d(c))) }},
		{op: "neg.f64", nsrc: 1, want: func(a, _, _ uint64) uint64 { return a ^ 1<<63 }},
	}
	for _, c := range cases64 {
		c.srcT, c.dstT, c.ldT, c.stT = ".f64", ".f64", ".f64", ".f64"
		t.Run(c.op, func(t *testing.T) { runALUFloat(t, c, floatInputs64, false) })
	}
}

// runALUFloat is runALU with NaN results compared as "any NaN".
func runALUFloat(t *testing.T, c aluCase, inputs []uint64, single bool) {
	t.Helper()
	w := c.want
	isNaN := func(v uint64) bool {
		if single {
			return math.IsNaN(float64(math.Float32frombits(uint32(v))))
		}
		return math.IsNaN(math.Float64frombits(v))
	}
	var tri [][3]uint64
	for i, a := range inputs {
		for j, b := range inputs {
			tri = append(tri, [3]uint64{a, b, inputs[(i*5+j)%len(inputs)]})
		}
	}
	in := make([]byte, 24*((len(tri)+63)/64*64))
	for i, x := range tri {
		for k := range 3 {
			binary.LittleEndian.PutUint64(in[24*i+8*k:], x[k])
		}
	}
	res := launch(t, c.kernel(), Config{Grid: dims((len(tri)+63)/64, 1, 1), Block: dims(64, 1, 1)},
		Arg{IsBuffer: true, Buffer: in}, buf(8*((len(tri)+63)/64*64)))
	size := 8
	if single {
		size = 4
	}
	for i, x := range tri {
		got := getN(res.Buffers[1].Data[8*i : 8*i+size])
		want := w(x[0], x[1], x[2])
		if single {
			want &= 0xffffffff
		}
		if isNaN(want) && isNaN(got) {
			continue
		}
		if got != want {
			t.Fatalf("%s a=%#x b=%#x c=%#x: got %#x, want %#x", c.op, x[0], x[1], x[2], got, want)
		}
	}
}

func TestSetpAndSelp(t *testing.T) {
	cmps := map[string]func(a, b int64, ua, ub uint64) bool{
		"eq": func(a, b int64, ua, ub uint64) bool { return ua == ub },
		"ne": func(a, b int64, ua, ub uint64) bool { return ua != ub },
		"lt": func(a, b int64, ua, ub uint64) bool { return a < b },
		"le": func(a, b int64, ua, ub uint64) bool { return a <= b },
		"gt": func(a, b int64, ua, ub uint64) bool { return a > b },
		"ge": func(a, b int64, ua, ub uint64) bool { return a >= b },
		"lo": func(a, b int64, ua, ub uint64) bool { return ua < ub },
		"ls": func(a, b int64, ua, ub uint64) bool { return ua <= ub },
		"hi": func(a, b int64, ua, ub uint64) bool { return ua > ub },
		"hs": func(a, b int64, ua, ub uint64) bool { return ua >= ub },
	}
	for _, n := range []int{16, 32, 64} {
		for name, f := range cmps {
			typ := fmt.Sprintf(".s%d", n)
			if name == "lo" || name == "ls" || name == "hi" || name == "hs" {
				typ = fmt.Sprintf(".u%d", n)
			}
			sh := uint(64 - n)
			mask := ^uint64(0) >> sh
			c := aluCase{op: "setp." + name + typ, nsrc: 2, srcT: fmt.Sprintf(".b%d", n), dstT: ".pred", ldT: typ, stT: ".u32",
				want: func(a, b, _ uint64) uint64 { return b2u(f(int64(a<<sh)>>sh, int64(b<<sh)>>sh, a&mask, b&mask)) }}
			t.Run(c.op, func(t *testing.T) {
				src := strings.Replace(c.kernel(), "\tst.global.u32 [%rd4], %d1;", "\tselp.u32 %r2, 1, 0, %d1;\n\tst.global.u32 [%rd4], %r2;", 1)
				runALUSrc(t, c, src, intInputs)
			})
		}
	}
	// float comparisons, ordered and unordered, and combining predicates
	fcmps := map[string]func(a, b float32) bool{
		"eq": func(a, b float32) bool { return a == b }, "ne": func(a, b float32) bool { return a != b && a == a && b == b },
		"lt": func(a, b float32) bool { return a < b }, "ge": func(a, b float32) bool { return a >= b },
		"equ": func(a, b float32) bool { return a != a || b != b || a == b }, "ltu": func(a, b float32) bool { return !(a >= b) },
		"num": func(a, b float32) bool { return a == a && b == b }, "nan": func(a, b float32) bool { return a != a || b != b },
	}
	for name, f := range fcmps {
		c := aluCase{op: "setp." + name + ".f32", nsrc: 2, srcT: ".f32", dstT: ".pred", ldT: ".f32", stT: ".u32",
			want: func(a, b, _ uint64) uint64 {
				return b2u(f(math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))))
			}}
		t.Run(c.op, func(t *testing.T) {
			src := strings.Replace(c.kernel(), "\tst.global.u32 [%rd4], %d1;", "\tselp.u32 %r2, 1, 0, %d1;\n\tst.global.u32 [%rd4], %r2;", 1)
			runALUSrc(t, c, src, floatInputs32)
		})
	}
}

// runALUSrc is runALU with a hand-edited kernel.
func runALUSrc(t *testing.T, c aluCase, src string, inputs []uint64) {
	t.Helper()
	var tri [][3]uint64
	for _, a := range inputs {
		for _, b := range inputs {
			tri = append(tri, [3]uint64{a, b, 0})
		}
	}
	in := make([]byte, 24*((len(tri)+63)/64*64))
	for i, x := range tri {
		binary.LittleEndian.PutUint64(in[24*i:], x[0])
		binary.LittleEndian.PutUint64(in[24*i+8:], x[1])
	}
	res := launch(t, src, Config{Grid: dims((len(tri)+63)/64, 1, 1), Block: dims(64, 1, 1)},
		Arg{IsBuffer: true, Buffer: in}, buf(8*((len(tri)+63)/64*64)))
	for i, x := range tri {
		got := uint64(binary.LittleEndian.Uint32(res.Buffers[1].Data[8*i:]))
		if want := c.want(x[0], x[1], 0); got != want {
			t.Fatalf("%s a=%#x b=%#x: got %d, want %d", c.op, x[0], x[1], got, want)
		}
	}
}

func TestSetpCombine(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	and.b32 %r3, %r1, 2;
	setp.ne.u32 %p1, %r2, 0;
	setp.ne.and.u32 %p2|%p3, %r3, 0, %p1;
	setp.eq.or.u32 %p0, %r3, 0, !%p1;
	selp.u32 %r4, 1, 0, %p2;
	selp.u32 %r5, 2, 0, %p3;
	selp.u32 %r6, 4, 0, %p0;
	or.b32 %r4, %r4, %r5;
	or.b32 %r4, %r4, %r6;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;`, "")
	res := launch(t, src, Config{Block: dims(4, 1, 1)}, buf(16))
	for i, v := range u32s(res.Buffers[0].Data) {
		b0, b1 := i&1 != 0, i&2 != 0
		want := b2u(b1 && b0) | 2*b2u(!b1 && b0) | 4*b2u(!b1 || !b0)
		if uint64(v) != want {
			t.Errorf("lane %d: got %d, want %d", i, v, want)
		}
	}
}

// TestHalfConversions checks floatToF16/floatToBF16 against known IEEE
// bit patterns and rounding directions.
func TestHalfConversions(t *testing.T) {
	f16 := []struct {
		x    float64
		r    Round
		want uint16
	}{
		{1, RoundNearest, 0x3c00}, {-2, RoundNearest, 0xc000}, {65504, RoundNearest, 0x7bff}, {65520, RoundNearest, 0x7c00},
		{65520, RoundZero, 0x7bff}, {1.0 / 3, RoundNearest, 0x3555}, {1.0 / 3, RoundUp, 0x3556}, {-1.0 / 3, RoundDown, 0xb556},
		{0.1, RoundNearest, 0x2e66}, {math.Ldexp(1, -24), RoundNearest, 0x0001}, {math.Ldexp(1, -25), RoundNearest, 0x0000},
		{math.Ldexp(3, -26), RoundNearest, 0x0001}, {math.Inf(-1), RoundNearest, 0xfc00}, {1 + math.Ldexp(1, -11), RoundNearest, 0x3c00},
		{1 + 3*math.Ldexp(1, -11), RoundNearest, 0x3c02}, {math.Ldexp(1, -14), RoundNearest, 0x0400},
	}
	for _, c := range f16 {
		if got := floatToF16(c.x, c.r); got != c.want {
			t.Errorf("floatToF16(%g, %d) = %#04x, want %#04x", c.x, c.r, got, c.want)
		}
		if c.want&0x7c00 != 0x7c00 && c.r == RoundNearest && f16ToFloat(c.want) != float64(float32(f16ToFloat(c.want))) {
			t.Errorf("f16ToFloat(%#04x) not exact", c.want)
		}
	}
	bf := []struct {
		x    float64
		want uint16
	}{{1, 0x3f80}, {0.1, 0x3dcd}, {-3.140625, 0xc049}, {1 + math.Ldexp(1, -8), 0x3f80}, {1 + 3*math.Ldexp(1, -8), 0x3f82}, {3.4e38, 0x7f80}}
	for _, c := range bf {
		if got := floatToBF16(c.x, RoundNearest); got != c.want {
			t.Errorf("floatToBF16(%g) = %#04x, want %#04x", c.x, got, c.want)
		}
	}
	if f16ToFloat(0x3555) != 0.333251953125 || bf16ToFloat(0xc049) != -3.140625 {
		t.Error("decode of half values")
	}
}

// TestConversions runs cvt between integer widths, integers and floats,
// floats and halves, with rounding modes and saturation.
func TestConversions(t *testing.T) {
	src := kernel1(`
	.reg .b16 %h<4>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<2>;
	mov.u32 %r1, 0xfffffe00;          // -512
	cvt.s8.s32 %h1, %r1;
	cvt.sat.s8.s32 %h2, %r1;
	cvt.sat.u8.s32 %h3, %r1;
	st.global.v4.u16 [%rd1], {%h1, %h2, %h3, %h3};
	cvt.s64.s32 %rd2, %r1;
	st.global.u64 [%rd1+8], %rd2;
	cvt.u64.u32 %rd2, %r1;
	st.global.u64 [%rd1+16], %rd2;
	mov.f32 %f1, 0f3FC00000;          // 1.5
	cvt.rni.s32.f32 %r2, %f1;
	cvt.rzi.s32.f32 %r3, %f1;
	cvt.rmi.s32.f32 %r4, %f1;
	cvt.rpi.s32.f32 %r5, %f1;
	st.global.v4.u32 [%rd1+32], {%r2, %r3, %r4, %r5};
	mov.f32 %f2, 0fCF000000;          // -2^31 * 1
	mul.f32 %f2, %f2, 0f40000000;     // -2^32: saturates
	cvt.rzi.s32.f32 %r2, %f2;
	cvt.rzi.u32.f32 %r3, %f2;
	cvt.rn.f32.s32 %f3, %r1;
	cvt.rn.f16.f32 %h1, %f1;
	cvt.f32.f16 %f1, %h1;
	st.global.v4.u32 [%rd1+48], {%r2, %r3, %f3, %f1};
	cvt.rn.bf16.f32 %h2, %f3;
	cvt.rz.f16.f32 %h3, 0f3EAAAAAB;   // 1/3 toward zero
	st.global.v2.u16 [%rd1+64], {%h2, %h3};
	cvt.f64.f32 %fd1, %f3;
	st.global.f64 [%rd1+72], %fd1;
	cvt.rn.f16x2.f32 %r2, %f1, %f3;
	st.global.u32 [%rd1+80], %r2;
	cvt.rni.f32.f32 %f1, 0f40200000;  // 2.5 -> 2
	st.global.f32 [%rd1+84], %f1;
	cvt.sat.f32.f32 %f1, 0f40200000;  // clamp to 1
	st.global.f32 [%rd1+88], %f1;`, "")
	res := launch(t, src, Config{}, buf(96))
	b := res.Buffers[0].Data
	u16 := func(i int) uint16 { return binary.LittleEndian.Uint16(b[i:]) }
	u32 := func(i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
	u64 := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	checks := []struct {
		name      string
		got, want uint64
	}{
		{"cvt.s8.s32 -512", uint64(u16(0)), 0},
		{"cvt.sat.s8.s32 -512", uint64(u16(2) & 0xff), 0x80},
		{"cvt.sat.u8.s32 -512", uint64(u16(4)), 0},
		{"cvt.s64.s32", u64(8), uint64(0xfffffffffffffe00)},
		{"cvt.u64.u32", u64(16), 0xfffffe00},
		{"rni 1.5", uint64(u32(32)), 2}, {"rzi 1.5", uint64(u32(36)), 1}, {"rmi 1.5", uint64(u32(40)), 1}, {"rpi 1.5", uint64(u32(44)), 2},
		{"sat s32", uint64(u32(48)), 0x80000000}, {"sat u32", uint64(u32(52)), 0},
		{"f32 of -512", uint64(u32(56)), uint64(math.Float32bits(-512))},
		{"f16 round trip 1.5", uint64(u32(60)), uint64(math.Float32bits(1.5))},
		{"bf16 -512", uint64(u16(64)), 0xc400},
		{"f16.rz 1/3", uint64(u16(66)), 0x3555},
		{"f64 of -512", u64(72), math.Float64bits(-512)},
		{"f16x2", uint64(u32(80)), 0x3e00<<16 | 0xe000},
		{"rni f32", uint64(u32(84)), uint64(math.Float32bits(2))},
		{"sat f32", uint64(u32(88)), uint64(math.Float32bits(1))},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// TestHalfArithmetic: .f16, .f16x2 and .bf16 arithmetic rounds once to
// the half format (values chosen so the results are exact or have a known
// rounding).
func TestHalfArithmetic(t *testing.T) {
	src := kernel1(`
	.reg .b16 %h<8>;
	mov.b16 %h1, 0x3c00;               // 1.0
	mov.b16 %h2, 0x4000;               // 2.0
	add.f16 %h3, %h1, %h2;             // 3.0 = 0x4200
	mov.b16 %h4, 0x3555;               // 0.333251953125
	mul.rn.f16 %h5, %h4, %h4;          // 0.11105... -> 0x2f1c
	mov.b32 %r1, 0x40003e00;           // {lo 1.5, hi 2.0}
	mov.b32 %r2, 0x38004000;           // {lo 2.0, hi 0.5}
	mul.f16x2 %r3, %r1, %r2;           // {3.0, 1.0} = 0x3c004200
	mov.b16 %h6, 0x3f80;               // bf16 1.0
	mov.b16 %h7, 0x4040;               // bf16 3.0
	fma.rn.bf16 %h6, %h6, %h7, %h7;    // 6.0 = 0x40c0
	neg.f16 %h1, %h1;
	st.global.v4.b16 [%rd1], {%h3, %h5, %h6, %h1};
	st.global.b32 [%rd1+8], %r3;`, "")
	res := launch(t, src, Config{}, buf(12))
	b := res.Buffers[0].Data
	x := 0.333251953125
	want := []uint16{0x4200, floatToF16(x*x, RoundNearest), 0x40c0, 0xbc00}
	for i, w := range want {
		if got := binary.LittleEndian.Uint16(b[2*i:]); got != w {
			t.Errorf("half %d = %#04x, want %#04x", i, got, w)
		}
	}
	if f16ToFloat(want[1]) != 0.111083984375 {
		t.Errorf("reference product %v", f16ToFloat(want[1]))
	}
	if got := binary.LittleEndian.Uint32(b[8:]); got != 0x3c004200 {
		t.Errorf("f16x2 product = %#x", got)
	}
}

func TestSetSlctTestp(t *testing.T) {
	src := kernel1(`
	.reg .f32 %f<4>;
	mov.u32 %r1, 5;
	mov.u32 %r2, -3;
	set.lt.u32.s32 %r3, %r2, %r1;
	set.gt.u32.s32 %r4, %r2, %r1;
	set.ne.and.f32.s32 %r5, %r2, %r1, %p0;
	setp.eq.u32 %p0, %r1, 5;
	set.ne.and.f32.s32 %r6, %r2, %r1, %p0;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
	slct.u32.s32 %r3, 10, 20, %r2;
	slct.u32.s32 %r4, 10, 20, %r1;
	mov.f32 %f1, 0f80000000;
	slct.u32.f32 %r5, 10, 20, %f1;
	mov.f32 %f2, 0f7F800000;
	testp.infinite.f32 %p1, %f2;
	testp.finite.f32 %p2, %f2;
	mov.f32 %f3, 0f00000001;
	testp.subnormal.f32 %p3, %f3;
	selp.u32 %r6, 1, 0, %p1;
	selp.u32 %r7, 2, 0, %p2;
	or.b32 %r6, %r6, %r7;
	selp.u32 %r7, 4, 0, %p3;
	or.b32 %r6, %r6, %r7;
	st.global.v4.u32 [%rd1+16], {%r3, %r4, %r5, %r6};`, "")
	res := launch(t, src, Config{}, buf(32))
	got := u32s(res.Buffers[0].Data)
	want := []uint32{0xffffffff, 0, 0, math.Float32bits(1), 20, 10, 10, 1 | 4}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %x, want %x", got, want)
	}
}

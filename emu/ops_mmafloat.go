package emu

import (
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Floating-point warp-level mma.sync (PTX ISA §9.7.14.5.14): the m16n8kK
// shapes on f16, bf16, tf32, e4m3/e5m2 and f64, and m8n8k4 on f64 (Volta's
// f16 m8n8k4 is in ops_mma884.go). The
// warp's fragments are gathered into whole matrices, the arithmetic is
// internal/tensorcore's model of the module's target architecture, and D
// is scattered back. The fragment layouts are the manual's figures for
// these shapes: with groupID g = lane/4 and t = lane%4, and e elements per
// register (32/width, one for tf32 and f64),
//
//	A element j (register r = j/e, s = j%e): row g + 8·(r%2), column e·t + s + 4e·(r/2)
//	B element j:                            row e·t + s + 4e·r, column g
//	C/D element j:                          row g + 8·(j/2), column 2t + j%2
//
// (m8n8 shapes have one A register and the rows g only).

// mmaFloat is the Ext of a floating-point mma.
type mmaFloat struct {
	m, n, k    int
	in, bin    tensorcore.Format // A and B
	cf, df     tensorcore.Format // C and D
	arch       *tensorcore.Arch
	a, b, c, d []int32
}

var mmaFloatFormats = map[isa.Qual]tensorcore.Format{
	isa.QF16: tensorcore.F16, isa.QBF16: tensorcore.BF16, isa.QTf32: tensorcore.TF32, isa.QF32: tensorcore.F32,
	isa.QF64: tensorcore.F64, isa.QE4m3: tensorcore.E4M3, isa.QE5m2: tensorcore.E5M2,
}

var mmaFloatShapes = []mmaShape{{isa.QM16n8k4, 16, 8, 4}, {isa.QM16n8k8, 16, 8, 8}, {isa.QM16n8k16, 16, 8, 16},
	{isa.QM16n8k32, 16, 8, 32}, {isa.QM8n8k4, 8, 8, 4}}

// isFloatMma reports whether the mma's A type is a floating-point format.
func isFloatMma(q Quals) bool {
	var types []isa.Qual
	for _, x := range q.List {
		if _, ok := mmaFloatFormats[x]; ok {
			types = append(types, x)
		}
	}
	return len(types) == 4
}

func decodeMmaFloat(d *Decoder, in *ast.Instruction, out *Inst, q Quals) error {
	var types []tensorcore.Format
	for _, x := range q.List {
		if f, ok := mmaFloatFormats[x]; ok {
			types = append(types, f)
		}
	}
	mf := &mmaFloat{df: types[0], in: types[1], bin: types[2], cf: types[3], arch: tensorcore.ForSM(d.sm)}
	for _, sh := range mmaFloatShapes {
		if q.Has(sh.q) {
			mf.m, mf.n, mf.k = sh.m, sh.n, sh.k
		}
	}
	if mf.m == 8 && mf.in == tensorcore.F16 {
		return decodeMma884(d, in, out, q, mf)
	}
	if mf.m == 8 && mf.in != tensorcore.F64 || q.Has(isa.QSp) || q.Has(isa.QSp_Ordered_Metadata) || len(in.Operands) != 4 || mf.m == 0 {
		return d.Errorf(in, "the emulator implements floating-point mma on the m16n8k4/k8/k16/k32 shapes and f64 m8n8k4, dense, .row.col (not %s)", in.FullOpcode())
	}
	e := mf.perReg(mf.in)
	want := []int{mf.m * mf.n / 32 / mf.perReg(mf.df), mf.m * mf.k / 32 / e, mf.k * mf.n / 32 / e, mf.m * mf.n / 32 / mf.perReg(mf.cf)}
	rt := [4]Type{TB32, TB32, TB32, TB32}
	for i, f := range []tensorcore.Format{mf.df, mf.in, mf.in, mf.cf} {
		if f == tensorcore.F64 {
			rt[i] = TB64
		}
	}
	if err := mmaFragments(d, in, [4]*[]int32{&mf.d, &mf.a, &mf.b, &mf.c}, [4]int(want), rt); err != nil {
		return err
	}
	out.Ext = mf
	out.Exec = execMmaFloat
	return nil
}

// perReg is the number of elements of format f in one register.
func (mf *mmaFloat) perReg(f tensorcore.Format) int {
	if f.Bits() >= 32 {
		return 1
	}
	return 32 / f.Bits()
}

// mmaFragPlace is the row and column of element j of a fragment held by
// lane l (the layouts in the comment at the top of the file).
func mmaFragPlace(frag byte, e, l, j int) (row, col int) {
	g, t := l/4, l%4
	r, s := j/e, j%e
	switch frag {
	case 'a':
		return g + 8*(r%2), e*t + s + 4*e*(r/2)
	case 'b':
		return e*t + s + 4*e*r, g
	}
	return g + 8*(j/2), 2*t + j%2
}

// elemOf extracts element s (of width bits) of a register word.
func elemOf(word uint64, bits, s int) uint64 {
	if bits >= 32 {
		return word
	}
	return word >> uint(s*bits) & (1<<uint(bits) - 1)
}

func execMmaFloat(w *Warp, in *Inst) Status {
	mf := in.Ext.(*mmaFloat)
	if w.Exec != w.live || w.live != 0xffffffff {
		return w.Fault(lane(w.Exec), RuleUnsupported, "PTX ISA §9.7.14.5.14 (mma)", "mma.sync.aligned executed by %d threads; every thread of the warp must execute it", bitsOn(w.Exec))
	}
	p := &tensorcore.Problem{Kind: tensorcore.Sync, In: mf.in, BIn: mf.bin, Out: mf.df, CIn: mf.cf, M: mf.m, N: mf.n, K: mf.k,
		A: make([]uint64, mf.m*mf.k), B: make([]uint64, mf.n*mf.k), C: make([]uint64, mf.m*mf.n), D: make([]uint64, mf.m*mf.n)}
	ea, ec, ed := mf.perReg(mf.in), mf.perReg(mf.cf), mf.perReg(mf.df)
	ib, cb, db := mf.in.Bits(), mf.cf.Bits(), mf.df.Bits()
	for l := range 32 {
		for j := range ea * len(mf.a) {
			r, c := mmaFragPlace('a', ea, l, j)
			p.A[r*mf.k+c] = elemOf(w.R[mf.a[j/ea]+int32(l)], ib, j%ea)
		}
		for j := range ea * len(mf.b) {
			r, c := mmaFragPlace('b', ea, l, j)
			p.B[c*mf.k+r] = elemOf(w.R[mf.b[j/ea]+int32(l)], ib, j%ea)
		}
		for j := range ec * len(mf.c) {
			r, c := mmaFragPlace('c', 1, l, j)
			p.C[r*mf.n+c] = elemOf(w.R[mf.c[j/ec]+int32(l)], cb, j%ec)
		}
	}
	mf.arch.MMA(p)
	for l := range 32 {
		words := make([]uint64, len(mf.d))
		for j := range ed * len(mf.d) {
			r, c := mmaFragPlace('d', 1, l, j)
			v := p.D[r*mf.n+c]
			if db < 32 {
				v = (v & (1<<uint(db) - 1)) << uint(db*(j%ed))
			}
			words[j/ed] |= v
		}
		for i, s := range mf.d {
			w.R[s+int32(l)] = words[i]
		}
	}
	return Continue
}

// targetSM is the number of the module's .target sm_XX, or 0.
func targetSM(m *ast.Module) int {
	for _, st := range m.Stmts {
		dir, ok := st.(*ast.Directive)
		if !ok || dir.Name != ".target" {
			continue
		}
		for _, a := range dir.Args {
			id, ok := a.(*ast.Ident)
			if !ok || !strings.HasPrefix(id.Name, "sm_") {
				continue
			}
			num := strings.TrimRight(id.Name[3:], "af")
			if n, err := strconv.Atoi(num); err == nil {
				return n
			}
		}
	}
	return 0
}

package check

import (
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// The tables' instructions, compared by pointer on the hot paths.
var (
	instrSt        = isa.Lookup("st")
	instrStAsync   = isa.Lookup("st.async")
	instrTcgen05St = isa.Lookup("tcgen05.st")
)

const (
	secAddr    = "PTX ISA 6.4.1 (Addresses as Operands)"
	secRelaxed = "PTX ISA 9.4.1, Table 27 (relaxed type-checking for source operands)"
	secParam   = "PTX ISA 5.1.6 (Parameter State Space)"
)

// operands checks the operands of a decoded instruction against the slots
// its form has.
func (c *checker) operands(in *ast.Instruction, d *decoded) {
	f, slots := &d.form, d.slots
	c.operandCount(in, f, slots)
	n := min(len(slots), len(in.Operands))
	for i := 0; i < n; i++ {
		e := in.Operands[i]
		switch slots[i].Kind {
		case isa.OpAddress:
			if !c.plainAddress(f, e, slots[i].Name) {
				c.address(in, f, e, f.Space, slots[i].Name)
			}
		case isa.OpMbarrier:
			c.address(in, f, e, f.Space, slots[i].Name)
		case isa.OpValue:
			if d.typed && !c.plainValue(d, e) {
				c.value(f, e)
			}
		case isa.OpPolicy:
			c.policy(e)
		case isa.OpImm:
			if !isIntImm(e) {
				c.errorf(e.Pos(), e.End(), "tcgen05-split-offset", f.Instr.Section, "",
					"immHalfSplitoff must be an integer immediate")
			}
		case isa.OpRegVector:
			c.regVector(f, e)
		}
	}
}

func (c *checker) operandCount(in *ast.Instruction, f *isa.Form, slots []isa.Operand) {
	got := len(in.Operands)
	if got == len(slots) {
		return
	}
	name := f.Instr.Name
	switch {
	case name == "st" && got == 3 && !f.CacheHint:
		e := in.Operands[2]
		c.errorf(e.Pos(), e.End(), "st-cache-policy", "PTX ISA 9.7.9.11 (st)", "add .L2::cache_hint",
			"a cache-policy operand requires the .L2::cache_hint qualifier")
		return
	case name == "st" && got == 2 && f.CacheHint:
		q := in.Quals[f.At[isa.GCacheHint]]
		c.errorf(q.Pos, q.End(), "st-cache-policy", "PTX ISA 9.7.9.11 (st)", "add a 64-bit cache-policy operand (from createpolicy)",
			".L2::cache_hint requires a 64-bit cache-policy operand")
		return
	case name == "tcgen05.st" && got == 3 && f.Shape != isa.Q16x32bx2 && f.Shape != isa.QNone:
		e := in.Operands[1]
		c.errorf(e.Pos(), e.End(), "tcgen05-split-offset", f.Instr.Section, "remove the immediate",
			"only .16x32bx2 takes an immHalfSplitoff operand")
		return
	case name == "tcgen05.st" && got == 2 && f.Shape == isa.Q16x32bx2:
		q := in.Quals[f.At[isa.GShape]]
		c.errorf(q.Pos, q.End(), "tcgen05-split-offset", f.Instr.Section, "add the immHalfSplitoff immediate after [taddr]",
			".16x32bx2 requires an immHalfSplitoff immediate operand")
		return
	}
	var names []string
	for _, s := range slots {
		names = append(names, s.Name)
	}
	if name == "st.async" && got == 2 && f.Complete != isa.QNone {
		if f.Vec > 1 && c.followsPtxas13() {
			// ptxas 13.0's form without [mbar] is scalar only.
			q := in.Quals[f.At[isa.GVec]]
			c.errorf(q.Pos, q.End(), "operand-count", f.Instr.Section, "add the mbarrier operand, or store one element",
				"st.async without its mbarrier operand takes no vector (ptxas 13.0), and the page requires [mbar]")
			return
		}
		sev, msg := c.againstPage("st.async.mbarrier::complete_tx::bytes needs its mbarrier operand [mbar]")
		c.diags.Add(diag.Diagnostic{File: c.file, Pos: in.OpPos, End: in.End(), Severity: sev, Rule: "operand-count",
			Message: msg, Spec: f.Instr.Section, Fix: "add the address of the mbarrier object as the third operand"})
		return
	}
	pos, end := in.OpPos, in.End()
	if got > len(slots) {
		pos = in.Operands[len(slots)].Pos()
	}
	c.errorf(pos, end, "operand-count", f.Instr.Section, "",
		"%s takes %d operands (%s), not %d", name, len(slots), strings.Join(names, ", "), got)
}

// spaceCompatible reports whether a variable of space v may be the address
// operand of an access to space s (QNone: generic).
func spaceCompatible(s, v isa.Qual) bool {
	shared := v == isa.QSharedCta || v == isa.QShared || v == isa.QSharedCluster
	switch s {
	case isa.QNone:
		return v == isa.QGlobal || v == isa.QLocal || shared
	case isa.QSharedCta, isa.QShared, isa.QSharedCluster:
		return shared
	case isa.QParam, isa.QParamFunc:
		return v == isa.QParam
	}
	return s == v
}

// address checks an address operand of an access to space s.
func (c *checker) address(in *ast.Instruction, f *isa.Form, e ast.Expr, s isa.Qual, what string) {
	tmem := f.Instr == instrTcgen05St
	switch a := e.(type) {
	case *ast.Address:
		if len(a.Index) > 0 {
			c.errorf(a.Pos(), a.End(), "operand-address", secAddr, "", "operand %s must be a single address, not a list", what)
			return
		}
		switch b := a.Base.(type) {
		case nil:
			if tmem {
				c.errorf(a.Pos(), a.End(), "operand-address", f.Instr.Section, "", "taddr must be a 32-bit register address")
			} else if s != isa.QLocal {
				c.errorf(a.Pos(), a.End(), "address-immediate", secAddr, "put the address in a register",
					"immediate addresses are allowed only for the .local state space")
			}
		case *ast.Reg:
			c.addressName(in, f, b.Name, b.Comp, b, s, what)
		case *ast.Ident:
			c.addressName(in, f, b.Name, "", b, s, what)
		}
	case *ast.IndexExpr:
		if id, ok := a.X.(*ast.Ident); ok && !tmem {
			c.addressName(in, f, id.Name, "", id, s, what)
			return
		}
		c.errorf(e.Pos(), e.End(), "operand-address", secAddr, "", "operand %s must be an address", what)
	default:
		c.errorf(e.Pos(), e.End(), "operand-address", secAddr, "write ["+printer.String(e)+"]",
			"operand %s must be an address in brackets ([reg], [var], [reg+imm])", what)
	}
}

// plainAddress reports whether e is an address operand that address
// would find nothing wrong with, for the common case only: [reg] or
// [reg+imm] with a declared register that may hold the address.
func (c *checker) plainAddress(f *isa.Form, e ast.Expr, what string) bool {
	a, ok := e.(*ast.Address)
	if !ok || len(a.Index) > 0 {
		return false
	}
	r, ok := a.Base.(*ast.Reg)
	if !ok {
		return false
	}
	sym := c.lookup(r)
	if sym == nil || !isReg(sym) {
		return false
	}
	if t := sym.ElemType; t != isa.QNone {
		if k := t.Kind(); k == 'f' || k == 'p' || k == 'x' || t.Bits() > 64 {
			return false
		}
		if f.Instr == instrSt && c.mod.addrSize != 32 && t.Bits() == 32 && (f.Space == isa.QNone || f.Space == isa.QGlobal) {
			return false
		}
	}
	if what == "a" && f.Instr != instrTcgen05St {
		from, ok := c.origin.get(r.Name)
		return !ok || originMatches(from, f.Space)
	}
	return true
}

// addressName checks a named address base: a register holding an address
// or a variable whose space must match the instruction's.
func (c *checker) addressName(in *ast.Instruction, f *isa.Form, name, comp string, n ast.Expr, s isa.Qual, what string) {
	sym := c.lookup(n)
	if sym == nil {
		return // undeclared names are reported by name resolution
	}
	if isReg(sym) {
		t := sym.ElemType
		if k := t.Kind(); t != isa.QNone && (k == 'f' || k == 'p' || k == 'x' || t.Bits() > 64) {
			c.errorf(n.Pos(), n.End(), "address-register-type", secAddr, "",
				"register %s of type %s cannot hold an address (use an integer or bit-size register)", name, t)
			return
		}
		if f.Instr == instrSt && t.Bits() == 32 && (s == isa.QNone || s == isa.QGlobal) {
			if msg := c.narrowAddressRule(name, spaceName(f)); msg != "" {
				c.errorf(n.Pos(), n.End(), "address-size", secAddr+"; PTX ISA 11.1.3 (.address_size)", "use a 64-bit register (cvt.u64.u32)", "%s", msg)
			}
			return
		}
		if what == "a" && f.Instr != instrTcgen05St {
			c.originWarning(f, name, n)
		}
		return
	}
	if f.Instr == instrTcgen05St {
		c.errorf(n.Pos(), n.End(), "operand-address", f.Instr.Section, "", "taddr must be a register")
		return
	}
	if sym.Input() && (s == isa.QParam || s == isa.QParamFunc) {
		c.errorf(n.Pos(), n.End(), "st-param-input", secParam, "",
			"illegal to write to input parameter %s (only return parameters and call arguments are writable)", name)
		return
	}
	if !spaceCompatible(s, sym.StateSpace) {
		space := "generic addressing"
		if s != isa.QNone {
			space = f.Written(isa.GSpace).String()
		}
		c.errorf(n.Pos(), n.End(), "address-space", secAddr, "",
			"%s is declared in %s but the %s operand is accessed with %s", name, declSpaceName(sym), what, space)
		return
	}
	if in.Guard != nil && sym.Role == resolve.CallSlot && (s == isa.QParam || s == isa.QParamFunc) {
		c.errorf(in.Guard.Pos(), in.Guard.End(), "st-param-predicated", "PTX ISA 9.7.9.11 (st)", "remove the guard",
			"st.param that passes an argument to a function cannot be predicated")
	}
}

func spaceName(f *isa.Form) string {
	if f.Space == isa.QNone {
		return "generic"
	}
	return f.Written(isa.GSpace).String()
}

func declSpaceName(s *resolve.Symbol) string {
	if s.Role == resolve.KernelParam {
		return ".param (a kernel parameter)"
	}
	if s.StateSpace == isa.QSharedCta {
		return ".shared"
	}
	return s.StateSpace.String()
}

// plainValue reports whether e is a value operand that value would find
// nothing wrong with, for the common cases only: a declared scalar
// register, or a vector of as many declared registers of one type as the
// form stores, of a type the form may store.
func (c *checker) plainValue(d *decoded, e ast.Expr) bool {
	f := &d.form
	if r, ok := e.(*ast.Reg); ok {
		if f.Vec != 1 {
			return false
		}
		sym := c.lookup(r)
		if sym == nil || !isReg(sym) || sym.VecLen() > 1 && r.Comp == "" {
			return false
		}
		return sym.ElemType == isa.QNone || d.storable(sym.ElemType, false)
	}
	v, ok := e.(*ast.VectorExpr)
	if !ok || f.Vec == 1 || len(v.Elems) != f.Vec {
		return false
	}
	t := isa.QNone
	for _, el := range v.Elems {
		r, ok := el.(*ast.Reg)
		if !ok {
			return false
		}
		sym := c.lookup(r)
		if sym == nil || !isReg(sym) || sym.VecLen() > 1 && r.Comp == "" || sym.ElemType == isa.QNone || t != isa.QNone && sym.ElemType != t {
			return false
		}
		t = sym.ElemType
	}
	return d.storable(t, true)
}

// storable reports whether a register of type t may be stored with the
// form's type (checkType, precomputed).
func (d *decoded) storable(t isa.Qual, inVector bool) bool {
	v := 0
	if inVector {
		v = 1
	}
	return t < 128 && d.sourceOK[v][t/64]&(1<<(t%64)) != 0
}

// value checks the stored value operand b.
func (c *checker) value(f *isa.Form, e ast.Expr) {
	if v, ok := e.(*ast.VectorExpr); ok {
		if f.Vec == 1 && len(v.Elems) == 1 {
			c.warnf(v.Pos(), v.End(), "st-braced-scalar", f.Instr.Section, "remove the braces",
				"braces around a scalar operand; ptxas accepts it but the grammar does not list it")
		} else if len(v.Elems) != f.Vec {
			c.errorf(v.Pos(), v.End(), "vector-arity", f.Instr.Section, "",
				"%s%s stores %d element(s) but the vector operand has %d", vecName(f), f.Type, f.Vec, len(v.Elems))
			return
		}
		c.vector(f, v.Elems)
		return
	}
	if f.Vec > 1 {
		if n := ast.NameOf(e); n != "" && c.special(e) == nil {
			if c.lookup(e) == nil {
				return // undeclared: reported by name resolution
			}
		}
		sym, isReg := c.namedReg(e)
		whole := isReg && sym.VecLen() > 1 && componentOf(e) == ""
		if whole && sym.VecLen() == f.Vec {
			c.checkType(f, e, sym.ElemType, true)
			return
		}
		if f.Instr == instrStAsync && !whole {
			// ptxas 12.5 accepts a scalar here and checks only its type.
			c.warnf(e.Pos(), e.End(), "st-async-scalar-vector", f.Instr.Section, "write a brace-enclosed vector",
				"%s%s stores %d elements but the operand is a scalar; ptxas accepts it", vecName(f), f.Type, f.Vec)
			c.scalar(f, e)
			return
		}
		c.errorf(e.Pos(), e.End(), "vector-arity", f.Instr.Section, "",
			"%s%s needs a vector operand of %d elements", vecName(f), f.Type, f.Vec)
		return
	}
	c.scalar(f, e)
}

func vecName(f *isa.Form) string {
	if f.Vec == 1 {
		return f.Instr.Name
	}
	return f.Instr.Name + ".v" + strconv.Itoa(f.Vec)
}

// elemType is the type of one element of a stored value: a register type,
// or an integer or floating-point immediate (whose width is flexible).
type elemType struct {
	t     isa.Qual // register type; QNone for immediates
	imm   byte     // 0 for a register, 'i' integer immediate, 'f' float immediate
	width int      // width of a float immediate: 32 for 0f, else 64
}

// class is the type class ptxas compares vector elements by: bit-size
// registers go with anything; otherwise integer, float, packed-half and
// predicate classes must agree.
func (et elemType) class() byte {
	if et.imm != 0 {
		return et.imm
	}
	switch k := et.t.Kind(); k {
	case 'u', 's':
		return 'i'
	default:
		return k
	}
}

// element returns the type of one value element; it reports and returns
// false for operands that cannot be stored.
func (c *checker) element(f *isa.Form, e ast.Expr, inVector bool) (elemType, bool) {
	if r, ok := e.(*ast.Reg); ok {
		// The common case first: a declared register, as a whole
		// scalar or as a component of a vector register.
		if sym := c.lookup(r); sym != nil && isReg(sym) && (sym.VecLen() <= 1 || r.Comp != "") {
			return elemType{t: sym.ElemType}, true
		}
	}
	switch x := e.(type) {
	case *ast.IntLit, *ast.UnaryExpr, *ast.BinaryExpr, *ast.ParenExpr:
		if isIntImm(e) {
			return elemType{imm: 'i'}, true
		}
		if r, ok := regPlusImm(e); ok {
			// ptxas accepts "%r+imm" as a source operand: the register's
			// value plus the immediate (it emits an add).
			return c.element(f, r, inVector)
		}
	case *ast.FloatLit:
		w := 64
		if x.Single {
			w = 32
		}
		return elemType{imm: 'f', width: w}, true
	case *ast.Reg, *ast.Ident:
		name := ast.NameOf(e)
		sym := c.lookup(e)
		if sym == nil {
			if r := c.special(e); r != nil {
				if !inVector {
					c.errorf(e.Pos(), e.End(), "special-register", f.Instr.Section, "copy it to a register with mov first",
						"special register %s cannot be stored directly", name)
					return elemType{}, false
				}
				c.gateSpecial(e, r)
				return elemType{t: r.Type}, true
			}
			return elemType{}, true // undeclared: reported by name resolution
		}
		if !isReg(sym) {
			c.errorf(e.Pos(), e.End(), "value-register", f.Instr.Section+"; Notes", "",
				"operand b must be a register or immediate; %s is a %s variable", name, declSpaceName(sym))
			return elemType{}, false
		}
		if sym.VecLen() > 1 && componentOf(e) == "" {
			c.errorf(e.Pos(), e.End(), "vector-arity", f.Instr.Section, "",
				"%s is a .v%d register; %s%s stores %d element(s)", name, sym.VecLen(), vecName(f), f.Type, f.Vec)
			return elemType{}, false
		}
		return elemType{t: sym.ElemType}, true
	case *ast.Sink:
		c.errorf(x.Pos(), x.End(), "st-sink", f.Instr.Section, "",
			"the sink _ is allowed only inside .v8 (32-bit types) or .v4 (64-bit types) vectors of st")
		return elemType{}, false
	}
	c.errorf(e.Pos(), e.End(), "value-register", f.Instr.Section+"; Notes", "", "operand b must be a register or immediate")
	return elemType{}, false
}

// scalar checks a scalar value operand.
func (c *checker) scalar(f *isa.Form, e ast.Expr) {
	et, ok := c.element(f, e, false)
	if !ok {
		return
	}
	switch {
	case et.imm == 'i':
		if f.Type.Kind() == 'f' {
			c.errorf(e.Pos(), e.End(), "immediate-type", f.Instr.Section, "write a floating-point literal (e.g. 0f3F800000)",
				"integer immediate stored with floating-point type %s", f.Type)
		}
	case et.imm == 'f':
		c.floatImm(f, e, et.width)
	case et.t != isa.QNone:
		c.checkType(f, e, et.t, false)
	}
}

func (c *checker) floatImm(f *isa.Form, e ast.Expr, width int) {
	if k := f.Type.Kind(); k != 'f' && !(k == 'b' && f.Type.Bits() == width) {
		c.errorf(e.Pos(), e.End(), "immediate-type", f.Instr.Section, "",
			"floating-point immediate (%d-bit) stored with type %s (float literals need a float type or a bit type of their width)", width, f.Type)
	}
}

// vector checks the elements of a brace-enclosed value the way ptxas
// 12.5 does (found by differential testing): when the first element is a
// register, every register must have its size; neighbouring elements must
// have compatible classes (bit-size goes with anything); the vector takes
// the type of its first bit-size register, else of its first element, and
// becomes untyped bits of the first register's size when an immediate
// follows that register; that type is then checked against the
// instruction type.
func (c *checker) vector(f *isa.Form, elems []ast.Expr) {
	wide := f.Instr == instrSt && ((f.Vec == 8 && f.Type.Bits() == 32) || (f.Vec == 4 && f.Type.Bits() == 64))
	var vt, first, prev elemType
	have, bitVT, sawImm := false, false, false
	for i, el := range elems {
		if _, ok := el.(*ast.Sink); ok && wide {
			continue
		}
		et, ok := c.element(f, el, true)
		if !ok {
			return
		}
		if et.imm == 0 && et.t == isa.QNone {
			continue // undeclared
		}
		if !have {
			vt, first, prev, have = et, et, et, true
			bitVT = et.imm == 0 && et.t.Kind() == 'b'
			continue
		}
		if first.imm == 0 && et.imm == 0 && vectorBits(et.t) != vectorBits(first.t) {
			c.errorf(el.Pos(), el.End(), "vector-mixed", f.Instr.Section, "",
				"elements of a vector operand must have the size of the first (%s and %s)", first.t, et.t)
			return
		}
		if a, b := prev.class(), et.class(); a != b && a != 'b' && b != 'b' {
			c.errorf(el.Pos(), el.End(), "vector-mixed", f.Instr.Section, "",
				"elements %d and %d of the vector operand have incompatible types (%s and %s)", i, i+1, elemName(prev), elemName(et))
			return
		}
		if et.imm == 0 && (vt.imm != 0 || !bitVT && et.t.Kind() == 'b') {
			vt, bitVT = et, et.t.Kind() == 'b'
		}
		prev = et
		sawImm = sawImm || et.imm != 0
	}
	if !have {
		return
	}
	if first.imm == 0 && sawImm {
		// A register first and an immediate later: ptxas types the
		// vector as untyped bits of the register's size.
		vt = elemType{t: bitType(vectorBits(first.t))}
	}
	e := elems[0]
	switch vt.imm {
	case 'i':
		// An all-immediate vector of st is typed as 64-bit integers:
		// fine for every integer and bit type and for .f64, not .f32.
		if f.Type.Kind() == 'f' && (f.Instr != instrSt || f.Type != isa.QF64) {
			c.errorf(e.Pos(), e.End(), "immediate-type", f.Instr.Section, "", "integer immediate stored with floating-point type %s", f.Type)
		}
	case 'f':
		c.floatImm(f, e, vt.width)
	default:
		if first.imm != 0 {
			// After a leading immediate ptxas compares kinds only.
			if !kindOK(f.Type, vt.t) {
				c.errorf(e.Pos(), e.End(), "operand-type", secRelaxed, "",
					"vector elements of type %s cannot be stored as %s", vt.t, f.Type)
			}
			return
		}
		c.checkType(f, e, vt.t, true)
	}
}

// kindOK is the type check ptxas applies to a vector whose first element
// is an immediate: kinds must agree, sizes are not compared.
func kindOK(it, rt isa.Qual) bool {
	rk := bitsKind(rt)
	switch {
	case rk == 'p':
		return false
	case it.Kind() == 'b':
		return true
	case it.Kind() == 'f':
		return rt.Kind() != 'x'
	}
	return rk == 'b' || rk == 'u' || rk == 's'
}

// bitType returns the bit-size type of n bits.
func bitType(n int) isa.Qual {
	switch n {
	case 8:
		return isa.QB8
	case 16:
		return isa.QB16
	case 32:
		return isa.QB32
	case 64:
		return isa.QB64
	}
	return isa.QB128
}

// vectorBits is the size ptxas compares vector elements by; predicates
// count as 32 bits.
func vectorBits(t isa.Qual) int {
	if t.Kind() == 'p' {
		return 32
	}
	return t.Bits()
}

func className(k byte) string {
	switch k {
	case 'i':
		return "integer"
	case 'f':
		return "floating-point"
	case 'x':
		return "packed half"
	case 'p':
		return "predicate"
	}
	return "bit-size"
}

func elemName(et elemType) string {
	switch et.imm {
	case 'i':
		return "integer immediate"
	case 'f':
		return "floating-point immediate"
	}
	return et.t.String()
}

// checkType applies the source-operand type rules: relaxed (wider
// registers store their low bits) for st, exact size for st.async.
func (c *checker) checkType(f *isa.Form, e ast.Expr, rt isa.Qual, inVector bool) bool {
	if rt == isa.QNone || f.Type == isa.QNone {
		return true
	}
	ok := sourceOK(f, rt, inVector)
	if !ok {
		c.errorf(e.Pos(), e.End(), "operand-type", secRelaxed, typeFix(f, rt),
			"register %s of type %s cannot be stored as %s", ast.NameOf(e), rt, f.Type)
	}
	return ok
}

// sourceOK is the type rule of f's instruction for a register of type rt.
func sourceOK(f *isa.Form, rt isa.Qual, inVector bool) bool {
	if f.Instr != instrSt {
		return exactSourceOK(f.Type, rt, inVector)
	}
	return stSourceOK(f.Type, rt, inVector)
}

func typeFix(f *isa.Form, rt isa.Qual) string {
	if rt.Kind() == 'p' {
		return "convert the predicate with selp first"
	}
	if rt.Bits() < f.Type.Bits() {
		return "use a register of at least " + strconv.Itoa(f.Type.Bits()) + " bits, or a narrower type"
	}
	if f.Type.Kind() == 'f' || rt.Kind() == 'f' {
		return "store floating-point registers with their own type or a .bN type"
	}
	return ""
}

// bitsKind returns the kind under which a register type takes part in
// type checks: packed half pairs behave as 32-bit bit-size registers
// (ptxas 12.5).
func bitsKind(t isa.Qual) byte {
	if k := t.Kind(); k != 'x' {
		return k
	}
	return 'b'
}

// stSourceOK is ptxas 12.5's relaxed source rule for st (Table 27, with
// the differences recorded in docs/ptxas-differences.md): .bN takes any
// register of at least N bits; .uN/.sN take integer or bit-size registers
// of at least N bits; .fN takes .fN or bit-size registers of at least N
// bits (and, inside a vector, also integer registers of exactly N bits);
// .b128 takes only .b128; predicates never.
func stSourceOK(it, rt isa.Qual, inVector bool) bool {
	rk := bitsKind(rt)
	if rk == 'p' {
		return false
	}
	if it == isa.QB128 {
		return rt == isa.QB128
	}
	if rt.Bits() < it.Bits() {
		return false
	}
	switch it.Kind() {
	case 'b':
		return true
	case 'u', 's':
		return rk == 'b' || rk == 'u' || rk == 's'
	case 'f':
		return rt == it || rt.Kind() == 'b' || (inVector && (rk == 'u' || rk == 's') && rt.Bits() == it.Bits())
	}
	return false
}

// exactSourceOK is the plain type rule (Table 26) st.async uses: same
// size; .fN only with .fN or .bN (and, inside a vector, integer
// registers of the same size).
func exactSourceOK(it, rt isa.Qual, inVector bool) bool {
	rk := bitsKind(rt)
	if rk == 'p' || rt.Bits() != it.Bits() {
		return false
	}
	switch it.Kind() {
	case 'b':
		return true
	case 'u', 's':
		return rk == 'b' || rk == 'u' || rk == 's'
	case 'f':
		return rt == it || rt.Kind() == 'b' || (inVector && (rk == 'u' || rk == 's'))
	}
	return false
}

// policy checks a cache-policy operand: a 64-bit integer register or an
// immediate.
func (c *checker) policy(e ast.Expr) {
	if isIntImm(e) {
		return
	}
	switch e.(type) {
	case *ast.Reg, *ast.Ident:
		sym := c.lookup(e)
		if sym == nil {
			return // undeclared: reported by name resolution
		}
		if t := sym.ElemType; isReg(sym) && (t == isa.QNone || (t.Bits() == 64 && bitsKind(t) != 'f')) {
			return
		}
		c.errorf(e.Pos(), e.End(), "st-cache-policy", "PTX ISA 9.7.9.11 (st)", "use a .b64 register from createpolicy",
			"cache-policy must be a 64-bit integer register, not %s", sym.ElemType)
		return
	}
	c.errorf(e.Pos(), e.End(), "st-cache-policy", "PTX ISA 9.7.9.11 (st)", "", "cache-policy must be a 64-bit register or immediate")
}

// regVector checks the register vector of tcgen05.st (Table 50).
func (c *checker) regVector(f *isa.Form, e ast.Expr) {
	want := isa.TMemRegs(f.Shape, f.Num)
	v, ok := e.(*ast.VectorExpr)
	if !ok {
		c.errorf(e.Pos(), e.End(), "tcgen05-regs", f.Instr.Section+", Table 50", "",
			"r must be a brace-enclosed vector of %d 32-bit registers", want)
		return
	}
	if want != 0 && len(v.Elems) != want {
		c.errorf(v.Pos(), v.End(), "tcgen05-regs", f.Instr.Section+", Table 50", "",
			"%s%s needs exactly %d registers (Table 50), not %d", f.Shape, f.Written(isa.GNum), want, len(v.Elems))
		return
	}
	for _, el := range v.Elems {
		r, ok := el.(*ast.Reg)
		if !ok {
			c.errorf(el.Pos(), el.End(), "tcgen05-regs", f.Instr.Section, "", "elements of r must be 32-bit registers")
			return
		}
		if sym := c.lookup(r); sym != nil && sym.ElemType != isa.QNone && sym.ElemType.Bits() != 32 {
			c.errorf(el.Pos(), el.End(), "tcgen05-regs", f.Instr.Section, "",
				"register %s is %s; tcgen05.st stores 32-bit registers", r.Name, sym.ElemType)
			return
		}
	}
}

// regType returns the declared type of a register element, or QNone.
func (c *checker) regType(e ast.Expr) isa.Qual {
	sym, ok := c.namedReg(e)
	if !ok {
		return isa.QNone
	}
	return sym.ElemType
}

func (c *checker) namedReg(e ast.Expr) (*resolve.Symbol, bool) {
	switch e.(type) {
	case *ast.Reg, *ast.Ident:
		if sym := c.lookup(e); sym != nil && isReg(sym) {
			return sym, true
		}
	}
	return nil, false
}

func componentOf(e ast.Expr) string {
	if r, ok := e.(*ast.Reg); ok {
		return r.Comp
	}
	return ""
}

func isIntImm(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IntLit:
		return true
	case *ast.UnaryExpr:
		return (x.Op == "-" || x.Op == "~") && isIntImm(x.X)
	case *ast.ParenExpr:
		return isIntImm(x.X)
	case *ast.BinaryExpr:
		return isIntImm(x.X) && isIntImm(x.Y)
	}
	return false
}

// regPlusImm reports whether e is "register + integer" or "register -
// integer" and returns the register.
func regPlusImm(e ast.Expr) (*ast.Reg, bool) {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || (b.Op != "+" && b.Op != "-") || !isIntImm(b.Y) {
		return nil, false
	}
	r, ok := b.X.(*ast.Reg)
	return r, ok
}

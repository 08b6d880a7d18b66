package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// This file checks the instructions outside the store family against the
// forms of data/instructions.txt (isa.DecodeOp): qualifiers, operand count,
// operand kinds (register, immediate, address, label, predicate) and
// register types under the rules of PTX ISA §9.4.1 (Tables 27 and 28).

const secTypes = "PTX ISA 9.4.1 (Operand Type Information)"

// reportProbs adds the problems of a decoding, each at its qualifier or at
// the opcode.
func (c *checker) reportProbs(in *ast.Instruction, probs []isa.Problem) {
	for i := range probs {
		p := &probs[i]
		pos, end := in.OpPos, in.OpPos.Advance(in.Opcode)
		if p.Qual >= 0 && p.Qual < len(in.Quals) {
			pos, end = in.Quals[p.Qual].Pos, in.Quals[p.Qual].End()
		}
		sev, msg := diag.Error, p.Msg
		if p.Warning {
			sev = diag.Warning
		}
		if p.Ptxas13Accepts(len(in.Operands)) {
			sev, msg = c.againstPage(msg)
		}
		c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: sev, Rule: p.Rule,
			Message: msg, Spec: p.Spec, Fix: p.Fix})
	}
}

// formOperands checks the operands of an instruction decoded against a
// form. It stays quiet when the form's qualifiers were rejected (the
// chosen form may then not be the one the author meant).
func (c *checker) formOperands(in *ast.Instruction, d *decoded) {
	if d.op.Form == nil || d.opRejected {
		return
	}
	sig, memo := c.registerSig(in, d)
	if memo && d.knownClean(sig) && !noOperandMemo {
		return
	}
	mark := len(c.diags)
	c.checkFormOperands(in, d)
	if memo && len(c.diags) == mark {
		d.addClean(sig)
	}
}

// maxSigOps is the most operands a regSig describes.
const maxSigOps = 4

// regSig is all that the operand checks of an instruction depend on when
// its operands are of the common simple shapes, beside the decoding:
// their count, the module's address size and, per operand, its shape and
// what the checks read of it (sigSlot). An instruction found clean is not
// checked again for the same signature (decoded.clean): most
// instructions of a module repeat a spelling with operands of the same
// shapes and types. The operands are packed 16 bits each, so that
// comparing two signatures compares one word.
type regSig struct {
	ops    uint64
	n      uint8
	addr64 bool
}

// A slot of regSig.ops: a constant has sigConst set, whether it is
// written unsigned, and its value, below sigMaxConst. Any other operand
// has a shape class in bits 12-14 and, below, the one property of its
// symbol that the checks of that shape read.
const (
	sigConst    = 1 << 15
	sigUnsigned = 1 << 14
	sigMaxConst = 1 << 14

	sigReg     = 0 << 12 // a declared scalar register: its type
	sigAddrReg = 1 << 12 // [reg] or [reg+imm]: the register's type
	sigAddrVar = 2 << 12 // [var] or [var+imm]: the variable's state space
	sigVar     = 3 << 12 // a variable or parameter named as a value: its state space
	sigLabel   = 4 << 12 // a label
	sigSpecial = 5 << 12 // a special register: its number and component
	sigVector  = 6 << 12 // {r, ...} of declared scalar registers of one type: their count and type
	sigValue   = 1 << 12 // bound of what a class holds
)

// registerSig returns the signature of in's operands, or false when one
// of them has another shape (a vector of mixed types, an expression, a
// component of a declared vector, an operand selector) or names what did
// not resolve.
func (c *checker) registerSig(in *ast.Instruction, d *decoded) (regSig, bool) {
	var sig regSig
	if len(in.Operands) > maxSigOps || d == &c.scratch {
		return sig, false
	}
	k := 0 // name uses so far
	for i, e := range in.Operands {
		var slot uint64
		switch x := e.(type) {
		case *ast.Reg:
			sym := c.res.OperandUse(k, x)
			k++
			if sym != nil && sym.Kind == resolve.SpecialReg {
				slot = specialSlot(sym, x)
			} else {
				slot = regSlot(sym, x, sigReg)
			}
		case *ast.IntLit:
			if x.Value >= sigMaxConst {
				return sig, false
			}
			slot = sigConst | x.Value
			if x.Unsigned {
				slot |= sigUnsigned
			}
		case *ast.Address:
			if len(x.Index) > 0 || x.HasOffset && (in.Opcode == "txq" || in.Opcode == "suq") {
				return sig, false // a handle's offset is an error (handleAddress)
			}
			switch b := x.Base.(type) {
			case *ast.Reg:
				slot = regSlot(c.res.OperandUse(k, b), b, sigAddrReg)
			case *ast.Ident:
				slot = varSlot(c.res.Resolved(b), sigAddrVar)
			}
			k++
		case *ast.Ident:
			sym := c.res.Resolved(x)
			if slot = varSlot(sym, sigVar); slot == 0 && sym != nil && sym.Kind == resolve.Label {
				slot = sigLabel
			}
			k++
		case *ast.VectorExpr:
			slot = c.vectorSlot(x, k)
			k += len(x.Elems)
		}
		if slot == 0 {
			return sig, false
		}
		sig.ops |= slot << (16 * i)
	}
	sig.n, sig.addr64 = uint8(len(in.Operands)), c.mod.addrSize == 64
	return sig, true
}

// regSlot is the slot of class class for x, a declared scalar register
// sym without component or selector, or 0.
func regSlot(sym *resolve.Symbol, x *ast.Reg, class uint64) uint64 {
	if sym == nil || !isReg(sym) || x.Comp != "" || x.Sel != 0 || sym.VecLen() != 1 ||
		sym.ElemType == isa.QNone || sym.ElemType >= sigValue {
		return 0
	}
	return class | uint64(sym.ElemType)
}

// vectorSlot is the slot of v, whose elements are the name uses from the
// k-th on, when they are 1 to 8 declared scalar registers of one type, or
// 0.
func (c *checker) vectorSlot(v *ast.VectorExpr, k int) uint64 {
	n := len(v.Elems)
	if n == 0 || n > 8 {
		return 0
	}
	t := uint64(0)
	for i, e := range v.Elems {
		x, ok := e.(*ast.Reg)
		if !ok {
			return 0
		}
		s := regSlot(c.res.OperandUse(k+i, x), x, sigReg)
		if s == 0 || s >= 1<<9 || t != 0 && s != t {
			return 0
		}
		t = s
	}
	return sigVector | uint64(n-1)<<9 | t
}

// varSlot is the slot of class class for sym, a declared variable or
// parameter (what lookup returns of a name that is not a register), or 0.
func varSlot(sym *resolve.Symbol, class uint64) uint64 {
	if sym == nil || sym.Kind != resolve.Variable && sym.Kind != resolve.Param || sym.StateSpace >= sigValue {
		return 0
	}
	return class | uint64(sym.StateSpace)
}

// specialSlot is the slot of x, a special register with or without one
// of the components x, y, z, w (resolved to sym), or 0.
func specialSlot(sym *resolve.Symbol, x *ast.Reg) uint64 {
	if sym == nil || sym.Kind != resolve.SpecialReg || x.Sel != 0 || sym.Special.Number >= sigValue>>3 {
		return 0
	}
	comp := 0
	if x.Comp != "" {
		if comp = strings.Index("xyzw", x.Comp) + 1; len(x.Comp) != 1 || comp == 0 {
			return 0
		}
	}
	return sigSpecial | uint64(sym.Special.Number)<<3 | uint64(comp)
}

// noOperandMemo turns the clean-signature memo off, for the test that
// compares the diagnostics with and without it.
var noOperandMemo = false

// cleanSigs is how many clean signatures a decoding remembers: a
// spelling like mov.u32 meets several operand shapes in every function
// (%tid.x, %ctaid.x, %ntid.x, a variable's address), and with two
// remembered they evicted each other.
const cleanSigs = 4

// knownClean reports whether operands of signature sig were found clean.
func (d *decoded) knownClean(sig regSig) bool {
	return slices.Contains(d.clean[:d.nclean], sig)
}

// addClean remembers that operands of signature sig are clean, in place
// of the oldest remembered one when all are taken.
func (d *decoded) addClean(sig regSig) {
	d.clean[d.cleanNext] = sig
	d.cleanNext = (d.cleanNext + 1) % cleanSigs
	d.nclean = min(d.nclean+1, cleanSigs)
}

// checkFormOperands is formOperands without the memo.
func (c *checker) checkFormOperands(in *ast.Instruction, d *decoded) {
	od := &d.op
	f := od.Form
	n := len(in.Operands)
	if !f.AnyOperands && in.Opcode != "mbarrier" && (n < d.minOps || n > len(f.Operands)) {
		c.formCount(in, f)
		return
	}
	if c.policyOperand(in, d) {
		return
	}
	if f.Opcode == "cvta" && od.Types[0] == isa.QU32 && c.mod.addrSize == 64 {
		c.cvta32(in, f, od.Quals)
		return
	}
	if f.Opcode == "elect" {
		if b, ok := in.Operands[0].(*ast.BinaryExpr); !ok || b.Op != "|" {
			e := in.Operands[0]
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write d|p", "elect.sync writes a register and a predicate: d|p")
			return
		}
	}
	if f.AnyOperands {
		c.anyAddresses(in)
		return
	}
	// Optional operands are left out from the first: bar.red p, a, c has
	// no thread count b.
	skip := len(f.Operands) - n
	k := 0
	for i := range f.Operands {
		s := &f.Operands[i]
		if s.Optional && skip > 0 {
			skip--
			continue
		}
		if k >= n {
			break
		}
		c.formOperand(in, d, s, d.opTypes[i], in.Operands[k])
		k++
	}
	if f.Opcode == "createpolicy" && od.Has(isa.QRange) {
		c.policyRange(f, in.Operands)
	}
}

// cvta32 reports cvta.u32 in a module with .address_size 64: ptxas 12.5
// rejects it as 32-bit addressing ("Program uses 32-bit address ...
// conflicting with .address_size 64"), PTX ISA 9.7.9.20 and 11.1.3.
func (c *checker) cvta32(in *ast.Instruction, f *isa.OpForm, quals []isa.Qual) {
	pos, end := in.OpPos, in.End()
	if i := qualIndex(quals, isa.QU32); i >= 0 {
		pos, end = in.Quals[i].Pos, in.Quals[i].End()
	}
	c.errorf(pos, end, "address-size", f.Section+"; PTX ISA 11.1.3 (.address_size)", "use .u64 and 64-bit registers",
		"cvta.u32 converts a 32-bit address; a module with .address_size 64 has 64-bit addresses (ptxas rejects 32-bit addressing)")
}

// policyRange checks the sizes of createpolicy.range (PTX ISA 9.7.9.18):
// the primary size may not exceed the total size. ptxas 12.5 compares two
// constants as unsigned numbers ("value '59' must be less than or equal to
// the value '4' of argument 4").
func (c *checker) policyRange(f *isa.OpForm, ops []ast.Expr) {
	if len(ops) != 4 {
		return
	}
	primary, ok1 := parser.ConstValue(ops[2])
	total, ok2 := parser.ConstValue(ops[3])
	if ok1 && ok2 && uint64(primary) > uint64(total) {
		e := ops[2]
		c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "make the primary size at most the total size",
			"the primary size %d of createpolicy.range exceeds the total size %d", primary, total)
	}
}

// policyOperand reports a cache-policy operand without .L2::cache_hint, or
// the qualifier without the operand (PTX ISA 9.7.9.8).
func (c *checker) policyOperand(in *ast.Instruction, d *decoded) bool {
	if !d.policy {
		return false
	}
	f := d.op.Form
	last := len(f.Operands) - 1
	hint := d.op.Has(isa.QL2CacheHint)
	switch n := len(in.Operands); {
	case n == len(f.Operands) && !hint:
		e := in.Operands[last]
		c.errorf(e.Pos(), e.End(), "cache-policy", f.Section, "add .L2::cache_hint",
			"a cache-policy operand requires the .L2::cache_hint qualifier")
		return true
	case n < len(f.Operands) && hint:
		c.errorf(in.OpPos, in.End(), "cache-policy", f.Section, "add a 64-bit cache-policy operand (from createpolicy)",
			".L2::cache_hint requires a 64-bit cache-policy operand")
		return true
	}
	return false
}

func (c *checker) formCount(in *ast.Instruction, f *isa.OpForm) {
	names := ""
	for i, s := range f.Operands {
		if i > 0 {
			names += ", "
		}
		names += s.Name
		if s.Optional {
			names += "?"
		}
	}
	want := strconv.Itoa(len(f.Operands))
	if m := f.MinOperands(); m != len(f.Operands) {
		want = strconv.Itoa(m) + " to " + want
	}
	pos, end := in.OpPos, in.End()
	if len(in.Operands) > len(f.Operands) {
		pos = in.Operands[len(f.Operands)].Pos()
	}
	c.errorf(pos, end, "operand-count", f.Section, "", "%s takes %s operands (%s), not %d",
		f.Name, want, names, len(in.Operands))
}

// opType is the type an operand needs: t, or a t twice as wide (bits).
type opType struct {
	t    isa.Qual
	bits int
}

// wantType returns the type operand s needs, or QNone when unknown (its
// slot was not filled).
func wantType(od *isa.OpDecode, s *isa.OperandSpec) (t isa.Qual, bits int) {
	if s.Slot < 0 {
		return s.Fixed, s.Fixed.Bits()
	}
	t = od.SlotType(s.Slot)
	bits = t.Bits()
	if s.Wide {
		bits *= 2
	}
	return t, bits
}

func (c *checker) formOperand(in *ast.Instruction, d *decoded, s *isa.OperandSpec, want opType, e ast.Expr) {
	od := &d.op
	f := od.Form
	e = vmadSource(f, e) // check/video.go
	switch s.Kind {
	case isa.OpdAny:
		return
	case isa.OpdLabel:
		if _, ok := e.(*ast.Ident); !ok {
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "operand %s of %s must be a label", s.Name, f.Name)
		}
		return
	case isa.OpdMem:
		if a, ok := e.(*ast.Address); ok && a.Unified && f.Opcode != "ld" {
			c.errorf(a.Pos(), a.End(), "operand-kind", f.Section, "", ".unified follows only the address of ld")
		}
		c.formAddress(in, od, e)
		return
	case isa.OpdPredDst:
		c.predOperand(od, s, e, true)
		return
	case isa.OpdPredSrc:
		c.predOperand(od, s, e, false)
		return
	case isa.OpdImm:
		v, ok := parser.ConstValue(e)
		if !ok {
			c.errorf(e.Pos(), e.End(), "operand-immediate", f.Section, "", "operand %s of %s must be an integer constant", s.Name, f.Name)
		} else if s.Limit != 0 && (v < 0 || v >= s.Limit) && f.Opcode == "lop3" {
			// ptxas 12.5 accepts any table and encodes its low 8 bits.
			c.warnf(e.Pos(), e.End(), "operand-range", f.Section, fmt.Sprintf("write 0x%02x", uint8(v)),
				"the lop3 table %d is wider than 8 bits; ptxas uses its low 8 bits (0x%02x)", v, uint8(v))
		} else if s.Limit != 0 && (v < 0 || v >= s.Limit) {
			c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "", "operand %s of %s must be in 0..%d, not %d", s.Name, f.Name, s.Limit-1, v)
		} else if (f.Opcode == "fence" || f.Opcode == "applypriority" || f.Opcode == "discard" || f.Opcode == "tensormap" && slices.Contains(f.Fixed, isa.QCp_Fenceproxy)) && v != 128 {
			c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "write 128", "the size operand of %s must be 128, not %d", f.Name, v)
		} else if f.Opcode == "alloca" && (v <= 0 || v&(v-1) != 0) {
			c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "use a power of two", "the alignment of alloca must be a power of two, not %d", v)
		} else if f.Opcode == "setmaxnreg" && (v < 24 || v > 256 || v%8 != 0) {
			c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "use a multiple of 8 in 24..256", "the register count of setmaxnreg must be a multiple of 8 in 24..256, not %d", v)
		}
		return
	}
	t, bits := want.t, want.bits
	if t == isa.QNone {
		return
	}
	if s.PredOut && f.Opcode == "lop3" && s.Kind == isa.OpdDst {
		if x, ok := e.(*ast.BinaryExpr); !ok || x.Op != "|" {
			// ptxas 12.5: "Predicate output expected for instruction 'lop3'"
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write "+printer.String(e)+"|p",
				"%s with .and or .or writes a predicate: its destination is d|p", f.Name)
		}
	}
	if v, ok := e.(*ast.VectorExpr); braced(s) && !ok {
		if c.vectorRegister(e, vectorCount(d, s), t, bits, f.Mode) {
			return // ldmatrix {..} as a .v4 register: ptxas 12.5 takes it
		}
		// ptxas 12.5: "Vector expected for argument 2"
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write {...}", "operand %s of %s must be a braced vector of %d register%s", s.Name, f.Name, vectorCount(d, s), plural(vectorCount(d, s)))
		return
	} else if ok && braced(s) {
		c.formVector(in, d, s, v, t, bits)
		return
	}
	switch x := e.(type) {
	case *ast.Reg, *ast.Ident:
		c.formRegister(in, d, s, e, t, bits)
	case *ast.VectorExpr:
		c.formVector(in, d, s, x, t, bits)
	case *ast.BinaryExpr:
		if x.Op == "|" && s.Kind == isa.OpdDst {
			c.predOutOperand(in, d, s, x, t, bits)
			return
		}
		if r, ok := regPlusImm(x); ok && s.Kind != isa.OpdDst {
			c.formRegister(in, d, s, r, t, bits) // ptxas adds the immediate to the register
			return
		}
		c.formImmediate(f, s, e, t)
	case *ast.Sink:
		if s.Kind != isa.OpdDst {
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "_ is only allowed as a destination")
		} else if !s.SinkOK {
			c.sinkRefused(f, e)
		}
	case *ast.UnaryExpr:
		if r := ast.NameOf(x.X); x.Op == "!" && t == isa.QPred && s.Kind != isa.OpdDst && r != "" {
			c.negatedPred(in, d, s, x, r)
			return
		}
		c.formImmediate(f, s, e, t)
	default:
		c.formImmediate(f, s, e, t)
	}
}

// sinkRefused reports _ as a destination of a form that does not discard
// its result (ptxas 12.5: "Result discard mode is not allowed for
// instruction 'add'"); isa.OperandSpec.SinkOK marks those that may.
func (c *checker) sinkRefused(f *isa.OpForm, e ast.Expr) {
	c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write the result to a register",
		"%s cannot discard its result: _ is not a destination of %s", f.Name, f.Name)
}

// predOutOperand checks a destination written d|p: only forms that write
// a predicate too (isa.OperandSpec.PredOut: elect.sync, match.all.sync,
// shfl.sync) take one, as ptxas 12.5 does ("Predicate output not allowed
// for instruction 'lop3'"); d is a register (or, except for shfl.sync, _)
// and p a predicate (or, except for elect.sync, _).
func (c *checker) predOutOperand(in *ast.Instruction, d *decoded, s *isa.OperandSpec, x *ast.BinaryExpr, t isa.Qual, bits int) {
	f := d.op.Form
	if !s.PredOut {
		c.errorf(x.Pos(), x.End(), "operand-kind", f.Section, "write "+printer.String(x.X)+" alone",
			"%s writes no predicate: its destination is one register, not %s", f.Name, printer.String(x))
		return
	}
	switch r := x.X.(type) {
	case *ast.Reg, *ast.Ident:
		c.formRegister(in, d, s, r, t, bits)
	case *ast.Sink:
		if f.Opcode == "shfl" { // ptxas 12.5: "Result discard mode is not allowed for instruction 'shfl'"
			c.errorf(r.Pos(), r.End(), "operand-kind", f.Section, "write a register", "%s cannot discard its result: write a register before |", f.Name)
		}
	default:
		c.errorf(r.Pos(), r.End(), "operand-kind", f.Section, "", "destination %s of %s must be a register", s.Name, f.Name)
	}
	if _, ok := x.Y.(*ast.Sink); ok {
		if f.Opcode == "elect" { // ptxas 12.5: "Predicate output expected"
			c.errorf(x.Y.Pos(), x.Y.End(), "operand-kind", f.Section, "write a predicate register", "elect.sync writes a predicate: p cannot be _")
		}
		return
	}
	c.predOperand(&d.op, s, x.Y, true)
}

// negatedPred checks !r as a source that a .pred type qualifier types
// (and.pred, mov.pred): ptxas 12.5 takes a negated .pred register there,
// not a negated .f16x2 one (PTX ISA 9.7.8; docs/ptxas-differences.md).
func (c *checker) negatedPred(in *ast.Instruction, d *decoded, s *isa.OperandSpec, x *ast.UnaryExpr, r string) {
	if sym := c.lookup(x.X); sym != nil && isReg(sym) && sym.ElemType == isa.QF16x2 {
		c.errorf(x.Pos(), x.End(), "operand-type", secTypes, "use a .pred register",
			"operand %s of %s: ! negates a .pred register, not %s", s.Name, d.op.Form.Name, r)
		return
	}
	c.formRegister(in, d, s, x.X, isa.QPred, 1)
}

// formRegister checks a named operand: a register of a fitting type, or,
// for mov and cvta, the address of a variable.
func (c *checker) formRegister(in *ast.Instruction, d *decoded, s *isa.OperandSpec, e ast.Expr, t isa.Qual, bits int) {
	f := d.op.Form
	name := ast.NameOf(e)
	sym := c.lookup(e)
	if sym == nil && c.labelOrFunc(f, s, e) {
		return
	}
	if sym == nil {
		if sp := c.special(e); sp != nil && sp.Vector && componentOf(e) == "" && d.vec < 2 {
			c.errorf(e.Pos(), e.End(), "operand-kind", "PTX ISA 10 (Special Registers)", "read one component: "+name+".x",
				"special register %s holds a vector; a scalar operand reads one component (%s.x)", name, name)
			return
		}
		c.specialOperand(&d.op, s, e, name, t, bits)
		return // or undeclared: name resolution reports it
	}
	if !isReg(sym) {
		if s.Kind == isa.OpdDst {
			c.errorf(e.Pos(), e.End(), "operand-kind", "PTX ISA 10 (Special Registers)", "", "special register %s is read-only", name)
			return
		}
		if s.Kind == isa.OpdMovSrc && (bits == 64 || c.mod.addrSize != 64 || sym.StateSpace != isa.QGlobal) {
			return // the address of a variable or function
		}
		if s.Kind == isa.OpdMovSrc {
			c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a 64-bit type (.u64/.b64)",
				"the address of %s is 64 bits in a module with .address_size 64, not %d", name, bits)
			return
		}
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "load the value first (ld)", "operand %s of %s must be a register, not variable %s", s.Name, f.Name, name)
		return
	}
	rt := sym.ElemType
	if rt == isa.QNone {
		return
	}
	if n := sym.VecLen(); n > 1 && componentOf(e) == "" && f.Opcode != "mov" && !(s.Kind == isa.OpdDst && f.Mode == isa.ModeRelaxed && d.vec == n) {
		c.errorf(e.Pos(), e.End(), "operand-vector", f.Section, "name one element ("+name+".x) or use a scalar register",
			"%s is a vector register (.v%d); operand %s of %s is one register", name, n, s.Name, f.Name)
		return
	}
	if s.Kind == isa.OpdDst && d.vec > 1 && sym.VecLen() == 1 {
		c.errorf(e.Pos(), e.End(), "operand-vector", f.Section, "write {a, b, ...}", "%s with a vector qualifier needs a braced vector destination", f.Name)
		return
	}
	if rt == isa.QPred && s.PredOK {
		return // ptxas 12.5 takes a predicate register here (docs/ptxas-differences.md)
	}
	mode := f.Mode
	if mode == isa.ModeCvt && exactCvt(&d.op, s, t) {
		mode = isa.ModeExact // ptxas takes .bf16, .tf32 and packed 8-bit float pairs at their exact width
	}
	if f.Opcode == "isspacep" {
		if k := rt.Kind(); (k == 'b' || k == 'u' || k == 's') && (rt.Bits() == 32 || rt.Bits() == 64) {
			return // a 32- or 64-bit address
		}
	}
	if f.Opcode == "cvt" && d.op.Types[0] == isa.QTf32 && s.Kind == isa.OpdDst && rt != isa.QB32 {
		c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a .b32 register",
			"the .tf32 result of cvt goes to a .b32 register, not %s %s", rt, name)
		return
	}
	// A fixed bit-size cvt result (cvt.pack's) or exact operand (the
	// .b16 of an 8-bit float pair) takes no float register.
	floatInBits := f.Mode == isa.ModeCvt && s.Slot < 0 && rt.Kind() == 'f' && (s.Kind == isa.OpdDst || mode == isa.ModeExact)
	if !regFits(t, bits, rt, mode, s.Kind == isa.OpdDst) || floatInBits || halfRefused(s, t, rt, f.Mode) {
		c.errorf(e.Pos(), e.End(), "operand-type", secTypes, regFix(t, bits),
			"register %s of type %s does not fit operand %s of %s (%s)", name, rt, s.Name, f.Name, typeDesc(t, bits))
	}
}

// exactCvt reports the cvt operands ptxas takes at their exact width:
// all of a conversion from or to .bf16 or 8-bit float pairs, the .f32
// sources of .tf32, and .bf16x2 results.
func exactCvt(d *isa.OpDecode, s *isa.OperandSpec, t isa.Qual) bool {
	dt, st := d.Types[0], d.Types[1]
	switch {
	case dt == isa.QBF16 || st == isa.QBF16 || dt == isa.QBF16x2:
		return true
	case dt == isa.QE4m3x2 || dt == isa.QE5m2x2 || st == isa.QE4m3x2 || st == isa.QE5m2x2:
		return true
	case dt == isa.QTf32:
		return t.Kind() == 'f'
	}
	return s.Slot < 0 && t == isa.QB16
}

// specialOperand checks a special register (PTX ISA §10) as operand.
func (c *checker) specialOperand(od *isa.OpDecode, s *isa.OperandSpec, e ast.Expr, name string, t isa.Qual, bits int) {
	f := od.Form
	sp := c.special(e)
	if sp == nil {
		return
	}
	if s.Kind == isa.OpdDst {
		c.errorf(e.Pos(), e.End(), "operand-kind", "PTX ISA 10 (Special Registers)", "", "special register %s is read-only", name)
		return
	}
	c.gateSpecial(e, sp)
	if !f.SRegOK {
		c.errorf(e.Pos(), e.End(), "special-register", "PTX ISA 10 (Special Registers)", "read it into a register first (mov)",
			"special register %s cannot be an operand of %s: only mov and cvt read special registers (ptxas rejects it)", printer.String(e), f.Name)
		return
	}
	rt := sp.Type
	if k, dk := t.Kind(), od.Types[0].Kind(); f.Opcode == "cvt" && (k == 'f' || k == 'x' || dk == 'f' || dk == 'x') {
		// ptxas 12.5 converts a special register between integer types
		// only ("cvt.rn.f32.u32 %f1, %tid.x": "Special register argument
		// not allowed for instruction 'cvt'").
		c.errorf(e.Pos(), e.End(), "special-register", "PTX ISA 10 (Special Registers)", "read it into a register first (mov)",
			"special register %s cannot be converted to or from a floating-point type by cvt", printer.String(e))
		return
	}
	if f.Opcode == "mov" && rt.Bits() == 64 && bits < 64 {
		c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "", "special register %s (%s) does not fit a %d-bit %s operand", printer.String(e), rt, bits, t)
		return
	}
	if rt != isa.QNone && (rt.Kind() == 'p') != (t.Kind() == 'p') || rt.Bits() < bits && f.Mode != isa.ModeCvt {
		c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "", "special register %s (%s) does not fit a %d-bit %s operand", printer.String(e), rt, bits, t)
	}
}

func typeDesc(t isa.Qual, bits int) string {
	if bits != t.Bits() {
		return strconv.Itoa(bits) + "-bit " + t.String()[1:2] + "-type"
	}
	return t.String()
}

func regFix(t isa.Qual, bits int) string {
	switch t.Kind() {
	case 'p':
		return "use a .pred register"
	case 'f', 'x':
		return "use a " + strconv.Itoa(bits) + "-bit register of type " + t.String() + " or .b" + strconv.Itoa(bits)
	}
	return "use a " + strconv.Itoa(bits) + "-bit register (convert with cvt if needed)"
}

// halfRefused reports whether ptxas 12.5 refuses a .f16x2 register rt for
// operand s of type t, where regFits lets it stand for 32 integer bits
// (PTX ISA §9.4.1 says nothing of half registers in integer operands): an
// operand of a fixed integer type (nanosleep's count, shl's amount, the
// mbarrier counts) takes none outside cvt, nor does one the form marks
// NoHalf (redux's, dp4a's accumulator); .pred operands take none either
// unless a .pred type qualifier types them (regFits).
func halfRefused(s *isa.OperandSpec, t, rt isa.Qual, mode isa.TypeMode) bool {
	if rt != isa.QF16x2 || mode == isa.ModeCvt {
		return false
	}
	k := t.Kind()
	return s.NoHalf || s.Slot < 0 && (k == 'u' || k == 's')
}

// regFits reports whether a register of type rt may be an operand of type
// t of width bits (PTX ISA §9.4.1): predicates only as predicates; bit-size
// types fit any kind of their size; signed and unsigned integers fit each
// other; floats need floats (.bf16 values not .f16 ones) or bit-size
// registers. Relaxed (ld) destinations and cvt's integer operands may be
// wider than their type. ptxas 12.5 reads a .f16x2 register as 32 integer
// bits, and takes one for an operand that a .pred type qualifier types
// (and.pred, mov.pred: docs/ptxas-differences.md).
func regFits(t isa.Qual, bits int, rt isa.Qual, mode isa.TypeMode, dst bool) bool {
	tk, rk := t.Kind(), rt.Kind()
	if tk == 'p' || rk == 'p' {
		return tk == rk || tk == 'p' && rt == isa.QF16x2
	}
	rb := rt.Bits()
	if mode == isa.ModeCvt && !dst && tk == 'b' && rb >= bits {
		return true // cvt.pack's .b32 source c: any register of 32 bits or more (ptxas 12.5)
	}
	intLike := func(k byte) bool { return k == 'b' || k == 'u' || k == 's' }
	if (mode == isa.ModeCvt || mode == isa.ModeRelaxed && dst) && intLike(tk) && (intLike(rk) || rt == isa.QF16x2) {
		return rb >= bits
	}
	if mode == isa.ModeRelaxed && dst && tk == 'b' && rb >= bits {
		return true // ld.b8 into any wider register
	}
	if (mode == isa.ModeRelaxed && dst || mode == isa.ModeCvt) && rk == 'b' && rb >= bits && t != isa.QBF16x2 {
		return true // an ld result, or a cvt float operand in a wider bit-size register
	}
	if rb != bits || (t == isa.QBF16 || t == isa.QBF16x2) && (rt == isa.QF16 || rt == isa.QF16x2) {
		return false // ptxas 12.5 takes no .f16/.f16x2 register for a .bf16/.bf16x2 value
	}
	if rk == 'x' && (tk == 'u' || tk == 's') {
		return true // ptxas reads a .f16x2 register as 32 integer bits
	}
	return tk == rk || tk == 'b' || rk == 'b' || (tk == 'u' || tk == 's') && (rk == 'u' || rk == 's')
}

// formImmediate checks a constant operand.
func (c *checker) formImmediate(f *isa.OpForm, s *isa.OperandSpec, e ast.Expr, t isa.Qual) {
	if s.Kind == isa.OpdDst {
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "destination %s of %s must be a register", s.Name, f.Name)
		return
	}
	if s.Kind == isa.OpdReg {
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "put the value in a register", "operand %s of %s must be a register", s.Name, f.Name)
		return
	}
	k := t.Kind()
	if k == 'x' {
		// Packed types (.f16x2, .bf16x2, .u16x2, .s16x2, .f32x2): ptxas
		// 12.5 takes no constant of any form ("Arguments mismatch").
		c.errorf(e.Pos(), e.End(), "operand-immediate", secTypes, "put the packed value in a register",
			"a %s operand cannot be a constant", t)
		return
	}
	if _, ok := e.(*ast.FloatLit); ok {
		if k == 'f' && t.Bits() < 32 {
			c.errorf(e.Pos(), e.End(), "operand-immediate", secTypes, "put the value in a register",
				"a %s operand cannot be a constant", t)
			return
		}
		if k != 'f' && (k != 'b' || t.Bits() < 32) {
			c.errorf(e.Pos(), e.End(), "operand-immediate", secTypes, "write an integer constant",
				"a floating-point constant is not a %s operand", t)
			return
		}
		if w := floatLitBits(e.(*ast.FloatLit)); k == 'b' && w != t.Bits() {
			// ptxas takes a bit-size operand's floating-point constant
			// as its bits: 0f (and no decimal) for 32, 0d or decimal for 64.
			c.errorf(e.Pos(), e.End(), "operand-immediate", secTypes, "write the constant as 0f (32 bits) or 0d (64 bits)",
				"a %d-bit floating-point constant is not a %s operand", w, t)
		}
		return
	}
	v, ok := parser.ConstValue(e)
	if !ok {
		if id := firstIdent(e); id != "" && s.Kind == isa.OpdMovSrc {
			return // var+offset
		}
		if _, bin := e.(*ast.BinaryExpr); bin && firstIdent(e) != "" && s.Kind == isa.OpdSrc && (k == 'u' || k == 's' || k == 'b') && s.Name != "pol" {
			return // var+offset: ptxas 12.5 takes an address constant for an integer source
		}
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "operand %s of %s must be a register or constant", s.Name, f.Name)
		return
	}
	if k == 'f' {
		c.errorf(e.Pos(), e.End(), "operand-immediate", secTypes, "write a floating-point constant (1.0, 0f3F800000)",
			"integer constant %d is not a %s operand", v, t)
		return
	}
	if s.Limit != 0 && (v < 0 || v >= s.Limit) {
		c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "", "operand %s of %s must be in 0..%d, not %d", s.Name, f.Name, s.Limit-1, v)
	}
	if (f.Opcode == "bar" || f.Opcode == "barrier") && s.Name == "b" && (v <= 0 || v%32 != 0) {
		c.errorf(e.Pos(), e.End(), "operand-range", f.Section, "use a positive multiple of 32",
			"the thread count of %s must be a positive multiple of the warp size, not %d", f.Name, v)
	}
}

func firstIdent(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.BinaryExpr:
		return firstIdent(x.X)
	}
	return ""
}

// formVector checks a braced vector: ld/ldu .vN destinations (N
// registers) and mov's pack and unpack forms (elements that together
// are as wide as the type).
func (c *checker) formVector(in *ast.Instruction, d *decoded, s *isa.OperandSpec, v *ast.VectorExpr, t isa.Qual, bits int) {
	f := d.op.Form
	if want := vectorCount(d, s); f.Mode == isa.ModeRelaxed || want > 1 || braced(s) {
		if want != len(v.Elems) {
			c.errorf(v.Pos(), v.End(), "operand-vector", f.Section, "", "%s needs %d register%s here, not %d", f.Name, want, plural(want), len(v.Elems))
			return
		}
		if s.Kind == isa.OpdDst && !c.vectorDestinations(v, f) {
			return
		}
		if s.Kind == isa.OpdVector && !c.vectorSources(v, f, t) {
			return
		}
		kinds, ok := c.vectorKinds(v, f)
		if !ok {
			return
		}
		width := 0
		for _, e := range v.Elems {
			sym := c.vectorReg(e)
			if sym == nil {
				continue
			}
			if width != 0 && sym.ElemType.Bits() != width {
				c.errorf(e.Pos(), e.End(), "operand-vector", f.Section, "use registers of one width",
					"the registers of a vector operand must have one width: %s is %d bits, not %d", ast.NameOf(e), sym.ElemType.Bits(), width)
				return
			}
			width = sym.ElemType.Bits()
			if !vectorRegFits(t, bits, sym.ElemType, f.Mode, kinds) {
				c.errorf(e.Pos(), e.End(), "operand-type", secTypes, regFix(t, bits),
					"register %s of type %s does not fit %s", ast.NameOf(e), sym.ElemType, t)
			}
		}
		return
	}
	if f.Opcode != "mov" {
		c.errorf(v.Pos(), v.End(), "operand-kind", f.Section, "", "operand %s of %s must be a register, not a vector", s.Name, f.Name)
		return
	}
	c.packedMov(v, t, bits)
}

// vectorCount is how many elements a braced operand s needs: its own
// count (v4:T), else the form's .vN.
func vectorCount(d *decoded, s *isa.OperandSpec) int {
	if braced(s) && s.Limit > 0 {
		return int(s.Limit)
	}
	return d.vec
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// braced reports whether operand s is written as a braced vector whatever
// the form's .vN: a v:T source, or a destination of a fixed number of
// registers (ldmatrix's d4:T).
func braced(s *isa.OperandSpec) bool {
	return s.Kind == isa.OpdVector || s.Kind == isa.OpdDst && s.Limit > 0
}

// vectorDestinations reports whether the elements of a destination vector
// are registers or _, after reporting one that is not (ptxas 12.5: "Result
// register required for instruction 'ld'").
func (c *checker) vectorDestinations(v *ast.VectorExpr, f *isa.OpForm) bool {
	for _, e := range v.Elems {
		switch e.(type) {
		case *ast.Reg, *ast.Ident, *ast.Sink:
			continue
		}
		c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write a register",
			"the elements of a destination vector of %s must be registers, not %s", f.Name, printer.String(e))
		return false
	}
	return true
}

// vectorSources reports whether the elements of a source vector are
// registers or constants, after reporting a sink (ptxas 12.5: "Sink '_'
// not allowed as a source operand") or a vector of a bit-size type made
// of constants only, whose element type ptxas cannot infer ("Arguments
// mismatch for instruction 'stmatrix'").
func (c *checker) vectorSources(v *ast.VectorExpr, f *isa.OpForm, t isa.Qual) bool {
	regs := 0
	for _, e := range v.Elems {
		switch e.(type) {
		case *ast.Sink:
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write a register or a constant",
				"_ is only allowed as a destination, not as an element of a source vector of %s", f.Name)
			return false
		case *ast.Reg, *ast.Ident:
			regs++
		}
	}
	if regs == 0 && t.Kind() == 'b' {
		c.errorf(v.Pos(), v.End(), "operand-vector", f.Section, "write at least one register",
			"a %s vector of constants only has no element type; %s needs a register among them", t, f.Name)
		return false
	}
	return true
}

// vectorRegister reports whether e is a vector register (.reg .v4 .b32)
// of n elements of type t, which ptxas 12.5 takes for a braced
// operand of as many registers.
func (c *checker) vectorRegister(e ast.Expr, n int, t isa.Qual, bits int, mode isa.TypeMode) bool {
	if r, ok := e.(*ast.Reg); ok && r.Comp != "" {
		return false // one element (vb4.x)
	}
	sym := c.lookup(e)
	return sym != nil && isReg(sym) && sym.VecLen() == n && n > 1 && sym.ElemType.Bits() == bits &&
		regFits(t, bits, sym.ElemType, mode, true)
}

// vectorReg returns the declared register of a vector element, or nil.
func (c *checker) vectorReg(e ast.Expr) *resolve.Symbol {
	if _, ok := e.(*ast.Sink); ok {
		return nil
	}
	sym := c.lookup(e)
	if sym == nil || !isReg(sym) || sym.ElemType == isa.QNone {
		return nil
	}
	return sym
}

// Register kinds of a vector's elements (vectorKinds).
const (
	vecBits  = 1 << iota // .bN
	vecInt               // .uN, .sN
	vecFloat             // .fN, .f16x2
)

// vectorKinds returns the kinds of register among the elements of a ld
// vector destination, or false after reporting integer and float
// registers mixed, which ptxas 12.5 rejects ("Vector with elements of
// different types").
func (c *checker) vectorKinds(v *ast.VectorExpr, f *isa.OpForm) (int, bool) {
	kinds := 0
	for _, e := range v.Elems {
		sym := c.vectorReg(e)
		if sym == nil {
			continue
		}
		switch sym.ElemType.Kind() {
		case 'b':
			kinds |= vecBits
		case 'u', 's':
			kinds |= vecInt
		case 'f', 'x':
			kinds |= vecFloat
		}
	}
	if kinds&vecInt != 0 && kinds&vecFloat != 0 {
		c.errorf(v.Pos(), v.End(), "operand-vector", f.Section, "use registers of one type",
			"the registers of a vector operand must not mix integer and floating-point types")
		return kinds, false
	}
	return kinds, true
}

// vectorRegFits is regFits for an element of a ld vector destination
// whose elements are of kinds: ptxas 12.5 reads an integer vector as
// bits of its width for a float type (ld.v2.f32 {%s1, %s2}), and a
// vector with a bit-size element as bits (ld.v2.u32 {%r1, %f1}), where
// a scalar register must fit the type itself.
func vectorRegFits(t isa.Qual, bits int, rt isa.Qual, mode isa.TypeMode, kinds int) bool {
	switch k := rt.Kind(); {
	case (k == 'u' || k == 's') && (t.Kind() == 'f' || t.Kind() == 'x'):
		return rt.Bits() == bits
	case (k == 'f' || k == 'x') && kinds&vecBits != 0:
		rt = isa.BitType(rt.Bits())
	}
	return regFits(t, bits, rt, mode, true)
}

// packedMov checks a braced operand of mov that packs or unpacks a
// register (PTX ISA 9.7.9.1): 2 or 4 elements of one width (registers;
// an immediate or a sink takes the others' width) that together make
// the type's width, as ptxas requires ("Argument vector size mismatch",
// "Incompatible elements of vector expression").
func (c *checker) packedMov(v *ast.VectorExpr, t isa.Qual, bits int) {
	const spec = "PTX ISA 9.7.9.1 (mov)"
	n := len(v.Elems)
	if n != 2 && n != 4 {
		c.errorf(v.Pos(), v.End(), "operand-vector", spec, "", "a packed mov.%s operand has 2 or 4 elements, not %d", t.String()[1:], n)
		return
	}
	width := 0
	for _, e := range v.Elems {
		sym := c.lookup(e)
		if sym == nil || !isReg(sym) || sym.ElemType == isa.QNone {
			continue // an immediate, a sink, or undeclared (reported by resolution)
		}
		if w := sym.ElemType.Bits(); width == 0 {
			width = w
		} else if w != width {
			c.errorf(e.Pos(), e.End(), "operand-vector", spec, "use registers of one width",
				"the elements of a packed mov operand must have one width: %s is %d bits, not %d", ast.NameOf(e), w, width)
			return
		}
	}
	if width != 0 && width*n != bits {
		c.errorf(v.Pos(), v.End(), "operand-type", spec, "",
			"the %d elements of a packed mov.%s operand must together be %d bits, not %d", n, t.String()[1:], bits, width*n)
	}
}

// hasSpace reports whether in names a state space.
func hasSpace(quals []isa.Qual) bool {
	for _, q := range quals {
		if q.Group() == isa.GSpace {
			return true
		}
	}
	return false
}

// vecLen returns the vector length the .v2/.v4 qualifier of d gives, or 1.
func vecLen(d *isa.OpDecode) int {
	for _, q := range d.Quals {
		switch q {
		case isa.QV2:
			return 2
		case isa.QV4:
			return 4
		case isa.QV8:
			return 8
		}
	}
	return 1
}

// predOperand checks a predicate operand.
func (c *checker) predOperand(od *isa.OpDecode, s *isa.OperandSpec, e ast.Expr, dst bool) {
	f := od.Form
	if _, ok := e.(*ast.Sink); ok {
		if !dst {
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "_ is only allowed as a destination")
		} else if !s.SinkOK {
			c.sinkRefused(f, e)
		}
		return
	}
	if _, ok := parser.ConstValue(e); ok && !dst && !isNegation(e) {
		return // a constant predicate: 0, 1, -1, (2+3)
	}
	switch x := e.(type) {
	case *ast.BinaryExpr:
		if dst && x.Op == "|" && !s.Pair {
			c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "write one predicate",
				"%s writes one predicate %s, not a pair p|q", f.Name, s.Name)
			return
		}
		if dst && x.Op == "|" {
			c.predOperand(od, s, x.X, true)
			c.predOperand(od, s, x.Y, true)
			return
		}
	case *ast.UnaryExpr:
		if !dst && x.Op == "!" && c.halfPred(od, s, c.lookup(x.X)) {
			c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a .pred register",
				"operand %s of %s: ! negates a .pred register, not %s", s.Name, f.Name, printer.String(x.X))
			return
		}
		if !dst && x.Op == "!" {
			c.predOperand(od, s, x.X, false)
			return
		}
	case *ast.Reg, *ast.Ident:
		name := ast.NameOf(e)
		if sp := c.special(e); sp != nil {
			c.gateSpecial(e, sp)
			if sp.Type != isa.QPred || dst {
				c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a .pred register", "operand %s of %s must be a predicate", s.Name, f.Name)
			}
			return
		}
		sym := c.lookup(e)
		if sym == nil && c.labelOrFunc(f, s, e) {
			return
		}
		if sym == nil || sym.ElemType == isa.QNone && isReg(sym) {
			return
		}
		if c.halfPred(od, s, sym) {
			return
		}
		if !isReg(sym) || sym.ElemType != isa.QPred {
			what := "variable"
			if isReg(sym) {
				what = "register of type " + sym.ElemType.String()
			}
			c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a .pred register",
				"operand %s of %s must be a predicate, not %s %s", s.Name, f.Name, what, name)
		}
		return
	case *ast.IntLit:
		if !dst {
			return // a constant predicate
		}
	}
	c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "", "operand %s of %s must be a predicate register", s.Name, f.Name)
}

// halfPred reports whether sym is a .f16x2 register and predicate operand s
// is typed by the form's .pred type qualifier (bar.red.and.pred's p,
// vote.sync.all.pred's operands), where ptxas 12.5 takes that register,
// unless negated or where it assembles the instruction as a routine call
// (docs/ptxas-differences.md).
func (c *checker) halfPred(od *isa.OpDecode, s *isa.OperandSpec, sym *resolve.Symbol) bool {
	return sym != nil && isReg(sym) && sym.ElemType == isa.QF16x2 && s.Slot >= 0 && !od.Expanded(c.target)
}

// formAddress checks an address operand: brackets around a register,
// variable or immediate, a register that can hold an address.
func (c *checker) formAddress(in *ast.Instruction, od *isa.OpDecode, e ast.Expr) {
	f := od.Form
	if x, ok := e.(*ast.IndexExpr); ok {
		if _, ok := x.X.(*ast.Ident); ok {
			return // var[imm]
		}
	}
	a, ok := e.(*ast.Address)
	if !ok {
		c.errorf(e.Pos(), e.End(), "operand-address", secAddr, "write ["+printer.String(e)+"]",
			"operand of %s must be an address in brackets ([reg], [var], [reg+imm])", f.Name)
		return
	}
	if f.Opcode == "txq" || f.Opcode == "suq" {
		c.handleAddress(f, a)
		return
	}
	if id, ok := a.Base.(*ast.Ident); ok && (f.Opcode == "ld" || f.Opcode == "ldu") && !hasSpace(od.Quals) {
		if sym := c.lookup(id); sym != nil && !isReg(sym) && (sym.StateSpace == isa.QConst || sym.StateSpace == isa.QParam) {
			c.errorf(id.Pos(), id.End(), "operand-address", secAddr, "write ld"+sym.StateSpace.String(),
				"a generic %s cannot read %s variable %s; name its state space", f.Name, sym.StateSpace, id.Name)
		}
		return
	}
	if id, ok := a.Base.(*ast.Ident); ok {
		if sym := c.lookup(id); sym == nil || !isReg(sym) {
			c.formAddressVar(od, id)
			return
		}
	}
	space := formSpace(od)
	if a.Base == nil && len(a.Index) == 0 && space != isa.QLocal {
		c.errorf(a.Pos(), a.End(), "address-immediate", secAddr, "put the address in a register",
			"immediate addresses are allowed only for the .local state space")
		return
	}
	r := a.Base // a register: %r1, or a name declared by .reg
	if _, ok := r.(*ast.Reg); !ok {
		if _, ok := r.(*ast.Ident); !ok {
			return
		}
	}
	sym := c.addressReg(r)
	if sym == nil {
		return
	}
	if f.Addr64 && sym.ElemType.Bits() == 32 && (space == isa.QNone || space == isa.QGlobal) {
		name := "generic"
		if space == isa.QGlobal {
			name = ".global"
		}
		if msg := c.narrowAddressRule(ast.NameOf(r), name); msg != "" {
			c.errorf(r.Pos(), r.End(), "address-size", secAddr+"; PTX ISA 11.1.3 (.address_size)", "use a 64-bit register (cvt.u64.u32)", "%s", msg)
		}
	}
}

// formAddressVar checks a variable named as an address: its state space
// must be the one the instruction accesses (generic addressing reaches
// .global, .local and .shared variables), as ptxas 12.5 requires
// ("State space mismatch"). Forms naming two state spaces (cp.async.bulk)
// are left to their own checks.
// handleAddress checks the operand of txq and suq: an opaque handle, a
// .texref, .samplerref or .surfref variable or a 64-bit register, without
// an offset (ptxas 12.5 refuses [var+16], [%rd+16], [%r], shared and
// global variables).
func (c *checker) handleAddress(f *isa.OpForm, a *ast.Address) {
	want := "a .texref or .samplerref variable or a 64-bit register"
	kinds := []string{".texref", ".samplerref"}
	if f.Opcode == "suq" {
		want, kinds = "a .surfref variable or a 64-bit register", []string{".surfref"}
	}
	ok := !a.HasOffset && a.Offset == 0 && len(a.Index) == 0 && a.Base != nil
	if ok {
		sym := c.lookup(a.Base)
		switch {
		case sym == nil:
			return // reported by resolution
		case isReg(sym):
			ok = sym.ElemType.Bits() == 64 && sym.VecLen() <= 1
		default:
			ok = sym.Decl != nil && slices.Contains(kinds, sym.Decl.Type)
		}
	}
	if !ok {
		c.errorf(a.Pos(), a.End(), "operand-address", f.Section, "",
			"the operand of %s is a handle: %s, without an offset", f.Name, want)
	}
}

func (c *checker) formAddressVar(od *isa.OpDecode, id *ast.Ident) {
	sym := c.lookup(id)
	if sym == nil || isReg(sym) || od.Form.Opcode == "cp" || od.Form.Opcode == "fence" {
		return
	}
	space, n := isa.QNone, 0
	for _, q := range od.Quals {
		if q.Group() == isa.GSpace {
			space, n = q, n+1
		}
	}
	if n > 1 {
		return
	}
	ok := spaceCompatible(space, sym.StateSpace)
	switch space {
	case isa.QParamEntry:
		ok = sym.StateSpace == isa.QParam
	case isa.QConst:
		ok = sym.StateSpace == isa.QConst
	}
	if !ok {
		how := "generic addressing"
		if space != isa.QNone {
			how = space.String()
		}
		c.errorf(id.Pos(), id.End(), "address-space", secAddr, "",
			"%s is declared in %s but %s accesses it with %s", id.Name, declSpaceName(sym), od.Form.Name, how)
	}
}

// addressReg returns the declared register r that an address operand is
// based on, after reporting one that cannot hold an address; nil when r is
// no such register or cannot hold one.
func (c *checker) addressReg(r ast.Expr) *resolve.Symbol {
	sym := c.lookup(r)
	if sym == nil || !isReg(sym) || sym.ElemType == isa.QNone {
		return nil
	}
	if k := sym.ElemType.Kind(); k == 'f' || k == 'p' || k == 'x' || sym.ElemType.Bits() > 64 || sym.ElemType.Bits() < 32 {
		c.errorf(r.Pos(), r.End(), "address-register-type", secAddr, "",
			"register %s of type %s cannot hold an address (use a 32- or 64-bit integer register)", ast.NameOf(r), sym.ElemType)
		return nil
	}
	return sym
}

// formSpace returns the state space the decoded instruction names, or
// QNone (generic addressing).
func formSpace(od *isa.OpDecode) isa.Qual {
	for _, q := range od.Quals {
		if q.Group() == isa.GSpace {
			return q
		}
	}
	return isa.QNone
}

// anyAddresses checks the address operands of a form whose operands are
// not described (cp.async, the tensor-core and texture instructions): a
// register an address is based on must be able to hold one, as for every
// other instruction (ptxas 12.5: "Illegal to use symbol '%p1' of type
// .pred as address operand").
func (c *checker) anyAddresses(in *ast.Instruction) {
	for _, e := range in.Operands {
		if a, ok := e.(*ast.Address); ok {
			if r, ok := a.Base.(*ast.Reg); ok {
				c.addressReg(r)
			}
		}
	}
}

// floatLitBits returns the width of a floating-point constant: 32 for the
// 0f form, 64 for the 0d form and decimal ones (PTX ISA 4.5.1).
func floatLitBits(x *ast.FloatLit) int {
	if x.Single {
		return 32
	}
	return 64
}

// isNegation reports whether e is !x.
func isNegation(e ast.Expr) bool {
	u, ok := e.(*ast.UnaryExpr)
	return ok && u.Op == "!"
}

// labelOrFunc reports, after reporting it, a label or function named
// where operand s needs a value: ptxas 12.5 takes a label only as a branch
// target and a function's address only in mov.
//
// Only a name written as an identifier and declared before the
// instruction is reported: a later label resolves only at the end of the
// function when statements come one at a time, and the verdict must not
// depend on how the module is fed to the checker.
func (c *checker) labelOrFunc(f *isa.OpForm, s *isa.OperandSpec, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	sym := c.res.Resolved(e)
	if sym == nil || sym.Kind != resolve.Function && sym.Kind != resolve.Label && sym.Kind != resolve.Prototype {
		return false
	}
	if sym.Kind != resolve.Function && (sym.Label == nil || sym.Label.Pos().Offset >= id.Pos().Offset) {
		return false
	}
	if sym.Kind == resolve.Function && s.Kind == isa.OpdMovSrc {
		return false
	}
	what := "label"
	if sym.Kind == resolve.Function {
		what = "function"
	}
	c.errorf(e.Pos(), e.End(), "operand-kind", f.Section, "",
		"operand %s of %s must be a value, not %s %s", s.Name, f.Name, what, ast.NameOf(e))
	return true
}

package check

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

const secCall = "PTX ISA 9.7.12.4 (call)"

// callArgs checks a direct call's return and argument lists against the
// callee's declaration, as ptxas 12.5 does: as many of each as the callee
// declares ("Call has wrong number of parameters"), and each .param
// argument of the size and alignment of its formal parameter ("Type of
// argument does not match formal parameter 'a'", "Alignment of argument
// does not match"). Registers and constants passed as arguments are not
// compared; indirect calls (through a register and a prototype) are left
// alone.
func (c *checker) callArgs(in *ast.Instruction) {
	ops := in.Operands
	var rets, args *ast.ParenList
	i := 0
	if len(ops) > 0 {
		if p, ok := ops[0].(*ast.ParenList); ok {
			rets, i = p, 1
		}
	}
	if i >= len(ops) {
		return
	}
	sym := c.res.Resolved(ops[i])
	if sym == nil || sym.Kind != resolve.Function || sym.Func == nil {
		return
	}
	if i+1 < len(ops) {
		if p, ok := ops[i+1].(*ast.ParenList); ok {
			args = p
		}
	}
	fn := sym.Func
	nr, na := listLen(rets), listLen(args)
	if nr != len(fn.Returns) || na != len(fn.Params) {
		c.errorf(in.OpPos, in.End(), "call-arguments", secCall, "pass what "+fn.Name.Name+" declares",
			"call of %s passes %d return value(s) and %d argument(s); %s declares %d and %d",
			fn.Name.Name, nr, na, fn.Name.Name, len(fn.Returns), len(fn.Params))
		return
	}
	for k := 0; k < nr; k++ {
		c.callArg(rets.Elems[k], fn.Returns[k])
	}
	for k := 0; k < na; k++ {
		c.callArg(args.Elems[k], fn.Params[k])
	}
}

func listLen(p *ast.ParenList) int {
	if p == nil {
		return 0
	}
	return len(p.Elems)
}

// callArg compares a .param argument e with its formal parameter f.
func (c *checker) callArg(e ast.Expr, f *ast.VarDecl) {
	sym := c.lookup(e)
	if sym == nil || sym.Kind != resolve.Param || sym.Decl == nil || f.Name == nil {
		return
	}
	as, aa := paramLayout(sym.Decl)
	fs, fa := paramLayout(f)
	if as == 0 || fs == 0 {
		return
	}
	if as != fs {
		c.errorf(e.Pos(), e.End(), "call-arguments", secCall, "declare the argument as the callee declares "+f.Name.Name,
			"argument %s (%d bytes) does not match formal parameter %s (%d bytes)", ast.NameOf(e), as, f.Name.Name, fs)
		return
	}
	if aa != fa {
		c.errorf(e.Pos(), e.End(), "call-arguments", secCall, "give the argument the alignment of "+f.Name.Name,
			"argument %s is aligned to %d bytes, formal parameter %s to %d", ast.NameOf(e), aa, f.Name.Name, fa)
	}
}

// paramLayout returns the size and alignment in bytes of a parameter
// declaration (0 when its type is unknown): an explicit .align, else the
// size of one element.
func paramLayout(d *ast.VarDecl) (size, align int64) {
	t := isa.TypeByName(d.Type)
	if t == isa.QNone || t.Bits() < 8 {
		return 0, 0
	}
	elem := int64(t.Bits() / 8)
	if d.Vector > 1 {
		elem *= int64(d.Vector)
	}
	size = elem
	for _, n := range d.Dims {
		if n < 0 {
			return 0, 0
		}
		size *= n
	}
	align = elem
	if d.Align != 0 {
		align = d.Align
	}
	return size, align
}

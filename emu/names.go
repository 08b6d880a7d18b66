package emu

import (
	"strconv"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// Names are resolved once, by package resolve (PTX ISA §4.4, §5.4): its
// Info binds every name use to a resolve.Symbol, one per declaration. The
// decoder keeps what it lays out per declaration (Decoder.vars: register
// slots, variable addresses), per label (Decoder.labels: pcs) and per
// function (Decoder.lowered), and reaches them through the symbol of each
// use; it keeps no table of names of its own.

// symbolOf returns the symbol that the name use n refers to, or nil when
// resolve bound it to nothing. The decoder reads uses in about source
// order, often the same one twice, so it looks at the last one found and
// a few after and before it before it searches.
func (d *Decoder) symbolOf(n ast.Expr) *resolve.Symbol {
	uses := d.info.Uses
	at := d.useAt
	for i := at; i < len(uses) && i < at+12; i++ {
		if uses[i].Node == n {
			d.useAt = i
			return uses[i].Sym
		}
	}
	for i := at - 1; i >= 0 && i >= at-4; i-- {
		if uses[i].Node == n {
			d.useAt = i
			return uses[i].Sym
		}
	}
	i := d.searchUse(n)
	if i < 0 {
		return nil
	}
	d.useAt = i
	return uses[i].Sym
}

// searchUse returns the index of n in the uses (sorted by offset), or -1.
func (d *Decoder) searchUse(n ast.Expr) int {
	uses := d.info.Uses
	off := n.Pos().Offset
	i, j := 0, len(uses)
	for i < j {
		h := int(uint(i+j) >> 1)
		if uses[h].Node.Pos().Offset < off {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(uses) && uses[i].Node.Pos().Offset == off; i++ {
		if uses[i].Node == n {
			return i
		}
	}
	return -1
}

// lookup returns the storage of the register or variable that the name
// use n (*ast.Reg or *ast.Ident) refers to, or nil when it names none
// that the decoder has laid out (PTX ISA §5.4: a name is visible from its
// declaration to the end of its block; resolve applies that).
func (d *Decoder) lookup(n ast.Expr) *symbol {
	if r, ok := n.(*ast.Reg); ok && d.tmpRegs != nil {
		if s := d.tmpRegs[r]; s != nil {
			return s
		}
	}
	sym := d.symbolOf(n)
	if sym == nil || sym.Decl == nil {
		return nil
	}
	s := d.vars[sym.Decl]
	if s == nil || sym.Decl.Count < 0 {
		return s
	}
	// An element of "%r<N>" (PTX ISA §5.4.6): its index follows the prefix.
	name, prefix := ast.NameOf(n), sym.Decl.Name.Name
	if len(name) <= len(prefix) {
		return nil
	}
	i, err := strconv.Atoi(name[len(prefix):])
	if err != nil || i < 0 || i >= len(s.elems) {
		return nil
	}
	return &s.elems[i]
}

// funcOf returns the function that the name use n refers to (its
// definition when the module has one; for ".alias a, b", b's), or nil.
func (d *Decoder) funcOf(n ast.Expr) *ast.Function {
	sym := d.symbolOf(n)
	if sym == nil || sym.Kind != resolve.Function {
		return nil
	}
	if f := d.aliased[sym]; f != nil {
		return f
	}
	return sym.Func
}

// labelOf returns the label that the branch target n refers to, or nil.
func (d *Decoder) labelOf(n ast.Expr) *ast.Label {
	if sym := d.symbolOf(n); sym != nil && (sym.Kind == resolve.Label || sym.Kind == resolve.Prototype) {
		return sym.Label
	}
	return nil
}

package lsp

import (
	"encoding/json"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// target is what a name at the cursor refers to: a resolved symbol, and
// for a parameterized register ("%r<10>") the one register written, so
// that the references of %r1 are not those of %r2.
type target struct {
	sym  *resolve.Symbol
	decl *declaration // the declaration, when the cursor is on it or it is known
	reg  string       // the register name for a parameterized declaration
	from int          // the name at the cursor
	to   int
}

// targetAt finds the name under offset o: a use or a declaration.
func (a *analysis) targetAt(o int) *target {
	if u := a.useAt(o); u != nil {
		t := &target{sym: u.Sym, from: off(u.Node.Pos()), to: off(u.Node.End())}
		if r, ok := u.Node.(*ast.Reg); ok {
			t.to = t.from + len(r.Name) // %tid.x: the register, not its component
			if u.Sym.Decl != nil && u.Sym.Decl.Count >= 0 {
				t.reg = r.Name
			}
		}
		t.decl = a.declOf(u.Sym)
		return t
	}
	if d := a.declAt(o); d != nil {
		return &target{sym: a.symbolOf(d), decl: d, from: d.from, to: d.to}
	}
	return nil
}

// declOf returns the declaration of sym, or nil for special registers and
// constants.
func (a *analysis) declOf(sym *resolve.Symbol) *declaration {
	for i := range a.decls {
		if a.declares(&a.decls[i], sym) {
			return &a.decls[i]
		}
	}
	return nil
}

// declares reports whether d is a declaration of sym. A function's
// declarations and definition all declare it.
func (a *analysis) declares(d *declaration, sym *resolve.Symbol) bool {
	switch sym.Kind {
	case resolve.Register, resolve.Variable, resolve.Param:
		return d.decl != nil && d.decl == sym.Decl
	case resolve.Function:
		return d.kind == resolve.Function && a.info != nil && a.info.Functions[d.name] == sym
	case resolve.Label, resolve.Prototype:
		return d.label != nil && d.label == sym.Label
	}
	return false
}

// symbolOf finds the symbol a declaration declares through the uses that
// name it, or nil when nothing uses it.
func (a *analysis) symbolOf(d *declaration) *resolve.Symbol {
	if a.info == nil {
		return nil
	}
	if d.kind == resolve.Function {
		if s := a.info.Functions[d.name]; s != nil {
			return s
		}
	}
	for _, u := range a.info.Uses {
		if a.declares(d, u.Sym) {
			return u.Sym
		}
	}
	return nil
}

// refers reports whether the use u names t.
func (t *target) refers(u *resolve.Use) bool {
	if t.sym == nil {
		return false
	}
	if u.Sym != t.sym {
		return false
	}
	if t.reg != "" {
		r, ok := u.Node.(*ast.Reg)
		return ok && r.Name == t.reg
	}
	return true
}

// references returns the byte ranges of every use of t, with its
// declarations first when withDecl is set.
func (a *analysis) references(t *target, withDecl bool) [][2]int {
	var out [][2]int
	if withDecl {
		for i := range a.decls {
			d := &a.decls[i]
			if d == t.decl || (t.sym != nil && a.declares(d, t.sym)) {
				out = append(out, [2]int{d.from, d.to})
			}
		}
	}
	if a.info == nil {
		return out
	}
	for i := range a.info.Uses {
		u := &a.info.Uses[i]
		if !t.refers(u) {
			continue
		}
		from, to := off(u.Node.Pos()), off(u.Node.End())
		if r, ok := u.Node.(*ast.Reg); ok {
			to = from + len(r.Name)
		}
		out = append(out, [2]int{from, to})
	}
	return out
}

func (s *Server) definition(params json.RawMessage) (any, *rpcError) {
	p, a, o, err := s.positionRequest(params)
	if err != nil {
		return nil, err
	}
	t := a.targetAt(o)
	if t == nil || t.decl == nil {
		return nil, nil
	}
	return []Location{{URI: p.TextDocument.URI, Range: a.text.rangeOf(t.decl.from, t.decl.to, s.enc)}}, nil
}

func (s *Server) references(params json.RawMessage) (any, *rpcError) {
	var p referenceParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	_, a, o, err := s.docAt(p.textDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	t := a.targetAt(o)
	if t == nil {
		return nil, nil
	}
	locs := []Location{}
	for _, r := range a.references(t, p.Context.IncludeDeclaration) {
		locs = append(locs, Location{URI: p.TextDocument.URI, Range: a.text.rangeOf(r[0], r[1], s.enc)})
	}
	return locs, nil
}

// documentHighlight marks the declaration (kind Write, 3) and the uses
// (kind Read, 2) of the name at the cursor.
func (s *Server) documentHighlight(params json.RawMessage) (any, *rpcError) {
	_, a, o, err := s.positionRequest(params)
	if err != nil {
		return nil, err
	}
	t := a.targetAt(o)
	if t == nil {
		return nil, nil
	}
	type highlight struct {
		Range Range `json:"range"`
		Kind  int   `json:"kind"`
	}
	out := []highlight{}
	nDecl := len(a.references(t, true)) - len(a.references(t, false))
	for i, r := range a.references(t, true) {
		kind := 2
		if i < nDecl {
			kind = 3
		}
		out = append(out, highlight{a.text.rangeOf(r[0], r[1], s.enc), kind})
	}
	return out, nil
}

// documentSymbols lists the kernels and functions, with their parameters,
// and the module-scope variables, in source order.
func (s *Server) documentSymbols(params json.RawMessage) (any, *rpcError) {
	var p documentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	_, a, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	syms := []documentSymbol{}
	for _, st := range a.mod.Stmts {
		switch st := st.(type) {
		case *ast.Function:
			if st.Name == nil {
				continue
			}
			sym := s.symbolFor(a, st, st.Name, symbolKindFunction, functionDetail(st))
			for _, ps := range [][]*ast.VarDecl{st.Returns, st.Params} {
				for _, prm := range ps {
					if prm.Name != nil {
						sym.Children = append(sym.Children, s.symbolFor(a, prm, prm.Name, symbolKindVariable, declDetail(prm)))
					}
				}
			}
			syms = append(syms, sym)
		case *ast.VarDecl:
			for _, v := range append([]*ast.VarDecl{st}, st.ExtraNames...) {
				if v.Name == nil {
					continue
				}
				kind := symbolKindVariable
				if isa.LookupQual(v.Space) == isa.QConst {
					kind = symbolKindConstant
				}
				syms = append(syms, s.symbolFor(a, v, v.Name, kind, declDetail(v)))
			}
		}
	}
	return syms, nil
}

func (s *Server) symbolFor(a *analysis, n ast.Node, name *ast.Ident, kind int, detail string) documentSymbol {
	from, to := off(n.Pos()), off(n.End())
	nf, nt := off(name.Pos()), off(name.End())
	from, to = min(from, nf), max(to, nt) // the selection lies inside the range
	return documentSymbol{Name: name.Name, Detail: detail, Kind: kind,
		Range: a.text.rangeOf(from, to, s.enc), SelectionRange: a.text.rangeOf(nf, nt, s.enc)}
}

// functionDetail is ".entry" or ".func" with the linkage.
func functionDetail(f *ast.Function) string {
	d := f.Kind
	for i := len(f.Linkage) - 1; i >= 0; i-- {
		d = f.Linkage[i] + " " + d
	}
	if f.Body == nil {
		d += " (declaration)"
	}
	return d
}

// declDetail is a declaration's state space and type: ".shared .align 16 .b8".
func declDetail(v *ast.VarDecl) string {
	d := v.Space
	if v.Vector > 0 {
		d += " .v" + itoa(v.Vector)
	}
	return d + " " + v.Type
}

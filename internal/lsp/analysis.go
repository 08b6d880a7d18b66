package lsp

import (
	"fmt"
	"sort"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// analysis is what the server knows about one version of a document: its
// tree, the resolution of its names and its diagnostics, computed the way
// `ptxkit check` computes them.
type analysis struct {
	text  *text
	mod   *ast.Module
	info  *resolve.Info
	diags diag.List // what ptxkit check reports, sorted by position

	target, version string // the first .target architecture and .version, or the overrides; "" when absent

	decls []declaration // every declared name, by offset
}

// declaration is one declared name in the tree and what it declares.
type declaration struct {
	from, to int // byte range of the name
	name     string
	kind     resolve.Kind
	decl     *ast.VarDecl  // a register, variable or parameter
	fn       *ast.Function // a function (its name) or the owner of decl
	label    *ast.Label
}

// analyze parses, resolves and validates src as `ptxkit check` does, with
// cfg's target and version overrides (which also become the target and
// version of completion and hover): a
// document with syntax errors reports only those, one with resolution
// errors only the syntax and resolution ones. The names of a document with
// syntax errors are still resolved, for navigation, but those diagnostics
// are not reported. A panic in any pass becomes an internal diagnostic at
// the start of the document, so that one bad document cannot stop the
// server.
func analyze(name, src string, cfg check.Config) (a *analysis) {
	a = &analysis{text: newText(src)}
	defer func() {
		if r := recover(); r != nil {
			a.mod, a.info, a.decls = &ast.Module{Filename: name}, nil, nil
			a.diags = diag.List{{File: name, Severity: diag.Error, Rule: "internal",
				Message: fmt.Sprintf("ptxkit could not analyse this document: %v", r)}}
		}
	}()
	m, errs := parser.ParseStringMode(name, src, parser.ParseComments)
	a.mod = m
	info, l := check.ModuleInfo(m, cfg) // names resolved once, for checking and navigation
	a.info = info
	if !errs.HasErrors() {
		errs = append(errs, l...)
	}
	errs.Sort()
	a.diags = diag.IgnoredIn([]byte(src)).Without(errs) // "// ptxkit:ignore RULE", as for check
	a.header()
	if cfg.Target != "" {
		a.target = cfg.Target
	}
	if cfg.PTX != "" {
		a.version = cfg.PTX
	}
	a.collectDecls()
	return a
}

// header records the module's first .version and .target.
func (a *analysis) header() {
	for _, s := range a.mod.Stmts {
		d, ok := s.(*ast.Directive)
		if !ok || len(d.Args) == 0 {
			continue
		}
		switch {
		case d.Name == ".version" && a.version == "":
			a.version = literalText(d.Args[0])
		case d.Name == ".target" && a.target == "":
			if id, ok := d.Args[0].(*ast.Ident); ok {
				a.target = id.Name
			}
		}
	}
}

// literalText returns the spelling of a number literal, or "".
func literalText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.FloatLit:
		return x.Text
	case *ast.IntLit:
		return x.Text
	}
	return ""
}

// collectDecls lists every declared name of the module in source order.
func (a *analysis) collectDecls() {
	add := func(d declaration) {
		if d.to > d.from {
			a.decls = append(a.decls, d)
		}
	}
	var vars func(v *ast.VarDecl, fn *ast.Function, kind resolve.Kind)
	vars = func(v *ast.VarDecl, fn *ast.Function, kind resolve.Kind) {
		if v == nil || v.Name == nil {
			return
		}
		if kind == 0 {
			kind = varKind(v)
		}
		add(declaration{from: off(v.Name.Pos()), to: off(v.Name.End()), name: v.Name.Name, kind: kind, decl: v, fn: fn})
		for _, x := range v.ExtraNames {
			vars(x, fn, kind)
		}
	}
	for _, s := range a.mod.Stmts {
		switch s := s.(type) {
		case *ast.VarDecl:
			vars(s, nil, 0)
		case *ast.Function:
			if s.Name != nil {
				add(declaration{from: off(s.Name.Pos()), to: off(s.Name.End()), name: s.Name.Name, kind: resolve.Function, fn: s})
			}
			for _, p := range s.Returns {
				vars(p, s, resolve.Param)
			}
			for _, p := range s.Params {
				vars(p, s, resolve.Param)
			}
			if s.Body != nil {
				ast.Inspect(s.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.VarDecl:
						vars(n, s, 0)
						return false
					case *ast.Label:
						add(declaration{from: off(n.Pos()), to: off(n.Pos()) + len(n.Name), name: n.Name, kind: resolve.Label, label: n, fn: s})
					case *ast.Instruction:
						return false
					}
					return true
				})
			}
		}
	}
	sort.SliceStable(a.decls, func(i, j int) bool { return a.decls[i].from < a.decls[j].from })
}

// varKind classifies a declaration by its state space.
func varKind(v *ast.VarDecl) resolve.Kind {
	if v.Space == ".reg" { // a declaration keyword, not a qualifier
		return resolve.Register
	}
	if isa.LookupQual(v.Space) == isa.QParam {
		return resolve.Param
	}
	return resolve.Variable
}

// off returns the byte offset of p.
func off(p token.Pos) int { return int(p.Offset) }

// declAt returns the declaration whose name covers offset o.
func (a *analysis) declAt(o int) *declaration {
	i := sort.Search(len(a.decls), func(i int) bool { return a.decls[i].to >= o }) // first ending at or after o
	for ; i < len(a.decls) && a.decls[i].from <= o; i++ {
		if o <= a.decls[i].to {
			return &a.decls[i]
		}
	}
	return nil
}

// useAt returns the resolved name use covering offset o (the cursor may
// stand just past its last character).
func (a *analysis) useAt(o int) *resolve.Use {
	if a.info == nil {
		return nil
	}
	uses := a.info.Uses
	i := sort.Search(len(uses), func(i int) bool { return off(uses[i].Node.Pos()) > o })
	for j := i - 1; j >= 0 && j >= i-4; j-- { // nested uses start at most a few apart
		if u := &uses[j]; off(u.Node.Pos()) <= o && o <= off(u.Node.End()) {
			return u
		}
	}
	return nil
}

// instructionAt returns the instruction whose text covers offset o.
func (a *analysis) instructionAt(o int) *ast.Instruction {
	var found *ast.Instruction
	ast.Inspect(a.mod, func(n ast.Node) bool {
		if found != nil || n == nil {
			return false
		}
		from, to := off(n.Pos()), off(n.End())
		if _, top := n.(*ast.Module); !top && (o < from || o > to) {
			return false
		}
		if in, ok := n.(*ast.Instruction); ok {
			found = in
			return false
		}
		return true
	})
	return found
}

package lsp

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// The semantic token legend (LSP 3.17 "Semantic Tokens"). Opcodes are
// keywords, qualifiers modifiers, directives and declaration attributes
// macros; names are classified by what they resolve to.
var (
	semanticTokenTypes     = []string{"keyword", "modifier", "macro", "type", "function", "variable", "parameter", "label", "number", "string", "comment"}
	semanticTokenModifiers = []string{"declaration", "readonly", "defaultLibrary"}
)

const (
	tokKeyword = iota
	tokModifier
	tokMacro
	tokType
	tokFunction
	tokVariable
	tokParameter
	tokLabel
	tokNumber
	tokString
	tokComment
)

const (
	modDeclaration = 1 << iota
	modReadonly
	modDefaultLibrary
)

// semToken is one classified byte range.
type semToken struct {
	from, to  int
	typ, mods int
}

func (s *Server) semanticTokensFull(params json.RawMessage) (any, *rpcError) {
	var p documentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	_, a, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return semanticTokens{Data: a.encodeTokens(a.semanticTokens(), s.enc)}, nil
}

// semanticTokensRange returns the tokens that overlap the requested range.
func (s *Server) semanticTokensRange(params json.RawMessage) (any, *rpcError) {
	var p codeActionParams // a document and a range
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	_, a, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	from, ok1 := a.text.offset(p.Range.Start, s.enc)
	to, ok2 := a.text.offset(p.Range.End, s.enc)
	if !ok1 || !ok2 {
		return nil, errorf(codeInvalidParams, "range %v is outside the document", p.Range)
	}
	var in []semToken
	for _, t := range a.semanticTokens() {
		if t.to > from && t.from < to {
			in = append(in, t)
		}
	}
	return semanticTokens{Data: a.encodeTokens(in, s.enc)}, nil
}

// semanticTokens classifies the document's text, in source order, without
// overlaps.
func (a *analysis) semanticTokens() []semToken {
	var toks []semToken
	add := func(from, to, typ, mods int) {
		if to > from {
			toks = append(toks, semToken{from, to, typ, mods})
		}
	}
	ast.Inspect(a.mod, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Directive:
			add(off(n.Pos()), off(n.Pos())+len(n.Name), tokMacro, 0)
		case *ast.Function:
			if n.Name != nil {
				a.attributes(add, off(n.Pos()), off(n.Name.Pos()))
				add(off(n.Name.Pos()), off(n.Name.End()), tokFunction, modDeclaration)
			}
			for _, d := range n.Perf {
				add(off(d.Pos()), off(d.Pos())+len(d.Name), tokMacro, 0)
			}
		case *ast.VarDecl:
			a.declTokens(add, n)
			return n.Init != nil || len(n.ExtraNames) > 0
		case *ast.Label:
			add(off(n.Pos()), off(n.Pos())+len(n.Name), tokLabel, modDeclaration)
		case *ast.Instruction:
			if n.Guard != nil && n.Guard.Reg != nil {
				a.nameToken(add, n.Guard.Reg) // before the opcode, in source order
			}
			add(off(n.OpPos), off(n.OpPos)+len(n.Opcode), tokKeyword, 0)
			for _, q := range n.Quals {
				add(off(q.Pos), off(q.End()), tokModifier, 0)
			}
		case *ast.Guard:
			return false // done with its instruction
		case *ast.Reg, *ast.Ident:
			a.nameToken(add, n.(ast.Expr))
			if r, ok := n.(*ast.Reg); ok && r.Sel != 0 {
				// a video selector (PTX ISA 9.7.19): ".b1" of "%r2.b1"
				add(off(r.End())-r.Sel.Len()-1, off(r.End()), tokModifier, 0)
			}
			return false
		case *ast.IntLit, *ast.FloatLit:
			add(off(n.Pos()), off(n.End()), tokNumber, 0)
		case *ast.StringLit:
			add(off(n.Pos()), off(n.End()), tokString, 0)
		}
		return true
	})
	byStart := func(x, y semToken) int {
		if x.from != y.from {
			return x.from - y.from
		}
		return x.typ - y.typ
	}
	if !slices.IsSortedFunc(toks, byStart) { // only a damaged tree is out of order
		slices.SortFunc(toks, byStart)
	}
	toks = mergeComments(toks, a.mod.Comments)
	out := toks[:0]
	end := 0
	for _, t := range toks {
		if t.from >= end { // drop a token overlapping the previous one
			out = append(out, t)
			end = t.to
		}
	}
	return out
}

// mergeComments merges the comments, in source order, into the sorted
// tokens.
func mergeComments(toks []semToken, comments []*ast.Comment) []semToken {
	if len(comments) == 0 {
		return toks
	}
	out := make([]semToken, 0, len(toks)+len(comments))
	i := 0
	for _, c := range comments {
		ct := semToken{off(c.Pos()), off(c.End()), tokComment, 0}
		for i < len(toks) && toks[i].from < ct.from {
			out = append(out, toks[i])
			i++
		}
		out = append(out, ct)
	}
	return append(out, toks[i:]...)
}

// attributes marks the dotted words in [from, to) (linkage, .entry,
// .align 8, .ptr) as macros.
func (a *analysis) attributes(add func(from, to, typ, mods int), from, to int) {
	src := a.text.src
	for i := from; i < to && i < len(src); i++ {
		if src[i] != '.' || (i > from && isWordByte(src[i-1])) {
			continue
		}
		j := i + 1
		for j < to && isWordByte(src[j]) {
			j++
		}
		add(i, j, tokMacro, 0)
		i = j
	}
}

// declTokens classifies a declaration's attributes, space, type and name.
func (a *analysis) declTokens(add func(from, to, typ, mods int), v *ast.VarDecl) {
	if v.Name == nil {
		return
	}
	nameFrom := off(v.Name.Pos())
	var marks []semToken
	if v.SpacePos.IsValid() {
		marks = append(marks, semToken{off(v.SpacePos), off(v.SpacePos) + len(v.Space), tokKeyword, 0})
	}
	if v.TypePos.IsValid() {
		marks = append(marks, semToken{off(v.TypePos), off(v.TypePos) + len(v.Type), tokType, 0})
	}
	from := off(v.Pos())
	for _, m := range marks {
		if m.from >= from && m.to <= nameFrom {
			a.attributes(add, from, m.from)
			add(m.from, m.to, m.typ, 0)
			from = m.to
		}
	}
	a.attributes(add, from, nameFrom)
	typ := tokVariable
	if varKind(v) == resolve.Param {
		typ = tokParameter
	}
	add(nameFrom, off(v.Name.End()), typ, modDeclaration)
}

// nameToken classifies a name use by its symbol.
func (a *analysis) nameToken(add func(from, to, typ, mods int), e ast.Expr) {
	sym := a.info.Symbol(e)
	if sym == nil {
		return
	}
	typ, mods := tokVariable, 0
	switch sym.Kind {
	case resolve.Param:
		typ = tokParameter
	case resolve.Function:
		typ = tokFunction
	case resolve.Label, resolve.Prototype:
		typ = tokLabel
	case resolve.SpecialReg, resolve.Constant:
		mods = modReadonly | modDefaultLibrary
	}
	to := off(e.End())
	if r, ok := e.(*ast.Reg); ok {
		to = off(r.Pos()) + len(r.Name) // %tid of %tid.x
	}
	add(off(e.Pos()), to, typ, mods)
}

// encodeTokens writes tokens in the protocol's relative form: five
// integers each (line delta, start delta, length, type, modifiers), one
// token per line piece, as multi-line tokens are optional for clients.
func (a *analysis) encodeTokens(toks []semToken, enc encoding) []uint32 {
	data := make([]uint32, 0, 5*len(toks))
	prevLine, prevChar := 0, 0
	lines := a.text.lines
	line := 0 // tokens come in order: the line only moves forward
	emit := func(from, to, typ, mods int) {
		for line+1 < len(lines) && lines[line+1] <= from {
			line++
		}
		p := Position{line, a.text.units(lines[line], from, enc)}
		n := a.text.units(from, to, enc)
		if p.Line != prevLine {
			prevChar = 0
		}
		data = append(data, uint32(p.Line-prevLine), uint32(p.Character-prevChar), uint32(n), uint32(typ), uint32(mods))
		prevLine, prevChar = p.Line, p.Character
	}
	for _, t := range toks {
		for from := t.from; from < t.to; {
			to := t.to
			if nl := strings.IndexByte(a.text.src[from:t.to], '\n'); nl >= 0 {
				to = from + nl
			}
			piece := strings.TrimRight(a.text.src[from:to], "\r")
			if piece != "" {
				emit(from, from+len(piece), t.typ, t.mods)
			}
			from = to + 1
		}
	}
	return data
}

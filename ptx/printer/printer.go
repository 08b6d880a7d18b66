// Package printer prints a PTX syntax tree in canonical form.
//
// The canonical form puts one statement on a line, indents function bodies
// with one tab per block level, writes labels flush left, separates an
// opcode from its operands with one space and operands with ", ", prints
// each declaration's attributes in the order state space, alignment,
// vector width, type, remaining attributes, and prints addresses as
// "[base]", "[base+off]" or "[base+-off]". One blank line is kept where
// the source had blank lines between statements. When the module was
// parsed with parser.ParseComments its comments are printed too: comments
// before a statement on lines of their own, comments inside a statement or
// on its last line after it on the same line.
//
// Parsing printed output gives back the same tree and comments (positions
// aside; see ast.Equal), and printing is a fixed point, so the printer is
// also the formatter of "ptxkit fmt".
package printer

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Fprint writes the canonical form of node (a *ast.Module, statement,
// declaration or expression) to w.
func Fprint(w io.Writer, node ast.Node) error {
	_, err := w.Write(Bytes(node))
	return err
}

// Bytes returns the canonical form of node.
func Bytes(node ast.Node) []byte {
	var p printer
	p.node(node)
	return p.buf.Bytes()
}

// String returns the canonical form of node.
func String(node ast.Node) string { return string(Bytes(node)) }

type printer struct {
	buf   bytes.Buffer
	depth int

	// Comments of the module being printed (parser.ParseComments), the
	// next one to print, and the source line where the last printed item
	// ended (0 at the start of a block), to keep single blank lines.
	comments []*ast.Comment
	next     int
	lastLine int32
}

func (p *printer) str(s string) { p.buf.WriteString(s) }
func (p *printer) byte(c byte)  { p.buf.WriteByte(c) }

func (p *printer) indent() {
	for i := 0; i < p.depth; i++ {
		p.byte('\t')
	}
}

func (p *printer) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.Module:
		p.module(n)
	case *ast.Function:
		p.function(n)
		p.byte('\n')
	case *ast.VarDecl:
		p.varDecl(n)
		p.str(";\n")
	case *ast.Directive:
		p.directive(n, false)
		p.byte('\n')
	case *ast.Block:
		p.block(n)
		p.byte('\n')
	case ast.Stmt:
		p.stmt(n)
		p.byte('\n')
	case ast.Expr:
		p.expr(n)
	}
}

func (p *printer) module(m *ast.Module) {
	p.comments = m.Comments
	var prev ast.TopStmt
	for i, s := range m.Stmts {
		_, fn := s.(*ast.Function)
		_, wasFn := prev.(*ast.Function)
		if (fn && prev != nil) || wasFn {
			p.blankLine()
		}
		p.leading(s.Pos())
		next := int32(-1)
		if i+1 < len(m.Stmts) {
			next = m.Stmts[i+1].Pos().Offset
		}
		switch s := s.(type) {
		case *ast.Function:
			p.function(s)
			p.trailing(s.End(), next, -1)
		case *ast.VarDecl:
			p.varDecl(s)
			p.byte(';')
			p.trailing(s.End(), next, -1)
		case *ast.Directive:
			p.directive(s, false)
			p.trailing(s.End(), next, rawEnd(s))
		case *ast.BadStmt:
			p.str("/* syntax error */")
			p.trailing(s.End(), next, s.End().Offset)
		}
		p.byte('\n')
		prev = s
	}
	p.leading(m.End())
	for ; p.next < len(p.comments); p.next++ {
		p.str(p.comments[p.next].Text)
		p.byte('\n')
	}
}

// blankLine ends the output with an empty line, unless it already does or
// a block has just been opened.
func (p *printer) blankLine() {
	b := p.buf.Bytes()
	if len(b) == 0 || bytes.HasSuffix(b, []byte("\n\n")) || bytes.HasSuffix(b, []byte("{\n")) {
		return
	}
	p.byte('\n')
}

// sourceBlank keeps one empty line where the source had one or more
// between the last printed item and the item starting at line.
func (p *printer) sourceBlank(line int32) {
	if p.lastLine > 0 && line > p.lastLine+1 {
		p.blankLine()
	}
}

// leading prints, each on its own line, the comments that start before
// pos, and keeps a blank line before the item at pos if the source had one.
func (p *printer) leading(pos token.Pos) {
	for p.next < len(p.comments) && p.comments[p.next].From.Offset < pos.Offset {
		c := p.comments[p.next]
		p.sourceBlank(c.From.Line)
		p.indent()
		p.str(c.Text)
		p.byte('\n')
		p.lastLine = c.To.Line
		p.next++
	}
	p.sourceBlank(pos.Line)
}

// trailing prints after an item that ends at end the comments written
// inside it and those that start on its last line before the next item
// (at offset next, or -1), on the same line. Comments before offset
// rawEnd are part of the item's raw text and are not printed again.
func (p *printer) trailing(end token.Pos, next, rawEnd int32) {
	afterLineComment := false
	p.lastLine = end.Line
	for p.next < len(p.comments) {
		c := p.comments[p.next]
		inside := c.From.Offset < end.Offset
		sameLine := c.From.Line == end.Line && (next < 0 || c.From.Offset < next)
		if !inside && !sameLine {
			break
		}
		p.next++
		if c.From.Offset < rawEnd {
			continue
		}
		if afterLineComment {
			// Another comment after a "//" one needs a line of its own.
			p.byte('\n')
			p.indent()
		} else {
			p.byte(' ')
		}
		p.str(c.Text)
		afterLineComment = strings.HasPrefix(c.Text, "//")
		if c.To.Line > p.lastLine {
			p.lastLine = c.To.Line
		}
	}
}

func (p *printer) linkage(l []string) {
	for _, s := range l {
		p.str(s)
		p.byte(' ')
	}
}

func (p *printer) function(f *ast.Function) {
	if p.functionHeader(f) {
		p.block(f.Body)
	}
}

// functionHeader prints the header of f up to its body's '{', and reports
// whether f has a body; for a declaration it prints the ';'.
func (p *printer) functionHeader(f *ast.Function) bool {
	p.linkage(f.Linkage)
	p.str(f.Kind)
	p.byte(' ')
	p.signature(f)
	for _, d := range f.Perf {
		p.byte('\n')
		p.directive(d, true)
	}
	if f.Body == nil {
		p.byte(';')
		return false
	}
	// Comments on the last line of the header stay there; others in the
	// header go on lines of their own before the body.
	if end, ok := headerEnd(f); ok {
		p.trailing(end, f.Body.From.Offset, -1)
	}
	p.byte('\n')
	for p.next < len(p.comments) && p.comments[p.next].From.Offset < f.Body.From.Offset {
		p.str(p.comments[p.next].Text)
		p.byte('\n')
		p.next++
	}
	return true
}

// headerEnd returns the end of the node printed last on the last line of
// a function header: the last performance directive, or the name when the
// parameter list is empty. A non-empty parameter list ends with ")" on a
// line of its own, which has no node; then it reports false.
func headerEnd(f *ast.Function) (token.Pos, bool) {
	switch {
	case len(f.Perf) > 0:
		return f.Perf[len(f.Perf)-1].End(), true
	case len(f.Params) == 0 && f.Name != nil:
		return f.Name.End(), true
	}
	return token.Pos{}, false
}

// signature prints "(returns) name(params)" of a function or prototype.
func (p *printer) signature(f *ast.Function) {
	if f.HasRet {
		p.params(f.Returns, false)
		p.byte(' ')
	}
	if f.Name != nil {
		p.str(f.Name.Name)
	}
	p.params(f.Params, f.Kind != ".callprototype")
}

func (p *printer) params(ps []*ast.VarDecl, multiline bool) {
	p.byte('(')
	if multiline && len(ps) > 0 {
		p.byte('\n')
		for i, d := range ps {
			p.byte('\t')
			p.varDecl(d)
			if i < len(ps)-1 {
				p.byte(',')
			}
			p.byte('\n')
		}
	} else {
		for i, d := range ps {
			if i > 0 {
				p.str(", ")
			}
			p.varDecl(d)
		}
	}
	p.byte(')')
}

func (p *printer) varDecl(d *ast.VarDecl) {
	p.linkage(d.Linkage)
	p.str(d.Space)
	for _, a := range d.Attrs {
		if len(a) >= 10 && a[:10] == ".attribute" {
			p.byte(' ')
			p.str(a)
		}
	}
	if d.Align != 0 {
		p.str(" .align ")
		p.str(strconv.FormatInt(d.Align, 10))
	}
	if d.Vector != 0 {
		p.str(" .v")
		p.str(strconv.Itoa(d.Vector))
	}
	if d.Type != "" {
		p.byte(' ')
		p.str(d.Type)
	}
	for _, a := range d.Attrs {
		if !(len(a) >= 10 && a[:10] == ".attribute") {
			p.byte(' ')
			p.str(a)
		}
	}
	p.byte(' ')
	p.declName(d)
	for _, x := range d.ExtraNames {
		p.str(", ")
		p.declName(x)
	}
}

func (p *printer) declName(d *ast.VarDecl) {
	if d.Name != nil {
		p.str(d.Name.Name)
	}
	if d.Count >= 0 {
		p.byte('<')
		p.str(strconv.FormatInt(d.Count, 10))
		p.byte('>')
	}
	for _, n := range d.Dims {
		p.byte('[')
		if n >= 0 {
			p.str(strconv.FormatInt(n, 10))
		}
		p.byte(']')
	}
	if d.Init != nil {
		p.str(" = ")
		p.expr(d.Init)
	}
}

// directive prints d with its ';' where it takes one. In a function header
// (header true) only .pragma does.
func (p *printer) directive(d *ast.Directive, header bool) {
	if d.Proto != nil {
		p.str(".callprototype ")
		p.signature(d.Proto)
		for _, x := range d.Proto.Perf {
			p.byte(' ')
			p.directive(x, true)
		}
		p.byte(';')
		return
	}
	if d.Raw != "" {
		p.str(d.Raw)
		if !lineDirective(d.Name) {
			p.byte(';')
		}
		return
	}
	p.str(d.Name)
	for i, a := range d.Args {
		switch {
		case i == 0 || d.Name == ".loc" || d.Name == ".file" && i == 1:
			p.byte(' ')
		default:
			p.str(", ")
		}
		p.expr(a)
	}
	if !lineDirective(d.Name) && !(header && d.Name != ".pragma") {
		p.byte(';')
	}
}

// lineDirective reports whether a directive ends at the end of its line
// rather than with ';'.
func lineDirective(name string) bool {
	switch name {
	case ".version", ".target", ".address_size", ".file", ".loc", ".section":
		return true
	}
	return false
}

func (p *printer) block(b *ast.Block) {
	p.str("{")
	p.trailing(b.From.Advance("{"), firstOffset(b), -1)
	p.byte('\n')
	p.depth++
	for i, s := range b.Stmts {
		p.leading(s.Pos())
		p.stmt(s)
		next := int32(-1)
		if i+1 < len(b.Stmts) {
			next = b.Stmts[i+1].Pos().Offset
		} else if b.To.IsValid() {
			next = b.To.Offset - 1
		}
		raw := int32(-1)
		switch s := s.(type) {
		case *ast.Directive:
			raw = rawEnd(s)
		case *ast.BadStmt:
			raw = s.End().Offset // skipped text is not printed, nor its comments
		}
		p.trailing(s.End(), next, raw)
		p.byte('\n')
	}
	p.closeBrace(b.To)
}

// rawEnd returns the end offset of a directive's raw text, or -1.
func rawEnd(d *ast.Directive) int32 {
	if d.Raw == "" {
		return -1
	}
	return d.From.Offset + int32(len(d.Raw))
}

// firstOffset returns the offset of the first statement of b, or of its
// closing brace.
func firstOffset(b *ast.Block) int32 {
	if len(b.Stmts) > 0 {
		return b.Stmts[0].Pos().Offset
	}
	return b.To.Offset - 1
}

// stmt prints one statement of a block without its line end.
func (p *printer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.Label:
		p.str(s.Name)
		p.byte(':')
		return
	case *ast.Instruction:
		p.indent()
		p.instruction(s)
	case *ast.VarDecl:
		p.indent()
		p.varDecl(s)
		p.byte(';')
	case *ast.Directive:
		p.indent()
		p.directive(s, false)
	case *ast.Block:
		p.indent()
		p.block(s)
	case *ast.BadStmt:
		p.indent()
		p.str("/* syntax error */")
	}
}

func (p *printer) instruction(in *ast.Instruction) {
	if g := in.Guard; g != nil {
		p.byte('@')
		if g.Negate {
			p.byte('!')
		}
		if g.Reg != nil {
			p.expr(g.Reg)
		}
		p.byte(' ')
	}
	p.str(in.Opcode)
	for _, q := range in.Quals {
		p.str(q.Name)
	}
	for i, op := range in.Operands {
		if i == 0 {
			p.byte(' ')
		} else {
			p.str(", ")
		}
		p.expr(op)
	}
	p.byte(';')
}

func (p *printer) exprList(open, close byte, es []ast.Expr) {
	p.byte(open)
	for i, e := range es {
		if i > 0 {
			p.str(", ")
		}
		p.expr(e)
	}
	p.byte(close)
}

func (p *printer) expr(e ast.Expr) {
	switch e := e.(type) {
	case *ast.Reg:
		p.str(e.Name)
		if e.Comp != "" {
			p.byte('.')
			p.str(e.Comp)
		}
		if e.Sel != 0 {
			p.byte('.')
			p.str(e.Sel.String())
		}
	case *ast.Ident:
		p.str(e.Name)
	case *ast.Sink:
		p.byte('_')
	case *ast.IntLit:
		p.str(intText(e))
	case *ast.FloatLit:
		p.str(floatText(e))
	case *ast.StringLit:
		p.str(quote(e.Value))
	case *ast.VectorExpr:
		p.exprList('{', '}', e.Elems)
	case *ast.InitList:
		p.exprList('{', '}', e.Elems)
	case *ast.ParenList:
		p.exprList('(', ')', e.Elems)
	case *ast.Address:
		p.address(e)
		if e.Unified {
			p.str(".unified")
		}
	case *ast.IndexExpr:
		p.expr(e.X)
		p.byte('[')
		p.expr(e.Index)
		p.byte(']')
	case *ast.ParenExpr:
		p.byte('(')
		p.expr(e.X)
		p.byte(')')
	case *ast.UnaryExpr:
		p.str(e.Op)
		p.expr(e.X)
	case *ast.BinaryExpr:
		p.expr(e.X)
		p.byte(' ')
		p.str(e.Op)
		p.byte(' ')
		p.expr(e.Y)
	case *ast.CallExpr:
		p.str(e.Fun)
		p.exprList('(', ')', e.Args)
	case *ast.BadExpr:
		p.str("/* syntax error */")
	}
}

func (p *printer) address(a *ast.Address) {
	p.byte('[')
	switch {
	case a.Base == nil:
		p.str(strconv.FormatInt(a.Offset, 10))
	case a.Offset != 0:
		p.expr(a.Base)
		p.byte('+')
		p.str(strconv.FormatInt(a.Offset, 10))
	default:
		p.expr(a.Base)
	}
	for _, x := range a.Index {
		p.str(", ")
		p.expr(x)
	}
	p.byte(']')
}

// intText returns the spelling of an integer literal: as written, or for
// a literal built by a program (no Text) its decimal value.
func intText(l *ast.IntLit) string {
	if l.Text != "" {
		return l.Text
	}
	t := strconv.FormatUint(l.Value, 10)
	if l.Unsigned {
		t += "U"
	}
	return t
}

// floatText returns the spelling of a float literal: as written, or for a
// literal built by a program the exact 0f/0d form.
func floatText(l *ast.FloatLit) string {
	switch {
	case l.Text != "":
		return l.Text
	case l.Single:
		return fmt.Sprintf("0f%08X", math.Float32bits(float32(l.Value)))
	case l.Hex:
		return fmt.Sprintf("0d%016X", l.Bits)
	}
	return fmt.Sprintf("0d%016X", math.Float64bits(l.Value))
}

// quote writes s as a PTX string literal.
func quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// closeBrace prints the comments before a block's closing brace, which
// ends at to, and the brace one level out.
func (p *printer) closeBrace(to token.Pos) {
	if to.IsValid() {
		p.leading(token.Pos{Offset: to.Offset - 1, Line: to.Line})
	}
	p.depth--
	p.indent()
	p.byte('}')
	p.lastLine = to.Line
}

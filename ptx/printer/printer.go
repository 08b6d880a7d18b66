// Package printer prints a PTX syntax tree in canonical form.
//
// The canonical form puts one statement on a line, indents function bodies
// with one tab per block level, writes labels flush left, separates an
// opcode from its operands with one space and operands with ", ", prints
// each declaration's attributes in the order state space, alignment,
// vector width, type, remaining attributes, and prints addresses as
// "[base]", "[base+off]" or "[base+-off]". Parsing printed output gives
// back the same tree (positions aside; see ast.Equal), so the printer is
// also the formatter of "ptxkit fmt".
package printer

import (
	"bytes"
	"io"
	"strconv"

	"github.com/ptxkit/ptxkit/ptx/ast"
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
	case *ast.VarDecl:
		p.varDecl(n)
		p.str(";\n")
	case *ast.Directive:
		p.directive(n)
		p.byte('\n')
	case *ast.Block:
		p.block(n)
		p.byte('\n')
	case ast.Stmt:
		p.stmt(n, nil)
	case ast.Expr:
		p.expr(n)
	}
}

func (p *printer) module(m *ast.Module) {
	var prev ast.TopStmt
	for _, s := range m.Stmts {
		if _, fn := s.(*ast.Function); fn && prev != nil {
			p.byte('\n')
		} else if _, wasFn := prev.(*ast.Function); wasFn {
			p.byte('\n')
		}
		switch s := s.(type) {
		case *ast.Function:
			p.function(s)
		case *ast.VarDecl:
			p.varDecl(s)
			p.str(";\n")
		case *ast.Directive:
			p.directive(s)
			p.byte('\n')
		case *ast.BadStmt:
			p.str("/* syntax error */\n")
		}
		prev = s
	}
}

func (p *printer) linkage(l []string) {
	for _, s := range l {
		p.str(s)
		p.byte(' ')
	}
}

func (p *printer) function(f *ast.Function) {
	p.linkage(f.Linkage)
	p.str(f.Kind)
	p.byte(' ')
	p.signature(f)
	for _, d := range f.Perf {
		p.byte('\n')
		p.directive(d)
	}
	if f.Body == nil {
		p.str(";\n")
		return
	}
	p.byte('\n')
	p.block(f.Body)
	p.byte('\n')
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

func (p *printer) directive(d *ast.Directive) {
	if d.Proto != nil {
		p.str(".callprototype ")
		p.signature(d.Proto)
		for _, x := range d.Proto.Perf {
			p.byte(' ')
			p.directive(x)
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
	if !lineDirective(d.Name) && !perfDirective(d.Name) {
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

// perfDirective reports whether a directive belongs to a function header,
// where it takes no ';'.
func perfDirective(name string) bool {
	switch name {
	case ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn", ".explicitcluster",
		".reqnctapercluster", ".maxclusterrank", ".blocksareclusters", ".abi_preserve", ".abi_preserve_control":
		return true
	}
	return false
}

func (p *printer) block(b *ast.Block) {
	p.str("{\n")
	p.depth++
	for i, s := range b.Stmts {
		var next ast.Stmt
		if i+1 < len(b.Stmts) {
			next = b.Stmts[i+1]
		}
		p.stmt(s, next)
	}
	p.depth--
	p.indent()
	p.byte('}')
}

func (p *printer) stmt(s ast.Stmt, next ast.Stmt) {
	switch s := s.(type) {
	case *ast.Label:
		p.str(s.Name)
		p.str(":\n")
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
		p.directive(s)
	case *ast.Block:
		p.indent()
		p.block(s)
	case *ast.BadStmt:
		p.indent()
		p.str("/* syntax error */")
	}
	p.byte('\n')
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
	case *ast.Ident:
		p.str(e.Name)
	case *ast.Sink:
		p.byte('_')
	case *ast.IntLit:
		p.str(e.Text)
	case *ast.FloatLit:
		p.str(e.Text)
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

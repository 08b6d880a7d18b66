package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// parseVarDecl parses a variable declaration starting at the state space
// (linkage already consumed; start is where the declaration began):
//
//	.global .align 8 .v2 .u32 arr[4] = {...}, other;
//	.reg .b32 %r<10>, %f<3>;
//	.param .u64 .ptr .global .align 16 p        (param: no ';', one name)
func (p *parser) parseVarDecl(start token.Pos, linkage []string, param bool) *ast.VarDecl {
	d := p.nodes.decls.new()
	d.Linkage, d.Count = linkage, -1
	d.From = start
	if p.simpleDecl(d, param) {
		return d
	}
	errs := p.nerrs
	p.parseDeclAttrs(d)
	if d.Space == "" {
		p.errorExpected("state space")
	}
	if d.Type == "" {
		p.errorExpected("type")
		if p.tok.Kind != scanner.Ident {
			p.sync(start.Line)
			d.To = p.prevEnd
			return d
		}
	}
	if !p.parseDeclName(d) {
		if !param {
			p.sync(start.Line)
		}
		d.To = p.prevEnd
		return d
	}
	if param {
		d.To = p.prevEnd
		return d
	}
	for p.tok.Kind == scanner.Comma {
		p.next()
		x := p.nodes.decls.new()
		*x = ast.VarDecl{Linkage: d.Linkage, Space: d.Space, SpacePos: d.SpacePos, Align: d.Align,
			Vector: d.Vector, Type: d.Type, TypePos: d.TypePos, Attrs: d.Attrs, Count: -1}
		x.From = p.tok.Pos
		ok := p.parseDeclName(x)
		x.To = p.prevEnd
		if !ok && x.To.Offset < x.From.Offset { // nothing consumed
			x.To = x.From
		}
		d.ExtraNames = append(d.ExtraNames, x)
		if !ok {
			p.sync(start.Line)
			d.To = p.prevEnd
			return d
		}
	}
	p.endStmt(start.Line, errs)
	d.To = p.prevEnd
	return d
}

// parseDeclAttrs parses the dotted words of a declaration before its name.
func (p *parser) parseDeclAttrs(d *ast.VarDecl) {
	afterPtr := false
	for p.tok.Kind == scanner.Dotted {
		lit := p.lit()
		kind, n := isa.DeclWord(lit)
		switch {
		case d.Space == "" && kind == isa.DeclSpace:
			d.Space, d.SpacePos = lit, p.tok.Pos
		case lit == ".align":
			p.next()
			from := p.tok.Pos.Offset
			n := p.parseIntArg()
			if afterPtr {
				d.Attrs = append(d.Attrs, ".align "+compact(p.src[from:max(from, p.prevEnd.Offset)]))
			} else {
				d.Align = n
			}
			continue
		case kind == isa.DeclVector && d.Type == "":
			d.Vector = n
		case d.Type == "" && kind == isa.DeclType:
			d.Type, d.TypePos = lit, p.tok.Pos
		case lit == ".attribute":
			d.Attrs = append(d.Attrs, p.parseAttribute())
			continue
		default:
			switch {
			case lit == ".ptr":
				afterPtr = true
			case afterPtr && kind == isa.DeclSpace:
			default:
				p.error("unexpected " + lit + " in a declaration")
			}
			d.Attrs = append(d.Attrs, lit)
		}
		p.next()
	}
}

// parseAttribute parses ".attribute(.managed)" and returns its text.
func (p *parser) parseAttribute() string {
	start := p.tok.Pos
	p.next()
	if p.tok.Kind != scanner.LParen {
		p.errorExpected("'(' after .attribute")
		return ".attribute"
	}
	for p.tok.Kind != scanner.RParen && p.tok.Kind != scanner.EOF && p.tok.Kind != scanner.Semi {
		p.next()
	}
	end, _ := p.expect(scanner.RParen)
	return compact(p.src[start.Offset:end.Offset])
}

// compact removes white space from s.
func compact(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return string(b)
}

// parseIntArg parses a constant integer expression (an alignment, a
// register count, an array dimension).
func (p *parser) parseIntArg() int64 { return p.parseIntPrec(1) }

// parseIntPrec is parseIntArg limited to operators binding at least as
// tightly as prec (so that "%r<10>" stops at '>').
func (p *parser) parseIntPrec(prec int) int64 {
	e := p.parseBinary(prec)
	v, ok := ConstValue(e)
	if !ok {
		if _, bad := e.(*ast.BadExpr); !bad {
			p.errorAt(e.Pos(), e.End(), "expected integer constant")
		}
	}
	return v
}

// parseDeclName parses "name", "%r<N>", "arr[4][]" and "= init".
func (p *parser) parseDeclName(d *ast.VarDecl) bool {
	if p.tok.Kind != scanner.Ident {
		p.errorExpected("variable name")
		return false
	}
	d.Name = p.ident()
	if p.tok.Kind == scanner.Lss {
		p.next()
		d.Count = p.parseIntPrec(precedence(scanner.Shl))
		if d.Count < 0 {
			d.Count = 0
		}
		if _, ok := p.expect(scanner.Gtr); !ok {
			return false
		}
	}
	for p.tok.Kind == scanner.LBrack {
		p.next()
		if p.tok.Kind == scanner.RBrack {
			d.Dims = append(d.Dims, -1)
		} else {
			from := p.tok.Pos
			n := p.parseIntArg()
			if n < 0 {
				// A literal of 2^63 or more wraps; only a '-' makes it negative.
				msg := "negative array dimension"
				if text := p.src[from.Offset:p.prevEnd.Offset]; !strings.Contains(text, "-") {
					msg = "array dimension " + text + " is too large (at most 2^63-1)"
				}
				p.errorAt(from, p.prevEnd, msg)
				n = 0
			}
			d.Dims = append(d.Dims, n)
		}
		if _, ok := p.expect(scanner.RBrack); !ok {
			return false
		}
		if _, ok := arrayBytes(d.Type, d.Vector, d.Dims); !ok {
			p.errorAt(d.Name.Pos(), p.prevEnd, fmt.Sprintf("array %s is larger than a 64-bit address space (%s elements of %d bytes)",
				d.Name.Name, dimsText(d.Dims), elemBytes(d.Type, d.Vector)))
			return false
		}
	}
	if p.tok.Kind == scanner.Assign {
		p.next()
		d.Init = p.parseInit()
		if _, bad := d.Init.(*ast.BadExpr); bad {
			return false
		}
	}
	return true
}

func (p *parser) ident() *ast.Ident {
	id := p.nodes.idents.new()
	id.Name = p.lit()
	id.From, id.To = p.tok.Pos, p.tok.End
	p.next()
	return id
}

// declarationEnds reports whether a function header not followed by '{'
// or ';' ends there: at the end of the input, or where a later line starts
// a module-scope statement. nvcc up to PTX ISA 2.x wrote function
// declarations without the ';', and ptxas accepts them in every version.
func (p *parser) declarationEnds() bool {
	switch {
	case p.tok.Kind == scanner.EOF:
		return true
	case p.tok.Kind != scanner.Dotted || p.tok.Pos.Line <= p.prevEnd.Line:
		return false
	}
	s := p.lit()
	return topLevelOnly(s) || isStateSpace(s)
}

// parseFunction parses a .entry or .func definition or declaration.
func (p *parser) parseFunction(start token.Pos, linkage []string) *ast.Function {
	f := &ast.Function{Linkage: linkage, Kind: p.lit()}
	f.From = start
	p.next()
	if p.tok.Kind == scanner.LParen && f.Kind == ".func" {
		f.HasRet = true
		f.Returns = p.parseParamList()
	}
	switch p.tok.Kind {
	case scanner.Ident:
		f.Name = p.ident()
	case scanner.LParen, scanner.LBrace:
		p.errorExpected("function name") // parse the rest as an unnamed function
	default:
		p.errorExpected("function name")
		p.sync(start.Line)
		f.To = p.prevEnd
		return f
	}
	if p.tok.Kind == scanner.LParen {
		f.Params = p.parseParamList()
	}
	f.Perf = p.parsePerf()
	switch p.tok.Kind {
	case scanner.LBrace:
		f.Body = p.parseBody()
	case scanner.Semi:
		p.next()
	default:
		if p.declarationEnds() {
			break // a declaration without its ';', as old nvcc writes them
		}
		p.errorExpected("'{' or ';' after function header")
		p.sync(start.Line)
		if p.tok.Kind == scanner.LBrace { // parse the body anyway
			f.Body = p.parseBody()
		}
	}
	f.To = p.prevEnd
	return f
}

// parseBody parses a function body. With ReuseBodies its nodes come from
// the recycled slabs, whose previous contents (the body of the function
// before) are handed back first.
func (p *parser) parseBody() *ast.Block {
	if p.skipBodies && !p.peeked {
		return p.skipBody()
	}
	if !p.reuse {
		return p.parseBlock()
	}
	if p.onBody != nil {
		p.onBody() // a Pipe: the bodies' nodes live longer
	} else {
		p.body.reset()
	}
	p.nodes = p.body
	if p.stmtWise {
		return p.openBody()
	}
	b := p.parseBlock()
	p.nodes = &p.keep
	return b
}

// skipBody skips a function body (SkipBodies) and returns an empty block
// spanning it.
func (p *parser) skipBody() *ast.Block {
	b := p.keep.blocks.new()
	b.From = p.tok.Pos
	end, _ := p.sc.SkipBalanced(p.tok.Pos) // the scanner is at the byte after '{'
	b.To = end
	p.tok.End = end
	p.next()
	return b
}

// parsePerf parses the performance-tuning directives after a function
// header: .maxntid 256, 1, 1  .noreturn  .reqnctapercluster 2 ...
func (p *parser) parsePerf() []*ast.Directive {
	var ds []*ast.Directive
	for p.tok.Kind == scanner.Dotted && isPerfDirective(p.lit()) {
		d := &ast.Directive{Name: p.lit()}
		d.From = p.tok.Pos
		p.next()
		if d.Name == ".pragma" {
			d.Args = p.parseDirectiveArgs(d.From.Line)
			if p.tok.Kind == scanner.Semi {
				p.next()
			}
		} else {
			for p.startsPerfArg() {
				d.Args = append(d.Args, p.parseBinary(1))
				if p.tok.Kind != scanner.Comma {
					break
				}
				p.next()
			}
		}
		d.To = p.prevEnd
		ds = append(ds, d)
	}
	return ds
}

// startsPerfArg reports whether the current token can begin an argument
// of a performance directive (never '{', which opens the body).
func (p *parser) startsPerfArg() bool {
	switch p.tok.Kind {
	case scanner.Int, scanner.Float, scanner.Ident, scanner.Sub, scanner.LParen, scanner.Tilde, scanner.String:
		return true
	}
	return false
}

// parseParamList parses "(.param .b32 a, .reg .b64 b)". The declarations
// are collected on a stack and copied once into an exactly sized slice.
func (p *parser) parseParamList() []*ast.VarDecl {
	p.next()
	if p.tok.Kind == scanner.RParen {
		p.next()
		return nil
	}
	base := len(p.params)
	defer func() { p.params = p.params[:base] }()
	list := func() []*ast.VarDecl { return append([]*ast.VarDecl(nil), p.params[base:]...) }
	for {
		if p.tok.Kind != scanner.Dotted {
			p.errorExpected("parameter declaration")
			p.skipParens()
			return list()
		}
		start := p.tok.Pos
		var linkage []string
		if p.lit() == ".hidden" {
			// nvcc 13 writes ".hidden .param" for a kernel parameter
			// the program does not name (PTX ISA 9.x).
			linkage = hiddenParam
			p.next()
		}
		p.params = append(p.params, p.parseVarDecl(start, linkage, true))
		if p.tok.Kind == scanner.Comma {
			p.next()
			continue
		}
		if p.tok.Kind == scanner.RParen {
			p.next()
			return list()
		}
		p.errorExpected("',' or ')' in parameter list")
		p.skipParens()
		return list()
	}
}

// hiddenParam is the linkage of a parameter written ".hidden .param".
var hiddenParam = []string{".hidden"}

// skipParens skips to just after the next ')' on the way to a '{' or ';'.
func (p *parser) skipParens() {
	for {
		switch p.tok.Kind {
		case scanner.RParen:
			p.next()
			return
		case scanner.EOF, scanner.LBrace, scanner.Semi, scanner.RBrace:
			return
		}
		p.next()
	}
}

// parseDirective parses a directive that is not a declaration. The
// directives with a fixed form keep their arguments in Args; .section
// bodies, the long forms of .loc and unknown directives also keep their
// text in Raw.
func (p *parser) parseDirective() *ast.Directive {
	d := &ast.Directive{Name: p.lit()}
	d.From = p.tok.Pos
	line := p.tok.Pos.Line
	p.next()
	switch d.Name {
	case ".section":
		return p.parseSection(d)
	case ".callprototype":
		return p.parseCallPrototype(d)
	case ".version", ".target", ".address_size", ".pragma", ".loc", ".file", ".alias", ".branchtargets", ".calltargets",
		".maxnreg", ".maxntid", ".reqntid", ".minnctapersm":
		d.Args = p.parseDirectiveArgs(line)
		switch d.Name {
		case ".loc":
			// ".loc FILE LINE COL" is printed canonically; the longer
			// forms (function_name, inlined_at) are kept as written.
			if !simpleLoc(d) {
				d.Raw = p.src[d.From.Offset:p.prevEnd.Offset]
			}
		case ".file":
			p.checkFileArgs(d)
		}
	default:
		for p.tok.Kind != scanner.EOF && p.tok.Kind != scanner.Semi && p.tok.Kind != scanner.RBrace && p.tok.Pos.Line == line {
			p.next()
		}
		d.Raw = p.src[d.From.Offset:p.prevEnd.Offset]
	}
	if p.tok.Kind == scanner.Semi {
		p.next()
	}
	d.To = p.prevEnd
	return d
}

// simpleLoc reports whether d is ".loc FILE LINE COL" with integer
// operands.
func simpleLoc(d *ast.Directive) bool {
	if len(d.Args) != 3 {
		return false
	}
	for _, a := range d.Args {
		if _, ok := a.(*ast.IntLit); !ok {
			return false
		}
	}
	return true
}

// checkFileArgs checks the form .file INDEX "NAME" [, TIMESTAMP, SIZE]
// (PTX ISA §11.6.3); ptxas 12.5 also accepts a timestamp alone. It rejects anything else, such as the
// .file 1 "dir" "name" that LLVM 14 writes.
func (p *parser) checkFileArgs(d *ast.Directive) {
	const msg = `expected .file INDEX "NAME" [, TIMESTAMP, SIZE]`
	for i, a := range d.Args {
		_, isStr := a.(*ast.StringLit)
		_, isInt := a.(*ast.IntLit)
		comma := i >= 2 && strings.Contains(p.src[d.Args[i-1].End().Offset:a.Pos().Offset], ",")
		if i >= 4 || (i == 1) != isStr || (i != 1 && !isInt) || (i >= 2 && !comma) {
			p.errorAt(a.Pos(), a.End(), msg)
			return
		}
	}
	switch n := len(d.Args); n {
	case 2, 3, 4:
	case 0:
		p.errorAt(d.Pos(), d.End(), msg)
	default:
		p.errorAt(d.Args[n-1].Pos(), d.Args[n-1].End(), msg)
	}
}

// parseDirectiveArgs parses the operands of a directive up to the end of
// its line or a ';'. Commas between operands are optional (.loc 1 2 3).
func (p *parser) parseDirectiveArgs(line int32) []ast.Expr {
	var args []ast.Expr
	for p.tok.Pos.Line == line {
		switch p.tok.Kind {
		case scanner.EOF, scanner.Semi, scanner.RBrace, scanner.LBrace:
			return args
		case scanner.Comma:
			p.next()
			continue
		case scanner.Dotted:
			// .loc ... inlined_at / .target options never start with '.';
			// take other dotted words as identifiers.
			args = append(args, p.ident())
			continue
		}
		e := p.parseOperand()
		args = append(args, e)
		if _, bad := e.(*ast.BadExpr); bad {
			p.sync(line)
			return args
		}
	}
	return args
}

// parseSection parses ".section .name { raw }" keeping the body only as text.
func (p *parser) parseSection(d *ast.Directive) *ast.Directive {
	if p.tok.Kind == scanner.Dotted || p.tok.Kind == scanner.Ident {
		d.Args = append(d.Args, p.ident())
	}
	if p.tok.Kind != scanner.LBrace {
		p.errorExpected("'{' after .section name")
		p.sync(d.From.Line)
		d.To = p.prevEnd
		d.Raw = p.src[d.From.Offset:d.To.Offset]
		return d
	}
	// The scanner is at the byte after '{': tokens are peeked only after
	// an identifier (to find labels), never here.
	end, _ := p.sc.SkipBalanced(p.tok.Pos)
	p.tok.End = end
	p.next()
	d.To = end
	d.Raw = p.src[d.From.Offset:end.Offset]
	return d
}

// parseCallPrototype parses ".callprototype (.param .b32 _) _ (.param .b64 _);"
// after the label that names it.
func (p *parser) parseCallPrototype(d *ast.Directive) *ast.Directive {
	f := &ast.Function{Kind: ".callprototype"}
	f.From = d.From
	if p.tok.Kind == scanner.LParen {
		f.HasRet = true
		f.Returns = p.parseParamList()
	}
	if p.tok.Kind == scanner.Ident {
		f.Name = p.ident()
	} else {
		p.errorExpected("'_' in .callprototype")
	}
	if p.tok.Kind == scanner.LParen {
		f.Params = p.parseParamList()
	}
	f.Perf = p.parsePerf()
	f.To = p.prevEnd
	d.Proto = f
	if _, ok := p.expect(scanner.Semi); !ok {
		p.sync(d.From.Line)
	}
	d.To = p.prevEnd
	return d
}

// maxArrayBytes bounds the size of an array variable: every byte of it
// needs an address, and sizes are computed in int64.
const maxArrayBytes = 1<<63 - 1

// arrayBytes returns the size in bytes of an array of the given element
// type, vector width and dimensions ("[]" counted as 1), and false when it
// exceeds maxArrayBytes (PTX ISA 5.4, Variables: array declarations).
func arrayBytes(typ string, vec int, dims []int64) (int64, bool) {
	n := elemBytes(typ, vec)
	for _, d := range dims {
		if d <= 0 {
			continue
		}
		if n > maxArrayBytes/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// elemBytes returns the size of one element: ".b32" 4, ".f16x2" 4,
// ".b128" 16, times the vector width; 1 for types without a bit width.
func elemBytes(typ string, vec int) int64 {
	base, lanes, _ := strings.Cut(typ, "x")
	i := len(base)
	for i > 0 && base[i-1] >= '0' && base[i-1] <= '9' {
		i--
	}
	// Empty digit strings are the common case (".pred", ".b32" has no
	// lanes): skip strconv there, whose error for them allocates.
	bits := 8
	if i < len(base) {
		if b, err := strconv.Atoi(base[i:]); err == nil && b >= 8 {
			bits = b
		}
	}
	n := int64(bits / 8)
	if lanes != "" {
		if m, err := strconv.Atoi(lanes); err == nil && m > 0 {
			n *= int64(m)
		}
	}
	return n * int64(max(1, vec))
}

// dimsText formats array dimensions as "4611686018427387905" or "4 x 8".
func dimsText(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(max(d, 1), 10)
	}
	return strings.Join(parts, " x ")
}

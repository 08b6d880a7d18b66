// Package parser builds the syntax tree (package ast) of a PTX module.
//
// The parser is hand written and recursive descent. It accepts the module
// grammar of the PTX ISA (§4 "Syntax", §5 "State Spaces, Types, and
// Variables", §11 "Directives") as ptxas 12.5 accepts it, and keeps going
// after syntax errors: each error is reported with its position, the parser
// skips to the next ';', '}' or statement that starts a new line, and the
// returned tree holds *ast.BadStmt and *ast.BadExpr where text could not be
// parsed. No input makes it panic, loop or use memory beyond a small
// multiple of the input size: nesting depth, expression length and the
// number of reported errors are bounded (MaxDepth, MaxExprOps, MaxErrors).
//
// Syntax errors have the rule id "syntax". The parser does not resolve
// names or check types and qualifiers; see packages resolve and check.
package parser

import (
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Limits that bound the work done on hostile input.
const (
	MaxErrors = 100  // after this many syntax errors the parser stops
	MaxDepth  = 1600 // deepest nesting of blocks, braces, brackets and parentheses (ptxas 12.5 accepts 1,663 nested blocks)

	// MaxExprOps bounds the binary operators of one expression (an
	// operand, or an element of a vector or initializer list).
	MaxExprOps = 10000
)

// RuleSyntax is the rule id of every diagnostic the parser reports.
const RuleSyntax = "syntax"

// A Mode selects optional parser behaviour.
type Mode uint

// Modes.
const (
	// ParseComments records the comments of the source in
	// Module.Comments (for the formatter).
	ParseComments Mode = 1 << iota

	// ReuseBodies lets a Stream recycle the nodes of function bodies: the
	// body of a function returned by Stream.Next (Function.Body and every
	// node under it) is overwritten by the following call to Next. The
	// function's header (name, parameters, return parameters, performance
	// directives) and every module-scope statement stay valid. It lets a
	// consumer that looks at each function once (ptxkit check) run in
	// memory proportional to the largest function, not to the module.
	// ParseFile and ParseString ignore it.
	ReuseBodies

	// StreamStatements makes a Stream hand out function bodies one
	// statement at a time (Stream.NextInBody) instead of whole; it
	// implies ReuseBodies. See Stream.NextInBody for what stays valid.
	// ParseFile and ParseString ignore it.
	StreamStatements

	// SkipBodies makes a Stream skip function bodies unparsed: a
	// function with a body comes with Function.Body an empty block that
	// spans the body, from its '{' to its '}', found as the scanner skips
	// raw text (braces, strings and comments). It is for a consumer that
	// wants only the module scope of a module: its variables, directives
	// and function headers (cmd/ptxkit splits a module among workers with
	// it). It overrides ReuseBodies and StreamStatements. ParseFile and
	// ParseString ignore it.
	SkipBodies
)

// ParseFile parses the PTX module src. filename is recorded in the module
// and in every diagnostic; it is not opened. The returned module is never
// nil, even when the list holds errors: it contains every statement that
// could be parsed, with BadStmt/BadExpr nodes where text was skipped.
func ParseFile(filename string, src []byte) (*ast.Module, diag.List) {
	return ParseString(filename, string(src))
}

// ParseString is ParseFile for a string source; the tree's strings share
// memory with src.
func ParseString(filename, src string) (*ast.Module, diag.List) {
	return ParseStringMode(filename, src, 0)
}

// ParseFileMode is ParseFile with options.
func ParseFileMode(filename string, src []byte, mode Mode) (*ast.Module, diag.List) {
	return ParseStringMode(filename, string(src), mode)
}

// ParseStringMode is ParseString with options.
func ParseStringMode(filename, src string, mode Mode) (*ast.Module, diag.List) {
	var p parser
	p.init(filename, src, mode&^(ReuseBodies|StreamStatements|SkipBodies))
	m := p.parseModule()
	m.Comments = p.comments
	p.errs.Sort() // an unclosed '{' is found after the errors inside it
	return m, p.errs
}

type parser struct {
	file string
	src  string
	sc   scanner.Scanner

	tok         scanner.Token // current token
	prevEnd     token.Pos     // end of the previous token
	prevKind    scanner.Kind  // kind of the previous token
	lastErrLine int32         // line of the last reported error
	peeked      bool
	peekTok     scanner.Token

	errs     diag.List
	comments []*ast.Comment // with ParseComments
	nerrs    int
	stopped  bool // too many errors or too deep: every further token is EOF
	depth    int
	exprOps  int  // binary operators in the current operand
	inCall   bool // parenthesized operands are call lists (ParenList)
	inInit   bool // parsing an initializer: braces are InitList, name(...) is CallExpr

	nodes      *nodes         // where new nodes come from: &keep, or &body inside a recycled function body
	keep       nodes          // slab allocation of frequent nodes
	body       *nodes         // nodes of function bodies, with ReuseBodies
	reuse      bool           // ReuseBodies
	stmtNodes  *nodes         // nodes of body statements, with StreamStatements
	stmtWise   bool           // StreamStatements: parseBody only opens the body
	skipBodies bool           // SkipBodies: parseBody skips the body's text
	opened     *ast.Block     // the body parseBody opened, with StreamStatements
	onBody     func()         // with a Pipe: called instead of resetting body as a body opens
	tooDeep    bool           // opened could not be entered (MaxDepth)
	scratch    []ast.Expr     // stack of operands being collected
	simpleOps  []simpleOp     // operands recognised by simpleOperands
	params     []*ast.VarDecl // stack of parameters being collected
	stmts      []ast.Stmt     // stack of block statements being collected
}

func (p *parser) init(file, src string, mode Mode) {
	p.initAt(file, src, mode, token.Pos{Line: 1, Col: 1})
}

// initAt is init for parsing src from at (scanner.Scanner.InitAt).
func (p *parser) initAt(file, src string, mode Mode, at token.Pos) {
	src = beforeNULFrom(src, int(at.Offset))
	p.file = file
	p.src = src
	p.nodes = &p.keep
	if mode&SkipBodies != 0 {
		mode &^= ReuseBodies | StreamStatements
		p.skipBodies = true
	}
	if mode&StreamStatements != 0 {
		mode |= ReuseBodies
		p.stmtWise = true
		p.stmtNodes = newRecycled()
	}
	if mode&ReuseBodies != 0 {
		p.reuse = true
		p.body = newRecycled()
	}
	p.sc.InitAt(src, at, p.scanError)
	if mode&ParseComments != 0 {
		p.sc.OnComment(func(from, to token.Pos) {
			c := &ast.Comment{Text: src[from.Offset:to.Offset]}
			c.From, c.To = from, to
			p.comments = append(p.comments, c)
		})
	}
	p.tok.End = at // so that prevEnd is valid from the start
	p.next()
}

// beforeNUL returns the text before the first NUL byte of src. ptxas reads
// a module as a C string: NVIDIA's OpenCL compiler ends its PTX with NUL
// bytes, and whatever follows the first NUL is ignored.
func beforeNUL(src string) string { return beforeNULFrom(src, 0) }

// beforeNULFrom is beforeNUL for a source read from byte from on.
func beforeNULFrom(src string, from int) string {
	if from < 0 || from > len(src) {
		from = 0
	}
	if i := strings.IndexByte(src[from:], 0); i >= 0 {
		return src[:from+i]
	}
	return src
}

func (p *parser) scanError(pos token.Pos, msg string) { p.errorAt(pos, pos, msg) }

// next advances to the next token, reporting and skipping illegal characters.
func (p *parser) next() {
	p.prevEnd = p.tok.End
	p.prevKind = p.tok.Kind
	if !p.stopped && !p.peeked {
		p.tok = p.sc.Scan()
		if p.tok.Kind != scanner.Illegal {
			return
		}
	}
	p.nextSlow()
}

// nextSlow is next after a peek, after the parse stopped, or on an
// illegal character.
func (p *parser) nextSlow() {
	for {
		if p.stopped {
			p.tok = scanner.Token{Kind: scanner.EOF, Pos: p.prevEnd, End: p.prevEnd}
			return
		}
		if p.tok.Kind == scanner.Illegal {
			p.errorAt(p.tok.Pos, p.tok.End, "illegal character "+strconv.Quote(p.lit()))
			if p.stopped {
				continue
			}
		}
		if p.peeked {
			p.tok, p.peeked = p.peekTok, false
		} else if p.tok.Kind == scanner.Illegal {
			p.tok = p.sc.Scan()
		}
		if p.tok.Kind != scanner.Illegal {
			return
		}
	}
}

// lit returns the text of the current token.
func (p *parser) lit() string { return p.src[p.tok.Pos.Offset:p.tok.End.Offset] }

// text returns the text of token t.
func (p *parser) text(t scanner.Token) string { return p.src[t.Pos.Offset:t.End.Offset] }

// peek returns the token after the current one without consuming it.
func (p *parser) peek() scanner.Token {
	if !p.peeked {
		p.peekTok = p.sc.Scan()
		p.peeked = true
	}
	return p.peekTok
}

func (p *parser) errorAt(pos, end token.Pos, msg string) {
	if p.stopped {
		return
	}
	// One error per position: cascades at one place add nothing.
	if n := len(p.errs); n > 0 && p.errs[n-1].Pos == pos {
		return
	}
	p.nerrs++
	p.lastErrLine = pos.Line
	if p.nerrs > MaxErrors {
		p.errs.Add(diag.Diagnostic{File: p.file, Pos: pos, End: end, Severity: diag.Error, Rule: RuleSyntax,
			Message: "too many syntax errors; stopping"})
		p.stop()
		return
	}
	p.errs.Add(diag.Diagnostic{File: p.file, Pos: pos, End: end, Severity: diag.Error, Rule: RuleSyntax, Message: msg})
}

func (p *parser) stop() {
	p.stopped = true
	p.peeked = false
	p.tok = scanner.Token{Kind: scanner.EOF, Pos: p.tok.Pos, End: p.tok.Pos}
}

func (p *parser) error(msg string) { p.errorAt(p.tok.Pos, p.tok.End, msg) }

// missingComma reports a forgotten ',' between two operands on one line,
// unless the line already has an error (then it is likely a cascade).
func (p *parser) missingComma() {
	if p.lastErrLine != p.prevEnd.Line {
		p.errorAt(p.prevEnd, p.prevEnd, "missing ',' between operands")
	}
}

// describe names the current token for an error message.
func (p *parser) describe() string {
	switch p.tok.Kind {
	case scanner.EOF:
		return "end of file"
	case scanner.Ident, scanner.Dotted, scanner.Int, scanner.Float:
		return strconv.Quote(p.lit())
	case scanner.String:
		return "string " + p.lit()
	}
	return p.tok.Kind.String()
}

func (p *parser) errorExpected(what string) {
	p.error("expected " + what + ", found " + p.describe())
}

// expect consumes a token of kind k or reports an error. It returns the
// end of the consumed token (or of the previous token on error).
func (p *parser) expect(k scanner.Kind) (token.Pos, bool) {
	if p.tok.Kind != k {
		p.errorExpected(k.String())
		return p.prevEnd, false
	}
	end := p.tok.End
	p.next()
	return end, true
}

// enter increments the nesting depth; it stops the parse when the depth
// exceeds MaxDepth. It returns false in that case.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.error("nesting too deep")
		p.stop()
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// sync skips tokens after a syntax error up to and including the next
// ';', or up to (not including) a '}' or a token on a later line than line
// that can begin a statement. Braces opened while skipping are skipped
// with their contents.
func (p *parser) sync(line int32) {
	depth := 0
	for {
		switch p.tok.Kind {
		case scanner.EOF:
			return
		case scanner.LBrace:
			if depth == 0 && p.tok.Pos.Line > line {
				return
			}
			depth++
		case scanner.RBrace:
			switch {
			case depth > 0:
				depth--
			// A '}' that follows an operand on the statement's line most
			// likely closes a vector whose '{' was consumed; skip it. A
			// block's '}' starts its line or follows a ';'.
			case p.tok.Pos.Line > p.prevEnd.Line || p.prevKind == scanner.Semi || p.tok.Pos.Line > line:
				return
			}
		case scanner.Semi:
			if depth == 0 {
				p.next()
				return
			}
		case scanner.Dotted, scanner.At:
			if depth == 0 && p.tok.Pos.Line > line {
				return
			}
		case scanner.Ident:
			if depth == 0 && p.tok.Pos.Line > line && p.lit()[0] != '%' {
				return
			}
		}
		p.next()
	}
}

// parseModule parses the whole input.
func (p *parser) parseModule() *ast.Module {
	m := &ast.Module{Filename: p.file}
	m.From = token.Pos{Line: 1, Col: 1}
	for s := p.nextTop(); s != nil; s = p.nextTop() {
		m.Stmts = append(m.Stmts, s)
	}
	m.To = p.end()
	return m
}

// nextTop parses the next top-level statement; it returns nil at the end
// of the input.
func (p *parser) nextTop() ast.TopStmt {
	for p.tok.Kind != scanner.EOF {
		if s := p.parseTopStmt(); s != nil {
			return s
		}
	}
	return nil
}

// end returns the end of the module, once nextTop has returned nil.
func (p *parser) end() token.Pos {
	if p.stopped {
		return p.tok.End
	}
	return p.sc.EndPos()
}

func (p *parser) parseTopStmt() ast.TopStmt {
	switch p.tok.Kind {
	case scanner.Semi:
		p.error("empty statement") // ptxas: "Parsing error near ';'"
		p.next()
		return nil
	case scanner.Dotted:
		start := p.tok.Pos
		linkage := p.parseLinkage()
		switch {
		case p.tok.Kind != scanner.Dotted:
		case p.lit() == ".entry" || p.lit() == ".func":
			return p.parseFunction(start, linkage)
		case isStateSpace(p.lit()):
			return p.parseVarDecl(start, linkage, false)
		case linkage == nil:
			return p.parseDirective()
		}
		p.errorExpected("function or variable declaration after " + linkage[len(linkage)-1])
		return p.bad(start)
	}
	start := p.tok.Pos
	if p.tok.Kind == scanner.Ident && p.peek().Kind == scanner.Colon {
		p.error("label outside a function body")
	} else {
		p.errorExpected("directive")
	}
	return p.bad(start)
}

// bad skips to the next statement and returns a BadStmt covering the text
// from start.
func (p *parser) bad(start token.Pos) *ast.BadStmt {
	p.sync(start.Line)
	if p.prevEnd.Offset <= start.Offset && p.tok.Kind != scanner.EOF && p.tok.Pos == start {
		p.next() // always make progress
	}
	b := &ast.BadStmt{}
	b.From, b.To = start, p.prevEnd
	if b.To.Offset < b.From.Offset {
		b.To = b.From
	}
	return b
}

func (p *parser) parseLinkage() []string {
	var l []string
	for p.tok.Kind == scanner.Dotted && isLinkage(p.lit()) {
		l = append(l, p.lit())
		p.next()
	}
	return l
}

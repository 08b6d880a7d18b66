package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// parseOperand parses one instruction operand or directive argument.
// The usual operands (a register, a name, a number, an address, a
// vector) go straight to their parser; an operator after them continues
// the operand as a constant expression.
func (p *parser) parseOperand() ast.Expr {
	p.exprOps = 0
	var x ast.Expr
	switch p.tok.Kind {
	case scanner.Ident:
		x = p.parseName()
	case scanner.LBrack:
		x = p.parseAddress()
		if a, ok := x.(*ast.Address); ok && p.tok.Kind == scanner.Dotted && p.lit() == ".unified" {
			a.Unified, a.To = true, p.tok.End
			p.next()
		}
	case scanner.LBrace:
		x = p.parseBraces()
	case scanner.Int:
		x = p.parseInt()
	default:
		return p.parseBinary(1)
	}
	if precedence(p.tok.Kind) == 0 {
		return x
	}
	return p.parseBinaryFrom(x, 1)
}

// parseInit parses a variable initializer: a constant expression, a
// brace-enclosed (nested) list, or generic(sym).
func (p *parser) parseInit() ast.Expr {
	saved := p.inInit
	p.inInit = true
	p.exprOps = 0
	e := p.parseBinary(1)
	p.inInit = saved
	return e
}

// precedence of binary operators, C order (PTX ISA §4.6 "Constant
// Expressions"); 0 for non-operators.
func precedence(k scanner.Kind) int {
	switch k {
	case scanner.LOr:
		return 1
	case scanner.LAnd:
		return 2
	case scanner.Or:
		return 3
	case scanner.Xor:
		return 4
	case scanner.And:
		return 5
	case scanner.Eql, scanner.Neq:
		return 6
	case scanner.Lss, scanner.Gtr, scanner.Leq, scanner.Geq:
		return 7
	case scanner.Shl, scanner.Shr:
		return 8
	case scanner.Add, scanner.Sub:
		return 9
	case scanner.Mul, scanner.Quo, scanner.Rem:
		return 10
	}
	return 0
}

// parseBinary parses a binary expression whose operators bind at least as
// tightly as prec.
func (p *parser) parseBinary(prec int) ast.Expr {
	return p.parseBinaryFrom(p.parseUnary(), prec)
}

// parseBinaryFrom is parseBinary after its first operand x.
func (p *parser) parseBinaryFrom(x ast.Expr, prec int) ast.Expr {
	for {
		k := p.tok.Kind
		pr := precedence(k)
		if pr < prec || pr == 0 {
			return x
		}
		op := p.lit()
		// A chain "1+1+...+1" nests only on the left, so the depth limit
		// does not see it; bound the operators of one operand instead.
		if p.exprOps++; p.exprOps > MaxExprOps {
			p.error("expression too long")
			p.stop()
			return x
		}
		p.next()
		if !p.enter() {
			return x
		}
		y := p.parseBinary(pr + 1)
		p.leave()
		b := p.nodes.binary.new()
		b.Op, b.X, b.Y = op, x, y
		b.From, b.To = x.Pos(), y.End()
		x = b
	}
}

func (p *parser) parseUnary() ast.Expr {
	switch p.tok.Kind {
	case scanner.Sub, scanner.Tilde, scanner.Not, scanner.Add:
		u := p.nodes.unary.new()
		u.Op = p.lit()
		u.From = p.tok.Pos
		p.next()
		if !p.enter() {
			u.X = &ast.BadExpr{Span: ast.Span{From: p.tok.Pos, To: p.tok.Pos}}
			u.To = p.prevEnd
			return u
		}
		u.X = p.parseUnary()
		p.leave()
		u.To = u.X.End()
		return u
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() ast.Expr {
	switch p.tok.Kind {
	case scanner.Ident:
		return p.parseName()
	case scanner.Int:
		return p.parseInt()
	case scanner.Float:
		return p.parseFloat()
	case scanner.String:
		s := &ast.StringLit{Value: unquote(p.lit())}
		s.From, s.To = p.tok.Pos, p.tok.End
		p.next()
		return s
	case scanner.LBrack:
		return p.parseAddress()
	case scanner.LBrace:
		return p.parseBraces()
	case scanner.LParen:
		return p.parseParens()
	}
	return p.badExpr("operand")
}

// parseName parses a register, special register, identifier, vector
// element (%v.x, x16_0.y), sink "_", indexed symbol (sym[4]) or, in an
// initializer, a call form generic(sym).
func (p *parser) parseName() ast.Expr {
	t := p.tok
	tl := p.lit()
	p.next()
	if tl == "_" {
		s := &ast.Sink{}
		s.From, s.To = t.Pos, t.End
		return s
	}
	if p.tok.Kind == scanner.Dotted && p.tok.Pos.Offset == t.End.Offset {
		comp := p.lit()[1:]
		r := p.nodes.regs.new()
		switch {
		case isComponent(comp):
			r.Name, r.Comp = tl, comp
		case ast.IsSelector(comp):
			r.Name, r.Sel = tl, ast.MakeSelector(comp)
		default:
			p.error("unexpected " + strconv.Quote(p.lit()) + " after " + tl +
				" (vector components are .x .y .z .w or .r .g .b .a; video selectors .b0-.b3, .h0, .h1, .b3210, .h10 ...)")
			r.Name, r.Comp = tl, comp
		}
		r.From, r.To = t.Pos, p.tok.End
		p.next()
		return r
	}
	if tl[0] == '%' {
		r := p.nodes.regs.new()
		r.Name = tl
		r.From, r.To = t.Pos, t.End
		return r
	}
	id := p.nodes.idents.new()
	id.Name = tl
	id.From, id.To = t.Pos, t.End
	switch {
	case p.tok.Kind == scanner.LBrack && !p.inInit:
		ix := &ast.IndexExpr{X: id}
		ix.From = t.Pos
		p.next()
		if !p.enter() {
			return id
		}
		ix.Index = p.parseBinary(1)
		p.leave()
		ix.To = p.closeWith(scanner.RBrack)
		return ix
	case p.tok.Kind == scanner.LParen && p.inInit:
		c := &ast.CallExpr{Fun: tl}
		c.From = t.Pos
		c.Args, c.To = p.parseList(scanner.RParen)
		return c
	}
	return id
}

// closeWith expects the closing token k and returns the end of the
// construct; on error it returns the end of the previous token.
func (p *parser) closeWith(k scanner.Kind) token.Pos {
	end, ok := p.expect(k)
	if !ok {
		return p.prevEnd
	}
	return end
}

// parseList parses "elem, elem, ... close" after the opening token (the
// current token). It returns the elements and the end of the closing token.
func (p *parser) parseList(close scanner.Kind) ([]ast.Expr, token.Pos) {
	p.next()
	if !p.enter() {
		return nil, p.prevEnd
	}
	defer p.leave()
	if p.tok.Kind == close {
		end := p.tok.End
		p.next()
		return nil, end
	}
	elems := p.collect(func() (ast.Expr, bool) {
		// Each element is its own expression for MaxExprOps.
		saved := p.exprOps
		p.exprOps = 0
		e := p.parseBinary(1)
		p.exprOps = saved
		if _, bad := e.(*ast.BadExpr); bad {
			p.skipTo(close)
		}
		switch {
		case p.tok.Kind == scanner.Comma:
			p.next()
			return e, true
		case p.tok.Pos.Line == p.prevEnd.Line && p.startsOperandHere():
			p.missingComma()
			return e, true
		}
		return e, false
	})
	return elems, p.closeWith(close)
}

// skipTo skips to the closing token close (not consuming it), stopping at
// a ';' or the end of the input.
func (p *parser) skipTo(close scanner.Kind) {
	for p.tok.Kind != close && p.tok.Kind != scanner.Semi && p.tok.Kind != scanner.EOF && p.tok.Kind != scanner.Comma {
		p.next()
	}
}

func (p *parser) parseBraces() ast.Expr {
	if !p.inInit && fastPaths {
		if v := p.simpleVector(); v != nil {
			return v
		}
	}
	start := p.tok.Pos
	elems, end := p.parseList(scanner.RBrace)
	if p.inInit {
		l := &ast.InitList{Elems: elems}
		l.From, l.To = start, end
		return l
	}
	v := p.nodes.vectors.new()
	v.Elems = elems
	v.From, v.To = start, end
	return v
}

func (p *parser) parseParens() ast.Expr {
	start := p.tok.Pos
	if p.inCall {
		elems, end := p.parseList(scanner.RParen)
		l := p.nodes.parens.new()
		l.Elems = elems
		l.From, l.To = start, end
		return l
	}
	p.next()
	if !p.enter() {
		return &ast.BadExpr{Span: ast.Span{From: start, To: p.prevEnd}}
	}
	x := p.parseBinary(1)
	p.leave()
	e := &ast.ParenExpr{X: x}
	e.From = start
	e.To = p.closeWith(scanner.RParen)
	return e
}

// parseAddress parses "[base]", "[base+imm]", "[base+-imm]", "[imm]" and
// "[base, elems...]" (PTX ISA §6.4.1).
func (p *parser) parseAddress() ast.Expr {
	a := p.nodes.addrs.new()
	a.From = p.tok.Pos
	if fastPaths && p.simpleAddress(a) {
		return a
	}
	errs := p.nerrs
	elems, end := p.parseList(scanner.RBrack)
	a.To = end
	if len(elems) == 0 {
		p.errorAt(a.From, a.To, "empty address")
		return &ast.BadExpr{Span: a.Span}
	}
	a.Index = elems[1:]
	if len(a.Index) == 0 {
		a.Index = nil
	}
	e := elems[0]
	if _, bad := e.(*ast.BadExpr); bad {
		return e
	}
	if b := baseOperation(e); b != nil && b.Op != "+" {
		// ptxas: "Parsing error near '-'". The grammar is base+constexpr.
		p.errorAt(b.Pos(), b.End(), "an address offset is added with '+': write [base+-imm], not [base"+b.Op+"imm]")
		return &ast.BadExpr{Span: a.Span}
	}
	base, off, hasOff, ok := splitAddress(e)
	if !ok {
		if p.nerrs == errs {
			p.errorAt(e.Pos(), e.End(), "invalid address: expected [reg], [reg+imm], [var+imm] or [imm]")
		}
		return &ast.BadExpr{Span: a.Span}
	}
	a.Base, a.Offset, a.HasOffset = base, off, hasOff
	return a
}

// baseOperation returns the binary expression that applies directly to
// the register or symbol at the left end of an address expression.
func baseOperation(e ast.Expr) *ast.BinaryExpr {
	for b, ok := e.(*ast.BinaryExpr); ok; b, ok = b.X.(*ast.BinaryExpr) {
		switch b.X.(type) {
		case *ast.Reg, *ast.Ident:
			return b
		}
	}
	return nil
}

// splitAddress splits an address expression into a base (register or
// symbol, or nil) and a constant byte offset.
func splitAddress(e ast.Expr) (base ast.Expr, off int64, hasOff, ok bool) {
	switch x := e.(type) {
	case *ast.Reg, *ast.Ident:
		return x, 0, false, true
	case *ast.BinaryExpr:
		if x.Op != "+" && x.Op != "-" {
			break
		}
		b, o, _, ok := splitAddress(x.X)
		if !ok {
			break
		}
		// The base comes first: ptxas rejects [4+%rd1].
		if c, ok := ConstValue(x.Y); ok {
			if x.Op == "-" {
				c = -c
			}
			return b, o + c, true, true
		}
		return nil, 0, false, false
	case *ast.ParenExpr:
		return splitAddress(x.X)
	}
	if c, ok := ConstValue(e); ok {
		return nil, c, true, true
	}
	return nil, 0, false, false
}

func (p *parser) parseInt() ast.Expr {
	t := p.tok
	tl := p.lit()
	p.next()
	lit := p.nodes.ints.new()
	lit.Text = tl
	lit.From, lit.To = t.Pos, t.End
	v, unsigned, ok := ParseInt(tl)
	if !ok {
		p.errorAt(t.Pos, t.End, "integer literal "+tl+" does not fit in 64 bits")
	}
	lit.Value, lit.Unsigned = v, unsigned
	return lit
}

// ParseInt returns the value of a PTX integer literal (PTX ISA §4.5.1):
// decimal, 0x hexadecimal, 0 octal, 0b binary, with an optional U suffix.
func ParseInt(s string) (v uint64, unsigned, ok bool) {
	if n := len(s); n > 0 && (s[n-1] == 'U' || s[n-1] == 'u') {
		unsigned = true
		s = s[:n-1]
	}
	base := 10
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && s[0] == '0':
		base, s = 16, s[2:]
	case len(s) > 2 && (s[1] == 'b' || s[1] == 'B') && s[0] == '0':
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, unsigned, false
	}
	for i := 0; i < len(s); i++ {
		d := digitVal(s[i])
		if d >= base {
			return v, unsigned, false
		}
		hi, lo := mulAdd(v, uint64(base), uint64(d))
		if hi != 0 {
			return v, unsigned, false
		}
		v = lo
	}
	return v, unsigned, true
}

func mulAdd(v, m, a uint64) (hi, lo uint64) {
	if v > (math.MaxUint64-a)/m {
		return 1, 0
	}
	return 0, v*m + a
}

func digitVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func (p *parser) parseFloat() ast.Expr {
	t := p.tok
	tl := p.lit()
	p.next()
	f := p.nodes.floats.new()
	f.Text = tl
	f.From, f.To = t.Pos, t.End
	s := tl
	if len(s) > 2 && s[0] == '0' && strings.IndexByte("fFdD", s[1]) >= 0 {
		f.Hex = true
		f.Single = s[1] == 'f' || s[1] == 'F'
		bits, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			p.errorAt(t.Pos, t.End, "malformed float literal "+s)
		}
		f.Bits = bits
		if f.Single {
			f.Value = float64(math.Float32frombits(uint32(bits)))
		} else {
			f.Value = math.Float64frombits(bits)
		}
		return f
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(v, 0) {
		p.errorAt(t.Pos, t.End, "malformed float literal "+s)
	}
	f.Value = v
	return f
}

func unquote(s string) string {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return strings.TrimPrefix(s, `"`)
	}
	s = s[1 : len(s)-1]
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			default:
				c = s[i]
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// ConstValue evaluates a constant integer expression: integer literals,
// unary and binary operators and parentheses (PTX ISA §4.6). It reports
// false for anything else (names, floats, division by zero).
func ConstValue(e ast.Expr) (int64, bool) {
	switch x := e.(type) {
	case *ast.IntLit:
		return int64(x.Value), true
	case *ast.ParenExpr:
		return ConstValue(x.X)
	case *ast.UnaryExpr:
		v, ok := ConstValue(x.X)
		if !ok {
			return 0, false
		}
		switch x.Op {
		case "-":
			return -v, true
		case "+":
			return v, true
		case "~":
			return ^v, true
		case "!":
			return b2i(v == 0), true
		}
	case *ast.BinaryExpr:
		a, ok1 := ConstValue(x.X)
		b, ok2 := ConstValue(x.Y)
		if !ok1 || !ok2 {
			return 0, false
		}
		return binaryValue(x.Op, a, b)
	}
	return 0, false
}

func binaryValue(op string, a, b int64) (int64, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/", "%":
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		if op == "/" {
			return a / b, true
		}
		return a % b, true
	case "<<":
		return a << (uint64(b) & 63), true
	case ">>":
		return a >> (uint64(b) & 63), true
	case "&":
		return a & b, true
	case "|":
		return a | b, true
	case "^":
		return a ^ b, true
	case "&&":
		return b2i(a != 0 && b != 0), true
	case "||":
		return b2i(a != 0 || b != 0), true
	case "==":
		return b2i(a == b), true
	case "!=":
		return b2i(a != b), true
	case "<":
		return b2i(a < b), true
	case ">":
		return b2i(a > b), true
	case "<=":
		return b2i(a <= b), true
	case ">=":
		return b2i(a >= b), true
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

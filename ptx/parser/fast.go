package parser

import (
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Fast paths. Most of a compiler-written module is instructions whose
// operands are registers, names, decimal numbers, "[base+offset]"
// addresses and "{a, b, c, d}" vectors, all on the instruction's line.
// The functions below recognise those forms in the source text and build
// their nodes directly, without a token for every name and comma; any
// other form (an expression, a comment, a line break, an error) makes them
// give up having consumed nothing, and the general parser takes over.
// Tests and the fuzzer check that both paths build the same trees.

// fastPaths enables the fast paths. Tests turn it off to compare.
var fastPaths = true

// lineAt returns the position of byte offset off on the line of pos.
func lineAt(pos token.Pos, off int) token.Pos {
	return token.Pos{Offset: int32(off), Line: pos.Line, Col: pos.Col + int32(off) - pos.Offset}
}

func skipBlanks(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// nameEnd returns the end of the register or identifier at src[i]
// ("%r1", "%tid", "smem", "$L1", "_"), or -1.
func nameEnd(src string, i int) int {
	start := i
	if i < len(src) && src[i] == '%' {
		i++
	}
	for i < len(src) && scanner.IsIdentChar(src[i]) {
		i++
	}
	if i == start || src[start] >= '0' && src[start] <= '9' || i-start == 1 && src[start] == '%' {
		return -1
	}
	return i
}

// decimalEnd returns the end of the decimal integer literal at src[i]
// ("0", "42"; at most 18 digits, no suffix), or -1.
func decimalEnd(src string, i int) int {
	d := i
	for i < len(src) && src[i] >= '0' && src[i] <= '9' && i-d < 18 {
		i++
	}
	if i == d || src[d] == '0' && i-d > 1 || i < len(src) && (scanner.IsIdentChar(src[i]) || src[i] == '.') {
		return -1
	}
	return i
}

func decimalValue(s string) int64 {
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*10 + int64(s[i]-'0')
	}
	return v
}

// simpleAddr is a recognised "[name]", "[name+imm]" or "[name+-imm]".
type simpleAddr struct {
	open, nameStart, nameEnd, end int // offsets: '[', the name, just past ']'
	off                           int64
	hasOff                        bool
}

// scanAddress recognises a simple address at src[i] == '['.
func scanAddress(src string, i int) (simpleAddr, bool) {
	a := simpleAddr{open: i}
	i = skipBlanks(src, i+1)
	a.nameStart = i
	if a.nameEnd = nameEnd(src, i); a.nameEnd < 0 || a.nameEnd-i == 1 && src[i] == '_' {
		return a, false
	}
	i = skipBlanks(src, a.nameEnd)
	if i < len(src) && src[i] == '+' {
		i = skipBlanks(src, i+1)
		neg := i < len(src) && src[i] == '-'
		if neg {
			i++
		}
		d := i
		if i = decimalEnd(src, i); i < 0 {
			return a, false
		}
		a.off, a.hasOff = decimalValue(src[d:i]), true
		if neg {
			a.off = -a.off
		}
		i = skipBlanks(src, i)
	}
	if i >= len(src) || src[i] != ']' {
		return a, false
	}
	a.end = i + 1
	return a, true
}

// scanVector recognises "{name, name, ...}" at src[i] == '{' and returns
// the end just past '}' and the number of elements.
func scanVector(src string, i int) (end, n int, ok bool) {
	i++
	for {
		i = skipBlanks(src, i)
		if i = nameEnd(src, i); i < 0 {
			return 0, 0, false
		}
		n++
		i = skipBlanks(src, i)
		if i >= len(src) || src[i] != ',' && src[i] != '}' {
			return 0, 0, false
		}
		if src[i] == '}' {
			return i + 1, n, true
		}
		i++
	}
}

// operandEnd recognises one simple operand at src[i] and returns its end
// and the kind of its last token, or -1.
func operandEnd(src string, i int) (int, scanner.Kind) {
	if i >= len(src) {
		return -1, 0
	}
	switch c := src[i]; {
	case c == '[':
		if a, ok := scanAddress(src, i); ok {
			return a.end, scanner.RBrack
		}
	case c == '{':
		if end, _, ok := scanVector(src, i); ok {
			return end, scanner.RBrace
		}
	case c >= '0' && c <= '9':
		return decimalEnd(src, i), scanner.Int
	default:
		return nameEnd(src, i), scanner.Ident
	}
	return -1, 0
}

// name builds the node of the name src[i:j] on the line of pos.
func (p *parser) name(pos token.Pos, i, j int) ast.Expr {
	name := p.src[i:j]
	switch {
	case name == "_":
		s := &ast.Sink{}
		s.From, s.To = lineAt(pos, i), lineAt(pos, j)
		return s
	case name[0] == '%':
		r := p.nodes.regs.new()
		r.Name, r.From, r.To = name, lineAt(pos, i), lineAt(pos, j)
		return r
	}
	id := p.nodes.idents.new()
	id.Name, id.From, id.To = name, lineAt(pos, i), lineAt(pos, j)
	return id
}

// address fills a from the recognised address s on the line of pos.
func (p *parser) address(a *ast.Address, pos token.Pos, s simpleAddr) {
	a.From, a.To = lineAt(pos, s.open), lineAt(pos, s.end)
	a.Base = p.name(pos, s.nameStart, s.nameEnd)
	a.Offset, a.HasOffset = s.off, s.hasOff
}

// vector builds the recognised vector of n names at src[i] == '{'.
func (p *parser) vector(pos token.Pos, i, end, n int) *ast.VectorExpr {
	src := p.src
	elems := p.nodes.exprs.take(n)
	j := i + 1
	for k := range elems {
		j = skipBlanks(src, j)
		e := nameEnd(src, j)
		elems[k] = p.name(pos, j, e)
		j = skipBlanks(src, e) + 1 // past ',' or '}'
	}
	v := p.nodes.vectors.new()
	v.Elems = elems
	v.From, v.To = lineAt(pos, i), lineAt(pos, end)
	return v
}

// operand builds the recognised operand src[i:end].
func (p *parser) operand(pos token.Pos, i, end int) ast.Expr {
	src := p.src
	switch c := src[i]; {
	case c == '[':
		s, _ := scanAddress(src, i)
		a := p.nodes.addrs.new()
		p.address(a, pos, s)
		return a
	case c == '{':
		_, n, _ := scanVector(src, i)
		return p.vector(pos, i, end, n)
	case c >= '0' && c <= '9':
		lit := p.nodes.ints.new()
		lit.Text, lit.Value = src[i:end], uint64(decimalValue(src[i:end]))
		lit.From, lit.To = lineAt(pos, i), lineAt(pos, end)
		return lit
	}
	return p.name(pos, i, end)
}

// jumpTo moves the parser to the token of kind k at src[i] (on the line
// of pos), just scanned by a fast path; prev is the kind of the token
// before it, which ended at prevEnd.
func (p *parser) jumpTo(pos token.Pos, i int, k scanner.Kind, prevEnd int, prev scanner.Kind) {
	p.sc.SkipTo(i + 1)
	p.tok = scanner.Token{Kind: k, Pos: lineAt(pos, i), End: lineAt(pos, i+1)}
	p.prevEnd, p.prevKind = lineAt(pos, prevEnd), prev
}

// simpleOperands parses a whole operand list of simple operands up to
// its ';' on the current line. It returns false, having consumed nothing,
// when the list has another form.
func (p *parser) simpleOperands() ([]ast.Expr, bool) {
	if !fastPaths || p.peeked || p.stopped {
		return nil, false
	}
	src, pos := p.src, p.tok.Pos
	i, n, last := int(pos.Offset), 0, scanner.Kind(0)
	end := i
	for {
		e, k := operandEnd(src, i)
		if e < 0 {
			return nil, false
		}
		n, end, last = n+1, e, k
		if i = skipBlanks(src, e); i >= len(src) || src[i] != ',' && src[i] != ';' {
			return nil, false
		}
		if src[i] == ';' {
			break
		}
		i = skipBlanks(src, i+1)
	}
	semi := i
	ops := p.nodes.exprs.take(n)
	i = int(pos.Offset)
	for k := range ops {
		e, _ := operandEnd(src, i)
		ops[k] = p.operand(pos, i, e)
		i = skipBlanks(src, skipBlanks(src, e)+1)
	}
	p.jumpTo(pos, semi, scanner.Semi, end, last)
	return ops, true
}

// simpleAddress parses the current '[' token as a simple address into a.
// It returns false, having consumed nothing, for other forms.
func (p *parser) simpleAddress(a *ast.Address) bool {
	if p.peeked {
		return false
	}
	s, ok := scanAddress(p.src, int(p.tok.Pos.Offset))
	if !ok {
		return false
	}
	pos := p.tok.Pos
	p.address(a, pos, s)
	p.jumpTo(pos, s.end-1, scanner.RBrack, s.end-1, 0)
	p.next()
	return true
}

// simpleVector parses the current '{' token as a vector of names. It
// returns nil, having consumed nothing, for other forms.
func (p *parser) simpleVector() *ast.VectorExpr {
	if p.peeked {
		return nil
	}
	i := int(p.tok.Pos.Offset)
	end, n, ok := scanVector(p.src, i)
	if !ok {
		return nil
	}
	pos := p.tok.Pos
	v := p.vector(pos, i, end, n)
	p.jumpTo(pos, end-1, scanner.RBrace, end-1, 0)
	p.next()
	return v
}

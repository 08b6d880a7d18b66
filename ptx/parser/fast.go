package parser

import (
	"math"

	"github.com/ptxkit/ptxkit/isa"
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

// hexFloatEnd returns the end of the hexadecimal float literal at src[i]
// ("0f3F800000", "0d3FF0000000000000": exactly 8 or 16 digits), or -1.
func hexFloatEnd(src string, i int) int {
	if i+2 >= len(src) || src[i] != '0' {
		return -1
	}
	n := 16
	switch src[i+1] {
	case 'f', 'F':
		n = 8
	case 'd', 'D':
	default:
		return -1
	}
	j := i + 2
	for j < len(src) && isHexDigit(src[j]) {
		j++
	}
	if j-i-2 != n || j < len(src) && (scanner.IsIdentChar(src[j]) || src[j] == '.') {
		return -1
	}
	return j
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hexValue is the value of the hexadecimal digits s (at most 16).
func hexValue(s string) uint64 {
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		v = v<<4 | uint64(c)
	}
	return v
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

// scanAddress recognises a simple address at src[i] == '[' into a.
func scanAddress(src string, i int, a *simpleAddr) bool {
	*a = simpleAddr{open: i}
	i = skipBlanks(src, i+1)
	a.nameStart = i
	if a.nameEnd = nameEnd(src, i); a.nameEnd < 0 || a.nameEnd-i == 1 && src[i] == '_' {
		return false
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
			return false
		}
		a.off, a.hasOff = decimalValue(src[d:i]), true
		if neg {
			a.off = -a.off
		}
		i = skipBlanks(src, i)
	}
	if i >= len(src) || src[i] != ']' {
		return false
	}
	a.end = i + 1
	return true
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

// simpleOp is a recognised simple operand: src[start:end], with the
// parts of an address or the element count of a vector.
type simpleOp struct {
	start, end int
	last       scanner.Kind // kind of the operand: Ident, Dotted (a component), Int, Float (0f/0d), Sub (-Int), RBrack or RBrace
	addr       simpleAddr
	n          int
	comp       int // offset of the '.' of a vector component ("%tid.x"), or of the digits of -Int, or 0
}

// scanOperand recognises one simple operand at src[i] into op.
func scanOperand(src string, i int, op *simpleOp) bool {
	op.start, op.end = i, -1
	if i >= len(src) {
		return false
	}
	switch c := src[i]; {
	case c == '[':
		if scanAddress(src, i, &op.addr) {
			op.end, op.last = op.addr.end, scanner.RBrack
		}
	case c == '{':
		if end, n, ok := scanVector(src, i); ok {
			op.end, op.last, op.n = end, scanner.RBrace, n
		}
	case c == '0' && i+1 < len(src) && (src[i+1]|0x20 == 'f' || src[i+1]|0x20 == 'd'):
		op.end, op.last = hexFloatEnd(src, i), scanner.Float
	case c >= '0' && c <= '9':
		op.end, op.last = decimalEnd(src, i), scanner.Int
	case c == '-':
		d := skipBlanks(src, i+1)
		op.end, op.last, op.comp = decimalEnd(src, d), scanner.Sub, d
	default:
		op.end, op.last, op.comp = nameEnd(src, i), scanner.Ident, 0
		if e := op.end; e > 0 && e+1 < len(src) && src[e] == '.' && !(e-i == 1 && src[i] == '_') {
			// A component (exactly one of the letters after the '.') or a
			// video selector (.b0, .h10, .b7654).
			if j := scanner.DottedEnd(src, e+1); j == e+2 && isComponent(src[e+1:j]) || ast.IsSelector(src[e+1:j]) {
				op.end, op.last, op.comp = j, scanner.Dotted, e
			}
		}
	}
	return op.end >= 0
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
func (p *parser) address(a *ast.Address, pos token.Pos, s *simpleAddr) {
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

// decimal builds the decimal literal src[i:j] on the line of pos.
func (p *parser) decimal(pos token.Pos, i, j int) *ast.IntLit {
	lit := p.nodes.ints.new()
	text := p.src[i:j]
	lit.Text, lit.Value = text, uint64(decimalValue(text))
	lit.From, lit.To = lineAt(pos, i), lineAt(pos, j)
	return lit
}

// operand builds the recognised operand op on the line of pos.
func (p *parser) operand(pos token.Pos, op *simpleOp) ast.Expr {
	switch op.last {
	case scanner.RBrack:
		a := p.nodes.addrs.new()
		p.address(a, pos, &op.addr)
		return a
	case scanner.RBrace:
		return p.vector(pos, op.start, op.end, op.n)
	case scanner.Int:
		return p.decimal(pos, op.start, op.end)
	case scanner.Sub:
		u := p.nodes.unary.new()
		u.Op = p.src[op.start : op.start+1]
		u.X = p.decimal(pos, op.comp, op.end)
		u.From, u.To = lineAt(pos, op.start), lineAt(pos, op.end)
		return u
	case scanner.Float:
		f := p.nodes.floats.new()
		f.Text = p.src[op.start:op.end]
		f.Hex, f.Single = true, f.Text[1]|0x20 == 'f'
		f.Bits = hexValue(f.Text[2:])
		if f.Single {
			f.Value = float64(math.Float32frombits(uint32(f.Bits)))
		} else {
			f.Value = math.Float64frombits(f.Bits)
		}
		f.From, f.To = lineAt(pos, op.start), lineAt(pos, op.end)
		return f
	case scanner.Dotted:
		r := p.nodes.regs.new()
		r.Name = p.src[op.start:op.comp]
		if s := p.src[op.comp+1 : op.end]; isComponent(s) {
			r.Comp = s
		} else {
			r.Sel = ast.MakeSelector(s)
		}
		r.From, r.To = lineAt(pos, op.start), lineAt(pos, op.end)
		return r
	}
	return p.name(pos, op.start, op.end)
}

// land makes the token of kind k at src[start:end], on the line of pos,
// the current one, with the scanner just past it: a fast path has read
// the text up to there itself. The caller consumes that token next.
func (p *parser) land(pos token.Pos, k scanner.Kind, start, end int) {
	p.sc.SkipTo(end)
	p.tok = scanner.Token{Kind: k, Pos: lineAt(pos, start), End: lineAt(pos, end)}
}

// simpleOperands parses the operands of an instruction, from just after
// its opcode and qualifiers (the current token, with the scanner right
// past it) up to the ';' on the same line, when they are all simple; an
// empty list counts. It leaves the parser on the ';'. It returns false,
// having consumed nothing, when the list has another form.
func (p *parser) simpleOperands() ([]ast.Expr, bool) {
	if p.peeked || p.stopped {
		return nil, false
	}
	src, ref := p.src, p.tok.End
	i := skipBlanks(src, int(ref.Offset))
	if i < len(src) && src[i] == ';' {
		p.land(ref, scanner.Semi, i, i+1)
		return nil, true
	}
	found := p.simpleOps[:0]
	for {
		found = append(found, simpleOp{})
		op := &found[len(found)-1]
		if !scanOperand(src, i, op) {
			p.simpleOps = found
			return nil, false
		}
		if i = skipBlanks(src, op.end); i >= len(src) || src[i] != ',' && src[i] != ';' {
			p.simpleOps = found
			return nil, false
		}
		if src[i] == ';' {
			break
		}
		i = skipBlanks(src, i+1)
	}
	p.simpleOps = found
	ops := p.nodes.exprs.take(len(found))
	for k := range found {
		ops[k] = p.operand(ref, &found[k])
	}
	p.land(ref, scanner.Semi, i, i+1)
	return ops, true
}

// simpleAddress parses the current '[' token as a simple address into a.
// It returns false, having consumed nothing, for other forms.
func (p *parser) simpleAddress(a *ast.Address) bool {
	if p.peeked {
		return false
	}
	var s simpleAddr
	if !scanAddress(p.src, int(p.tok.Pos.Offset), &s) {
		return false
	}
	pos := p.tok.Pos
	p.address(a, pos, &s)
	p.land(pos, scanner.RBrack, s.end-1, s.end)
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
	p.land(pos, scanner.RBrace, end-1, end)
	p.next()
	return v
}

// simpleDecl parses a declaration of the common one-line form
//
//	.reg .b32 %r<24>;   .shared .align 16 .b32 tile[256];   .param .u64 out
//
// (a state space, then .align N, .vN and a type in any order, a name, an
// optional <N> and [N] dimensions, then for a parameter the ',' or ')'
// that follows, for a variable its ';') from the current token, the state space, into d.
// It returns false, having consumed nothing, for any other form.
func (p *parser) simpleDecl(d *ast.VarDecl, param bool) bool {
	if !fastPaths || p.peeked || p.stopped {
		return false
	}
	src, ref := p.src, p.tok.Pos
	i := int(ref.Offset)
	var space, typ string
	var spaceAt, typeAt, vec int
	var align int64
	for i+1 < len(src) && src[i] == '.' && scanner.IsIdentChar(src[i+1]) {
		j := scanner.DottedEnd(src, i+1)
		w := src[i:j]
		kind, n := isa.DeclWord(w)
		switch {
		case space == "" && kind == isa.DeclSpace:
			space, spaceAt = w, i
		case w == ".align":
			k := skipBlanks(src, j)
			if j = decimalEnd(src, k); j < 0 {
				return false
			}
			align = decimalValue(src[k:j])
		case kind == isa.DeclVector && typ == "":
			vec = n
		case typ == "" && kind == isa.DeclType:
			typ, typeAt = w, i
		default:
			return false
		}
		i = skipBlanks(src, j)
	}
	nameAt, nameStop := i, nameEnd(src, i)
	end := nameStop
	if space == "" || typ == "" || end < 0 {
		return false
	}
	last, lastAt := scanner.Ident, nameAt
	count := int64(-1)
	var dims []int64
	j := skipBlanks(src, end)
	if j < len(src) && src[j] == '<' {
		k := skipBlanks(src, j+1)
		digits := decimalEnd(src, k)
		if digits < 0 {
			return false
		}
		e := skipBlanks(src, digits)
		if e >= len(src) || src[e] != '>' {
			return false
		}
		count, end, last, lastAt = decimalValue(src[k:digits]), e+1, scanner.Gtr, e
		j = skipBlanks(src, end)
	}
	for j < len(src) && src[j] == '[' {
		k := skipBlanks(src, j+1)
		n := int64(-1)
		if k < len(src) && src[k] != ']' {
			e := decimalEnd(src, k)
			if e < 0 {
				return false
			}
			n, k = decimalValue(src[k:e]), skipBlanks(src, e)
		}
		if k >= len(src) || src[k] != ']' {
			return false
		}
		dims = append(dims, n)
		end, last, lastAt = k+1, scanner.RBrack, k
		j = skipBlanks(src, end)
	}
	switch {
	case j >= len(src):
		return false
	case param && src[j] != ',' && src[j] != ')', !param && src[j] != ';':
		return false
	case len(dims) > 0:
		if _, ok := arrayBytes(typ, vec, dims); !ok {
			return false // the general path reports it
		}
	}
	d.Space, d.SpacePos = space, lineAt(ref, spaceAt)
	d.Align, d.Vector = align, vec
	d.Type, d.TypePos = typ, lineAt(ref, typeAt)
	name := p.nodes.idents.new()
	name.Name, name.From, name.To = src[nameAt:nameStop], lineAt(ref, nameAt), lineAt(ref, nameStop)
	d.Name, d.Count, d.Dims = name, count, dims
	if !param {
		last, lastAt, end = scanner.Semi, j, j+1
	}
	p.land(ref, last, lastAt, end)
	p.next()
	d.To = p.prevEnd
	return true
}

package parser

import (
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// parseBlock parses "{ statements }".
func (p *parser) parseBlock() *ast.Block {
	b := p.nodes.blocks.new()
	b.From = p.tok.Pos
	p.next()
	if !p.enter() {
		b.To = p.prevEnd
		return b
	}
	defer p.leave()
	// Statements are collected on a stack shared by nested blocks and
	// copied once into an exactly sized slice.
	base := len(p.stmts)
	defer func() {
		if n := len(p.stmts) - base; n > 0 {
			b.Stmts = p.nodes.stmts.take(n)
			copy(b.Stmts, p.stmts[base:])
		}
		// The stale entries are not cleared: they point into the tree,
		// which outlives the parser anyway.
		p.stmts = p.stmts[:base]
	}()
	for p.tok.Kind != scanner.RBrace && p.tok.Kind != scanner.EOF {
		if p.tok.Kind == scanner.Dotted && topLevelOnly(p.lit()) {
			if !startsFunction(p.lit()) {
				// .file, .version, ... inside a body: an error at the
				// directive (as ptxas reports it); the body goes on.
				p.error(p.lit() + " is not allowed inside a function body")
				p.next()
				p.sync(p.prevEnd.Line)
				continue
			}
			p.errorAt(b.From, b.From, "'{' not closed before "+p.lit())
			b.To = p.prevEnd
			return b
		}
		if s := p.parseStmt(); s != nil {
			p.stmts = append(p.stmts, s)
		}
	}
	if p.tok.Kind == scanner.EOF {
		p.errorAt(b.From, b.From, "'{' not closed at end of file")
		b.To = p.prevEnd
		return b
	}
	b.To = p.tok.End
	p.next()
	return b
}

// parseStmt parses one statement of a function body.
func (p *parser) parseStmt() ast.Stmt {
	switch p.tok.Kind {
	case scanner.Semi:
		p.error("empty statement") // ptxas: "Parsing error near ';'"
		p.next()
		return nil
	case scanner.LBrace:
		return p.parseBlock()
	case scanner.Dotted:
		start := p.tok.Pos
		if isStateSpace(p.lit()) {
			return p.parseVarDecl(start, nil, false)
		}
		return p.parseDirective()
	case scanner.At:
		return p.parseInstruction()
	case scanner.Ident:
		if p.mayBeLabel() && p.peek().Kind == scanner.Colon {
			l := p.labelSlab().new()
			l.Name = p.lit()
			l.From = p.tok.Pos
			p.next()
			l.To = p.tok.End
			p.next()
			return l
		}
		if p.lit()[0] == '%' {
			p.errorExpected("instruction")
			return p.bad(p.tok.Pos)
		}
		return p.parseInstruction()
	}
	p.errorExpected("instruction")
	return p.bad(p.tok.Pos)
}

// mayBeLabel reports whether the name that is the current token might be
// followed by the ':' of a label. It looks at the source after the name
// and answers false only when the next character on the line is another
// one (".", " add", ...), so that most instructions need no lookahead.
func (p *parser) mayBeLabel() bool {
	if p.peeked || !fastPaths {
		return true
	}
	src := p.src
	i := skipBlanks(src, int(p.tok.End.Offset))
	if i >= len(src) {
		return true
	}
	switch src[i] {
	case ':', '\n', '\r', '/':
		return true
	}
	return false
}

// parseInstruction parses "[@[!]pred] opcode{.qual} [operand {, operand}];".
func (p *parser) parseInstruction() ast.Stmt {
	in := p.nodes.instrs.new()
	in.From = p.tok.Pos
	line := p.tok.Pos.Line
	if p.tok.Kind == scanner.At {
		in.Guard = p.parseGuard()
		if in.Guard == nil {
			return p.bad(in.From)
		}
	}
	if p.tok.Kind != scanner.Ident || p.lit()[0] == '%' {
		p.errorExpected("opcode")
		return p.bad(in.From)
	}
	in.Opcode, in.OpPos = p.lit(), p.tok.Pos
	var pending bool
	in.Quals, pending = p.parseQuals()
	if pending {
		// The operands, up to the ';', may be simple enough to read
		// straight from the source; if not, scan on.
		var ok bool
		if in.Operands, ok = p.simpleOperands(); ok {
			p.endStmt(line, p.nerrs)
			in.To = p.prevEnd
			return in
		}
		p.next()
	}
	errs := p.nerrs // errors from here on are the operands'
	if p.tok.Kind != scanner.Semi {
		p.inCall = in.Opcode == "call"
		in.Operands = p.parseOperandList()
		p.inCall = false
	}
	p.endStmt(line, errs)
	in.To = p.prevEnd
	return in
}

// parseQuals parses the qualifiers that follow the opcode (the current
// token) without a space: ".global.v4.u32". A qualifier list is one run
// of text on one line, so it is read straight from the source. With
// pending false the parser is left on the token after the qualifiers;
// with pending true it is still on the last of them (or the opcode), with
// the scanner just past it.
func (p *parser) parseQuals() (quals []ast.Qual, pending bool) {
	op := p.tok
	if !fastPaths {
		end := op.End
		p.next()
		qs := p.nodes.quals.mark()
		for p.tok.Kind == scanner.Dotted && p.tok.Pos.Offset == end.Offset {
			qs = p.nodes.quals.push(qs, ast.Qual{Pos: p.tok.Pos, Name: p.lit()})
			end = p.tok.End
			p.next()
		}
		return p.nodes.quals.run(qs), false
	}
	if p.peeked {
		p.next() // a label check looked ahead: go on from that token
		if p.tok.Kind != scanner.Dotted || p.tok.Pos.Offset != op.End.Offset {
			return nil, false
		}
		return p.qualsFrom(op.End, p.tok), true
	}
	src, i := p.src, int(op.End.Offset)
	if i+1 >= len(src) || src[i] != '.' || !scanner.IsIdentChar(src[i+1]) {
		return nil, true
	}
	return p.qualsFrom(op.End, scanner.Token{}), true
}

// qualsFrom reads the qualifiers starting at from (on the opcode's line);
// first, when it is not the zero Token, is the first of them, already
// scanned. It leaves the parser on the last qualifier, with the scanner
// just past it.
func (p *parser) qualsFrom(from token.Pos, first scanner.Token) []ast.Qual {
	src, i := p.src, int(from.Offset)
	qs := p.nodes.quals.mark()
	if first.Kind == scanner.Dotted {
		qs = p.nodes.quals.push(qs, ast.Qual{Pos: first.Pos, Name: p.text(first)})
		i = int(first.End.Offset)
	}
	for i+1 < len(src) && src[i] == '.' && scanner.IsIdentChar(src[i+1]) {
		j := scanner.DottedEnd(src, i+1)
		qs = p.nodes.quals.push(qs, ast.Qual{Pos: lineAt(from, i), Name: src[i:j]})
		i = j
	}
	quals := p.nodes.quals.run(qs)
	p.land(from, scanner.Dotted, int(quals[len(quals)-1].Pos.Offset), i)
	return quals
}

// endStmt consumes the ';' that ends a statement. When it is missing the
// parser reports it, unless the statement already had an error, and skips
// to the next statement.
func (p *parser) endStmt(line int32, errsBefore int) {
	if p.tok.Kind == scanner.Semi {
		p.next()
		return
	}
	if p.nerrs == errsBefore {
		if p.tok.Pos.Line > p.prevEnd.Line || p.tok.Kind == scanner.EOF || p.tok.Kind == scanner.RBrace {
			// The usual mistake: a forgotten ';' at the end of a line.
			p.errorAt(p.prevEnd, p.prevEnd, "missing ';' at end of statement")
		} else {
			p.errorExpected("';'")
		}
	}
	p.sync(line)
}

func (p *parser) parseGuard() *ast.Guard {
	g := p.nodes.guards.new()
	g.From = p.tok.Pos
	p.next()
	if p.tok.Kind == scanner.Not {
		g.Negate = true
		p.next()
	}
	if p.tok.Kind != scanner.Ident {
		p.errorExpected("predicate register after '@'")
		return nil
	}
	g.Reg = p.nodes.regs.new()
	g.Reg.Name = p.lit()
	g.Reg.From, g.Reg.To = p.tok.Pos, p.tok.End
	g.To = p.tok.End
	p.next()
	return g
}

// parseOperandList parses comma-separated operands up to ';'. The
// operands are collected on the scratch stack and copied once into a
// slab-backed slice.
func (p *parser) parseOperandList() []ast.Expr {
	base := len(p.scratch)
	for {
		p.scratch = append(p.scratch, p.parseOperand())
		if p.tok.Kind == scanner.Comma {
			p.next()
			continue
		}
		if p.tok.Pos.Line == p.prevEnd.Line && p.startsOperandHere() {
			// "ld.global.u32 %r1 [%rd1];": report the missing comma and
			// read on.
			p.missingComma()
			continue
		}
		break
	}
	out := p.nodes.exprList(p.scratch[base:])
	p.scratch = p.scratch[:base]
	return out
}

// startsOperandHere reports whether the current token can begin an
// instruction operand (the test for a forgotten comma).
func (p *parser) startsOperandHere() bool {
	switch p.tok.Kind {
	case scanner.Ident, scanner.Int, scanner.Float, scanner.LBrack, scanner.LBrace, scanner.LParen:
		return true
	}
	return false
}

// collect calls elem until it reports no more elements and returns the
// elements in a slab-backed slice. Nested lists share one scratch stack.
func (p *parser) collect(elem func() (ast.Expr, bool)) []ast.Expr {
	base := len(p.scratch)
	for {
		e, more := elem()
		p.scratch = append(p.scratch, e)
		if !more {
			break
		}
	}
	out := p.nodes.exprList(p.scratch[base:])
	p.scratch = p.scratch[:base]
	return out
}

// badExpr reports an unexpected token and returns a BadExpr for it,
// consuming it unless it ends an operand list.
func (p *parser) badExpr(what string) *ast.BadExpr {
	b := &ast.BadExpr{}
	b.From, b.To = p.tok.Pos, p.tok.End
	p.errorExpected(what)
	switch p.tok.Kind {
	case scanner.Semi, scanner.RBrace, scanner.EOF, scanner.Comma, scanner.RBrack, scanner.RParen:
		// Nothing consumed: an empty node just after the previous token,
		// so that it stays inside the enclosing nodes' spans.
		b.From, b.To = p.prevEnd, p.prevEnd
	default:
		p.next()
	}
	return b
}

package parser

import (
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A BodyEvent says what Stream.NextInBody handed out.
type BodyEvent uint8

// Body events.
const (
	// EndOfBody: the function body is closed (Function.Body.To and
	// Function.To are set); the statement is nil.
	EndOfBody BodyEvent = iota
	// Statement: a statement of the innermost open block, never a
	// *ast.Block.
	Statement
	// BlockStart: a nested block opens; the statement is its *ast.Block,
	// with From set and no Stmts.
	BlockStart
	// BlockEnd: the innermost nested block closes; the statement is the
	// *ast.Block of its BlockStart, now with To set.
	BlockEnd
)

// stmtBatch is how many body statements a StreamStatements stream hands
// out before it recycles their nodes: recycling often costs time (about
// 5% of the parse at every 64 statements), and the nodes of a batch are
// still a few hundred kilobytes at most.
const stmtBatch = 1024

// openBody opens a function body for NextInBody (StreamStatements): it
// consumes the '{' and returns the body's block, whose statements are
// left to NextInBody.
func (p *parser) openBody() *ast.Block {
	b := p.body.blocks.new()
	b.From = p.tok.Pos
	p.next()
	p.tooDeep = !p.enter()
	p.opened = b
	p.nodes = &p.keep
	return b
}

// bodyState is the part of a Stream that walks a function body with
// StreamStatements.
type bodyState struct {
	fn      *ast.Function // function whose body is open
	open    []*ast.Block  // open blocks, the body first
	tooDeep bool          // the innermost open block could not be entered
	handed  int           // statements handed out since their nodes were recycled

	batch   []ast.Stmt  // the statements NextStmts hands out
	one     [1]ast.Stmt // the block NextStmts hands out
	waiting bool        // NextStmts read the piece after its batch: pending, event
	pending ast.Stmt
	event   BodyEvent

	// With a Pipe the ends of blocks and functions are not written into
	// nodes already handed out (another goroutine reads them): the last
	// ones closed are kept here for the Pipe to pass on.
	deferEnds bool
	endBlock  *ast.Block
	blockTo   token.Pos
	endFn     *ast.Function
	fnTo      token.Pos
}

// setEnd sets the end of the block blk, or keeps it for a Pipe.
func (s *Stream) setEnd(blk *ast.Block, to token.Pos) {
	if s.body.deferEnds {
		s.body.endBlock, s.body.blockTo = blk, to
		return
	}
	blk.To = to
}

// NextInBody returns the next piece of the body of the function that Next
// returned last, with StreamStatements: each statement in source order,
// a BlockStart and a BlockEnd around the statements of each nested
// block, and EndOfBody (with a nil statement) once the body is closed,
// as often as it is called after that. The function itself, when Next
// returns it, has its Body set with only From valid and no Stmts; its To
// and the body's To are set at EndOfBody. Calling Next before EndOfBody
// skips the rest of the body.
//
// The statements are those a whole-module parse puts in the body, with
// the same positions, and the syntax errors are the same. Their nodes are
// recycled by later calls: an instruction, directive or bad statement
// (and every node under it) may be overwritten by any later call of
// NextInBody or Next; declarations (*ast.VarDecl), labels, blocks and
// .callprototype directives stay valid until the next function's body
// is opened, so that a consumer may keep them in a per-function symbol
// table.
func (s *Stream) NextInBody() (ast.Stmt, BodyEvent) {
	b := &s.body
	if b.waiting {
		b.waiting = false
		return b.pending, b.event
	}
	if len(b.open) == 0 {
		return nil, EndOfBody
	}
	s.recycle(1)
	return s.step()
}

// NextStmts is NextInBody for consumers that take statements in runs: it
// returns the statements that NextInBody would return one by one up to
// the next block boundary (at most a thousand or so, never none) with
// Statement, or else the single piece NextInBody would return (a
// one-element slice with BlockStart or BlockEnd, nil with EndOfBody).
// The slice, and the nodes of its statements as NextInBody says, are
// valid until the next call. Calls of the two may be mixed.
func (s *Stream) NextStmts() ([]ast.Stmt, BodyEvent) {
	b := &s.body
	if b.waiting {
		b.waiting = false
		return s.single(b.pending, b.event)
	}
	if len(b.open) == 0 {
		return nil, EndOfBody
	}
	s.recycle(0)
	batch := b.batch[:0]
	for len(batch) < stmtBatch {
		st, ev := s.step()
		if ev == Statement {
			batch = append(batch, st)
			continue
		}
		if len(batch) == 0 {
			return s.single(st, ev)
		}
		b.waiting, b.pending, b.event = true, st, ev
		break
	}
	if s.pipe != nil {
		s.pipe.counted(len(batch))
	} else {
		b.handed += len(batch)
	}
	b.batch = batch
	return batch, Statement
}

// single returns the piece st, ev of NextStmts that is not a statement.
func (s *Stream) single(st ast.Stmt, ev BodyEvent) ([]ast.Stmt, BodyEvent) {
	if st == nil {
		return nil, ev
	}
	s.body.one[0] = st
	return s.body.one[:], ev
}

// recycle counts n more statements handed out and hands the statement
// nodes back for reuse once stmtBatch of them have been.
func (s *Stream) recycle(n int) {
	b := &s.body
	if s.pipe != nil {
		s.pipe.recycle(n)
		return
	}
	if b.handed += n; b.handed >= stmtBatch {
		s.p.stmtNodes.reset()
		b.handed = 0
	}
}

// step reads the next piece of the open body.
func (s *Stream) step() (ast.Stmt, BodyEvent) {
	b := &s.body
	p := &s.p
	for {
		// Declarations and .callprototype come from the per-function
		// slabs, labels too (labelSlab), the rest from the statements'.
		slabs := p.stmtNodes
		blk := b.open[len(b.open)-1]
		if b.tooDeep {
			b.tooDeep = false
			s.setEnd(blk, p.prevEnd)
			return s.closeBlock()
		}
		switch p.tok.Kind {
		case scanner.RBrace:
			s.setEnd(blk, p.tok.End)
			p.next()
			p.leave()
			return s.closeBlock()
		case scanner.EOF:
			p.errorAt(blk.From, blk.From, "'{' not closed at end of file")
			s.setEnd(blk, p.prevEnd)
			p.leave()
			return s.closeBlock()
		case scanner.LBrace:
			nb := p.body.blocks.new()
			nb.From = p.tok.Pos
			p.next()
			b.tooDeep = !p.enter()
			b.open = append(b.open, nb)
			return nb, BlockStart
		case scanner.Dotted:
			if lit := p.lit(); topLevelOnly(lit) {
				if !startsFunction(lit) {
					p.error(lit + " is not allowed inside a function body")
					p.next()
					p.sync(p.prevEnd.Line)
					continue
				}
				p.errorAt(blk.From, blk.From, "'{' not closed before "+lit)
				s.setEnd(blk, p.prevEnd)
				p.leave()
				return s.closeBlock()
			} else if isStateSpace(lit) || lit == ".callprototype" {
				slabs = p.body // kept for the function
			}
		}
		p.nodes = slabs
		st := p.parseStmt()
		p.nodes = &p.keep
		if st != nil {
			return st, Statement
		}
	}
}

// closeBlock pops the innermost open block and reports its end, or the
// end of the body when it is the body.
func (s *Stream) closeBlock() (ast.Stmt, BodyEvent) {
	b := &s.body
	blk := b.open[len(b.open)-1]
	b.open = b.open[:len(b.open)-1]
	if len(b.open) > 0 {
		return blk, BlockEnd
	}
	if b.deferEnds {
		b.endFn, b.fnTo = b.fn, s.p.prevEnd
	} else {
		b.fn.To = s.p.prevEnd
	}
	b.fn = nil
	return nil, EndOfBody
}

// startBody begins walking the body that parsing f opened, if any.
func (s *Stream) startBody(f *ast.Function) {
	p := &s.p
	if p.opened == nil {
		return
	}
	s.body.fn = f
	s.body.open = append(s.body.open[:0], p.opened)
	s.body.tooDeep = p.tooDeep
	s.body.waiting = false
	p.opened, p.tooDeep = nil, false
}

// skipBody reads the rest of an open body.
func (s *Stream) skipBody() {
	for len(s.body.open) > 0 {
		s.NextInBody()
	}
	s.body.waiting = false
}

// labelSlab returns where labels come from: with StreamStatements the
// per-function slabs, which a consumer may keep for the function.
func (p *parser) labelSlab() *slab[ast.Label] {
	if p.stmtWise && p.nodes == p.stmtNodes {
		return &p.body.labels
	}
	return &p.nodes.labels
}

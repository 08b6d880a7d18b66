package printer

import (
	"io"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A Streamer prints a module piece by piece as a parser hands it out
// (parser.Stream with parser.StreamStatements), writing the canonical
// form as it goes: the output is byte for byte what Fprint writes for the
// whole module, and the Streamer holds only the pieces not yet written
// (a buffer of a few kilobytes and the comments not yet printed), so that
// formatting runs in memory bounded by the largest statement.
//
// The caller gives each top-level statement to Top, except a function
// whose body comes statement by statement: BeginFunction, then Stmt,
// BlockStart and BlockEnd for each piece of its body, then EndFunction.
// Comments are given to AddComments, in source order, before the pieces
// they come before or in (the parser has always read them by then). End
// finishes the module.
type Streamer struct {
	p       printer
	w       io.Writer
	err     error
	printed bool // a top-level statement was printed
	wasFn   bool // the last one was a function
	pend    pending
}

// pending is an item printed up to its trailing comments, which wait for
// the offset of the item after it (see printer.trailing).
type pending struct {
	on     bool
	end    token.Pos
	raw    int32
	opener bool // the '{' of a block: a block without statements ends it
	depth  int  // indentation of the item
}

// flushAt is the buffered output beyond which a Streamer writes.
const flushAt = 32 << 10

// NewStreamer returns a Streamer writing to w.
func NewStreamer(w io.Writer) *Streamer { return &Streamer{w: w} }

// AddComments queues comments of the module, which follow those given
// before.
func (s *Streamer) AddComments(cs []*ast.Comment) {
	p := &s.p
	if p.next > 256 && 2*p.next > len(p.comments) {
		n := copy(p.comments, p.comments[p.next:])
		clear(p.comments[n:])
		p.comments, p.next = p.comments[:n], 0
	}
	p.comments = append(p.comments, cs...)
}

// Top prints a top-level statement, a function with its whole body
// included.
func (s *Streamer) Top(st ast.TopStmt) {
	s.beginTop(st)
	p := &s.p
	switch st := st.(type) {
	case *ast.Function:
		p.function(st)
		s.pend = pending{on: true, end: st.End(), raw: -1, depth: s.p.depth}
	case *ast.VarDecl:
		p.varDecl(st)
		p.byte(';')
		s.pend = pending{on: true, end: st.End(), raw: -1, depth: s.p.depth}
	case *ast.Directive:
		p.directive(st, false)
		s.pend = pending{on: true, end: st.End(), raw: rawEnd(st), depth: s.p.depth}
	case *ast.BadStmt:
		p.str("/* syntax error */")
		s.pend = pending{on: true, end: st.End(), raw: st.End().Offset, depth: s.p.depth}
	}
	s.flushOut()
}

// beginTop prints what comes before a top-level statement: the end of
// the one before, a blank line around functions, and leading comments.
func (s *Streamer) beginTop(st ast.TopStmt) {
	s.finish(st.Pos().Offset)
	_, fn := st.(*ast.Function)
	if fn && s.printed || s.wasFn {
		s.p.blankLine()
	}
	s.printed, s.wasFn = true, fn
	s.p.leading(st.Pos())
}

// BeginFunction prints the header of f and the '{' of its body, whose
// statements follow; f.Body needs only its From.
func (s *Streamer) BeginFunction(f *ast.Function) {
	s.beginTop(f)
	if s.p.functionHeader(f) {
		s.open(f.Body)
	}
}

// EndFunction prints the '}' of f's body, now with its To set.
func (s *Streamer) EndFunction(f *ast.Function) {
	if f.Body != nil {
		s.close(f.Body)
	}
	s.pend = pending{on: true, end: f.End(), raw: -1, depth: s.p.depth}
	s.flushOut()
}

// Stmt prints a statement of the innermost open block (not a block).
func (s *Streamer) Stmt(st ast.Stmt) {
	p := &s.p
	s.finish(st.Pos().Offset)
	p.leading(st.Pos())
	p.stmt(st)
	raw := int32(-1)
	switch st := st.(type) {
	case *ast.Directive:
		raw = rawEnd(st)
	case *ast.BadStmt:
		raw = st.End().Offset
	}
	s.pend = pending{on: true, end: st.End(), raw: raw, depth: s.p.depth}
	s.flushOut()
}

// BlockStart prints the '{' of a nested block; b needs only its From.
func (s *Streamer) BlockStart(b *ast.Block) {
	s.finish(b.Pos().Offset)
	s.p.leading(b.Pos())
	s.p.indent()
	s.open(b)
}

// BlockEnd prints the '}' of the innermost nested block, now with its To
// set.
func (s *Streamer) BlockEnd(b *ast.Block) {
	s.close(b)
	s.pend = pending{on: true, end: b.End(), raw: -1, depth: s.p.depth}
	s.flushOut()
}

// End prints what follows the last statement (comments) given the end
// of the module, and writes out what is buffered. It returns the first
// error of the writer.
func (s *Streamer) End(end token.Pos) error {
	p := &s.p
	s.finish(-1)
	p.leading(end)
	for ; p.next < len(p.comments); p.next++ {
		p.str(p.comments[p.next].Text)
		p.byte('\n')
	}
	s.write(p.buf.Len())
	return s.err
}

// open prints the '{' of b (as printer.block does).
func (s *Streamer) open(b *ast.Block) {
	s.p.str("{")
	s.pend = pending{on: true, end: b.From.Advance("{"), raw: -1, opener: true, depth: s.p.depth}
	s.p.depth++
}

// close prints the end of block b (as printer.block does).
func (s *Streamer) close(b *ast.Block) {
	p := &s.p
	switch {
	case s.pend.opener:
		s.finish(b.To.Offset - 1) // firstOffset of an empty block
	case b.To.IsValid():
		s.finish(b.To.Offset - 1)
	default:
		s.finish(-1)
	}
	p.closeBrace(b.To)
}

// finish prints the trailing comments and line end of the pending item,
// now that the next item starts at offset next (-1: none).
func (s *Streamer) finish(next int32) {
	if !s.pend.on {
		return
	}
	depth := s.p.depth
	s.p.depth = s.pend.depth
	s.p.trailing(s.pend.end, next, s.pend.raw)
	s.p.byte('\n')
	s.p.depth = depth
	s.pend = pending{}
}

// flushOut writes the buffered output once it is large, keeping its last
// two bytes, which blankLine looks at.
func (s *Streamer) flushOut() {
	if n := s.p.buf.Len(); n >= flushAt {
		s.write(n - 2)
	}
}

// write writes the first n buffered bytes.
func (s *Streamer) write(n int) {
	b := s.p.buf.Next(n)
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

// FprintStream prints the module that st parses, as Fprint prints the
// whole module, statement by statement: st must have been made with
// parser.StreamStatements and parser.ParseComments, and not read yet. It
// reads st to its end. Once st has reported a syntax error it stops
// printing (the module has no canonical form) and only reads on, so that
// st.Errors is complete; the caller then discards what was written.
func FprintStream(w io.Writer, st *parser.Stream) error {
	s := NewStreamer(w)
	ok := func() bool {
		if len(st.Errors()) > 0 {
			return false
		}
		s.AddComments(st.TakeComments())
		return true
	}
	for top := st.Next(); top != nil; top = st.Next() {
		f, isFn := top.(*ast.Function)
		if !isFn || f.Body == nil {
			if ok() {
				s.Top(top)
			}
			continue
		}
		if ok() {
			s.BeginFunction(f)
		}
		for {
			n, ev := st.NextInBody()
			if !ok() {
				if ev == parser.EndOfBody {
					break
				}
				continue
			}
			switch ev {
			case parser.Statement:
				s.Stmt(n)
			case parser.BlockStart:
				s.BlockStart(n.(*ast.Block))
			case parser.BlockEnd:
				s.BlockEnd(n.(*ast.Block))
			}
			if ev == parser.EndOfBody {
				s.EndFunction(f)
				break
			}
		}
	}
	if !ok() {
		return nil
	}
	return s.End(st.End())
}

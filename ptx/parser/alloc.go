package parser

import "github.com/ptxkit/ptxkit/ptx/ast"

// slab hands out pointers into chunks of T, so that the many small nodes
// of a module cost one allocation per chunk instead of one each. Chunks
// start small (small inputs stay small) and grow to maxChunk elements.
//
// A slab can be recycled (ReuseBodies): reset keeps the chunks handed out
// so far as spares, and later requests clear and reuse them instead of
// allocating, so that a stream of function bodies runs in constant memory.
type slab[T any] struct {
	buf    []T
	next   int   // size of the next chunk
	used   [][]T // earlier chunks handed out since the last reset (recycling slabs only)
	spare  [][]T // chunks free for reuse
	recycl bool
}

const maxChunk = 1024

// chunk returns an empty chunk with room for at least n elements; it
// replaces the current chunk.
func (s *slab[T]) chunk(n int) []T {
	if s.next == 0 {
		s.next = 16
	}
	size := max(s.next, n)
	s.next = min(2*s.next, maxChunk)
	if !s.recycl {
		return make([]T, 0, size)
	}
	if s.buf != nil {
		s.used = append(s.used, s.buf)
	}
	for len(s.spare) > 0 {
		c := s.spare[len(s.spare)-1]
		s.spare = s.spare[:len(s.spare)-1]
		if cap(c) >= n {
			// Not cleared: new zeroes each node it hands out, and the
			// slices that take carves are filled by their callers.
			return c[:0]
		}
	}
	return make([]T, 0, size)
}

// reset makes every chunk handed out so far reusable. Nodes from them
// must no longer be used. The current chunk is reused from its start; the
// earlier ones become spares.
func (s *slab[T]) reset() {
	if len(s.used) > 0 {
		s.spare = append(s.spare, s.used...)
		clear(s.used)
		s.used = s.used[:0]
	}
	s.buf = s.buf[:0]
}

func (s *slab[T]) new() *T {
	if len(s.buf) == cap(s.buf) {
		s.buf = s.chunk(1)
	}
	s.buf = s.buf[:len(s.buf)+1]
	p := &s.buf[len(s.buf)-1]
	var zero T
	*p = zero // a recycled chunk holds an earlier node here
	return p
}

// take returns a slice of n elements with capacity n carved from the
// current chunk (appending to it reallocates, never overwriting a
// neighbour). In a recycled chunk the elements hold earlier values: the
// caller sets every one.
func (s *slab[T]) take(n int) []T {
	if n > maxChunk/4 {
		return make([]T, n)
	}
	if cap(s.buf)-len(s.buf) < n {
		s.buf = s.chunk(n)
	}
	i := len(s.buf)
	s.buf = s.buf[:i+n]
	return s.buf[i : i+n : i+n]
}

// mark returns the start of a run of elements to be appended one by one
// with push and closed with run.
func (s *slab[T]) mark() int { return len(s.buf) }

// push appends v to the open run that began at start and returns the
// run's start, which changes when a full chunk makes the run move to a
// new one. Appending in place spares collecting the run elsewhere and
// copying it.
func (s *slab[T]) push(start int, v T) int {
	if len(s.buf) == cap(s.buf) {
		open := s.buf[start:]
		buf := s.chunk(2*len(open) + 1)
		buf = append(buf, open...)
		s.buf = buf
		start = 0
	}
	s.buf = append(s.buf, v)
	return start
}

// run closes the run that began at start: its elements with capacity
// equal to length (nil when empty).
func (s *slab[T]) run(start int) []T {
	if len(s.buf) == start {
		return nil
	}
	return s.buf[start:len(s.buf):len(s.buf)]
}

// nodes holds the slabs of the node types that occur once or more per
// instruction.
type nodes struct {
	instrs  slab[ast.Instruction]
	regs    slab[ast.Reg]
	idents  slab[ast.Ident]
	ints    slab[ast.IntLit]
	floats  slab[ast.FloatLit]
	addrs   slab[ast.Address]
	vectors slab[ast.VectorExpr]
	guards  slab[ast.Guard]
	labels  slab[ast.Label]
	unary   slab[ast.UnaryExpr]
	binary  slab[ast.BinaryExpr]
	exprs   slab[ast.Expr]
	quals   slab[ast.Qual]
	stmts   slab[ast.Stmt]
	decls   slab[ast.VarDecl]
	blocks  slab[ast.Block]
	parens  slab[ast.ParenList]
}

// newRecycled returns slabs whose nodes are recycled after reset.
func newRecycled() *nodes {
	n := new(nodes)
	n.recycle()
	return n
}

// recycle makes every slab of n reusable after reset.
func (n *nodes) recycle() {
	n.instrs.recycl, n.regs.recycl, n.idents.recycl, n.ints.recycl = true, true, true, true
	n.floats.recycl, n.addrs.recycl, n.vectors.recycl, n.guards.recycl = true, true, true, true
	n.labels.recycl, n.unary.recycl, n.binary.recycl, n.exprs.recycl = true, true, true, true
	n.quals.recycl, n.stmts.recycl, n.decls.recycl, n.blocks.recycl, n.parens.recycl = true, true, true, true, true
}

// reset hands every node of n back for reuse.
func (n *nodes) reset() {
	n.instrs.reset()
	n.regs.reset()
	n.idents.reset()
	n.ints.reset()
	n.floats.reset()
	n.addrs.reset()
	n.vectors.reset()
	n.guards.reset()
	n.labels.reset()
	n.unary.reset()
	n.binary.reset()
	n.exprs.reset()
	n.quals.reset()
	n.stmts.reset()
	n.decls.reset()
	n.blocks.reset()
	n.parens.reset()
}

// exprList copies es into a slab-backed slice (nil when empty).
func (n *nodes) exprList(es []ast.Expr) []ast.Expr {
	if len(es) == 0 {
		return nil
	}
	out := n.exprs.take(len(es))
	copy(out, es)
	return out
}

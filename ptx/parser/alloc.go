package parser

import "github.com/ptxkit/ptxkit/ptx/ast"

// slab hands out pointers into chunks of T, so that the many small nodes
// of a module cost one allocation per chunk instead of one each. Chunks
// start small (small inputs stay small) and grow to maxChunk elements.
type slab[T any] struct {
	buf  []T
	next int // size of the next chunk
}

const maxChunk = 1024

func (s *slab[T]) new() *T {
	if len(s.buf) == cap(s.buf) {
		if s.next == 0 {
			s.next = 8
		}
		s.buf = make([]T, 0, s.next)
		s.next = min(2*s.next, maxChunk)
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// take returns a slice of n elements with capacity n carved from the
// current chunk (appending to it reallocates, never overwriting a
// neighbour).
func (s *slab[T]) take(n int) []T {
	if n > maxChunk/4 {
		return make([]T, n)
	}
	if cap(s.buf)-len(s.buf) < n {
		if s.next == 0 {
			s.next = 16
		}
		s.buf = make([]T, 0, max(s.next, n))
		s.next = min(2*s.next, maxChunk)
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
		if s.next == 0 {
			s.next = 16
		}
		buf := make([]T, len(open), max(s.next, 2*len(open)+1))
		copy(buf, open)
		s.buf = buf
		s.next = min(2*s.next, maxChunk)
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

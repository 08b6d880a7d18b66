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

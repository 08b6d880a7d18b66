package asyncgroup

// rangeIndex is a multiset of non-empty byte ranges that answers whether
// any of them overlaps a given range in O(log n): an interval treap keyed
// by (Lo, Hi), each node holding the largest Hi of its subtree. A range
// added several times is one node with a count. Nodes live in one slice
// and are recycled through a free list, so adding and removing ranges
// allocates nothing once the index has held its largest population.
// The zero rangeIndex is empty and ready to use.
type rangeIndex struct {
	nodes []rangeNode // nodes[0] is the nil node
	free  []int32
	root  int32
	prio  uint64 // state of the priority sequence
	size  int    // distinct ranges
}

type rangeNode struct {
	r           Range
	count       int
	maxHi       uint64 // largest Hi in the subtree
	prio        uint64
	left, right int32
}

func (a Range) less(b Range) bool { return a.Lo < b.Lo || a.Lo == b.Lo && a.Hi < b.Hi }

// add changes the count of r by d, inserting or removing its node as the
// count leaves or reaches zero. Empty ranges are ignored.
func (x *rangeIndex) add(r Range, d int) {
	if r.Lo >= r.Hi || d == 0 {
		return
	}
	if len(x.nodes) == 0 {
		x.nodes = append(x.nodes, rangeNode{})
	}
	if i := x.find(r); i != 0 {
		if x.nodes[i].count += d; x.nodes[i].count <= 0 {
			x.root = x.remove(x.root, r)
			x.size--
		}
		return
	}
	if d > 0 {
		x.root = x.insert(x.root, x.newNode(r, d))
		x.size++
	}
}

// Len returns the number of distinct ranges.
func (x *rangeIndex) Len() int { return x.size }

// overlaps reports whether some range of the index shares a byte with r.
func (x *rangeIndex) overlaps(r Range) bool {
	if r.Lo >= r.Hi {
		return false
	}
	for i := x.root; i != 0; {
		n := &x.nodes[i]
		if n.r.Lo < r.Hi && r.Lo < n.r.Hi {
			return true
		}
		// Keys grow with Lo. If the left subtree reaches past r.Lo but
		// holds no overlap, its range that does starts at or after r.Hi,
		// and so does every range to the right: no need to look there.
		if l := n.left; l != 0 && x.nodes[l].maxHi > r.Lo {
			i = l
		} else {
			i = n.right
		}
	}
	return false
}

func (x *rangeIndex) find(r Range) int32 {
	i := x.root
	for i != 0 {
		n := &x.nodes[i]
		switch {
		case r.less(n.r):
			i = n.left
		case n.r.less(r):
			i = n.right
		default:
			return i
		}
	}
	return 0
}

func (x *rangeIndex) newNode(r Range, count int) int32 {
	// A fixed xorshift sequence: the shape of the treap, like everything
	// else, is the same on every run.
	if x.prio == 0 {
		x.prio = 0x9e3779b97f4a7c15
	}
	x.prio ^= x.prio << 13
	x.prio ^= x.prio >> 7
	x.prio ^= x.prio << 17
	n := rangeNode{r: r, count: count, maxHi: r.Hi, prio: x.prio}
	if k := len(x.free); k > 0 {
		i := x.free[k-1]
		x.free = x.free[:k-1]
		x.nodes[i] = n
		return i
	}
	x.nodes = append(x.nodes, n)
	return int32(len(x.nodes) - 1)
}

// fix recomputes the largest Hi of node i's subtree from its children.
func (x *rangeIndex) fix(i int32) {
	n := &x.nodes[i]
	m := n.r.Hi
	if n.left != 0 {
		m = max(m, x.nodes[n.left].maxHi)
	}
	if n.right != 0 {
		m = max(m, x.nodes[n.right].maxHi)
	}
	n.maxHi = m
}

// insert adds node k, whose range is not in the subtree t, and returns
// the subtree's new root.
func (x *rangeIndex) insert(t, k int32) int32 {
	if t == 0 {
		return k
	}
	n := &x.nodes[t]
	if x.nodes[k].r.less(n.r) {
		n.left = x.insert(n.left, k)
		if x.nodes[n.left].prio > n.prio {
			t = x.rotateRight(t)
		}
	} else {
		n.right = x.insert(n.right, k)
		if x.nodes[n.right].prio > n.prio {
			t = x.rotateLeft(t)
		}
	}
	x.fix(t)
	return t
}

func (x *rangeIndex) rotateRight(t int32) int32 {
	l := x.nodes[t].left
	x.nodes[t].left = x.nodes[l].right
	x.nodes[l].right = t
	x.fix(t)
	x.fix(l)
	return l
}

func (x *rangeIndex) rotateLeft(t int32) int32 {
	r := x.nodes[t].right
	x.nodes[t].right = x.nodes[r].left
	x.nodes[r].left = t
	x.fix(t)
	x.fix(r)
	return r
}

// remove deletes the node of range r from subtree t and returns the
// subtree's new root.
func (x *rangeIndex) remove(t int32, r Range) int32 {
	if t == 0 {
		return 0
	}
	n := &x.nodes[t]
	switch {
	case r.less(n.r):
		n.left = x.remove(n.left, r)
	case n.r.less(r):
		n.right = x.remove(n.right, r)
	default:
		x.free = append(x.free, t)
		return x.merge(n.left, n.right)
	}
	x.fix(t)
	return t
}

// merge joins subtrees a and b, every range of a ordering before every
// range of b.
func (x *rangeIndex) merge(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	case x.nodes[a].prio > x.nodes[b].prio:
		x.nodes[a].right = x.merge(x.nodes[a].right, b)
		x.fix(a)
		return a
	default:
		x.nodes[b].left = x.merge(a, x.nodes[b].left)
		x.fix(b)
		return b
	}
}

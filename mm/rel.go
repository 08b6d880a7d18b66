package mm

import "math/bits"

// maxEvents bounds the events of one candidate execution: a relation is one
// 64-bit row per event.
const maxEvents = 64

// rel is a binary relation over the events of an execution: bit j of row i
// is set when (i, j) is in the relation.
type rel []uint64

func newRel(n int) rel { return make(rel, n) }

func (r rel) has(i, j int) bool { return r[i]>>uint(j)&1 != 0 }
func (r rel) set(i, j int)      { r[i] |= 1 << uint(j) }

func (r rel) clone() rel { return append(rel(nil), r...) }

// union returns r ∪ s as a new relation.
func (r rel) union(s rel) rel {
	u := r.clone()
	for i := range u {
		u[i] |= s[i]
	}
	return u
}

// inter returns r ∩ s as a new relation.
func (r rel) inter(s rel) rel {
	u := r.clone()
	for i := range u {
		u[i] &= s[i]
	}
	return u
}

// seq returns the composition r;s.
func (r rel) seq(s rel) rel {
	u := newRel(len(r))
	for i, row := range r {
		for row != 0 {
			j := bits.TrailingZeros64(row)
			row &= row - 1
			u[i] |= s[j]
		}
	}
	return u
}

// plus returns the transitive closure r+.
func (r rel) plus() rel {
	u := r.clone()
	for k := range u {
		bit := uint64(1) << uint(k)
		for i := range u {
			if u[i]&bit != 0 {
				u[i] |= u[k]
			}
		}
	}
	return u
}

// withID returns r ∪ id.
func (r rel) withID() rel {
	u := r.clone()
	for i := range u {
		u[i] |= 1 << uint(i)
	}
	return u
}

// irreflexive reports whether no (i, i) is in r.
func (r rel) irreflexive() bool {
	for i, row := range r {
		if row>>uint(i)&1 != 0 {
			return false
		}
	}
	return true
}

// acyclic reports whether r+ is irreflexive.
func (r rel) acyclic() bool { return r.plus().irreflexive() }

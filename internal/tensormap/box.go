package tensormap

// Elem is one element of a box: where it lies in shared memory and, when
// it is inside the tensor, in global memory.
type Elem struct {
	Shared   uint32 // byte offset from the box's shared base, swizzled
	Global   uint64 // byte address in global memory (when InBounds)
	InBounds bool
}

// ForEach calls f for every element of the box whose first element has
// tensor coordinates coords (dimension 0 first; missing dimensions are
// 0), in the order of the box in shared memory. sharedBase is the shared
// address of the box: swizzling depends on its bits, as in hardware, so
// the pattern of a box is that of its absolute position in the repeating
// swizzle atom (1024 bytes for 128B).
func (m *Map) ForEach(coords [MaxRank]int64, sharedBase uint32, f func(Elem)) {
	var idx [MaxRank]int
	var rows [MaxRank]int
	for i := range rows {
		rows[i] = m.Rows(i)
	}
	es := m.Type.ElemSize()
	for lin := 0; ; lin++ {
		e := Elem{InBounds: true, Global: m.Address}
		for i := 0; i < m.Rank; i++ {
			c := coords[i] + int64(idx[i])*int64(m.ElemStrides[i])
			if c < 0 || uint64(c) >= m.Dims[i] {
				e.InBounds = false
			} else {
				e.Global += uint64(c) * m.stride(i)
			}
		}
		e.Shared = SwizzleOffset(m.Swizzle, sharedBase+uint32(lin*es)) - sharedBase
		f(e)
		i := 0
		for ; i < m.Rank; i++ {
			idx[i]++
			if idx[i] < rows[i] {
				break
			}
			idx[i] = 0
		}
		if i == m.Rank {
			return
		}
	}
}

// SwizzleOffset maps the unswizzled shared address a to the address the
// element lands at: bits 4.. of a (the 16-byte chunk within a span of 32,
// 64 or 128 bytes) are XORed with the same number of bits taken from bit 7
// up (the index of the 128-byte row within the atom of 256, 512 or 1024
// bytes), as CUTLASS's Swizzle<1,4,3>, <2,4,3> and <3,4,3> do.
func SwizzleOffset(s Swizzle, a uint32) uint32 {
	var mask uint32
	switch s {
	case Swizzle32B:
		mask = 1
	case Swizzle64B:
		mask = 3
	case Swizzle128B:
		mask = 7
	default:
		return a
	}
	return a ^ (a>>7&mask)<<4
}

// GlobalBounds returns the lowest address and the end of the global bytes
// the in-bound elements of the box at coords touch; ok is false when no
// element of the box lies inside the tensor.
func (m *Map) GlobalBounds(coords [MaxRank]int64) (lo, hi uint64, ok bool) {
	lo, hi = m.Address, m.Address
	for i := 0; i < m.Rank; i++ {
		c, es, n := coords[i], int64(m.ElemStrides[i]), int64(m.Rows(i))
		kLo := int64(0) // first and last step of the box inside [0, dim)
		if c < 0 {
			kLo = (-c + es - 1) / es
		}
		top := int64(m.Dims[i]) - 1 - c
		if top < 0 || kLo >= n {
			return 0, 0, false
		}
		kHi := min(n-1, top/es)
		if kLo > kHi {
			return 0, 0, false
		}
		lo += uint64(c+kLo*es) * m.stride(i)
		hi += uint64(c+kHi*es) * m.stride(i)
	}
	return lo, hi + uint64(m.Type.ElemSize()), true
}

// InBoundElems returns the number of elements of the box at coords that
// lie inside the tensor.
func (m *Map) InBoundElems(coords [MaxRank]int64) int {
	n := 1
	for i := 0; i < m.Rank; i++ {
		c, es, rows := coords[i], int64(m.ElemStrides[i]), int64(m.Rows(i))
		kLo := int64(0)
		if c < 0 {
			kLo = (-c + es - 1) / es
		}
		top := int64(m.Dims[i]) - 1 - c
		if top < 0 || kLo >= rows {
			return 0
		}
		kHi := min(rows-1, top/es)
		if kLo > kHi {
			return 0
		}
		n *= int(kHi - kLo + 1)
	}
	return n
}

package tensormap

import (
	"encoding/binary"
	"fmt"
)

// Im2col mode (PTX ISA §5.5.4; cuTensorMapEncodeIm2col). A rank-N tensor
// is C (dimension 0, channels), N-2 spatial dimensions (W, H, D from
// dimension 1 up) and the batch N (dimension N-1). In each spatial
// dimension s the bounding box runs from Lower[s] to Dims[s]-1+Upper[s]
// (the corners are offsets from the tensor's first and last pixel). A
// load's box is PixelsPerColumn pixels of ChannelsPerPixel channels: the
// first pixel is at the instruction's spatial and batch coordinates,
// which must lie in the bounding box; each next pixel steps W by its
// element stride, wrapping to the box's lower W corner and stepping H when
// it passes the upper corner, then D, then the batch (by the batch
// dimension's element stride). Pixel p is read at its position plus the
// instruction's im2col offsets (one per spatial dimension, W first), its
// channels k at the instruction's channel coordinate + k. In shared
// memory pixel p's channels are row p, ChannelsPerPixel elements, rows
// dense, swizzled as a tiled box is. Elements outside the tensor are
// filled as in tiled mode.

// Im2col holds the arguments of cuTensorMapEncodeIm2col that a tiled map
// has not. Corner arrays are W first.
type Im2col struct {
	Lower, Upper     [MaxRank - 2]int32 // pixelBoxLowerCorner, pixelBoxUpperCorner
	ChannelsPerPixel uint32
	PixelsPerColumn  uint32
}

// Start is where a load's box begins: the instruction's tensor coordinates
// (dimension 0 first) and, in im2col mode, its im2col offsets (W first).
type Start struct {
	Coords  [MaxRank]int64
	Offsets [MaxRank - 2]int64
}

func (c *Im2col) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], c.ChannelsPerPixel)
	le.PutUint32(b[4:], c.PixelsPerColumn)
	for i := range c.Lower {
		le.PutUint16(b[8+2*i:], uint16(int16(c.Lower[i])))
		le.PutUint16(b[14+2*i:], uint16(int16(c.Upper[i])))
	}
}

func (c *Im2col) decode(b []byte) {
	le := binary.LittleEndian
	c.ChannelsPerPixel, c.PixelsPerColumn = le.Uint32(b[0:]), le.Uint32(b[4:])
	for i := range c.Lower {
		c.Lower[i] = int32(int16(le.Uint16(b[8+2*i:])))
		c.Upper[i] = int32(int16(le.Uint16(b[14+2*i:])))
	}
}

// cornerLimit is the corners' range for a rank: [-limit, limit-1].
var cornerLimit = map[int]int32{3: 1 << 15, 4: 1 << 7, 5: 1 << 4}

// validateIm2col applies cuTensorMapEncodeIm2col's rules.
func (m *Map) validateIm2col() error {
	if m.Mode != ModeIm2col {
		return nil
	}
	c := &m.Im2col
	if m.Rank < 3 {
		return fmt.Errorf("tensorRank %d: an im2col map has rank 3 to 5", m.Rank)
	}
	lim := cornerLimit[m.Rank]
	for s := range m.Rank - 2 {
		for _, v := range []struct {
			name string
			x    int32
		}{{"pixelBoxLowerCorner", c.Lower[s]}, {"pixelBoxUpperCorner", c.Upper[s]}} {
			if v.x < -lim || v.x >= lim {
				return fmt.Errorf("%s[%d] = %d must be between %d and %d for rank %d", v.name, s, v.x, -lim, lim-1, m.Rank)
			}
		}
		if int64(m.Dims[1+s])-1+int64(c.Upper[s]) < int64(c.Lower[s]) {
			return fmt.Errorf("the bounding box of spatial dimension %d is empty (pixelBoxLowerCorner %d, globalDim %d, pixelBoxUpperCorner %d)",
				s, c.Lower[s], m.Dims[1+s], c.Upper[s])
		}
	}
	switch {
	case c.ChannelsPerPixel == 0 || c.ChannelsPerPixel > 256:
		return fmt.Errorf("channelsPerPixel = %d must be between 1 and 256", c.ChannelsPerPixel)
	case c.PixelsPerColumn == 0 || c.PixelsPerColumn > 1024:
		return fmt.Errorf("pixelsPerColumn = %d must be between 1 and 1024", c.PixelsPerColumn)
	case m.ElemStrides[0] != 1:
		return fmt.Errorf("elementStrides[0] = %d: im2col maps with a channel stride other than 1 are not implemented", m.ElemStrides[0])
	}
	return nil
}

// box returns the lower and upper corner of spatial dimension s.
func (m *Map) box(s int) (lo, hi int64) {
	return int64(m.Im2col.Lower[s]), int64(m.Dims[1+s]) - 1 + int64(m.Im2col.Upper[s])
}

// CheckStart reports an im2col start outside the bounding box.
func (m *Map) CheckStart(st Start) error {
	if m.Mode != ModeIm2col {
		return nil
	}
	for s := range m.Rank - 2 {
		lo, hi := m.box(s)
		if c := st.Coords[1+s]; c < lo || c > hi {
			return fmt.Errorf("the im2col start coordinate %d of dimension %d lies outside the bounding box [%d, %d]", c, 1+s, lo, hi)
		}
	}
	return nil
}

// Each calls f for every element of the box that begins at st, in the
// order of the box in shared memory (ForEach for a tiled map).
func (m *Map) Each(st Start, sharedBase uint32, f func(Elem)) {
	if m.Mode == ModeTiled {
		m.ForEach(st.Coords, sharedBase, f)
		return
	}
	spatial := m.Rank - 2
	var pos [MaxRank - 2]int64
	copy(pos[:], st.Coords[1:1+spatial])
	batch := st.Coords[m.Rank-1]
	es := m.Type.ElemSize()
	lin := 0
	for range m.Im2col.PixelsPerColumn {
		for k := range int64(m.Im2col.ChannelsPerPixel) {
			e := Elem{InBounds: true, Global: m.Address}
			m.place(&e, 0, st.Coords[0]+k)
			for s := range spatial {
				m.place(&e, 1+s, pos[s]+st.Offsets[s])
			}
			m.place(&e, m.Rank-1, batch)
			e.Shared = SwizzleOffset(m.Swizzle, sharedBase+uint32(lin*es)) - sharedBase
			f(e)
			lin++
		}
		m.nextPixel(&pos, &batch)
	}
}

// place adds coordinate c of dimension i to e's address, or marks e out
// of bounds.
func (m *Map) place(e *Elem, i int, c int64) {
	if c < 0 || uint64(c) >= m.Dims[i] {
		e.InBounds = false
		return
	}
	e.Global += uint64(c) * m.stride(i)
}

// nextPixel steps the traversal: W, wrapping into H, D and the batch.
func (m *Map) nextPixel(pos *[MaxRank - 2]int64, batch *int64) {
	for s := range m.Rank - 2 {
		pos[s] += int64(m.ElemStrides[1+s])
		lo, hi := m.box(s)
		if pos[s] <= hi {
			return
		}
		pos[s] = lo
	}
	*batch += int64(m.ElemStrides[m.Rank-1])
}

// Bounds returns the lowest address and the end of the global bytes the
// in-bound elements of the box at st touch and how many elements are in
// bounds; ok is false when none is.
func (m *Map) Bounds(st Start) (lo, hi uint64, n int, ok bool) {
	if m.Mode == ModeTiled {
		lo, hi, ok = m.GlobalBounds(st.Coords)
		return lo, hi, m.InBoundElems(st.Coords), ok
	}
	es := uint64(m.Type.ElemSize())
	m.Each(st, 0, func(e Elem) {
		if !e.InBounds {
			return
		}
		if n == 0 || e.Global < lo {
			lo = e.Global
		}
		hi = max(hi, e.Global+es)
		n++
	})
	return lo, hi, n, n > 0
}

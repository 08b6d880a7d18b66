package tmem

import "math/bits"

// Memory is the Tensor Memory of one CTA: its cells, its allocator, and the
// tcgen05.st results each thread has not yet waited for. The zero Memory is
// not ready to use; call New.
type Memory struct {
	Alloc Allocator

	// ZeroUpperOnUnpack selects what .unpack::16b does to the upper 16 bits
	// of the cells it writes, which the manual leaves undocumented
	// (§9.7.16.8.2): false keeps them, true clears them.
	ZeroUpperOnUnpack bool

	cells   []uint32   // Lanes*Columns, lane-major
	written []uint64   // bit per cell: stored at least once
	pending []*cellSet // per thread of the CTA: cells of unwaited tcgen05.st
	// writers counts, per cell, the threads whose unwaited tcgen05.st
	// wrote it; nil until the first tcgen05.st.
	writers []uint16
}

// New returns an empty, unallocated Tensor Memory.
func New() *Memory {
	return &Memory{
		cells:   make([]uint32, Lanes*Columns),
		written: make([]uint64, Lanes*Columns/64),
	}
}

func cellIndex(lane, col int) int { return lane*Columns + col }

// Cell returns the value of cell (lane, col). It panics if the cell is
// outside 128 x 512.
func (m *Memory) Cell(lane, col int) uint32 { return m.cells[cellIndex(lane, col)] }

// SetCell writes cell (lane, col), as an instruction other than
// tcgen05.st would (tcgen05.mma, tcgen05.cp). It panics if the cell is
// outside 128 x 512.
func (m *Memory) SetCell(lane, col int, v uint32) {
	i := cellIndex(lane, col)
	m.cells[i] = v
	m.written[i/64] |= 1 << (i % 64)
}

// Written reports whether cell (lane, col) was ever stored.
func (m *Memory) Written(lane, col int) bool {
	i := cellIndex(lane, col)
	return m.written[i/64]&(1<<(i%64)) != 0
}

// cellSet is a bitset over all cells that remembers which words it set,
// so that clearing costs as much as the stores it recorded.
type cellSet struct {
	bits  [Lanes * Columns / 64]uint64
	dirty []uint16 // indices of non-zero words
	n     int
}

// add inserts cell i and reports whether it was new.
func (s *cellSet) add(i int) bool {
	w, b := i/64, uint64(1)<<(i%64)
	if s.bits[w]&b != 0 {
		return false
	}
	if s.bits[w] == 0 {
		s.dirty = append(s.dirty, uint16(w))
	}
	s.bits[w] |= b
	s.n++
	return true
}

func (s *cellSet) has(i int) bool { return s.bits[i/64]&(1<<(i%64)) != 0 }

// reset empties s, decrementing writers for each cell it held.
func (s *cellSet) reset(writers []uint16) {
	for _, w := range s.dirty {
		for b := s.bits[w]; b != 0; b &= b - 1 {
			writers[int(w)*64+bits.TrailingZeros64(b)]--
		}
		s.bits[w] = 0
	}
	s.dirty = s.dirty[:0]
	s.n = 0
}

// markPending records that thread's unwaited tcgen05.st writes cell i.
func (m *Memory) markPending(thread, i int) {
	if m.writers == nil {
		m.writers = make([]uint16, Lanes*Columns)
	}
	if m.pendingOf(thread).add(i) {
		m.writers[i]++
	}
}

func (m *Memory) pendingOf(thread int) *cellSet {
	for len(m.pending) <= thread {
		m.pending = append(m.pending, nil)
	}
	if m.pending[thread] == nil {
		m.pending[thread] = new(cellSet)
	}
	return m.pending[thread]
}

// PendingStores returns how many cells thread's tcgen05.st instructions
// wrote since its last tcgen05.wait::st.
func (m *Memory) PendingStores(thread int) int {
	if thread < 0 || thread >= len(m.pending) || m.pending[thread] == nil {
		return 0
	}
	return m.pending[thread].n
}

// WaitStores performs tcgen05.wait::st for thread (linear thread index in
// the CTA): its earlier tcgen05.st are complete (§9.7.16.8.5).
func (m *Memory) WaitStores(thread int) {
	if thread >= 0 && thread < len(m.pending) && m.pending[thread] != nil {
		m.pending[thread].reset(m.writers)
	}
}

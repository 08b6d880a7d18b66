package tmem

// Memory is the Tensor Memory of one CTA: its cells, its allocator, and the
// tcgen05.st results each thread has not yet waited for. The zero Memory is
// not ready to use; call New.
type Memory struct {
	Alloc Allocator

	// ZeroUpperOnUnpack selects what .unpack::16b does to the upper 16 bits
	// of the cells it writes, which the manual leaves undocumented
	// (§9.7.16.8.2): false keeps them, true clears them.
	ZeroUpperOnUnpack bool

	cells   []uint32 // Lanes*Columns, lane-major
	written []uint64 // bit per cell: stored at least once
	dirty   []uint16 // indices of non-zero words of written

	// Unwaited tcgen05.st bookkeeping, allocated by the first store:
	// pending[t] lists the cells thread t's unwaited stores wrote (a cell
	// index fits 16 bits), writers[i] counts the entries naming cell i over
	// all threads, and owner[i] is the thread that last wrote it while
	// unwaited (noOwner when none, otherOwner when only others remain).
	pending [][]uint16
	writers []uint16
	owner   []int16

	// lastWriter[i] is what last wrote cell i, when TrackWriters asked
	// for it; writer is the store landing now.
	lastWriter []Writer
	writer     Writer
}

// Writer is what last wrote a cell: the Site of the tcgen05.st's
// WarpAccess and its warp. The zero Writer is a write of unknown origin
// (SetCell outside a store).
type Writer struct {
	Site int32
	Warp int16
}

// TrackWriters makes m remember what last wrote each cell (WriterOf).
func (m *Memory) TrackWriters() {
	if m.lastWriter == nil {
		m.lastWriter = make([]Writer, Lanes*Columns)
	}
}

// WriterOf returns what last wrote cell (lane, col); ok is false when m
// does not track writers.
func (m *Memory) WriterOf(lane, col int) (w Writer, ok bool) {
	if m.lastWriter == nil {
		return Writer{}, false
	}
	return m.lastWriter[cellIndex(lane, col)], true
}

const (
	noOwner    = -1
	otherOwner = -2
)

// New returns an empty, unallocated Tensor Memory.
func New() *Memory {
	return &Memory{
		cells:   make([]uint32, Lanes*Columns),
		written: make([]uint64, Lanes*Columns/64),
	}
}

// Reset returns m to the state New returns, keeping its storage (and
// ZeroUpperOnUnpack). Its cost is proportional to what m was used for.
func (m *Memory) Reset() {
	for _, w := range m.dirty {
		clear(m.cells[int(w)*64 : int(w)*64+64])
		m.written[w] = 0
	}
	m.dirty = m.dirty[:0]
	m.lastWriter = nil
	for t := range m.pending {
		m.WaitStores(t)
	}
	m.Alloc = Allocator{}
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
	if m.lastWriter != nil {
		m.lastWriter[i] = m.writer
	}
	if w := i / 64; m.written[w] == 0 {
		m.dirty = append(m.dirty, uint16(w))
	}
	m.written[i/64] |= 1 << (i % 64)
}

// Written reports whether cell (lane, col) was ever stored.
func (m *Memory) Written(lane, col int) bool {
	i := cellIndex(lane, col)
	return m.written[i/64]&(1<<(i%64)) != 0
}

// markPending records that thread's unwaited tcgen05.st writes cell i.
func (m *Memory) markPending(thread, i int) {
	if m.writers == nil {
		m.writers = make([]uint16, Lanes*Columns)
		m.owner = make([]int16, Lanes*Columns)
		for j := range m.owner {
			m.owner[j] = noOwner
		}
	}
	if int(m.owner[i]) == thread {
		return
	}
	for len(m.pending) <= thread {
		m.pending = append(m.pending, nil)
	}
	m.pending[thread] = append(m.pending[thread], uint16(i))
	m.writers[i]++
	m.owner[i] = int16(thread)
}

// PendingStores returns how many cells thread's tcgen05.st instructions
// wrote since its last tcgen05.wait::st.
func (m *Memory) PendingStores(thread int) int {
	if thread < 0 || thread >= len(m.pending) {
		return 0
	}
	return len(m.pending[thread])
}

// WaitStores performs tcgen05.wait::st for thread (linear thread index in
// the CTA): its earlier tcgen05.st are complete (§9.7.16.8.5).
func (m *Memory) WaitStores(thread int) {
	if thread < 0 || thread >= len(m.pending) {
		return
	}
	list := m.pending[thread]
	for _, i := range list {
		m.writers[i]--
	}
	for _, i := range list {
		switch {
		case m.writers[i] == 0:
			m.owner[i] = noOwner
		case int(m.owner[i]) == thread:
			m.owner[i] = otherOwner
		}
	}
	m.pending[thread] = list[:0]
}

// pendingWriter returns a thread whose unwaited tcgen05.st wrote cell i
// (the last one when it is known), or -1.
func (m *Memory) pendingWriter(i int) int {
	if m.writers == nil || m.writers[i] == 0 {
		return -1
	}
	if o := int(m.owner[i]); o >= 0 {
		return o
	}
	for t, list := range m.pending {
		for _, c := range list {
			if int(c) == i {
				return t
			}
		}
	}
	return -1
}

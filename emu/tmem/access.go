package tmem

// WarpAccess names the warp executing a tcgen05.st or tcgen05.ld and the
// taddr operand each of its 32 threads passed.
type WarpAccess struct {
	Warp  int      // warp index in the CTA: linear thread index / 32
	Taddr [32]Addr // taddr of thread t of the warp
	Site  int32    // the instruction, as the caller numbers them (0: unknown); see Writer
}

// Uniform returns a WarpAccess for warp in which every thread passed taddr.
func Uniform(warp int, taddr Addr) *WarpAccess {
	acc := &WarpAccess{Warp: warp}
	for t := range acc.Taddr {
		acc.Taddr[t] = taddr
	}
	return acc
}

// check validates a warp-collective access of form f and returns its base
// address. op is "tcgen05.st" or "tcgen05.ld", spec its section.
func (m *Memory) check(op, spec string, acc *WarpAccess, f Form) (Addr, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	base := acc.Taddr[0]
	for t, a := range acc.Taddr {
		if a != base {
			return 0, errorf(RuleTaddrMismatch, spec,
				"%s: threads of warp %d pass different taddr: thread 0 has %#08x, thread %d has %#08x; all threads must pass the same base address",
				op, acc.Warp, uint32(base), t, uint32(a))
		}
	}
	lanes, cols := f.Extent()
	l0, c0 := base.Lane(), base.Column()
	if l0+lanes > Lanes {
		return 0, errorf(RuleColumnRange, specAddr, "%s%s at taddr %#08x reaches lane %d; Tensor Memory has lanes 0..%d",
			op, f, uint32(base), l0+lanes-1, Lanes-1)
	}
	q := Quarter(acc.Warp)
	if lo := q * LanesPerWarp; l0 < lo || l0+lanes > lo+LanesPerWarp {
		return 0, errorf(RuleLaneQuarter, specAccess,
			"%s%s by warp %d (warp %d of its warpgroup) accesses lanes %d..%d; it may only access lanes %d..%d",
			op, f, acc.Warp, q, l0, l0+lanes-1, lo, lo+LanesPerWarp-1)
	}
	if c0+cols > Columns {
		return 0, errorf(RuleColumnRange, specTMEM, "%s%s at taddr %#08x reaches column %d; Tensor Memory has columns 0..%d",
			op, f, uint32(base), c0+cols-1, Columns-1)
	}
	if err := m.checkAllocated(op, f, c0); err != nil {
		return 0, err
	}
	return base, nil
}

// checkAllocated reports the first column the access touches that no
// tcgen05.alloc covers.
func (m *Memory) checkAllocated(op string, f Form, c0 int) error {
	w := f.Shape.BaseColumns() * f.Num
	if f.Packed {
		w *= 2
	}
	spans := [][2]int{{c0, c0 + w}}
	if f.Shape == Shape16x32bx2 {
		spans = append(spans, [2]int{c0 + f.SplitOffset, c0 + f.SplitOffset + w})
	}
	for _, s := range spans {
		for col := s[0]; col < s[1]; col++ {
			if !m.Alloc.Allocated(col) {
				return errorf(RuleUnallocated, specAllocation,
					"%s%s accesses column %d, which is not allocated (columns %d..%d are accessed); allocate it with tcgen05.alloc first",
					op, f, col, s[0], s[1]-1)
			}
		}
	}
	return nil
}

// Store performs tcgen05.st (§9.7.16.8.4) of form f by the warp in acc.
// regs[t] holds the f.Regs() source registers of thread t.
//
// All checks run before any cell is written, so a returned error means
// nothing was stored. The written cells are recorded as pending for their
// thread until WaitStores.
func (m *Memory) Store(acc *WarpAccess, f Form, regs [][]uint32) error {
	st, err := m.PrepareStore(acc, f, regs)
	if err != nil {
		return err
	}
	st.Land()
	return nil
}

// PendingStore is a checked tcgen05.st whose cells are not yet written:
// tcgen05.st is asynchronous (§9.7.16.6), and an emulator may land it at
// any point up to the issuing threads' tcgen05.wait::st.
type PendingStore struct {
	m      *Memory
	f      Form
	base   Addr
	regs   [][]uint32
	landed bool
	writer Writer
}

// PrepareStore checks a tcgen05.st like Store and records its cells as
// pending for their threads (so a tcgen05.ld of them before
// tcgen05.wait::st is reported whether or not the store has landed), but
// writes nothing: PendingStore.Land does. The register values are copied,
// so the caller may reuse regs.
func (m *Memory) PrepareStore(acc *WarpAccess, f Form, regs [][]uint32) (*PendingStore, error) {
	base, err := m.check("tcgen05.st", specStore, acc, f)
	if err != nil {
		return nil, err
	}
	if err := checkRegs("tcgen05.st", f, regs); err != nil {
		return nil, err
	}
	st := &PendingStore{m: m, f: f, base: base, regs: make([][]uint32, 32), writer: Writer{Site: acc.Site, Warp: int16(acc.Warp)}}
	l0, c0 := base.Lane(), base.Column()
	for t := range 32 {
		st.regs[t] = append([]uint32(nil), regs[t]...)
		for j := range regs[t] {
			p := f.Place(t, j)
			for c := range p.Cells {
				m.markPending(acc.Warp*32+t, cellIndex(l0+p.Lane, c0+p.Column+c))
			}
		}
	}
	return st, nil
}

// Landed reports whether Land has run.
func (st *PendingStore) Landed() bool { return st.landed }

// Land writes the store's cells. Only the first call has an effect.
func (st *PendingStore) Land() {
	if st.landed {
		return
	}
	st.landed = true
	m, f := st.m, st.f
	m.writer = st.writer
	defer func() { m.writer = Writer{} }()
	l0, c0 := st.base.Lane(), st.base.Column()
	for t, regs := range st.regs {
		for j, v := range regs {
			p := f.Place(t, j)
			lane, col := l0+p.Lane, c0+p.Column
			if p.Cells == 1 {
				m.SetCell(lane, col, v)
				continue
			}
			m.storeHalf(lane, col, uint16(v))
			m.storeHalf(lane, col+1, uint16(v>>16))
		}
	}
}

// storeHalf writes the low 16 bits of a cell for .unpack::16b.
func (m *Memory) storeHalf(lane, col int, h uint16) {
	old := m.Cell(lane, col)
	if m.ZeroUpperOnUnpack {
		old = 0
	}
	m.SetCell(lane, col, old&^0xffff|uint32(h))
}

// Load performs tcgen05.ld (§9.7.16.8.3) of form f by the warp in acc and
// writes thread t's f.Regs() destination registers to out[t].
//
// Errors other than RuleUnwaitedStore mean nothing was loaded. A
// RuleUnwaitedStore error (a thread reads a cell its own tcgen05.st wrote
// with no tcgen05.wait::st in between, §9.7.16.6) is reported after the
// load completed with the values the emulator stored at issue.
func (m *Memory) Load(acc *WarpAccess, f Form, out [][]uint32) error {
	base, err := m.check("tcgen05.ld", specLoad, acc, f)
	if err != nil {
		return err
	}
	if err := checkRegs("tcgen05.ld", f, out); err != nil {
		return err
	}
	l0, c0 := base.Lane(), base.Column()
	var hazard error
	for t := range 32 {
		thread := acc.Warp*32 + t
		for j := range out[t] {
			p := f.Place(t, j)
			lane, col := l0+p.Lane, c0+p.Column
			if p.Cells == 1 {
				out[t][j] = m.Cell(lane, col)
			} else {
				out[t][j] = m.Cell(lane, col)&0xffff | m.Cell(lane, col+1)<<16
			}
			if hazard == nil {
				hazard = m.unwaited(thread, lane, col, p.Cells)
			}
		}
	}
	return hazard
}

// unwaited reports whether thread reads one of cells (lane, col..col+n-1)
// that a tcgen05.st not yet followed by its threads' tcgen05.wait::st
// wrote: the thread's own store (§9.7.16.6: wait::st before a later ld of
// the same cells) or another thread's (the writer must wait::st, then
// synchronize with the reader).
func (m *Memory) unwaited(thread, lane, col, n int) error {
	for c := col; c < col+n; c++ {
		writer := m.pendingWriter(cellIndex(lane, c))
		switch {
		case writer < 0:
			continue
		case writer == thread:
			return errorf(RuleUnwaitedStore, specWait,
				"tcgen05.ld: thread %d (warp %d, lane %d) reads Tensor Memory lane %d, column %d, which its own tcgen05.st wrote with no tcgen05.wait::st in between",
				thread, thread/32, thread%32, lane, c)
		}
		return errorf(RuleUnwaitedStore, specWait,
			"tcgen05.ld: thread %d (warp %d, lane %d) reads Tensor Memory lane %d, column %d, which the tcgen05.st of thread %d (warp %d) wrote; that thread has not executed tcgen05.wait::st",
			thread, thread/32, thread%32, lane, c, writer, writer/32)
	}
	return nil
}

func checkRegs(op string, f Form, regs [][]uint32) error {
	if len(regs) != 32 {
		return errorf(RuleForm, specTable50, "%s%s: register vectors for %d threads, want 32", op, f, len(regs))
	}
	for t, r := range regs {
		if len(r) != f.Regs() {
			return errorf(RuleForm, specTable50, "%s%s takes %d registers per thread, thread %d has %d",
				op, f, f.Regs(), t, len(r))
		}
	}
	return nil
}

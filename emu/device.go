package emu

import (
	"fmt"
	"sort"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// This file is the emulator's interface for a device whose memory
// outlives a launch (the CUDA driver of package cudrv): a Memory shared by
// launches (Launch.Mem), allocated and freed by the caller, and module
// variables laid out at addresses the caller chooses (Layout), so that the
// kernels of several modules share one memory.

// Layout places a module's variables: its .global variables from Global
// on (a global address) and its .const variables from Const on (a .const
// address). The zero Layout is the one Decode uses.
type Layout struct {
	Global uint64
	Const  uint64
}

// DecodeLayout is DecodeResolved with the module's variables placed by
// layout. Kernels of one module decoded with the same layout agree on
// every variable's address.
func DecodeLayout(m *ast.Module, info *resolve.Info, kernel string, layout Layout) (*Program, diag.List) {
	return decodeWith(m, info, kernel, layout)
}

// Variables returns the module variables the program reaches, .global ones
// first, with their initial bytes. They are the program's own: copy them
// before changing them (Memory.AddVariables does).
func (p *Program) Variables() []*Region {
	return append(append([]*Region(nil), p.globals...), p.konsts...)
}

// StaticSharedBytes returns the kernel's static shared memory per CTA.
func (p *Program) StaticSharedBytes() int { return p.sharedStatic }

// VariablesEnd returns the addresses just past the program's .global and
// .const variables (the layout's bases when there are none).
func (p *Program) VariablesEnd() (global, konst uint64) {
	global, konst = p.layout.Global, p.layout.Const
	for _, r := range p.globals {
		global = max(global, r.End())
	}
	for _, r := range p.konsts {
		konst = max(konst, r.End())
	}
	return global, konst
}

// NewMemory returns an empty memory for launches that share it
// (Launch.Mem): device allocations and module variables persist from one
// launch to the next.
func NewMemory() *Memory { return emptyMemory() }

// Alloc allocates n zeroed bytes of global memory aligned to align (256
// at least). Addresses are not reused after Free, so a stale pointer
// faults instead of reaching a newer allocation.
func (m *Memory) Alloc(name string, n int, align uint64) *Region {
	return m.global.alloc(name, n, align, SpaceGlobal, globalBase)
}

// Place makes data the global region at base, for memory the host also
// reaches at the same address (mapped and managed memory). It fails when
// the range overlaps a region or one of the generic windows.
func (m *Memory) Place(name string, base uint64, data []byte) (*Region, error) {
	end := base + uint64(len(data))
	if base == 0 || end < base {
		return nil, fmt.Errorf("emu: region %s at %#x of %d bytes wraps around", name, base, len(data))
	}
	if end > paramWindow && base < sharedWindow+1<<windowShift {
		return nil, fmt.Errorf("emu: region %s [%#x, %#x) overlaps the generic windows [%#x, %#x)", name, base, end, paramWindow, sharedWindow+1<<windowShift)
	}
	if m.overlaps(&m.global, base, end) {
		return nil, fmt.Errorf("emu: region %s [%#x, %#x) overlaps another allocation", name, base, end)
	}
	r := &Region{Name: name, Base: base, Data: data, Space: SpaceGlobal, ArgIndex: -1}
	m.global.add(r)
	return r, nil
}

func (m *Memory) overlaps(s *regionSet, base, end uint64) bool {
	for _, r := range s.regs {
		if base < r.End() && r.Base < end {
			return true
		}
	}
	return false
}

// Release hands the memory's large global and .const allocations back to
// the process's pool, so that later launches reuse them (zeroed) instead
// of faulting fresh pages in. Neither the memory nor the Data of any of
// its regions may be used after; a memory never released is freed by the
// collector as usual.
func (m *Memory) Release() {
	for _, s := range []*regionSet{&m.global, &m.konst} {
		for _, r := range s.regs {
			if r.arena != nil {
				r.arena.release()
				r.arena, r.Data = nil, nil
			}
		}
		s.regs = nil
	}
	m.Params = nil
}

// Free removes the global region that starts at base and returns it, or
// nil when no region starts there.
func (m *Memory) Free(base uint64) *Region { return m.global.remove(base) }

// Lookup returns the global region holding [a, a+n), or nil.
func (m *Memory) Lookup(a uint64, n int) *Region { return m.global.find(a, n) }

// LookupConst returns the .const region holding [a, a+n), or nil.
func (m *Memory) LookupConst(a uint64, n int) *Region { return m.konst.find(a, n) }

// Regions returns the global regions in address order.
func (m *Memory) Regions() []*Region { return append([]*Region(nil), m.global.regs...) }

// AddVariables installs copies of the program's module variables (see
// Variables); variables already installed at the same address are kept,
// so the kernels of one module share them. It fails when a variable
// overlaps a different region.
func (m *Memory) AddVariables(p *Program) error {
	for _, r := range p.Variables() {
		set := &m.global
		if r.Space == SpaceConst {
			set = &m.konst
		}
		if old := set.find(r.Base, max(len(r.Data), 1)); old != nil && old.Base == r.Base && old.Name == r.Name {
			continue
		}
		if m.overlaps(set, r.Base, r.End()) {
			return fmt.Errorf("emu: module variable %s at %#x overlaps another region", r.Name, r.Base)
		}
		c := *r
		c.Data = append([]byte(nil), r.Data...)
		set.add(&c)
	}
	return nil
}

// remove deletes the region that starts at base.
func (s *regionSet) remove(base uint64) *Region {
	i := sort.Search(len(s.regs), func(i int) bool { return s.regs[i].Base >= base })
	if i == len(s.regs) || s.regs[i].Base != base {
		return nil
	}
	r := s.regs[i]
	s.regs = append(s.regs[:i], s.regs[i+1:]...)
	return r
}

// ConstWindow is where the generic address space shows the constant bank
// (a generic address is ConstWindow plus the .const address): the address
// a driver gives a __constant__ variable.
const ConstWindow = constWindow

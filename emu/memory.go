package emu

import (
	"fmt"
	"github.com/ptxkit/ptxkit/isa"
	"sort"
)

// Space is a PTX state space (PTX ISA §5.1).
type Space uint8

const (
	SpaceGeneric       Space = iota // no space qualifier: a generic address (§6.4.1.1)
	SpaceGlobal                     // .global
	SpaceShared                     // .shared and .shared::cta
	SpaceSharedCluster              // .shared::cluster
	SpaceLocal                      // .local
	SpaceConst                      // .const
	SpaceParam                      // .param / .param::entry (kernel parameters)
	SpaceParamFunc                  // .param::func (function arguments, per thread)
	numSpaces
)

var spaceNames = [...]string{"generic", ".global", ".shared::cta", ".shared::cluster", ".local", ".const", ".param::entry", ".param::func"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return "?"
}

// parseSpace returns the state space a declaration's space names
// (PTX ISA §5.1), as isa spells it.
func parseSpace(name string) (Space, bool) { return spaceOf(isa.LookupQual(name)) }

// The generic address space (§6.4.1.1) is laid out as disjoint windows,
// selected by bits 47:40 of a generic address:
//
//	0x7E_xxxx_xxxx_xx  shared window: generic = sharedWindow + shared::cluster address
//	0x7D_xxxx_xxxx_xx  local window:  generic = localWindow + local address (own thread)
//	0x7C_xxxx_xxxx_xx  const window:  generic = constWindow + const address
//	0x7B_xxxx_xxxx_xx  kernel-parameter window, inside the global window:
//	                   generic = global = paramWindow + param address
//	anything else      global window: generic = global address
//
// A shared-space address is (rank+1)<<sharedRankShift | offset, where rank
// is the CTA's rank in its cluster, so every .shared::cta address of the
// executing CTA is also the .shared::cluster address of the same byte
// (DIGEST §1) and address 0 is never valid. Global allocations start at
// globalBase and are separated by unmapped guard gaps.
const (
	windowShift     = 40
	sharedWindow    = uint64(0x7E) << windowShift
	localWindow     = uint64(0x7D) << windowShift
	constWindow     = uint64(0x7C) << windowShift
	paramWindow     = uint64(0x7B) << windowShift
	globalBase      = uint64(0x10) << 32
	constBase       = 0x1000 // first .const address of module variables
	sharedRankShift = 24
	sharedOffMask   = 1<<sharedRankShift - 1
	// maxSharedBytes bounds one CTA's shared memory (static + dynamic):
	// 227 KiB, the most an sm_90 CTA can use.
	maxSharedBytes = 227 << 10
	guardGap       = 4096
	allocAlign     = 256
)

// Region is a contiguous allocation in global or const memory.
type Region struct {
	Name     string // what it holds: "arg0", a variable name, "kernel params"
	Base     uint64 // first byte (global or const space address)
	Data     []byte
	ReadOnly bool   // kernel parameters
	Space    Space  // SpaceGlobal or SpaceConst
	ArgIndex int    // index of the kernel argument it backs, or -1
	Param    string // the kernel parameter it backs ("out"), or ""
	arena    *arena // the memory Data lies in, for a large allocation (arena.go)
}

// End returns the address just past the region.
func (r *Region) End() uint64 { return r.Base + uint64(len(r.Data)) }

// Label is how reports name the region: "arg0 (parameter out)" for a
// kernel argument, else its Name.
func (r *Region) Label() string {
	if r.Param != "" {
		return r.Name + " (parameter " + r.Param + ")"
	}
	return r.Name
}

// regionSet is a sorted set of non-overlapping regions.
type regionSet struct {
	regs []*Region
	next uint64
}

func (s *regionSet) add(r *Region) {
	s.regs = append(s.regs, r)
	sort.Slice(s.regs, func(i, j int) bool { return s.regs[i].Base < s.regs[j].Base })
}

// alloc places a new region of n zeroed bytes after the existing ones.
func (s *regionSet) alloc(name string, n int, align uint64, sp Space, start uint64) *Region {
	data, a := deviceBytes(n)
	r := s.place(name, data, align, sp, start)
	r.arena = a
	return r
}

// place makes data a new region after the existing ones.
func (s *regionSet) place(name string, data []byte, align uint64, sp Space, start uint64) *Region {
	n := len(data)
	if s.next == 0 {
		s.next = start
	}
	if align < allocAlign {
		align = allocAlign
	}
	base := (s.next + align - 1) &^ (align - 1)
	r := &Region{Name: name, Base: base, Data: data, Space: sp, ArgIndex: -1}
	s.next = base + uint64(n) + guardGap
	s.add(r)
	return r
}

// find returns the region holding [a, a+n), or nil.
func (s *regionSet) find(a uint64, n int) *Region {
	// The first region that ends past a (sort.Search, written out: this
	// runs for most global accesses that change allocation).
	i, j := 0, len(s.regs)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s.regs[h].End() > a {
			j = h
		} else {
			i = h + 1
		}
	}
	if i < len(s.regs) {
		r := s.regs[i]
		if a >= r.Base && a+uint64(n) <= r.End() && a+uint64(n) >= a {
			return r
		}
	}
	return nil
}

// near describes the allocation closest to a, for reports.
func (s *regionSet) near(a uint64) string {
	var best *Region
	var dist uint64
	for _, r := range s.regs {
		var d uint64
		switch {
		case a < r.Base:
			d = r.Base - a
		case a >= r.End():
			d = a - r.End() + 1
		}
		if best == nil || d < dist {
			best, dist = r, d
		}
	}
	if best == nil {
		return "no allocations"
	}
	return fmt.Sprintf("nearest allocation %s is [%#x, %#x)", best.Label(), best.Base, best.End())
}

// Memory is the memory shared by all CTAs of a launch: global allocations
// (buffers and module .global variables), the kernel parameter buffer and
// the constant bank.
type Memory struct {
	global   regionSet
	konst    regionSet
	Params   *Region
	heap     *deviceHeap // malloc's heap, made for the first program that calls it (heap.go)
	heapSize int         // its size (0: DefaultHeapBytes)
	// textures are the texture and surface objects by handle (texture.go);
	// they change only between launches. argTextures are the handles a
	// launch made for its arguments.
	textures    map[uint64]*Texture
	argTextures []uint64
}

// emptyMemory returns an empty memory.
func emptyMemory() *Memory { return &Memory{} }

// allocGlobal allocates n zeroed bytes of global memory.
func (m *Memory) allocGlobal(name string, n int, align uint64) *Region {
	return m.global.alloc(name, n, align, SpaceGlobal, globalBase)
}

// adoptGlobal makes data a global allocation without copying it.
func (m *Memory) adoptGlobal(name string, data []byte, align uint64) *Region {
	return m.global.place(name, data, align, SpaceGlobal, globalBase)
}

// allocConst allocates n bytes in the constant bank.
func (m *Memory) allocConst(name string, n int, align uint64) *Region {
	return m.konst.alloc(name, n, align, SpaceConst, constBase)
}

// setParams installs the kernel parameter buffer; it lies inside the
// global window at paramWindow and is read-only (§5.1.6).
func (m *Memory) setParams(data []byte) {
	r := &Region{Name: "kernel parameters", Base: paramWindow, Data: data, ReadOnly: true, Space: SpaceGlobal, ArgIndex: -1}
	m.Params = r
	m.global.add(r)
}

// findGlobal returns the global region holding [a, a+n), or nil.
func (m *Memory) findGlobal(a uint64, n int) *Region { return m.global.find(a, n) }

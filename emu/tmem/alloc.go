package tmem

import (
	"fmt"
	"math/bits"
	"sort"
)

// chunks is the number of allocation units in a lane's 512 columns.
const chunks = Columns / AllocUnit

// Allocation is one live tcgen05.alloc result.
type Allocation struct {
	Column int      // first column; the address is MakeAddr(0, Column)
	NCols  int      // power of two in [32, 512]
	Group  CTAGroup // .cta_group of the allocating instruction
}

// Addr returns the tensor memory address tcgen05.alloc wrote for a.
func (a Allocation) Addr() Addr { return MakeAddr(0, a.Column) }

// Allocator hands out the columns of one CTA's Tensor Memory
// (PTX ISA §9.7.16.1.2, §9.7.16.7.1). Allocation is in units of 32 columns
// across all 128 lanes; a request for n columns is placed at the lowest
// free column that is a multiple of n (natural alignment). The manual does
// not specify placement; under this one, its advice that successive
// allocations should not grow is exactly what avoids fragmentation.
//
// The zero Allocator is an empty Tensor Memory.
type Allocator struct {
	used         uint16 // bit k: columns [32k, 32k+32) are allocated
	live         []Allocation
	relinquished bool
	group        CTAGroup // first .cta_group seen; 0 before any
}

// CheckNCols reports whether n is a legal tcgen05.alloc/dealloc column
// count: a power of two in [32, 512] (§9.7.16.7.1).
func CheckNCols(n int) error {
	if n < AllocUnit || n > Columns || n&(n-1) != 0 {
		return errorf(RuleNCols, specAlloc, "nCols = %d; it must be a power of 2 in [32, 512]", n)
	}
	return nil
}

// UseGroup records that an instruction with .cta_group g ran in this CTA and
// reports an error if g is invalid or differs from the value used before
// (all tcgen05 instructions of a kernel must use one .cta_group, §9.7.16.7.1).
func (a *Allocator) UseGroup(g CTAGroup) error {
	if !g.Valid() {
		return errorf(RuleCTAGroup, specCTAGroup, ".cta_group must be ::1 or ::2, got ::%d", uint8(g))
	}
	if a.group == 0 {
		a.group = g
		return nil
	}
	if a.group != g {
		return errorf(RuleMixedCTAGroup, specCTAGroup,
			"%s used after %s; all tcgen05 instructions of a kernel must use the same .cta_group", g, a.group)
	}
	return nil
}

// Group returns the .cta_group used so far, 0 if none.
func (a *Allocator) Group() CTAGroup { return a.group }

// Relinquished reports whether tcgen05.relinquish_alloc_permit ran.
func (a *Allocator) Relinquished() bool { return a.relinquished }

// mask returns the chunk mask of n columns starting at column col.
func mask(col, n int) uint16 {
	return uint16((uint32(1)<<(n/AllocUnit) - 1) << (col / AllocUnit))
}

// fit returns the lowest naturally aligned start column for n columns that
// is free in used, or -1.
func fit(used uint16, n int) int {
	for col := 0; col+n <= Columns; col += n {
		if used&mask(col, n) == 0 {
			return col
		}
	}
	return -1
}

func (a *Allocator) checkAlloc(g CTAGroup, nCols int) error {
	if err := a.UseGroup(g); err != nil {
		return err
	}
	if err := CheckNCols(nCols); err != nil {
		return err
	}
	if a.relinquished {
		return errorf(RuleAllocAfterRelinquish, specAlloc,
			"tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA")
	}
	return nil
}

// TryAlloc performs tcgen05.alloc of nCols columns for .cta_group g. It
// returns the allocated address and ok = true, or ok = false with a nil
// error when no suitable range is free: the instruction blocks and the
// caller retries it after a dealloc. Errors report broken rules (bad nCols,
// alloc after relinquish, mixed .cta_group); nothing is allocated then.
func (a *Allocator) TryAlloc(g CTAGroup, nCols int) (addr Addr, ok bool, err error) {
	if err := a.checkAlloc(g, nCols); err != nil {
		return 0, false, err
	}
	col := fit(a.used, nCols)
	if col < 0 {
		return 0, false, nil
	}
	a.take(Allocation{Column: col, NCols: nCols, Group: g})
	return MakeAddr(0, col), true, nil
}

// TryAllocPair performs a .cta_group::2 tcgen05.alloc issued together by a
// warp of this CTA and a warp of its peer CTA (§9.7.16.5.2): the same
// columns are allocated in both Tensor Memories. ok is false when no range
// is free in both; the pair blocks.
func (a *Allocator) TryAllocPair(peer *Allocator, nCols int) (addr Addr, ok bool, err error) {
	if err := a.checkAlloc(CTAGroup2, nCols); err != nil {
		return 0, false, err
	}
	if err := peer.checkAlloc(CTAGroup2, nCols); err != nil {
		return 0, false, err
	}
	col := fit(a.used|peer.used, nCols)
	if col < 0 {
		return 0, false, nil
	}
	a.take(Allocation{Column: col, NCols: nCols, Group: CTAGroup2})
	peer.take(Allocation{Column: col, NCols: nCols, Group: CTAGroup2})
	return MakeAddr(0, col), true, nil
}

func (a *Allocator) take(al Allocation) {
	a.used |= mask(al.Column, al.NCols)
	a.live = append(a.live, al)
	sort.Slice(a.live, func(i, j int) bool { return a.live[i].Column < a.live[j].Column })
}

// Dealloc performs tcgen05.dealloc of nCols columns at addr for .cta_group
// g. addr and nCols must be exactly those of a live allocation.
func (a *Allocator) Dealloc(g CTAGroup, addr Addr, nCols int) error {
	if err := a.UseGroup(g); err != nil {
		return err
	}
	if err := CheckNCols(nCols); err != nil {
		return err
	}
	for i, al := range a.live {
		if addr.Lane() != 0 || al.Column != addr.Column() {
			continue
		}
		if al.NCols != nCols {
			return errorf(RuleDealloc, specAlloc,
				"tcgen05.dealloc of %d columns at column %d, but %d were allocated there", nCols, al.Column, al.NCols)
		}
		a.used &^= mask(al.Column, al.NCols)
		a.live = append(a.live[:i], a.live[i+1:]...)
		return nil
	}
	return errorf(RuleDealloc, specAlloc,
		"tcgen05.dealloc at %v: no allocation starts there (taddr must come from an earlier tcgen05.alloc)", addr)
}

// Relinquish performs tcgen05.relinquish_alloc_permit: any later
// tcgen05.alloc of this CTA is an error.
func (a *Allocator) Relinquish(g CTAGroup) error {
	if err := a.UseGroup(g); err != nil {
		return err
	}
	a.relinquished = true
	return nil
}

// Allocated reports whether column col is allocated.
func (a *Allocator) Allocated(col int) bool {
	if col < 0 || col >= Columns {
		return false
	}
	return a.used&(1<<(col/AllocUnit)) != 0
}

// FreeColumns returns the number of unallocated columns.
func (a *Allocator) FreeColumns() int { return (chunks - bits.OnesCount16(a.used)) * AllocUnit }

// Live returns the live allocations ordered by column.
func (a *Allocator) Live() []Allocation { return append([]Allocation(nil), a.live...) }

// CheckExit reports the allocations still live when the CTA exits: all
// tensor memory must be deallocated before the kernel exits (§9.7.16.7.1).
func (a *Allocator) CheckExit() error {
	if len(a.live) == 0 {
		return nil
	}
	al := a.live[0]
	more := ""
	if len(a.live) > 1 {
		more = fmt.Sprintf(" (and %d more allocation(s))", len(a.live)-1)
	}
	return errorf(RuleMissingDealloc, specAlloc,
		"CTA exited with %d columns at column %d still allocated%s; tcgen05.dealloc them before exit", al.NCols, al.Column, more)
}

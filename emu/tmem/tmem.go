// Package tmem models the Tensor Memory of one CTA on sm_100-family GPUs and
// the data movement of the tcgen05 instructions that use it.
//
// Tensor Memory (PTX ISA §9.7.16.1) is a per-CTA array of 128 lanes by 512
// columns of 32-bit cells. A tensor memory address (§9.7.16.1.1) holds the
// lane in bits 31:16 and the column in bits 15:0.
//
// The package provides, independently of any emulator:
//
//   - an Allocator implementing tcgen05.alloc, tcgen05.dealloc and
//     tcgen05.relinquish_alloc_permit (§9.7.16.7.1), including the
//     "would block" state a scheduler retries on;
//   - a Form describing a tcgen05.st / tcgen05.ld shape, repeat count and
//     16-bit packing (§9.7.16.2.3, §9.7.16.8.3, §9.7.16.8.4, Table 50) and
//     its per-thread register layout (Form.Place);
//   - Memory, which combines the cells, the allocator and the bookkeeping of
//     stores not yet waited for, and performs warp-collective Store and Load
//     with the checks the specification leaves undefined when violated.
//
// Every rule violation is reported as an *Error carrying a Rule, a message and
// the spec section it comes from.
package tmem

import "fmt"

// Dimensions of a CTA's Tensor Memory (PTX ISA §9.7.16.1).
const (
	Lanes   = 128 // lanes (rows, also called data paths)
	Columns = 512 // 32-bit columns per lane

	// LanesPerWarp is the number of lanes one warp of a warpgroup may
	// access: warp q (warp index mod 4) owns lanes 32q..32q+31
	// (§9.7.16.8.1).
	LanesPerWarp = 32

	// AllocUnit is the allocation granularity in columns (§9.7.16.7.1).
	AllocUnit = 32
)

// Addr is a 32-bit tensor memory address: lane in bits 31:16, column in
// bits 15:0 (PTX ISA §9.7.16.1.1).
type Addr uint32

// MakeAddr returns the address of (lane, column). Both are truncated to
// 16 bits.
func MakeAddr(lane, column int) Addr {
	return Addr(uint32(lane&0xffff)<<16 | uint32(column&0xffff))
}

// Lane returns bits 31:16 of a.
func (a Addr) Lane() int { return int(uint32(a) >> 16) }

// Column returns bits 15:0 of a.
func (a Addr) Column() int { return int(uint32(a) & 0xffff) }

// String formats a as "lane L, column C (0xXXXXXXXX)".
func (a Addr) String() string {
	return fmt.Sprintf("lane %d, column %d (%#08x)", a.Lane(), a.Column(), uint32(a))
}

// Quarter returns the lane quarter that warp may access: warp index within
// its warpgroup, i.e. warp mod 4 (§9.7.16.8.1). The quarter's lanes are
// 32*Quarter(warp) .. 32*Quarter(warp)+31.
func Quarter(warp int) int { return warp & 3 }

// CTAGroup is the .cta_group qualifier of tcgen05 instructions
// (§9.7.16.5.1): 1 for a single CTA, 2 for a CTA pair.
type CTAGroup uint8

// The two .cta_group values.
const (
	CTAGroup1 CTAGroup = 1
	CTAGroup2 CTAGroup = 2
)

func (g CTAGroup) String() string { return fmt.Sprintf(".cta_group::%d", uint8(g)) }

// Valid reports whether g is ::1 or ::2.
func (g CTAGroup) Valid() bool { return g == CTAGroup1 || g == CTAGroup2 }

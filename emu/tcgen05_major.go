package emu

// MN-major tcgen05.mma operands (PTX ISA §9.7.16.10.6, "Shared Memory
// Layout and Swizzling"): the transpose bits of the instruction descriptor
// (15 for A, 16 for B) make A M-major and B N-major. The shared-memory
// descriptor then describes the canonical MN-major layouts, which are
// wgmma's (operandAddr) plus one mode of tcgen05's own, 128-byte swizzling
// with 32-byte atomicity (swizzle mode 1), which only MN-major operands
// take:
//
//	none        ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))
//	32B/64B/128B ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16·T,SBO)), 16-byte chunks XOR row bits
//	128B, 32B atoms ((T,8,m),(4,k)) : ((1,T,LBO),(8T,SBO)), 32-byte chunks XOR row bits
//
// in units of elements, T = 16 bytes / element size: with 32-byte atoms a
// 128-byte run holds 128/eb consecutive rows (M or N), four values of K
// lie 128 bytes apart, the next run is LBO bytes on and the next four
// values of K SBO bytes on; address bits 5-6 (the 32-byte chunk) are XORed
// with bits 7-8. MN-major operands are allowed for f16, bf16, tf32, e4m3,
// e5m2 and 8-bit integers; 6- and 4-bit inputs are K-major only.

import (
	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// tcSwizzle128B32 is the swizzle mode (bits 61-63) of 128-byte swizzling
// with 32-byte atomicity.
const tcSwizzle128B32 = 1

// tcOperandAddr is the shared-memory address of the element of row (M or
// N index) r and K index kk, of eb bytes, of a tcgen05 operand described
// by desc, K-major or (trans) MN-major.
func tcOperandAddr(desc uint64, trans bool, r, kk, eb int) uint64 {
	if desc>>61 != tcSwizzle128B32 {
		// the 3-bit codes 2, 4 and 6 fill bits 62-63 as wgmma's 1, 2 and 3
		return operandAddr(desc, trans, r, kk, eb)
	}
	start := (desc & 0x3fff) << 4
	lbo := (desc >> 16 & 0x3fff) << 4
	sbo := (desc >> 32 & 0x3fff) << 4
	run := 128 / eb // rows in one 128-byte run
	a := start + uint64(r/run)*lbo + uint64(r%run*eb) + uint64(kk/4)*sbo + uint64(kk%4)*128
	return a ^ (a >> 7 & 3 << 5)
}

// checkTranspose checks the transpose bits of idesc v against the input
// formats: MN-major needs 16-bit, tf32 or 8-bit elements.
func (x *tcIdesc) checkTranspose(v uint32) error {
	mnMajor := func(f tensorcore.Format) bool {
		switch f {
		case tensorcore.F16, tensorcore.BF16, tensorcore.TF32, tensorcore.E4M3, tensorcore.E5M2:
			return true
		}
		return false
	}
	switch {
	case x.transA && (x.packed || !mnMajor(x.a)):
		return idescInvalid("idesc %#08x transposes A (bit 15) of %s elements; MN-major operands take f16, bf16, tf32, e4m3, e5m2 and 8-bit integers", v, tensorcore.Name(x.a))
	case x.transB && (x.packed || !mnMajor(x.b)):
		return idescInvalid("idesc %#08x transposes B (bit 16) of %s elements; MN-major operands take f16, bf16, tf32, e4m3, e5m2 and 8-bit integers", v, tensorcore.Name(x.b))
	}
	return nil
}

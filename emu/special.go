package emu

// Special registers set by the driver rather than by the launch geometry
// (PTX ISA §10): the reserved shared-memory region and the environment
// registers.

// reservedSmemBytes is the size of the reserved shared-memory region of a
// CTA on sm_90 (%reserved_smem_offset_cap; ptxas lowers the register to the
// constant 0x400).
const reservedSmemBytes = 1024

// reservedSlot1 is where %reserved_smem_offset_1 points inside the
// reserved region. The driver supplies it in a constant bank; cooperative
// groups keep a tile's scratch (a 32-bit arrival mask and 8 bytes per
// warp) there, so it leaves room for that.
const reservedSlot1 = 512

// userSmemBytes is the shared memory a CTA's program declares and the
// launch asks for (static and dynamic).
func userSmemBytes(p *Program, cfg *Config) int { return p.sharedStatic + cfg.SharedBytes }

// ctaSmemBytes is the shared memory the emulator allocates per CTA: the
// user's, then the reserved region when the program reads
// %reserved_smem_offset_* (at a 16-byte aligned offset).
func ctaSmemBytes(p *Program, cfg *Config) int {
	n := userSmemBytes(p, cfg)
	if p.reservedSmem {
		n = reservedBase(p, cfg) + reservedSmemBytes
	}
	return n
}

// reservedBase is the offset of the reserved region in a CTA's shared
// memory. On the GPU it sits below the user's shared memory; the emulator
// places it above, so that the addresses of the program's own shared
// variables do not depend on whether it reads these registers.
func reservedBase(p *Program, cfg *Config) int { return (userSmemBytes(p, cfg) + 15) &^ 15 }

// specialDriver returns the value of the driver-set special registers for
// lane l, and false for other kinds.
func (w *Warp) specialDriver(s specialSlot) (uint64, bool) {
	cl := w.CTA.cluster
	p, cfg := w.prog, cl.cfg
	// Offsets are .shared addresses, which carry the CTA's rank (memory.go).
	base := uint64(w.CTA.Rank+1)<<sharedRankShift + uint64(reservedBase(p, cfg))
	switch s.kind {
	case spReservedBegin, spReserved0:
		return base, true
	case spReservedEnd:
		return base + reservedSmemBytes, true
	case spReservedCap:
		return reservedSmemBytes, true
	case spReserved1:
		return base + reservedSlot1, true
	case spEnvreg:
		return envreg(cfg, int(s.off)), true
	}
	return 0, false
}

// envreg returns %envreg<n>. A cooperative launch passes the address of
// its grid workspace in %envreg1 (high 32 bits) and %envreg2 (low 32
// bits), where the CUDA runtime's grid_group::sync finds its barrier word
// (at offset 4); without one both read 0 and grid_group::sync traps, as on
// the GPU. Every other environment register reads 0.
func envreg(cfg *Config, n int) uint64 {
	switch n {
	case 1:
		return cfg.gridWorkspace >> 32
	case 2:
		return cfg.gridWorkspace & 0xffffffff
	}
	return 0
}

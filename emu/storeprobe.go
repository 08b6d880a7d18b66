package emu

import (
	"strconv"

	"github.com/ptxkit/ptxkit/ptx/token"
)

// StoreProbe finds the instruction that last stored one byte of a buffer
// argument, for naming where a result went wrong (ptxkit gpu-diff).
// While a program has a probe, every warp takes the checked global path
// (Warp.global), which compares each store with the probed byte.
type StoreProbe struct {
	Arg    int    // buffer argument index
	Offset uint64 // byte within it

	Found  bool
	Pos    token.Pos // of the storing instruction
	Opcode string
	Thread ThreadID
	Stores uint64 // stores that wrote the byte
}

// ProbeStores makes the next launches of p record in probe the last store
// to its byte; nil removes it. Launch with one job: the last store of a
// parallel run depends on timing.
func ProbeStores(p *Program, probe *StoreProbe) {
	p.probe = probe
	if probe != nil {
		p.probeRegion = argRegionName(probe.Arg)
	}
}

// probedGlobal is Warp.global's tail while the program has a probe:
// region r holds [a, a+n).
func (w *Warp) probedGlobal(l int, r *Region, a uint64, n int, write bool) []byte {
	p := w.prog.probe
	if off := a - r.Base; write && r.Name == w.prog.probeRegion && p.Offset >= off && p.Offset < off+uint64(n) {
		in := &w.prog.Insts[w.pc]
		p.Found, p.Pos, p.Opcode, p.Thread = true, in.Pos, in.Opcode, *w.threadID(l)
		p.Stores++
	}
	w.count(SpaceGlobal, n, write)
	return r.Data[a-r.Base : a-r.Base+uint64(n)]
}

// argRegionName is the name of buffer argument i's global allocation.
func argRegionName(i int) string { return "arg" + strconv.Itoa(i) }

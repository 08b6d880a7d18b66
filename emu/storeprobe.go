package emu

import (
	"strconv"

	"github.com/ptxkit/ptxkit/ptx/token"
)

// StoreProbe finds the instruction that last stored one byte of a buffer
// argument, for naming where a result went wrong (ptxkit gpu-diff).
// While a launch has a probe (Launch.Probe), every warp takes the checked
// global path (Warp.global), which compares each store with the probed
// byte.
type StoreProbe struct {
	Arg    int    // buffer argument index
	Offset uint64 // byte within it

	Found  bool
	Pos    token.Pos // of the storing instruction
	Opcode string
	Thread ThreadID
	Stores uint64 // stores that wrote the byte

	region string // the buffer's allocation name, set by Launch.Run
}

// probedGlobal is Warp.global's tail while the launch has a probe:
// region r holds [a, a+n).
func (w *Warp) probedGlobal(l int, r *Region, a uint64, n int, write bool) []byte {
	p := w.probe
	if off := a - r.Base; write && r.Name == p.region && p.Offset >= off && p.Offset < off+uint64(n) {
		in := &w.prog.Insts[w.pc]
		p.Found, p.Pos, p.Opcode, p.Thread = true, in.Pos, in.Opcode, *w.threadID(l)
		p.Stores++
	}
	w.count(SpaceGlobal, n, write)
	return r.Data[a-r.Base : a-r.Base+uint64(n)]
}

// argRegionName is the name of buffer argument i's global allocation.
func argRegionName(i int) string { return "arg" + strconv.Itoa(i) }

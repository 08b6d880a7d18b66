package emu

import "github.com/ptxkit/ptxkit/emu/race"

// The warp-level race hook of the fast load and store handlers
// (ops_fast.go): under --race a converged warp's access is checked in one
// call (race.Cluster.WarpShared / WarpGlobal) instead of one raceFast per
// lane, with the same checks, records and reports as the per-lane path.

// raceWarpChecks enables the warp-level hook; the tests turn it off to
// compare its reports with the per-lane path's.
var raceWarpChecks = true

// raceSkip notes the lanes of one warp-instruction that the warp-level
// hook has checked before it found a race at lane: the per-lane path the
// handler then takes stores or loads those lanes without checking them
// again, and stops at lane, whose report is made.
type raceSkip struct {
	w    *Warp
	pc   int32
	lane int32
}

// raceWarpWindow is warpWindow under --race. When the per-lane path would
// check every lane in the window it returns (a fast handler's window for
// the whole warp), it checks the lanes here, in one call, and returns the
// window and true; the window then checks nothing more. Otherwise (a lane
// outside the window or misaligned, a watch, a strong access, a race) it
// returns the per-lane path's window and false.
func (w *Warp) raceWarpWindow(sp Space, write bool, addr *[32]uint64, disp, n uint64) (fastWindow, bool) {
	f := w.window(sp, write)
	rc := w.CTA.cluster.race
	if !raceWarpChecks || f.data == nil || f.watched != nil || rc.Landing || !f.coversLanes(addr, w.Exec, disp, n) {
		return f, false
	}
	ri := w.raceInfo()
	if ri.scope != race.ScopeNone {
		return f, false
	}
	k := ri.kind(write)
	var lane int
	var r *race.Race
	if sp == SpaceShared {
		lane, r = rc.WarpShared(w.CTA.Rank, w.Index, w.Exec, addr, f.base-disp, int(n), len(w.CTA.Shared), k)
	} else {
		lane, r = rc.WarpGlobal(w.CTA.Rank, w.Index, w.Exec, addr, disp, int(n), k)
	}
	if lane < 0 {
		f.race = nil
		return f, true
	}
	a := addr[lane] + disp
	switch {
	case r == nil:
		w.Fault(lane, RuleUnsupported, "", "the race detector's shadow of global memory is full: the launch touched more than %d MiB of global memory; run it on smaller buffers or without --race",
			race.MaxGlobalCells*4>>20)
	case sp == SpaceShared:
		w.raceFault(lane, r, w.CTA.Rank, a-f.base)
	default:
		w.raceFault(lane, r, -1, a)
	}
	w.CTA.cluster.cfg.obs.race.skip = raceSkip{w: w, pc: w.pc, lane: int32(lane)}
	return f, false
}

// raceSkipped reports, for the per-lane path after raceWarpWindow found a
// race, whether lane l was checked already (true) or is the racing lane,
// whose report is made (false, and the path's checked access repeats it
// as it would after raceFast's own report). ok is false for every other
// access.
func (w *Warp) raceSkipped(l int32) (checked, ok bool) {
	rl := w.CTA.cluster.cfg.obs.race
	s := &rl.skip
	if s.w != w || s.pc != w.pc {
		return false, false
	}
	lane := s.lane
	if l < lane {
		return true, true
	}
	*s = raceSkip{}
	return false, l == lane
}

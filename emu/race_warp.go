package emu

import (
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/race"
)

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
// again, and stops at lane, whose report is made. direct says lane was the
// first of an access that changes allocation, which the per-lane path
// checks in Warp.global (raceGlobal) and does not repeat.
type raceSkip struct {
	w      *Warp
	pc     int32
	lane   int32
	direct bool
}

// raceWarpWindow is warpWindow under --race. When the per-lane path would
// check every lane in one window (the executing CTA's shared memory, the
// global allocation the warp last touched, or the one its first lane's
// checked access moves it to), it checks the lanes here, in one call, and
// returns that window and true; the window then checks nothing more.
// Otherwise (a lane outside the window or misaligned, a watch, a strong
// access, a race) it returns the per-lane path's window and false.
func (w *Warp) raceWarpWindow(sp Space, write bool, addr *[32]uint64, disp, n uint64) (fastWindow, bool) {
	f := w.window(sp, write)
	rc := w.CTA.cluster.race
	if !raceWarpChecks || rc.Landing || f.watched != nil || w.raceInfo().scope != race.ScopeNone {
		return f, false
	}
	exec, first := w.Exec, bits.TrailingZeros32(w.Exec)
	var next *Region
	if f.data == nil || !f.coversLanes(addr, exec, disp, n) {
		if next = w.raceNextRegion(sp, write, addr, disp, n); next == nil {
			return f, false
		}
		if next.ReadOnly {
			// Warp.global does not shadow kernel parameters: the first
			// lane goes unchecked, the others (through the window) not.
			exec &^= 1 << first
		}
	}
	lane, r := w.raceWarpCheck(sp, write, exec, addr, disp, n, f.base)
	if lane < 0 {
		if next != nil {
			w.cache = next
			return fastWindow{base: next.Base, data: next.Data}, true
		}
		f.race = nil
		return f, true
	}
	skip := raceSkip{w: w, pc: w.pc, lane: int32(lane)}
	if next != nil {
		if lane == first {
			skip.direct = true
		} else {
			w.cache = next
			f = w.window(sp, write)
		}
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
	w.CTA.cluster.cfg.obs.race.skip = skip
	return f, false
}

// raceWarpCheck checks the lanes in exec (none: nothing to check) and
// returns the first racing lane and its race (nil when the shadow of
// global memory filled), or -1.
func (w *Warp) raceWarpCheck(sp Space, write bool, exec uint32, addr *[32]uint64, disp, n, base uint64) (int, *race.Race) {
	if exec == 0 {
		return -1, nil
	}
	rc, k := w.CTA.cluster.race, w.raceInfo().kind(write)
	if sp == SpaceShared {
		return rc.WarpShared(w.CTA.Rank, w.Index, exec, addr, base-disp, int(n), len(w.CTA.Shared), k)
	}
	return rc.WarpGlobal(w.CTA.Rank, w.Index, exec, addr, disp, int(n), k)
}

// raceNextRegion returns the global allocation that the per-lane path's
// first lane moves the warp to (Warp.global, outside the allocation it
// last touched) when it holds every lane's aligned access, so that the
// lanes after the first use it through the window; or nil.
func (w *Warp) raceNextRegion(sp Space, write bool, addr *[32]uint64, disp, n uint64) *Region {
	if sp != SpaceGlobal || w.watchGlobal || w.probe != nil {
		return nil
	}
	or, lo, hi := laneBounds(addr, w.Exec, disp)
	if or&(n-1) != 0 || hi-lo >= 1<<32 {
		return nil
	}
	r := w.CTA.cluster.Mem.global.find(lo, int(hi-lo+n))
	if r == nil || r == w.cache || write && r.ReadOnly {
		return nil
	}
	return r
}

// raceSkipped reports, for the per-lane path after raceWarpWindow found a
// race, whether lane l was checked already (true) or is the racing lane,
// whose report is made (false, and the path's checked access repeats it
// as it would after raceFast's own report). ok is false for every other
// access.
func (w *Warp) raceSkipped(l int32) (checked, ok bool) {
	s := &w.CTA.cluster.cfg.obs.race.skip
	if s.w != w || s.pc != w.pc || s.direct {
		return false, false
	}
	lane := s.lane
	if l < lane {
		return true, true
	}
	*s = raceSkip{}
	return false, l == lane
}

// raceDirect reports whether lane l's checked access (Warp.global) is the
// racing first lane of an allocation change whose report raceWarpWindow
// made: it then fails without checking again, as the per-lane path's one
// check did.
func (w *Warp) raceDirect(l int) bool {
	s := &w.CTA.cluster.cfg.obs.race.skip
	if s.w != w || !s.direct {
		return false
	}
	lane, pc := s.lane, s.pc
	*s = raceSkip{}
	return pc == w.pc && int32(l) == lane
}

package emu

import "fmt"

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// spec sections cited by memory reports.
const (
	specAlign   = "PTX ISA §6.4.1 (addresses must be aligned to the access size)"
	specWindows = "PTX ISA §5.1, §6.4.1.1 (state spaces and generic addressing)"
	specStConst = "PTX ISA §9.7.9.11 (st: stores to const memory are illegal)"
	specStParam = "PTX ISA §5.1.6 (kernel parameters are read-only)"
	specDSMEM   = "PTX ISA §5.1.7, CUDA §2.2.2 (distributed shared memory)"
)

// Bytes returns the n bytes at address a of state space sp as lane l of w
// sees them, checking alignment (a multiple of n) and that the whole range
// lies in one allocation of the right window. It counts n bytes loaded or
// stored for the statistics. On failure it records a report and returns
// nil; the handler must then return Fault. When a keep-going run goes on
// after the report, it returns scratch bytes instead (see keptNil).
func (w *Warp) Bytes(l int, sp Space, a uint64, n int, write bool) []byte {
	if a&uint64(n-1) != 0 {
		w.Fault(l, ruleMisaligned, specAlign, "misaligned %d-byte %s access at %s address %#x (not a multiple of %d)", n, rw(write), sp, a, n)
		return w.keptNil(n)
	}
	if b := w.bytesAligned(l, sp, a, n, n, write); b != nil {
		return b
	}
	return w.keptNil(n)
}

// BytesAlign is Bytes with an explicit alignment requirement.
func (w *Warp) BytesAlign(l int, sp Space, a uint64, n, align int, write bool) []byte {
	if a&uint64(align-1) != 0 {
		w.Fault(l, ruleMisaligned, specAlign, "misaligned %d-byte %s access at %s address %#x (not a multiple of %d)", n, rw(write), sp, a, align)
		return w.keptNil(n)
	}
	if b := w.bytesAligned(l, sp, a, n, align, write); b != nil {
		return b
	}
	return w.keptNil(n)
}

func rw(write bool) string {
	if write {
		return "store"
	}
	return "load"
}

func (w *Warp) bytesAligned(l int, sp Space, a uint64, n, align int, write bool) []byte {
	switch sp {
	case SpaceGlobal:
		if r := w.cache; r != nil && a >= r.Base && a+uint64(n) <= r.Base+uint64(len(r.Data)) && !(write && r.ReadOnly) {
			if w.CTA.cluster.race != nil && !w.raceGlobal(l, a, n, write) {
				return nil
			}
			w.count(SpaceGlobal, n, write)
			return r.Data[a-r.Base : a-r.Base+uint64(n)]
		}
		return w.global(l, a, n, write, SpaceGlobal)
	case SpaceShared, SpaceSharedCluster:
		return w.shared(l, sp, a, n, write, sp)
	case SpaceLocal, SpaceParamFunc:
		return w.local(l, a, n, write, sp)
	case SpaceConst:
		return w.konst(l, a, n, write, sp)
	case SpaceParam:
		return w.param(l, a, n, write)
	}
	return w.generic(l, a, n, write)
}

func (w *Warp) count(sp Space, n int, write bool) {
	if write {
		w.stats.Stored[sp] += uint64(n)
	} else {
		w.stats.Loaded[sp] += uint64(n)
	}
}

func (w *Warp) global(l int, a uint64, n int, write bool, asked Space) []byte {
	mem := w.CTA.cluster.Mem
	r := mem.global.find(a, n)
	if r == nil && asked == SpaceGlobal {
		if g := genericSpace(a); g != SpaceGlobal && g != SpaceParam {
			w.Fault(l, ruleWrongWindow, specWindows, "%d-byte %s at .global address %#x, which lies in the generic %s window; convert generic addresses with cvta.to.global, or use the %s space", n, rw(write), a, g, g)
			return nil
		}
	}
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte %s at %s address %#x does not lie inside any global allocation (%s)", n, rw(write), asked, a, mem.global.near(a))
		return nil
	}
	if write && r.ReadOnly {
		w.Fault(l, ruleStoreParam, specStParam, "store to kernel parameter memory at %#x (%s)", a, r.Name)
		return nil
	}
	if w.CTA.cluster.race != nil && !r.ReadOnly && !w.raceGlobal(l, a, n, write) {
		return nil
	}
	if w.watchGlobal {
		return w.watchedGlobal(l, r, a, n, write)
	}
	if w.probe != nil {
		return w.probedGlobal(l, r, a, n, write)
	}
	w.cache = r
	w.count(SpaceGlobal, n, write)
	return r.Data[a-r.Base : a-r.Base+uint64(n)]
}

// SharedTarget returns the CTA and offset a shared-space address names,
// or reports why it names none. own restricts it to the executing CTA
// (.shared::cta).
func (w *Warp) SharedTarget(l int, a uint64, n int, own bool, write bool) (*CTA, uint32, bool) {
	cl := w.CTA.cluster
	rank := int(a>>sharedRankShift) - 1
	off := uint32(a & sharedOffMask)
	if genericSpace(a) == SpaceSharedCluster {
		w.Fault(l, ruleWrongWindow, specWindows, "%d-byte %s at shared address %#x, which is a generic address; convert it with cvta.to.shared or drop the space qualifier", n, rw(write), a)
		return nil, 0, false
	}
	if a>>32 != 0 || rank < 0 || rank >= len(cl.CTAs) {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte %s at shared address %#x: not the shared memory of any CTA of the cluster", n, rw(write), a)
		return nil, 0, false
	}
	if own && rank != w.CTA.Rank {
		w.Fault(l, ruleWrongWindow, specWindows, "%d-byte %s at .shared::cta address %#x names the shared memory of CTA rank %d, not of the executing CTA (rank %d); use .shared::cluster", n, rw(write), a, rank, w.CTA.Rank)
		return nil, 0, false
	}
	c := cl.CTAs[rank]
	if int(off)+n > len(c.Shared) {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte %s at shared offset %#x of CTA rank %d is past its %d bytes of shared memory", n, rw(write), off, rank, len(c.Shared))
		return nil, 0, false
	}
	if c.exited && c != w.CTA {
		w.Fault(l, ruleRemoteExited, specDSMEM, "%s of shared memory of CTA rank %d after it exited", rw(write), rank)
		return nil, 0, false
	}
	return c, off, true
}

func (w *Warp) shared(l int, sp Space, a uint64, n int, write bool, asked Space) []byte {
	c, off, ok := w.SharedTarget(l, a, n, sp == SpaceShared, write)
	if !ok {
		return nil
	}
	if c.Watch != nil && c.Watch(w, l, off, n, write) != Continue {
		return nil
	}
	if w.CTA.cluster.race != nil && !w.raceShared(l, c, off, n, write) {
		return nil
	}
	w.count(sp, n, write)
	return c.Shared[off : off+uint32(n)]
}

func (w *Warp) local(l int, a uint64, n int, write bool, sp Space) []byte {
	frame := uint64(w.prog.localFrame)
	if genericSpace(a) == SpaceLocal {
		w.Fault(l, ruleWrongWindow, specWindows, "%d-byte %s at %s address %#x, which is a generic address; convert it with cvta.to.local or drop the space qualifier", n, rw(write), sp, a)
		return nil
	}
	if a+uint64(n) > frame || a+uint64(n) < a {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte %s at %s address %#x is outside the thread's %d bytes of local memory", n, rw(write), sp, a, frame)
		return nil
	}
	base := uint64(w.Index*32+l) * frame
	w.count(sp, n, write)
	return w.CTA.local[base+a : base+a+uint64(n)]
}

func (w *Warp) konst(l int, a uint64, n int, write bool, sp Space) []byte {
	if write {
		w.Fault(l, ruleStoreConst, specStConst, "store to constant memory at .const address %#x", a)
		return nil
	}
	mem := w.CTA.cluster.Mem
	r := mem.konst.find(a, n)
	if r == nil {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte load at .const address %#x is outside every constant variable (%s)", n, a, mem.konst.near(a))
		return nil
	}
	w.count(sp, n, write)
	return r.Data[a-r.Base : a-r.Base+uint64(n)]
}

func (w *Warp) param(l int, a uint64, n int, write bool) []byte {
	if w.depth[l] > 0 {
		return w.local(l, a, n, write, SpaceParamFunc)
	}
	if write {
		w.Fault(l, ruleStoreParam, specStParam, "store to kernel parameter space at address %#x", a)
		return nil
	}
	p := w.CTA.cluster.Mem.Params
	if p == nil || a+uint64(n) > uint64(len(p.Data)) || a+uint64(n) < a {
		w.Fault(l, ruleOutOfBounds, specWindows, "%d-byte load at .param address %#x is outside the kernel parameters", n, a)
		return nil
	}
	w.count(SpaceParam, n, write)
	return p.Data[a : a+uint64(n)]
}

// generic resolves a generic address through the windows of memory.go.
func (w *Warp) generic(l int, a uint64, n int, write bool) []byte {
	switch a >> windowShift {
	case sharedWindow >> windowShift:
		return w.shared(l, SpaceSharedCluster, a-sharedWindow, n, write, SpaceGeneric)
	case localWindow >> windowShift:
		return w.local(l, a-localWindow, n, write, SpaceLocal)
	case constWindow >> windowShift:
		return w.konst(l, a-constWindow, n, write, SpaceConst)
	}
	if r := w.cache; r != nil && a >= r.Base && a+uint64(n) <= r.Base+uint64(len(r.Data)) && !(write && r.ReadOnly) {
		if w.CTA.cluster.race != nil && !w.raceGlobal(l, a, n, write) {
			return nil
		}
		w.count(SpaceGlobal, n, write)
		return r.Data[a-r.Base : a-r.Base+uint64(n)]
	}
	return w.global(l, a, n, write, SpaceGeneric)
}

// genericSpace returns the state space whose window holds generic address a.
func genericSpace(a uint64) Space {
	switch a >> windowShift {
	case sharedWindow >> windowShift:
		return SpaceSharedCluster
	case localWindow >> windowShift:
		return SpaceLocal
	case constWindow >> windowShift:
		return SpaceConst
	case paramWindow >> windowShift:
		return SpaceParam
	}
	return SpaceGlobal
}

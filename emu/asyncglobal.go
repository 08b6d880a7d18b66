package emu

import "github.com/ptxkit/ptxkit/emu/asyncgroup"

// The global-memory watch of the async sanitizer (PTX ISA §9.7.9.25.1:
// reading the destination, or modifying the source, of an asynchronous
// operation before its completion is observed is undefined).
//
// The shared-memory watch (asyncstate.go) sees accesses through CTA.Watch.
// Global memory has no such hook: its accesses go through the warp's
// cached region (Warp.cache) and, on a miss, through Warp.global. While a
// cluster has outstanding operations with a guarded global range (the
// source of cp.async and of bulk copies from global memory, the
// destination of bulk stores and reductions to global memory), every warp
// of the cluster has watchGlobal set and no cached region, so each global
// access takes the checked path and meets the tracker here. With no such
// range outstanding the cost is one predictable branch on the slow path;
// the cached fast paths are unchanged.
//
// Only accesses by threads of the issuing cluster are checked. Global
// memory is shared by every cluster of the launch, and with --jobs other
// clusters run on other goroutines in an order that varies from run to
// run; checking their accesses would make the verdict depend on that
// order. Such cross-cluster races are outside the watch (docs/async.md).

// isGlobalRange reports whether tracker range r names global memory (the
// tracker names shared bytes by their generic .shared::cluster address).
func isGlobalRange(r asyncgroup.Range) bool { return genericSpace(r.Lo) != SpaceSharedCluster }

// globalBox is the smallest range holding every guarded global range of a
// cluster (it may hold more: it grows at issue and is emptied only when
// nothing is guarded), so most accesses elsewhere skip the tracker.
type globalBox struct{ lo, hi uint64 }

func (b *globalBox) add(r asyncgroup.Range) {
	if r.Lo >= r.Hi || !isGlobalRange(r) {
		return
	}
	if b.lo >= b.hi {
		*b = globalBox{r.Lo, r.Hi}
		return
	}
	b.lo, b.hi = min(b.lo, r.Lo), max(b.hi, r.Hi)
}

// armGlobalWatch makes every warp of c take the checked global path, once
// operation id, which guards a global range, has been issued.
func (cs *clusterAsync) armGlobalWatch(c *Cluster, id asyncgroup.OpID) {
	if cs.tracker.Watched() == 0 {
		return
	}
	if op := cs.tracker.Get(id); op != nil {
		cs.globalBox.add(op.Dst)
		if !op.SourceFree {
			cs.globalBox.add(op.Src)
		}
	}
	if cs.globalArmed {
		return
	}
	cs.globalArmed = true
	for _, w := range c.warps {
		w.watchGlobal = true
		w.cache = nil
	}
}

// watchedGlobal is Warp.global's tail while watchGlobal is set: region r
// holds [a, a+n). It checks the access against the cluster's outstanding
// operations, and disarms the warp once none guards global memory.
func (w *Warp) watchedGlobal(l int, r *Region, a uint64, n int, write bool) []byte {
	cs, ok := w.CTA.cluster.ext[clusterAsyncKey].(*clusterAsync)
	if !ok || cs.tracker.Watched() == 0 {
		// Nothing guarded (any more, or the warp was armed in an earlier
		// cluster): back to the cached path.
		w.watchGlobal = false
		if ok {
			cs.globalArmed = false
			cs.globalBox = globalBox{}
		}
		if w.probe != nil {
			return w.probedGlobal(l, r, a, n, write)
		}
		w.cache = r
	} else if a+uint64(n) <= cs.globalBox.lo || a >= cs.globalBox.hi {
		// Outside every guarded global range.
	} else if h := cs.globalHazard(asyncgroup.Range{Lo: a, Hi: a + uint64(n)}, write); h != nil {
		verb, role := hazardWords(h.Rule)
		where, issuer := cs.tracker.Describes(h.Op)
		w.Fault(l, h.Rule, h.Spec, "%s %d bytes at global address %#x (%s), the %s of %s at %s issued by %s, before a wait observed its completion",
			verb, n, a, r.Label(), role, h.Op.Name, where, issuer)
		return nil
	}
	if w.probe != nil {
		return w.probedGlobal(l, r, a, n, write)
	}
	w.count(SpaceGlobal, n, write)
	return r.Data[a-r.Base : a-r.Base+uint64(n)]
}

func (cs *clusterAsync) globalHazard(r asyncgroup.Range, write bool) *asyncgroup.Hazard {
	if write {
		return cs.tracker.CheckWrite(r)
	}
	return cs.tracker.CheckRead(r)
}

// asyncGlobalBytes returns the n-byte global operand of an asynchronous
// instruction, which must be align-byte aligned: the instruction's own
// rule, not the size of the access (cp.async.bulk copies any multiple of
// 16 bytes between 16-byte aligned addresses, §9.7.9.25.4.1; cp.async
// aligns both addresses to cp-size and may read fewer bytes,
// §9.7.9.25.3.1). The operation's own access is not a plain access, so it
// is not checked against other outstanding operations, as their shared
// operands are not (SharedTarget bypasses CTA.Watch).
func (w *Warp) asyncGlobalBytes(l int, a uint64, n, align int, write bool) []byte {
	armed := w.watchGlobal
	w.watchGlobal = false
	if rc := w.CTA.cluster.race; rc != nil { // the operation's access is checked as it lands
		rc.Landing = true
		defer func() { rc.Landing = false }()
	}
	b := w.BytesAlign(l, SpaceGlobal, a, n, align, write)
	if armed {
		w.watchGlobal, w.cache = true, nil
	}
	return b
}

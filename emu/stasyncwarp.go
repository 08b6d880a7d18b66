package emu

import (
	"encoding/binary"
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/asyncgroup"
	"github.com/ptxkit/ptxkit/emu/mbarrier"
)

// stAsyncWarp runs st.async for a warp whose active lanes are one run of
// adjacent lanes storing to adjacent destinations in one CTA with one
// mbarrier (a producer filling a consumer's mailbox), under the eager
// policy without the race detector, a trace or a barrier observer: the
// lanes' operations are issued as one tracker batch, their data copied,
// and their complete-tx performed as one change of the mbarrier. It
// leaves the state that stAsyncEager leaves, lane by lane, and reports
// whether it ran: when any lane would fault, a limit would be reached,
// or a phase would complete before the last lane's complete-tx, it does
// nothing and the lane-by-lane path runs (and reports what it finds).
func (w *Warp) stAsyncWarp(cs *clusterAsync, in *Inst) bool {
	cl := cs.cl
	m := w.Exec
	first := bits.TrailingZeros32(m)
	k := bits.OnesCount32(m)
	if k < 2 || m>>first&(m>>first+1) != 0 || cl.cfg.obs.barrier != nil {
		return false // a single lane, or lanes with gaps between them
	}
	n := in.Type.Size() * int(in.Vec)
	if !w.lanesAdjacent(in, first, k, uint64(n)) {
		return false
	}
	if cs.tracker.Len()+k > maxOutstandingAsync || cl.queued >= maxQueuedAsync {
		return false
	}
	st, ok := w.asyncTargetQuiet(first, in, n)
	if !ok {
		return false
	}
	// The last lane's destination: in the same CTA and in bounds, so every
	// lane between is too.
	last := uint64(st.off) + uint64((k-1)*n)
	if last>>sharedRankShift != 0 || last+uint64(n) > uint64(len(st.dst.Shared)) || st.dst.exited {
		return false
	}
	if uint64(st.barOff) < last+uint64(n) && uint64(st.off) < uint64(st.barOff)+mbarrier.Size {
		return false // the data lands on the mbarrier: the lane whose store does clobbers it first
	}
	s := asyncCTA(st.dst) // watch the destination CTA's shared memory from now on
	phase, _ := s.bars.Phases(uint64(st.barOff))
	r, ok := s.bars.CompleteTxRun(uint64(st.barOff), loadWord(st.dst, st.barOff), uint32(n), k)
	if !ok {
		return false
	}
	w.storeLanes(in, first, k, st.dst.Shared[st.off:st.off+uint32(k*n)])
	op := cs.tracker.IssueBatch(in.Opcode, w, w.siteAt(first), 1<<32, st.generic, uint64(n), k)
	op.Landed = true
	cs.armGlobalWatch(cl, op.ID)
	cl.issueSeq += uint64(k) // as Cluster.Issue counts them
	storeWord(st.dst, st.barOff, r.Word)
	cs.tracker.SignalOp(op, asyncBarrierRef(st.dst, st.barOff), phase)
	return true
}

// lanesAdjacent reports whether the k lanes from first name one mbarrier
// and destinations n bytes apart, in lane order.
func (w *Warp) lanesAdjacent(in *Inst, first, k int, n uint64) bool {
	a := w.R[in.A+int32(first) : in.A+int32(first+k)]
	b := w.R[in.C+int32(first) : in.C+int32(first+k)]
	b = b[:len(a)]
	a0, b0 := a[0], b[0]
	next := a0
	for i, x := range a {
		if x != next || b[i] != b0 {
			return false
		}
		next += n
	}
	return next > a0 // no wrap
}

// storeLanes writes the values of the k lanes from first, adjacent in
// dst, as storeValue gathers them.
func (w *Warp) storeLanes(in *Inst, first, k int, dst []byte) {
	if in.Vec == 1 {
		v := w.R[in.B+int32(first) : in.B+int32(first+k)]
		switch in.Type.Size() {
		case 4:
			for len(v) >= 2 && len(dst) >= 8 { // two lanes as one 8-byte store
				binary.LittleEndian.PutUint64(dst, uint64(uint32(v[0]))|v[1]<<32)
				v, dst = v[2:], dst[8:]
			}
			if len(v) == 1 {
				binary.LittleEndian.PutUint32(dst, uint32(v[0]))
			}
			return
		case 8:
			dst = dst[:8*len(v)]
			for i, x := range v {
				binary.LittleEndian.PutUint64(dst[8*i:], x)
			}
			return
		}
	}
	n := len(dst) / k
	for l := first; l < first+k; l++ {
		w.storeValue(l, in, dst[:n])
		dst = dst[n:]
	}
}

// asyncTargetQuiet is asyncTarget for lane l without a report: false when
// any check of the destination or the mbarrier would fail.
func (w *Warp) asyncTargetQuiet(l int, in *Inst, n int) (asyncStore, bool) {
	dst, off, ok := w.clusterSharedQuiet(in, w.R[in.A+int32(l)]+uint64(in.Off), n)
	if !ok {
		return asyncStore{}, false
	}
	bar, boff, ok := w.clusterSharedQuiet(in, w.mbarAddr(l, in), 8)
	if !ok || bar != dst {
		return asyncStore{}, false
	}
	return asyncStore{dst: dst, off: off, n: n, barOff: boff, generic: sharedGeneric(dst, off)}, true
}

// clusterSharedQuiet is clusterShared (and the SharedTarget it calls)
// without a report: false where either would report.
func (w *Warp) clusterSharedQuiet(in *Inst, a uint64, n int) (*CTA, uint32, bool) {
	switch in.Space {
	case SpaceGeneric:
		if genericSpace(a) != SpaceSharedCluster {
			return nil, 0, false
		}
		a -= sharedWindow
	case SpaceSharedCluster, SpaceShared:
	default:
		return nil, 0, false
	}
	cl := w.CTA.cluster
	rank := int(a>>sharedRankShift) - 1
	off := uint32(a & sharedOffMask)
	if a&uint64(n-1) != 0 || genericSpace(a) == SpaceSharedCluster || a>>32 != 0 || rank < 0 || rank >= len(cl.CTAs) {
		return nil, 0, false
	}
	c := cl.CTAs[rank]
	if int(off)+n > len(c.Shared) || c.exited && c != w.CTA {
		return nil, 0, false
	}
	return c, off, true
}

// asyncBarrierRef names the mbarrier at offset off of c for the tracker.
func asyncBarrierRef(c *CTA, off uint32) asyncgroup.BarrierRef {
	return asyncgroup.BarrierRef{CTA: c.Rank, Addr: uint64(off)}
}

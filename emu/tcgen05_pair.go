package emu

// tcgen05.mma.cta_group::2 (PTX ISA §9.7.16.10.9, the data paths of
// §9.7.16.10.5): one MMA of M = 256 or 128 over a CTA pair, the two CTAs of
// a cluster whose ranks differ in bit 0. CTA v of the pair (v = rank & 1)
// holds rows M/2·v..M/2·v+M/2-1 of A and columns vN/2..vN/2+N/2-1 of B in
// its shared memory, at the offsets the same two descriptors give in each
// CTA, and the same rows of D in its Tensor Memory at the same address:
// lanes 0-127 for M = 256 (Layout A), folded over the lanes for M = 128
// (Layout B, tcgen05_layout.go); A in Tensor Memory (M = 256 only) is split
// the same way. One thread of either CTA issues the MMA; it lands in issue
// order with the issuing CTA's other tcgen05 operations, and a
// tcgen05.commit of the issuing warp (with .multicast::cluster to reach
// both CTAs' mbarriers) tracks it. Block scaling runs at M = 256, each
// CTA reading the scale factors of its rows (tcgen05_scaled.go).

// checkPairShape checks M and N of a .cta_group::2 descriptor.
func checkPairShape(v uint32, m, n int, pair bool) error {
	switch {
	case !pair:
		return nil
	case m != 128 && m != 256:
		return idescInvalid("idesc %#08x gives M = %d (bits 24-28 = M>>4); .cta_group::2 allows 128 and 256", v, m)
	case n%16 != 0 || n < 16 || n > 256:
		return idescInvalid("idesc %#08x gives N = %d; with .cta_group::2 each CTA holds N/2 columns of B, so N is 16 to 256 in steps of 16", v, n)
	}
	return nil
}

// operandCTAs returns the ranks of the CTAs that hold the operands: the
// executing CTA, or the even and the odd CTA of its pair.
func (op *tcMMAOp) operandCTAs(w *Warp, l int) ([]int, Status) {
	if !op.x.pair {
		return []int{w.CTA.Rank}, Continue
	}
	cl := w.CTA.cluster
	even := w.CTA.Rank &^ 1
	if even+1 >= len(cl.CTAs) {
		return nil, w.Fault(l, ruleTcgen05Pair, specTcPair, "tcgen05.mma.cta_group::2 in CTA rank %d, which has no peer CTA (rank %d) in its cluster of %d",
			w.CTA.Rank, w.CTA.Rank^1, len(cl.CTAs))
	}
	op.pair = &[2]*ctaTMEM{cl.CTAs[even].Ext(tmemKey).(*ctaTMEM), cl.CTAs[even+1].Ext(tmemKey).(*ctaTMEM)}
	return []int{even, even + 1}, Continue
}

// notePartner records a .cta_group::2 MMA issued by ct with the peer CTA,
// whose Tensor Memory it writes: the peer lands it before its Tensor
// Memory is recycled at exit.
func (op *tcMMAOp) notePartner(ct *ctaTMEM, q *tcQueued) {
	if op.pair == nil || q.landed {
		return
	}
	for _, t := range op.pair {
		if t != ct {
			t.partnerOps = append(t.partnerOps, q)
		}
	}
}

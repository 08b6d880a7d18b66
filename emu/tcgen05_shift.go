package emu

// tcgen05.shift.cta_group::N.down [taddr] (PTX ISA §9.7.16.9.2): an
// asynchronous shift of the 32-byte elements (8 columns) of the matrix at
// taddr down by one row: for every row from the address's lane to lane
// 126, its 8 cells move to the next lane; the last row's cells are lost
// and the first row keeps its cells (this implementation's reading of
// "across all the rows, except the last"). The lane of taddr must be a
// multiple of 32. With .cta_group::2 the matrix at the same address in the
// peer CTA is shifted too. One thread issues it; it lands in issue order
// with the CTA's tcgen05.mma and tcgen05.cp, tracked by tcgen05.commit.

import (
	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

const specTcShift = "PTX ISA §9.7.16.9.2 (tcgen05.shift: the lane of taddr must be aligned to 32)"

// tcShiftCols is the width of a shifted element: 32 bytes.
const tcShiftCols = 8

func decodeTcShift(d *Decoder, in *ast.Instruction, out *Inst, x *tcInst, q Quals) error {
	g, err := ctaGroupOf(d, in, q)
	if err != nil {
		return err
	}
	if !q.Has(isa.QDown) {
		return d.Errorf(in, "%s needs .down", in.FullOpcode())
	}
	if len(in.Operands) != 1 {
		return d.Errorf(in, "tcgen05.shift takes [taddr]")
	}
	x.group = g
	if out.A, out.Off, _, err = d.Addr(in.Operands[0]); err != nil {
		return err
	}
	out.Exec = execTcShift
	return nil
}

func execTcShift(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		addr := tmem.Addr(uint32(w.R[in.A+int32(l)] + uint64(in.Off)))
		targets := []*ctaTMEM{ct}
		if x.group == tmem.CTAGroup2 {
			peer := w.CTA.Rank ^ 1
			if peer >= len(w.CTA.cluster.CTAs) {
				return w.Fault(l, ruleTcgen05Pair, specTcPair, "tcgen05.shift.cta_group::2 in CTA rank %d, which has no peer CTA (rank %d) in its cluster of %d",
					w.CTA.Rank, peer, len(w.CTA.cluster.CTAs))
			}
			targets = append(targets, w.CTA.cluster.CTAs[peer].Ext(tmemKey).(*ctaTMEM))
		}
		for _, t := range targets {
			if st := checkShiftRegion(w, l, t.memory(), addr); st != Continue {
				return st
			}
		}
		run := func() {
			for _, t := range targets {
				shiftDown(t.memory(), addr)
			}
		}
		q, st := issueQueuedOp(w, l, ct, "tcgen05.shift", run)
		if st != Continue {
			return st
		}
		if len(targets) == 2 && !q.landed {
			targets[1].partnerOps = append(targets[1].partnerOps, q)
		}
	}
	return Continue
}

// checkShiftRegion checks the shifted matrix: lane a multiple of 32, its
// 8 columns allocated.
func checkShiftRegion(w *Warp, l int, mem *tmem.Memory, addr tmem.Addr) Status {
	if addr.Lane()%32 != 0 {
		return w.Fault(l, string(tmem.RuleLaneQuarter), specTcShift, "tcgen05.shift at Tensor Memory address %s: lane %d is not a multiple of 32", addr, addr.Lane())
	}
	return checkTcRegion(w, l, mem, "the shifted matrix", 128, tcShiftCols, tmem.Addr(uint32(addr)&0xffff))
}

// shiftDown moves rows lane..126 of the 8 columns at addr one lane down.
func shiftDown(mem *tmem.Memory, addr tmem.Addr) {
	c0 := addr.Column()
	for r := tmem.Lanes - 1; r > addr.Lane(); r-- {
		for c := c0; c < c0+tcShiftCols; c++ {
			mem.SetCell(r, c, mem.Cell(r-1, c))
		}
	}
}

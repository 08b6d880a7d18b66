package emu

// tcgen05.cp (PTX ISA §9.7.16.9.2): an asynchronous copy of a matrix,
// described by a shared-memory matrix descriptor exactly like a
// tcgen05.mma operand (row r, byte b at descAddr), to Tensor Memory at
// taddr, with .cta_group::1:
//
//	.128x256b                  128 rows × 32 bytes to lanes 0-127, 8 columns
//	.128x128b                  128 rows × 16 bytes to lanes 0-127, 4 columns
//	.4x256b                    4 rows × 32 bytes to lanes l..l+3 (l the address's lane)
//	.32x128b.warpx4            32 rows × 16 bytes to lanes r, 32+r, 64+r and 96+r
//	.64x128b.warpx2::02_13     64 rows × 16 bytes: rows 0-31 to the lanes of warps 0 and 1,
//	                           rows 32-63 to those of warps 2 and 3 (pairs (0,2) and (1,3))
//	.64x128b.warpx2::01_23     rows 0-31 to warps 0 and 2, rows 32-63 to warps 1 and 3
//
// Row r's bytes 4c..4c+3 are column c of its lane. The multicast forms
// start at lane 0. With .b8x16.b6x16_p32 or .b8x16.b4x16_p64 each 16-byte
// chunk of a row, 16 elements of 6 or 4 bits packed from bit 0 and padded
// to 16 bytes, becomes 16 one-byte containers: a 6-bit element in bits 0-5,
// a 4-bit element in bits 2-5 (the layout .kind::f8f6f4 reads from Tensor
// Memory). The warp-pair distribution of .64x128b and the container bit
// positions are this implementation's reading of the manual's figures.
//
// The copy reads shared memory when it issues and writes Tensor Memory
// when it lands, in issue order with the CTA's tcgen05.mma, and
// tcgen05.commit tracks it. With .cta_group::2 the copy, issued by one CTA
// of a pair, runs in both: each CTA's shared memory at the descriptor's
// offset to its own Tensor Memory at taddr (as a .cta_group::2 MMA reads
// each CTA's operands from its own shared memory; the manual does not say
// it in words, and this is the emulator's reading).

import (
	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

const specTcCp = "PTX ISA §9.7.16.9.2 (tcgen05.cp)"

// tcCpInst is a decoded tcgen05.cp (Inst.Ext).
type tcCpInst struct {
	taddr    int32
	off      int64
	desc     int32
	rows     int // source rows
	rowBytes int // 16 or 32
	// warps gives, for each half of the rows (one half unless .64x128b),
	// the warps whose lane quarters receive them; nil: lanes from the
	// address's lane.
	warps [][]int
	// srcBits is 6 or 4 for the decompressing forms, 0 otherwise.
	srcBits int
	pair    bool // .cta_group::2
}

// tcCpShapes are the shapes: source rows and bytes per row.
var tcCpShapes = map[isa.Qual][2]int{isa.Q128x256b: {128, 32}, isa.Q128x128b: {128, 16},
	isa.Q4x256b: {4, 32}, isa.Q32x128b: {32, 16}, isa.Q64x128b: {64, 16}}

// tcCpMulticast are the warps of each half of the rows per multicast.
var tcCpMulticast = map[isa.Qual][][]int{
	isa.QWarpx4:       {{0, 1, 2, 3}},
	isa.QWarpx2_02_13: {{0, 1}, {2, 3}},
	isa.QWarpx2_01_23: {{0, 2}, {1, 3}},
}

// decodeTcCp lowers tcgen05.cp.cta_group::1.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc.
func decodeTcCp(d *Decoder, in *ast.Instruction, out *Inst, q Quals) error {
	x := &tcCpInst{}
	var shape, mcast isa.Qual
	for _, n := range q.List[1:] {
		_, isShape := tcCpShapes[n]
		_, isCast := tcCpMulticast[n]
		switch {
		case isShape:
			shape = n
		case isCast:
			mcast = n
		case n == isa.QB6x16_P32:
			x.srcBits = 6
		case n == isa.QB4x16_P64:
			x.srcBits = 4
		case n == isa.QCta_Group_1, n == isa.QB8x16:
		case n == isa.QCta_Group_2:
			x.pair = true
		default:
			return d.Errorf(in, "%s: unexpected qualifier %s", in.FullOpcode(), n)
		}
	}
	if err := checkCpForm(d, in, q, shape, mcast, x); err != nil {
		return err
	}
	if len(in.Operands) != 2 {
		return d.Errorf(in, "tcgen05.cp takes [taddr], s-desc")
	}
	var err error
	if x.taddr, x.off, _, err = d.Addr(in.Operands[0]); err != nil {
		return err
	}
	if x.desc, err = d.Src(in.Operands[1], TB64); err != nil {
		return err
	}
	out.Ext = x
	out.Exec = execTcCp
	return nil
}

// checkCpForm checks the shape, multicast and decompression qualifiers
// against each other (the manual's pairing of .64x128b with .warpx2 and
// .32x128b with .warpx4) and fills in x.
func checkCpForm(d *Decoder, in *ast.Instruction, q Quals, shape, mcast isa.Qual, x *tcCpInst) error {
	switch {
	case shape == 0:
		return d.Errorf(in, "%s needs a shape (.128x256b, .4x256b, .128x128b, .64x128b or .32x128b)", in.FullOpcode())
	case !q.Has(isa.QCta_Group_1) && !x.pair:
		return d.Errorf(in, "%s needs .cta_group::1 or .cta_group::2", in.FullOpcode())
	case shape == isa.Q64x128b && mcast != isa.QWarpx2_02_13 && mcast != isa.QWarpx2_01_23:
		return d.Errorf(in, "%s: .64x128b needs .warpx2::02_13 or .warpx2::01_23", in.FullOpcode())
	case shape == isa.Q32x128b && mcast != isa.QWarpx4:
		return d.Errorf(in, "%s: .32x128b needs .warpx4", in.FullOpcode())
	case mcast != 0 && shape != isa.Q64x128b && shape != isa.Q32x128b:
		return d.Errorf(in, "%s: %s goes with .64x128b (.warpx2) or .32x128b (.warpx4)", in.FullOpcode(), mcast)
	case (x.srcBits != 0) != q.Has(isa.QB8x16):
		return d.Errorf(in, "%s: decompression takes both .b8x16 and a source format (.b6x16_p32 or .b4x16_p64)", in.FullOpcode())
	}
	sh := tcCpShapes[shape]
	x.rows, x.rowBytes, x.warps = sh[0], sh[1], tcCpMulticast[mcast]
	return nil
}

// lanesOf are the lanes that receive source row r, relative to the
// destination's lane (zero for the 128-row and multicast forms).
func (x *tcCpInst) lanesOf(r int) []int {
	if x.warps == nil {
		return []int{r}
	}
	half := r / 32
	out := make([]int, 0, 4)
	for _, w := range x.warps[half] {
		out = append(out, 32*w+r%32)
	}
	return out
}

// checkCpDest checks the destination cells of lane l's copy.
func (x *tcCpInst) checkCpDest(w *Warp, l int, mem *tmem.Memory, addr tmem.Addr) Status {
	cols := x.rowBytes / 4
	if x.rows == 4 {
		if addr.Lane()+4 > tmem.Lanes {
			return w.Fault(l, string(tmem.RuleLaneQuarter), specTcCp, "tcgen05.cp: the destination at Tensor Memory address %s spans lanes %d-%d, beyond the %d lanes",
				addr, addr.Lane(), addr.Lane()+3, tmem.Lanes)
		}
		return checkTcRegion(w, l, mem, "the destination", 0, cols, addr)
	}
	return checkTcRegion(w, l, mem, "the destination", 128, cols, addr)
}

// execTcCp reads the source matrix at issue and writes Tensor Memory when
// the copy lands, in order with the CTA's tcgen05.mma.
func execTcCp(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcCpInst)
	group := tmem.CTAGroup1
	if x.pair {
		group = tmem.CTAGroup2
	}
	if st := useGroup(w, group); st != Continue {
		return st
	}
	ct := w.CTA.Ext(tmemKey).(*ctaTMEM)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		addr := tmem.Addr(uint32(w.R[x.taddr+int32(l)] + uint64(x.off)))
		ranks := []int{w.CTA.Rank}
		if x.pair {
			even := w.CTA.Rank &^ 1
			if even+1 >= len(w.CTA.cluster.CTAs) {
				return w.Fault(l, ruleTcgen05Pair, specTcPair, "tcgen05.cp.cta_group::2 in CTA rank %d, which has no peer CTA (rank %d) in its cluster of %d",
					w.CTA.Rank, w.CTA.Rank^1, len(w.CTA.cluster.CTAs))
			}
			ranks = []int{even, even + 1}
		}
		var runs []func()
		var peers []*ctaTMEM
		for _, rank := range ranks {
			t := w.CTA.cluster.CTAs[rank].Ext(tmemKey).(*ctaTMEM)
			if st := x.checkCpDest(w, l, t.memory(), addr); st != Continue {
				return st
			}
			src, ok := readDescMatrixOf(w, l, rank, w.R[x.desc+int32(l)], "source", x.rows, x.rowBytes, tensorcore.E4M3, false)
			if !ok {
				return Fault
			}
			x.decompress(src)
			runs = append(runs, x.writer(t, addr, src))
			if t != ct {
				peers = append(peers, t)
			}
		}
		q, st := issueQueuedOp(w, l, ct, "tcgen05.cp", func() {
			for _, run := range runs {
				run()
			}
		})
		if st != Continue {
			return st
		}
		for _, t := range peers {
			if !q.landed {
				t.partnerOps = append(t.partnerOps, q)
			}
		}
	}
	return Continue
}

// writer returns the landing of a copy of src to t's Tensor Memory at addr.
func (x *tcCpInst) writer(t *ctaTMEM, addr tmem.Addr, src []uint64) func() {
	return func() {
		mem := t.memory()
		for r := range x.rows {
			row := src[r*x.rowBytes : (r+1)*x.rowBytes]
			for _, ln := range x.lanesOf(r) {
				for c := range x.rowBytes / 4 {
					v := row[4*c] | row[4*c+1]<<8 | row[4*c+2]<<16 | row[4*c+3]<<24
					mem.SetCell(addr.Lane()+ln, addr.Column()+c, uint32(v))
				}
			}
		}
	}
}

// decompress turns each 16-byte chunk of packed 6- or 4-bit elements of
// src (bytes, one per word) into 16 one-byte containers.
func (x *tcCpInst) decompress(src []uint64) {
	if x.srcBits == 0 {
		return
	}
	f, shift := tensorcore.E3M2, 0 // a 6-bit format: the unpacking only needs the width
	if x.srcBits == 4 {
		f, shift = tensorcore.E2M1, 2
	}
	for off := 0; off < len(src); off += 16 {
		codes := unpackNarrow(src[off:off+16], f, 16, false)
		for i, c := range codes {
			src[off+i] = c << shift
		}
	}
}

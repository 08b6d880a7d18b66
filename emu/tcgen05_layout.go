package emu

// Where tcgen05.mma keeps D in Tensor Memory: the data-path layouts of
// PTX ISA §9.7.16.10.5 (the table of Layouts A-G), per CTA of the
// operation.
//
//	Layout A  M = 256, .cta_group::2   rows 128v..128v+127 in lanes 0-127 of CTA v
//	Layout B  M = 128, .cta_group::2   rows 64v..64v+63 of CTA v, N folded in two
//	Layout D  M = 128, .cta_group::1   row i in lane i
//	Layout E  M = 64, .ws              64 rows, N folded in two
//	Layout F  M = 64, not .ws          rows 16q..16q+15 in lanes 32q.., half the lanes
//	Layout G  M = 32, .ws              32 rows, N folded in four
//
// A folded layout (B, E, G) gives each CTA's R rows (R = 64 or 32) all 128
// lanes by splitting N: element (r, j) of the CTA's rows is in lane
// r + R·(j / (N/f)) and column c + j mod (N/f), with f = 128/R, so the
// matrix uses N/f columns. This is the CuTe layout CUTLASS gives these
// accumulators, (R, (N/f, f)) : (1, (128, R)) in (lane + 128·column)
// units, and the reading the emulator takes of the manual's figures.

import (
	"github.com/ptxkit/ptxkit/emu/tmem"
)

// tcFold is the number of lane groups N is folded into (1 unfolded, 2 for
// Layouts B and E, 4 for Layout G).
func tcFold(x *tcMMAInst, id *tcIdesc) int {
	switch {
	case x.pair && id.m == 128:
		return 2
	case x.ws && id.m < 128:
		return 128 / id.m
	}
	return 1
}

// rowsPerCTA is the rows of D (and A) each CTA of the operation holds.
func (op *tcMMAOp) rowsPerCTA() int {
	if op.pair != nil {
		return op.id.m / 2
	}
	return op.id.m
}

// dCell is the Tensor Memory, lane and column of element (r, j) of D
// (or C) of op.
func (op *tcMMAOp) dCell(r, j int) (*tmem.Memory, int, int) {
	base, c0 := op.d.Lane(), op.d.Column()
	if op.fold == 1 {
		mem, lane := op.rowAt(r, base)
		return mem, lane, c0 + j
	}
	rows, cols := op.rowsPerCTA(), op.id.n/op.fold
	mem := op.ct.memory()
	if op.pair != nil {
		mem = op.pair[r/rows].memory()
	}
	return mem, r%rows + rows*(j/cols), c0 + j%cols
}

// tcRegion is a rectangle of Tensor Memory cells of one CTA of a
// tcgen05.mma (pair is the index in the CTA pair, 0 without one).
type tcRegion struct {
	pair, lane, lanes, col, cols int
}

// dRegions are the cells D occupies: runs of 16 lanes for Layout F,
// 128 lanes × N/f columns of each CTA otherwise.
func (op *tcMMAOp) dRegions() []tcRegion {
	id := op.id
	base, c0 := op.d.Lane(), op.d.Column()
	switch {
	case op.pair != nil:
		cols := id.n / op.fold
		return []tcRegion{{0, 0, 128, c0, cols}, {1, 0, 128, c0, cols}}
	case op.fold > 1 || id.m == 128:
		return []tcRegion{{0, 0, 128, c0, id.n / op.fold}}
	}
	var out []tcRegion
	for q := range 4 { // Layout F
		out = append(out, tcRegion{0, base + 32*q, 16, c0, id.n})
	}
	return out
}

// foldedTMEMA reads A from Tensor Memory for a folded D: fold group g
// (the MMA's columns g·N/f..) takes row r of its CTA's R rows from lane
// r + R·g, so A occupies all 128 lanes, one copy per group (the reading
// this emulator makes of the folded layouts; a kernel stores the same
// rows in every group). The result has f rows per row of A: row i·f + g
// is row i as group g sees it.
func (op *tcMMAOp) foldedTMEMA() []uint64 {
	id, f, rows := op.id, op.fold, op.rowsPerCTA()
	per := 32 / id.a.Bits()
	out := make([]uint64, id.m*f*id.k)
	for i := range id.m {
		mem := op.ct.memory()
		if op.pair != nil {
			mem = op.pair[i/rows].memory()
		}
		for g := range f {
			ln := i%rows + rows*g
			for kk := range id.k {
				cell := mem.Cell(ln, op.aTMEM.Column()+kk/per)
				out[(i*f+g)*id.k+kk] = elemOf(uint64(cell), id.a.Bits(), kk%per)
			}
		}
	}
	return out
}

// computeFolded is D = A·B + C with one copy of A per fold group
// (foldedTMEMA): every copy times all of B, element (i, j) taken from the
// copy of j's group.
func (op *tcMMAOp) computeFolded(C, D []uint64) {
	id, f := op.id, op.fold
	cv, dv := make([]uint64, id.m*f*id.n), make([]uint64, id.m*f*id.n)
	for v := range id.m * f {
		copy(cv[v*id.n:(v+1)*id.n], C[v/f*id.n:(v/f+1)*id.n])
	}
	op.arith(id.m*f, cv, dv)
	cols := id.n / f
	for i := range id.m {
		for j := range id.n {
			D[i*id.n+j] = dv[(i*f+j/cols)*id.n+j]
		}
	}
}

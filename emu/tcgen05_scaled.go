package emu

// tcgen05.mma on narrow inputs: .kind::f8f6f4 (E4M3, E5M2, E2M3, E3M2 and
// E2M1, A and B independently, f32 or f16 D) and the block-scaled kinds
// .kind::mxf8f6f4 (the same inputs, one UE8M0 scale per 32 elements),
// .kind::mxf4 (E2M1, UE8M0 per 32) and .kind::mxf4nvf4 (E2M1, UE8M0 per 32
// with .scale_vec::2X, UE4M3 or UE8M0 per 16 with .scale_vec::4X); the
// arithmetic is tensorcore.Arch.ScaledMMA.
//
// Operand layout. Every kind reads 32 bytes of K per row of A and column
// of B through the shared-memory descriptor (as the other kinds do). For
// .kind::f8f6f4 and .kind::mxf8f6f4, K is 32: 8-bit elements are one per
// byte; 6-bit and 4-bit elements come in groups of 16 packed into 12 or 8
// bytes (element i of a group at bits 6i or 4i, little-endian) followed
// by 4 or 8 bytes of padding, 16 bytes per group (the layout TMA's
// 16U6_ALIGN16B and 16U4_ALIGN16B types write and tcgen05.cp's
// .b6x16_p32/.b4x16_p64 sources name). For .kind::mxf4 and
// .kind::mxf4nvf4, K is 64 E2M1 packed two per byte, the low nibble first.
// A in Tensor Memory holds 32 bytes per row in 8 columns: 8-bit elements
// and E2M1 pairs as in shared memory, 6- and 4-bit elements of
// .kind::f8f6f4 in 8-bit containers (narrowTMEMA).
//
// Scale factors (.block_scale [scale-A-tmem], [scale-B-tmem]). The scale
// factors of one MMA are bytes of 32-bit Tensor Memory cells: with
// .scale_vec::1X one byte per row (the byte named by the scale factor ID,
// 0-3), with 2X two consecutive bytes from the ID (0 or 2), with 4X all
// four (ID 0); byte g scales elements g·vec..g·vec+vec-1 of K. A's factor
// for row r of D is in the cell of D's lane for r, in column c_A + s,
// where s is the lane's sub-partition (lane / 32), so an M = 128 operand
// uses 4 columns. B's factor for column j of D, as seen from the
// sub-partition s that computes a row, is in lane 32s + j mod 32, column
// c_B + j / 32: every sub-partition reads its own copy (what tcgen05.cp's
// .warpx4 multicast writes). This is the emulator's reading of the
// manual's scale-factor figures; docs/tensorcore.md lists it among the
// points to check against hardware.

import (
	"fmt"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

const specTcScale = "PTX ISA §9.7.16.10.7 (tcgen05.mma block scaling)"

// decodeIdescScaled decodes v for a dense .cta_group::1 block-scaled
// tcgen05.mma of kind k with .scale_vec::<vecN>X (PTX ISA §9.7.16.4.2,
// the table for .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4):
//
//	bits 0-1   sparsity selector      bit 2  sparsity (0 dense)
//	bit 3      reserved               bits 4-5 scale factor ID of B
//	bit 6      reserved               bits 7-9 atype   bits 10-12 btype
//	bit 13/14  negate A / B           bit 15/16 transpose A / B
//	bits 17-22 N >> 3                 bit 23 scale type (0 ue4m3, 1 ue8m0)
//	bits 24-28 M >> 4                 bits 29-30 scale factor ID of A
//	bit 31     K dimension (0: the dense K of the kind)
func decodeIdescScaled(k tcKind, vecN int, v uint32, pair bool) (*tcIdesc, error) {
	field := func(lo, n int) uint32 { return v >> lo & (1<<n - 1) }
	x := &tcIdesc{negA: field(13, 1) == 1, negB: field(14, 1) == 1, transA: field(15, 1) == 1, transB: field(16, 1) == 1,
		narrow: true, out: tensorcore.F32, sfid: [2]int{int(field(29, 2)), int(field(4, 2))}}
	switch {
	case field(0, 3) != 0:
		return nil, idescInvalid("idesc %#08x sets the sparsity bits (0-2) on a dense tcgen05.mma (no .sp)", v)
	case field(3, 1) != 0 || field(6, 1) != 0:
		return nil, idescInvalid("idesc %#08x sets a reserved bit (3 or 6)", v)
	case field(31, 1) != 0:
		return nil, &idescError{unsupported: true, msg: fmt.Sprintf("idesc %#08x sets the K dimension bit (31), which the emulator does not implement", v)}
	}
	if err := x.scaledTypes(k, v, field(7, 3), field(10, 3)); err != nil {
		return nil, err
	}
	if err := x.scaleVector(k, vecN, v, field(23, 1)); err != nil {
		return nil, err
	}
	x.n, x.m = int(field(17, 6))<<3, int(field(24, 5))<<4
	switch {
	case pair && x.m == 128:
		return nil, &idescError{unsupported: true, msg: fmt.Sprintf("idesc %#08x gives M = 128 with .cta_group::2 and block scaling; the emulator implements block scaling with .cta_group::2 at M = 256", v)}
	case pair:
		if err := checkPairShape(v, x.m, x.n, true); err != nil {
			return nil, err
		}
	case x.m != 64 && x.m != 128:
		return nil, idescInvalid("idesc %#08x gives M = %d (bits 24-28 = M>>4); .cta_group::1 allows 64 and 128", v, x.m)
	case x.n < 8 || x.n > 256:
		return nil, idescInvalid("idesc %#08x gives N = %d (bits 17-22 = N>>3); N is 8 to 256 in steps of 8", v, x.n)
	}
	if err := x.checkTranspose(v); err != nil {
		return nil, err
	}
	return x, nil
}

// scaledTypes decodes atype and btype of a block-scaled kind.
func (x *tcIdesc) scaledTypes(k tcKind, v, a, b uint32) error {
	if k == tcKindMXF8F6F4 {
		x.a, x.b = tcNarrowTypes[a], tcNarrowTypes[b]
		if x.a == 0 || x.b == 0 {
			return idescInvalid("idesc %#08x: .kind::mxf8f6f4 atype/btype (bits 7-9, 10-12) must be 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1), got %d and %d", v, a, b)
		}
		x.k = 32
		return nil
	}
	if a != 1 || b != 1 {
		return idescInvalid("idesc %#08x: %s atype/btype (bits 7-9, 10-12) must be 1 (e2m1), got %d and %d", v, k, a, b)
	}
	x.a, x.b, x.packed, x.k = tensorcore.E2M1, tensorcore.E2M1, true, 64
	return nil
}

// scaleVector checks the scale type and the scale factor IDs against the
// kind and .scale_vec::<vecN>X, and sets the elements per scale factor.
func (x *tcIdesc) scaleVector(k tcKind, vecN int, v, ue8m0 uint32) error {
	x.scale = tensorcore.UE4M3
	if ue8m0 == 1 {
		x.scale = tensorcore.UE8M0
	}
	allowed := map[tcKind][]int{tcKindMXF8F6F4: {1}, tcKindMXF4: {2}, tcKindMXF4NVF4: {2, 4}}[k]
	ok := false
	for _, n := range allowed {
		ok = ok || n == vecN
	}
	switch {
	case !ok:
		return idescInvalid("%s does not take .scale_vec::%dX", k, vecN)
	case x.scale == tensorcore.UE4M3 && vecN != 4:
		return idescInvalid("idesc %#08x: scale type ue4m3 (bit 23 = 0) needs .kind::mxf4nvf4 with .scale_vec::4X; %s with .scale_vec::%dX takes ue8m0", v, k, vecN)
	}
	for i, id := range x.sfid {
		if id%vecN != 0 {
			return idescInvalid("idesc %#08x: the scale factor ID of %c is %d; with .scale_vec::%dX it must be a multiple of %d",
				v, "AB"[i], id, vecN, vecN)
		}
	}
	x.vec = x.k / vecN
	return nil
}

// unpackNarrow returns the k elements of format f of one 32-byte row.
func unpackNarrow(row []uint64, f tensorcore.Format, k int, packed bool) []uint64 {
	out := make([]uint64, k)
	for kk := range out {
		switch bits := tensorcore.ElemBits(f); {
		case packed:
			out[kk] = row[kk/2] >> (4 * (kk % 2)) & 0xf
		case bits == 8:
			out[kk] = row[kk]
		default: // 16 elements packed, then padding to 16 bytes
			g, i := kk/16, kk%16
			bit := i * bits
			pair := row[16*g+bit/8] | row[16*g+min(bit/8+1, 15)]<<8
			out[kk] = pair >> (bit % 8) & (1<<bits - 1)
		}
	}
	return out
}

// readNarrow reads rows × k narrow elements through a shared-memory
// descriptor: 32 bytes per row, unpacked.
func readNarrow(w *Warp, l, rank int, desc uint64, what string, rows int, id *tcIdesc, f tensorcore.Format, trans bool) ([]uint64, bool) {
	raw, ok := readDescMatrixOf(w, l, rank, desc, what, rows, tcKBytes, tensorcore.E4M3, trans)
	if !ok {
		return nil, false
	}
	out := make([]uint64, 0, rows*id.k)
	for r := range rows {
		out = append(out, unpackNarrow(raw[r*tcKBytes:(r+1)*tcKBytes], f, id.k, id.packed)...)
	}
	return out, true
}

// narrowTMEMA reads A of a narrow kind from Tensor Memory: 8 columns of 4
// bytes per row. 8-bit elements and packed E2M1 pairs are laid out as in
// shared memory; 6- and 4-bit elements of .kind::f8f6f4 are one per byte
// (8-bit containers, what tcgen05.cp's decompression writes): a 6-bit
// element in bits 0-5, a 4-bit element in bits 2-5.
func (op *tcMMAOp) narrowTMEMA() []uint64 {
	id := op.id
	out := make([]uint64, 0, id.m*id.k)
	row := make([]uint64, tcKBytes)
	bits := tensorcore.ElemBits(id.a)
	for r := range id.m {
		for c := range tcKBytes / 4 {
			mem, ln := op.rowAt(r, op.aTMEM.Lane())
			cell := mem.Cell(ln, op.aTMEM.Column()+c)
			for b := range 4 {
				row[4*c+b] = uint64(cell >> (8 * b) & 0xff)
			}
		}
		if id.packed || bits == 8 {
			out = append(out, unpackNarrow(row, id.a, id.k, id.packed)...)
			continue
		}
		shift := map[int]int{6: 0, 4: 2}[bits]
		for kk := range id.k {
			out = append(out, row[kk]>>shift&(1<<bits-1))
		}
	}
	return out
}

// negateNarrow flips the sign bit of each element of format f.
func negateNarrow(v []uint64, f tensorcore.Format) {
	for i := range v {
		v[i] ^= 1 << uint(tensorcore.ElemBits(f)-1)
	}
}

// scaleFactors reads the scale factors of A (by row) and B (by column) from
// Tensor Memory, as the package comment lays them out. SB is indexed by
// row too: sbOf(r) is B's factors as row r's sub-partition sees them. With
// .cta_group::2 each CTA holds the factors of A for its rows and its own
// copy of B's, at the same addresses.
func (op *tcMMAOp) scaleFactors() (sa []uint64, sb func(r int) []uint64) {
	id := op.id
	groups := id.k / id.vec
	sa = make([]uint64, id.m*groups)
	for r := range id.m {
		mem, lane := op.rowAt(r, op.sfa.Lane())
		cell := mem.Cell(lane, op.sfa.Column()+lane/32)
		for g := range groups {
			sa[r*groups+g] = uint64(cell >> (8 * (id.sfid[0] + g)) & 0xff)
		}
	}
	perPart := map[int][]uint64{}
	for r := range id.m {
		key, mem, s := op.sfPart(r)
		if perPart[key] != nil {
			continue
		}
		sb := make([]uint64, id.n*groups)
		for j := range id.n {
			cell := mem.Cell(32*s+j%32, op.sfb.Column()+j/32)
			for g := range groups {
				sb[j*groups+g] = uint64(cell >> (8 * (id.sfid[1] + g)) & 0xff)
			}
		}
		perPart[key] = sb
	}
	return sa, func(r int) []uint64 { key, _, _ := op.sfPart(r); return perPart[key] }
}

// sfPart is the sub-partition s that computes row r of D, the Tensor
// Memory it belongs to and a key that tells the sub-partitions of a CTA
// pair apart.
func (op *tcMMAOp) sfPart(r int) (key int, mem *tmem.Memory, s int) {
	mem, lane := op.rowAt(r, op.d.Lane())
	v := 0
	if op.pair != nil {
		v = r / 128
	}
	return 4*v + lane/32, mem, lane / 32
}

// computeNarrow is D = A×B + C for the narrow kinds. The rows of one
// sub-partition (consecutive rows of D) share B's scale factors and are
// computed together.
func (op *tcMMAOp) computeNarrow(C, D []uint64) {
	id := op.id
	p := &tensorcore.ScaledProblem{In: id.a, BIn: id.b, Out: id.out, M: id.m, N: id.n, K: id.k, A: op.A, B: op.B, C: C, D: D}
	if !op.x.kind.blockScaled() {
		op.x.arch.ScaledMMA(p)
		return
	}
	p.Scale, p.Vec = id.scale, id.vec
	sa, sbOf := op.scaleFactors()
	groups := id.k / id.vec
	part := func(r int) int { key, _, _ := op.sfPart(r); return key }
	for lo := 0; lo < id.m; {
		hi := lo + 1
		for hi < id.m && part(hi) == part(lo) {
			hi++
		}
		rows := *p
		rows.M, rows.A, rows.C, rows.D = hi-lo, op.A[lo*id.k:hi*id.k], C[lo*id.n:hi*id.n], D[lo*id.n:hi*id.n]
		rows.SA, rows.SB = sa[lo*groups:hi*groups], sbOf(lo)
		op.x.arch.ScaledMMA(&rows)
		lo = hi
	}
}

// checkScaleRegions checks that the scale factors' cells are allocated.
func checkScaleRegions(w *Warp, l int, mem *tmem.Memory, rows int, id *tcIdesc, sfa, sfb tmem.Addr) Status {
	if st := checkTcRegion(w, l, mem, "the scale factors of A", rows, 4, sfa); st != Continue {
		return st
	}
	if sfb.Lane() != 0 {
		return w.Fault(l, string(tmem.RuleLaneQuarter), specTcScale, "tcgen05.mma: the scale factors of B at Tensor Memory address %s: they start at lane 0", sfb)
	}
	return checkTcRegion(w, l, mem, "the scale factors of B", 128, (id.n+31)/32, sfb)
}

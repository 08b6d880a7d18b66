package emu

import (
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// wgmma.mma_async.sp (PTX ISA §9.7.15.6): A is structured-sparse, stored
// as 64 × K/2 (f16/bf16 m64nNk32, tf32 m64nNk16, e4m3/e5m2 and s8/u8
// m64nNk64). The operands are those of wgmma.mma_async with sp-meta (a
// .b32 register) and sp-sel (a constant) after b-desc.
//
// A in shared memory is the stored matrix, described like a dense operand
// of K/2 columns (any swizzle; MN-major for f16/bf16); A in registers has
// the dense m64nN(K/2) fragment layout over the stored columns, which is
// the manual's firstcol/lastcol layout of the sparse fragments. Each warp
// gives the metadata of its 16 rows of A exactly as mma.sp does for the
// same K (ops_mmasparse.go: the same fields, threads and selector range,
// and the same reading of their distribution); the positions must be in
// order (the manual lists the ordered values only). The arithmetic is
// Arch.SparseMMA with the wgmma model (Async: FP8 with 13 fraction bits on
// Hopper), or exact integers.

// wgmmaSparseK is the dense K of the sparse shapes per input type.
var wgmmaSparseK = map[tensorcore.Format]int{tensorcore.F16: 32, tensorcore.BF16: 32, tensorcore.TF32: 16,
	tensorcore.E4M3: 64, tensorcore.E5M2: 64}

// decodeWgmmaSparse decodes the sparse operands of x and returns the
// others in the order of the dense form.
func decodeWgmmaSparse(d *Decoder, in *ast.Instruction, x *wgmmaInst) ([]ast.Expr, error) {
	ops := in.Operands
	if len(ops) < 6 {
		return nil, d.Errorf(in, "%s takes d, a, b, sp-meta, sp-sel, scale-d and its immediates", in.FullOpcode())
	}
	if k := wgmmaSparseK[x.in]; k != x.k {
		return nil, d.Errorf(in, "the emulator implements %s with K = %d (not %d)", in.FullOpcode(), k, x.k)
	}
	sp := &mmaSparse{k: x.k, tf32: x.in == tensorcore.TF32, ordered: true}
	threads := sp.fields() / 4
	sel, ok := parser.ConstValue(ops[4])
	if !ok || sel < 0 || sel >= int64(4/threads) {
		return nil, d.Errorf(ops[4], "the sparsity selector of %s must be a constant from 0 to %d", in.FullOpcode(), 4/threads-1)
	}
	sp.sel = int(sel)
	var err error
	if sp.meta, err = d.Src(ops[3], TB32); err != nil {
		return nil, err
	}
	x.sparse = sp
	return append(append([]ast.Expr{}, ops[:3]...), ops[5:]...), nil
}

// wgmmaSparse computes the warp's 16 rows of D from the stored A (16 ×
// K/2), B and C.
func wgmmaSparse(w *Warp, x *wgmmaInst, A, B, C, D []uint64) Status {
	index, st := x.sparse.denseColumns(w)
	if st != Continue {
		return st
	}
	if x.integer {
		half := x.k / 2
		dense := make([]uint64, 16*x.k)
		for i, k := range index {
			dense[i/half*x.k+k] = A[i]
		}
		mmaInteger(16, x.n, x.k, x.signed, x.satfinite, dense, B, C, D)
		return Continue
	}
	p := &tensorcore.Problem{Kind: tensorcore.Async, In: x.in, BIn: x.bin, Out: x.out, M: 16, N: x.n, K: x.k, A: A, B: B, C: C, D: D}
	if err := x.arch.SparseMMA(p, index); err != nil {
		return w.Fault(0, RuleUnsupported, specWgmma, "%v", err)
	}
	return Continue
}

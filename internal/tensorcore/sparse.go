package tensorcore

import "fmt"

// SparseMMA evaluates D = A×B + C where A is structured-sparse (mma.sp,
// wgmma.mma_async.sp): p.A holds only the stored elements, M×(K/2)
// row-major, and index[i*K/2+j] is the column of the dense M×K matrix
// that element j of row i stands at (the other columns of A are zero).
// B, C and D are as in MMA, with p.K the dense K.
//
// The tensor core multiplies the stored elements only: row i's products
// are A[i][j]·B[index][col] for the K/2 stored j, in order of j, summed in
// blocks of the format's block size with the accumulator, exactly as a
// dense MMA of K/2 (one HMMA.SP.16832 on sm_90 carries 16 products per
// element of D, as a dense HMMA.16816 does). Which products share a block
// is this implementation's reading; see docs/tensorcore.md.
//
// FP8 on an architecture whose PTX mma.sync is lowered to f16
// (FP8ViaF16, sm_90) is not modelled for Kind Sync: ptxas rebuilds the
// operands with shuffles first, and SparseMMA returns an error.
func (a *Arch) SparseMMA(p *Problem, index []int) error {
	half := p.K / 2
	if len(p.A) != p.M*half || len(index) != len(p.A) {
		return fmt.Errorf("tensorcore: sparse A of %d elements and %d indices for %d×%d", len(p.A), len(index), p.M, half)
	}
	if (p.In == E4M3 || p.In == E5M2) && p.Kind == Sync && a.FP8ViaF16 {
		return fmt.Errorf("tensorcore: sparse FP8 mma.sync on %s is lowered by ptxas to f16 MMAs with shuffled operands, which the model does not follow", a.Name)
	}
	for _, k := range index {
		if k < 0 || k >= p.K {
			return fmt.Errorf("tensorcore: sparse index %d outside K = %d", k, p.K)
		}
	}
	if p.In == F64 {
		return fmt.Errorf("tensorcore: no sparse f64 MMA")
	}
	A := decodeAll(p.In, p.A)
	B := decodeAll(p.bFormat(), p.B)
	frac, block := a.fracOf(p.In), a.blockOf(p.In)
	cin := p.Out
	if p.CIn != 0 {
		cin = p.CIn
	}
	terms := make([]num, 0, block+1)
	gathered := make([]num, half)
	for i := range p.M {
		row := index[i*half : (i+1)*half]
		for j := range p.N {
			for jj, k := range row {
				gathered[jj] = B[j*p.K+k]
			}
			p.D[i*p.N+j] = dot(A[i*half:(i+1)*half], gathered, decode(cin, p.C[i*p.N+j]), p.Out, frac, block, terms)
		}
	}
	return nil
}

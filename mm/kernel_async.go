package mm

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// stAsync translates st.async (§9.7.9.12). The weak form
// st.async{.shared::cluster}.mbarrier::complete_tx::bytes [a], b, [mbar]
// becomes the extension's st.async; the .release form (global memory, no
// completion mechanism) is a release store.
func (k *kernelReader) stAsync(in *ast.Instruction, operands func(int) ([]Operand, error)) ([]Instr, error) {
	sem, scope, _ := kernelQuals(in, Weak)
	ops := in.Operands
	if sem != Weak {
		if len(ops) != 2 {
			return nil, fmt.Errorf("st.async.release needs an address and a value")
		}
		loc, err := k.address(ops[0])
		if err != nil {
			return nil, err
		}
		v, err := operands(1)
		if err != nil {
			return nil, err
		}
		return []Instr{{Op: OpStore, Sem: sem, Scope: scope, Loc: loc, Args: v}}, nil
	}
	if len(ops) != 3 {
		return nil, fmt.Errorf("st.async needs an address, a value and an mbarrier")
	}
	if _, ok := ops[1].(*ast.VectorExpr); ok {
		return nil, fmt.Errorf("vector st.async is not supported in a litmus kernel")
	}
	loc, err := k.address(ops[0])
	if err != nil {
		return nil, err
	}
	mbar, err := k.address(ops[2])
	if err != nil {
		return nil, err
	}
	v, err := k.operand(ops[1])
	if err != nil {
		return nil, err
	}
	k.prog.mbarIndex(mbar)
	return []Instr{{Op: OpStAsync, Loc: loc, Args: []Operand{v}, Mbar: mbar}}, nil
}

// bulkCopy translates cp.async.bulk.dst.src.mbarrier::complete_tx::bytes
// [dst], [src], size, [mbar] (§9.7.9.25.4.1); the size is not modelled,
// each location being one scalar.
func (k *kernelReader) bulkCopy(in *ast.Instruction) ([]Instr, error) {
	qs := kernelQualsOf(in)
	if len(qs) < 2 || qs[0] != isa.QAsync || qs[1] != isa.QBulk {
		return nil, fmt.Errorf("%s is not supported in a litmus kernel", instrText(in))
	}
	for _, q := range qs {
		if q == isa.QBulk_Group || q == isa.QTensor || q == isa.QMulticast_Cluster {
			return nil, fmt.Errorf("%s: only the mbarrier completion of a plain bulk copy is supported", instrText(in))
		}
	}
	if len(in.Operands) != 4 {
		return nil, fmt.Errorf("cp.async.bulk needs [dst], [src], size, [mbar]")
	}
	var names [3]string
	for i, j := range []int{0, 1, 3} {
		n, err := k.address(in.Operands[j])
		if err != nil {
			return nil, err
		}
		names[i] = n
	}
	k.prog.mbarIndex(names[2])
	return []Instr{{Op: OpBulkCopy, Loc: names[0], Loc2: names[1], Mbar: names[2], Proxy: Async}}, nil
}

// mbarrier translates the mbarrier operations (§9.7.13.15):
// arrive (with .expect_tx or .noComplete) is an arrive-on, try_wait and
// test_wait a wait for the phase (the loop around them is implied),
// init, inval and expect_tx add no ordering.
func (k *kernelReader) mbarrier(in *ast.Instruction, dst func() (string, error)) ([]Instr, error) {
	if len(in.Quals) == 0 {
		return nil, fmt.Errorf("mbarrier needs an operation")
	}
	op, opq := in.Quals[0].Name, isa.LookupQual(in.Quals[0].Name)
	var q []string
	for i, x := range kernelQualsOf(in)[1:] {
		if semOf[x] != 0 || scopeOf[x] != 0 {
			q = append(q, strings.TrimPrefix(in.Quals[i+1].Name, "."))
		}
	}
	switch opq {
	case isa.QInit, isa.QInval, isa.QExpect_Tx:
		return nil, nil
	case isa.QArrive, isa.QTry_Wait, isa.QTest_Wait:
	default:
		return nil, fmt.Errorf("mbarrier%s is not supported in a litmus kernel", op)
	}
	if len(in.Operands) < 2 {
		return nil, fmt.Errorf("mbarrier%s needs a destination and an mbarrier", op)
	}
	mbar, err := k.address(in.Operands[1])
	if err != nil {
		return nil, err
	}
	parts := []string{"mbarrier", "arrive"}
	var args []string
	if opq != isa.QArrive {
		parts[1] = "try_wait"
		d, err := dst()
		if err != nil {
			return nil, err
		}
		args = append(args, "%"+strings.TrimPrefix(d, "%"))
	}
	res, err := parseMbarrier(k.prog, append(parts, q...), append(args, mbar))
	if err != nil {
		return nil, err
	}
	return []Instr{res}, nil
}

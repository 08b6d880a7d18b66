package check

import (
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// Rules for the completion-mechanism instructions that have no table in
// package isa: mbarrier (PTX ISA §9.7.13.15), cp.async with its
// async-groups (§9.7.9.25.3), cp.async.bulk (§9.7.9.25.4) and red.async
// (§9.7.13.7). The family gates of package isa check each family's
// introduction; asyncRules adds the versions and targets of individual
// qualifiers and forms and the constraints on their operands.

const (
	specMbarrier      = "PTX ISA 9.7.13.15"
	specMbarrierInit  = "PTX ISA 9.7.13.15.9"
	specMbarrierArr   = "PTX ISA 9.7.13.15.13"
	specMbarrierTx    = "PTX ISA 9.7.13.15.11"
	specMbarrierWait  = "PTX ISA 9.7.13.15.16"
	specMbarrierSpace = "PTX ISA 9.7.13.15.8"
	specCpAsyncCopy   = "PTX ISA 9.7.9.25.3.1"
	specCpAsyncWait   = "PTX ISA 9.7.9.25.3.3"
	specCpAsyncArrive = "PTX ISA 9.7.13.15.15"
	specCpBulk        = "PTX ISA 9.7.9.25.4.1"
	specRedAsyncPage  = "PTX ISA 9.7.13.7"
	maxMbarrierCount  = 1<<20 - 1
)

// qualGate is the version and target a qualifier of a family needs.
type qualGate struct {
	qual isa.Qual
	ptx  isa.Version
	arch isa.Arch
	spec string
}

// mbarrierGates are the per-qualifier notes of the mbarrier pages.
var mbarrierGates = []qualGate{
	{isa.QSharedCta, isa.V(7, 8), isa.Arch{}, specMbarrier},
	{isa.QSharedCluster, isa.V(8, 0), isa.SM(90), specMbarrierSpace},
	{isa.QExpect_Tx, isa.V(8, 0), isa.SM(90), specMbarrierTx},
	// .release, .acquire and .cta need only what mbarrier needs (ptxas
	// takes them on sm_80 and sm_89); .cluster needs sm_90.
	{isa.QRelease, isa.V(8, 0), isa.SM(80), specMbarrierArr},
	{isa.QAcquire, isa.V(8, 0), isa.SM(80), specMbarrierWait},
	{isa.QRelaxed, isa.V(8, 6), isa.SM(90), specMbarrierArr},
	{isa.QCta, isa.V(8, 0), isa.SM(80), specMbarrierArr},
	{isa.QCluster, isa.V(8, 0), isa.SM(90), specMbarrierArr},
	{isa.QParity, isa.V(7, 1), isa.Arch{}, specMbarrierWait},
}

// asyncRules checks in when it is an mbarrier, cp.async or red.async
// instruction; other instructions pass through.
func (c *checker) asyncRules(in *ast.Instruction) {
	switch in.Opcode {
	case "mbarrier", "cp", "red":
	default:
		return
	}
	qs := c.decode(in).form.Quals
	switch {
	case in.Opcode == "mbarrier" && len(qs) > 0:
		c.mbarrier(in, qs)
	case in.Opcode == "cp" && qualIndex(qs, isa.QAsync) >= 0:
		c.cpAsync(in, qs)
	case in.Opcode == "red" && qualIndex(qs, isa.QAsync) >= 0:
		if i := qualIndex(qs, isa.QRelease); i >= 0 {
			c.gateQual(in, i, ".release form of red.async", isa.V(8, 7), isa.SM(100), specRedAsyncPage)
		}
	}
}

// qualIndex returns the index of q in the decoded qualifiers qs, or -1.
func qualIndex(qs []isa.Qual, q isa.Qual) int {
	for i, w := range qs {
		if w == q {
			return i
		}
	}
	return -1
}

func hasQual(qs []isa.Qual, q isa.Qual) bool { return qualIndex(qs, q) >= 0 }

// gateQual reports qualifier i of in when the module's version or target
// lacks it.
func (c *checker) gateQual(in *ast.Instruction, i int, what string, v isa.Version, a isa.Arch, spec string) {
	pos, end := in.Quals[i].Pos, in.Quals[i].End()
	if c.version != 0 && v != 0 && c.version < v {
		c.errorf(pos, end, "ptx-version", spec, "raise .version to "+v.String(),
			"%s requires PTX ISA %s (this file declares %s)", what, v, c.version)
	}
	if c.target.SM != 0 && !a.Allows(c.target, c.version) {
		c.errorf(pos, end, "target", spec, "compile for "+a.Minimal(), "%s requires %s (target is %s)", what, a, c.target)
	}
}

// mbarrierOperands is the operand count range of each mbarrier operation.
var mbarrierOperands = map[isa.Qual][2]int{
	isa.QInit: {2, 2}, isa.QInval: {1, 1}, isa.QArrive: {2, 3}, isa.QArrive_Drop: {2, 3},
	isa.QExpect_Tx: {2, 2}, isa.QComplete_Tx: {2, 2}, isa.QTest_Wait: {3, 3}, isa.QTry_Wait: {3, 4},
	isa.QPending_Count: {2, 2},
}

// mbarrier checks an mbarrier instruction whose decoded qualifiers are qs.
func (c *checker) mbarrier(in *ast.Instruction, qs []isa.Qual) {
	op, opq := in.Quals[0].Name, qs[0]
	want, ok := mbarrierOperands[opq]
	if !ok {
		c.errorf(in.Quals[0].Pos, in.Quals[0].End(), "unknown-qualifier", specMbarrier, "",
			"unknown mbarrier operation %s (want .init, .inval, .arrive, .arrive_drop, .expect_tx, .complete_tx, .test_wait, .try_wait or .pending_count)", op)
		return
	}
	for i, q := range qs[1:] {
		for _, g := range mbarrierGates {
			// expect_tx and complete_tx took .relaxed from the start (8.0).
			tx := opq == isa.QExpect_Tx || opq == isa.QComplete_Tx
			if q == g.qual && !(tx && (g.qual == isa.QExpect_Tx || g.qual == isa.QRelaxed)) {
				c.gateQual(in, i+1, g.qual.String()+" on mbarrier"+op, g.ptx, g.arch, g.spec)
			}
		}
	}
	if n := len(in.Operands); n < want[0] || n > want[1] {
		c.errorf(in.OpPos, in.OpPos.Advance(in.Opcode), "operand-count", specMbarrier, "",
			"mbarrier%s takes %d to %d operands, not %d", op, want[0], want[1], n)
		return
	}
	if !hasQual(qs, isa.QB64) {
		c.errorf(in.OpPos, in.OpPos.Advance(in.Opcode), "mbarrier-type", specMbarrier, "add .b64",
			"mbarrier%s needs the type .b64", op)
	}
	c.mbarrierSemantics(in, qs, op)
	switch opq {
	case isa.QInit:
		c.countImm(in, in.Operands[1], 1, "init count", specMbarrierInit)
		fallthrough
	case isa.QInval, isa.QTest_Wait, isa.QTry_Wait:
		if i := qualIndex(qs, isa.QSharedCluster); i >= 0 {
			c.errorf(in.Quals[i].Pos, in.Quals[i].End(), "mbarrier-space", specMbarrierSpace, "use .shared::cta",
				"mbarrier%s works only on the executing CTA's mbarrier objects (.shared or .shared::cta)", op)
		}
	case isa.QArrive, isa.QArrive_Drop:
		c.mbarrierArrive(in, qs, op)
	case isa.QExpect_Tx, isa.QComplete_Tx:
		c.countImm(in, in.Operands[1], 0, "tx-count", specMbarrierTx)
	}
}

// mbarrierSemantics checks .sem and .scope: they appear together, and
// each operation accepts only some orderings (§9.7.13.15.11-16).
func (c *checker) mbarrierSemantics(in *ast.Instruction, qs []isa.Qual, op string) {
	sem, scope := -1, -1
	for i, q := range qs {
		switch q {
		case isa.QRelease, isa.QAcquire, isa.QRelaxed, isa.QAcqRel, isa.QWeak:
			sem = i
		case isa.QCta, isa.QCluster, isa.QGpu, isa.QSys:
			scope = i
		}
	}
	allowed := mbarrierSems[qs[0]]
	if sem >= 0 && !hasQual(allowed, qs[sem]) {
		c.errorf(in.Quals[sem].Pos, in.Quals[sem].End(), "mbarrier-sem", specMbarrier, "",
			"mbarrier%s does not accept %s (allowed: %s)", op, in.Quals[sem].Name, orNone(allowed))
	}
	if scope >= 0 && qs[scope] != isa.QCta && qs[scope] != isa.QCluster {
		c.errorf(in.Quals[scope].Pos, in.Quals[scope].End(), "mbarrier-scope", specMbarrier, "use .cta or .cluster",
			"mbarrier scope must be .cta or .cluster, not %s", in.Quals[scope].Name)
	}
	if (sem >= 0) != (scope >= 0) {
		i := max(sem, scope)
		c.errorf(in.Quals[i].Pos, in.Quals[i].End(), "mbarrier-sem-scope", specMbarrier, "write both, e.g. .release.cta",
			"mbarrier .sem and .scope must be given together")
	}
}

// mbarrierSems are the orderings (.sem) each mbarrier operation accepts.
var mbarrierSems = map[isa.Qual][]isa.Qual{
	isa.QArrive: {isa.QRelease, isa.QRelaxed}, isa.QArrive_Drop: {isa.QRelease, isa.QRelaxed},
	isa.QTest_Wait: {isa.QAcquire, isa.QRelaxed}, isa.QTry_Wait: {isa.QAcquire, isa.QRelaxed},
	isa.QExpect_Tx: {isa.QRelaxed}, isa.QComplete_Tx: {isa.QRelaxed},
}

// orNone lists qs for a message, or says "none".
func orNone(qs []isa.Qual) string {
	if len(qs) == 0 {
		return "none"
	}
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.String()
	}
	return strings.Join(names, ", ")
}

func (c *checker) mbarrierArrive(in *ast.Instruction, qs []isa.Qual, op string) {
	state := in.Operands[0]
	_, sink := state.(*ast.Sink)
	if sink {
		c.gateOpAt(state, "the sink _ as mbarrier state", isa.V(7, 1), isa.Arch{}, specMbarrierArr)
	}
	if hasQual(qs, isa.QSharedCluster) && !sink {
		c.errorf(state.Pos(), state.End(), "mbarrier-remote-state", specMbarrierArr, "write _ as the state operand",
			"mbarrier%s.shared::cluster cannot return a state: its destination must be the sink _", op)
	}
	expect := hasQual(qs, isa.QExpect_Tx)
	noComplete := hasQual(qs, isa.QNoComplete)
	if len(in.Operands) == 3 {
		if expect {
			c.countImm(in, in.Operands[2], 0, "tx-count", specMbarrierTx)
			return
		}
		c.arrivalCount(in.Operands[2], op)
		if !noComplete {
			c.gateOpAt(in.Operands[2], "an arrival count without .noComplete", isa.V(7, 8), isa.SM(90), specMbarrierArr)
		}
		return
	}
	if expect {
		c.errorf(in.End(), in.End(), "operand-count", specMbarrierArr, "", "mbarrier%s.expect_tx needs a tx-count operand", op)
	}
	if noComplete {
		c.errorf(in.End(), in.End(), "operand-count", specMbarrierArr, "", "mbarrier%s.noComplete needs an arrival count operand", op)
	}
}

// gateOpAt reports operand e when the module's version or target lacks a
// form that e selects.
func (c *checker) gateOpAt(e ast.Expr, what string, v isa.Version, a isa.Arch, spec string) {
	if c.version != 0 && c.version < v {
		c.errorf(e.Pos(), e.End(), "ptx-version", spec, "raise .version to "+v.String(),
			"%s requires PTX ISA %s (this file declares %s)", what, v, c.version)
	}
	if c.target.SM != 0 && !a.Allows(c.target, c.version) {
		c.errorf(e.Pos(), e.End(), "target", spec, "compile for "+a.Minimal(), "%s requires %s (target is %s)", what, a, c.target)
	}
}

// arrivalCount checks a constant arrival count of mbarrier.arrive and
// arrive_drop: ptxas 12.5 rejects one below 1 ("value '0' expected to be a
// non-zero positive"); one above 2^20-1 is valid PTX of undefined
// behaviour (countImm).
func (c *checker) arrivalCount(e ast.Expr, op string) {
	if v, ok := parser.ConstValue(e); ok && isIntImm(e) && v < 1 {
		c.errorf(e.Pos(), e.End(), "mbarrier-count", specMbarrierArr, "use a count of at least 1",
			"the arrival count of mbarrier%s must be positive, not %d", op, v)
		return
	}
	c.countImm(nil, e, 1, "arrival count", specMbarrierArr)
}

// countImm checks an immediate count against [lo, 2^20-1]. ptxas 12.5
// accepts any value, so this is a warning: the instruction is valid PTX
// whose execution is undefined (§9.7.13.15.2).
func (c *checker) countImm(in *ast.Instruction, e ast.Expr, lo int64, what, spec string) {
	if !isIntImm(e) {
		return
	}
	v, ok := parser.ConstValue(e)
	if ok && (v < lo || v > maxMbarrierCount) {
		c.warnf(e.Pos(), e.End(), "mbarrier-count", spec, "",
			"%s %d is outside [%d, %d]: the behaviour is undefined", what, v, lo, maxMbarrierCount)
	}
}

// cpAsync checks a cp.async instruction whose decoded qualifiers are qs.
func (c *checker) cpAsync(in *ast.Instruction, qs []isa.Qual) {
	switch {
	case hasQual(qs, isa.QWait_Group):
		if len(in.Operands) != 1 || !isIntImm(in.Operands[0]) {
			e := ast.Node(in)
			if len(in.Operands) > 0 {
				e = in.Operands[0]
			}
			c.errorf(e.Pos(), e.End(), "cp-async-wait-group", specCpAsyncWait, "",
				"%s takes one integer constant: the number of most recent groups that may stay pending", in.FullOpcode())
		}
	case hasQual(qs, isa.QMbarrier) && hasQual(qs, isa.QArrive):
		if i := qualIndex(qs, isa.QSharedCta); i >= 0 {
			c.gateQual(in, i, ".shared::cta on cp.async.mbarrier.arrive", isa.V(7, 8), isa.Arch{}, specCpAsyncArrive)
		}
		if i := qualIndex(qs, isa.QSharedCluster); i >= 0 {
			c.errorf(in.Quals[i].Pos, in.Quals[i].End(), "mbarrier-space", specCpAsyncArrive, "use .shared::cta",
				"cp.async.mbarrier.arrive works only on the executing CTA's mbarrier objects")
		}
	case hasQual(qs, isa.QBulk) && !hasQual(qs, isa.QCommit_Group) && !hasQual(qs, isa.QTensor) && !hasQual(qs, isa.QPrefetch):
		if len(in.Operands) >= 3 && isIntImm(in.Operands[2]) {
			if v, ok := parser.ConstValue(in.Operands[2]); ok && (v < 0 || v%16 != 0) {
				// ptxas 12.5 accepts a size of 0.
				c.errorf(in.Operands[2].Pos(), in.Operands[2].End(), "cp-async-bulk-size", specCpBulk, "",
					"bulk copy size %d must be a non-negative multiple of 16", v)
			}
		}
		if len(qs) > 2 && qs[2] == isa.QSharedCta {
			c.gateQual(in, 2, "a .shared::cta destination of cp.async.bulk", isa.V(8, 6), isa.SM(90), specCpBulk)
		}
	case hasQual(qs, isa.QCa) || hasQual(qs, isa.QCg):
		c.cpAsyncCopy(in, hasQual(qs, isa.QCg))
	}
}

// cpAsyncCopy checks the copy size of cp.async.ca or, when cg,
// cp.async.cg.
func (c *checker) cpAsyncCopy(in *ast.Instruction, cg bool) {
	if len(in.Operands) < 3 || !isIntImm(in.Operands[2]) {
		if len(in.Operands) >= 3 {
			c.errorf(in.Operands[2].Pos(), in.Operands[2].End(), "cp-async-size", specCpAsyncCopy, "",
				"cp.async copy size must be the constant 4, 8 or 16")
		}
		return
	}
	if len(in.Operands) >= 4 {
		// A predicate 4th operand is ignore-src (ptxas 12.5: "Feature
		// 'igonre-src on cp.async' requires PTX ISA .version 7.5").
		if r, ok := in.Operands[3].(*ast.Reg); ok {
			if sym := c.lookup(r); sym != nil && sym.ElemType == isa.QPred {
				c.gateOpAt(r, "the ignore-src predicate of cp.async", isa.V(7, 5), isa.Arch{}, specCpAsyncCopy)
			}
		}
	}
	e := in.Operands[2]
	v, _ := parser.ConstValue(e)
	switch {
	case v != 4 && v != 8 && v != 16:
		c.errorf(e.Pos(), e.End(), "cp-async-size", specCpAsyncCopy, "", "cp.async copy size %d must be 4, 8 or 16", v)
	case cg && v != 16:
		c.errorf(e.Pos(), e.End(), "cp-async-size", specCpAsyncCopy, "use .ca for 4 or 8 bytes", "cp.async.cg copies 16 bytes, not %d", v)
	}
}

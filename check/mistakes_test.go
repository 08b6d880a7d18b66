package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// mistake is one wrong line outside the store family, of the kind people
// write by hand: a misspelled opcode, an operand too many or too few, a
// register of the wrong class or width, a qualifier left out or foreign,
// a constant out of range, a feature too new for the target or version.
type mistake struct {
	class, what     string
	version, target string
	line            string
}

var mistakes = []mistake{
	// integer arithmetic
	{"integer-arithmetic", "unknown opcode", "8.5", "sm_90", "addd.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "operand missing", "8.5", "sm_90", "add.u32 %Ru32_0, %Ru32_1;"},
	{"integer-arithmetic", "operand too many", "8.5", "sm_90", "add.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;"},
	{"integer-arithmetic", "constant destination", "8.5", "sm_90", "add.u32 5, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "variable as operand", "8.5", "sm_90", "add.u32 %Ru32_0, gb, %Ru32_2;"},
	{"integer-arithmetic", "foreign qualifier", "8.5", "sm_90", "add.rn.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "missing .lo/.hi", "8.5", "sm_90", "mul.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "narrow wide destination", "8.5", "sm_90", "mul.wide.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "bit-size type", "8.5", "sm_90", "add.b32 %Rb32_0, %Rb32_1, %Rb32_2;"},
	{"integer-arithmetic", "abs of unsigned", "8.5", "sm_90", "abs.u32 %Ru32_0, %Ru32_1;"},
	{"integer-arithmetic", "too new for target", "8.5", "sm_60", "dp4a.u32.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;"},
	{"integer-arithmetic", "wrong destination width", "8.5", "sm_90", "popc.b32 %Ru64_0, %Rb32_1;"},
	{"integer-arithmetic", "bfe on bit-size type", "8.5", "sm_90", "bfe.b32 %Rb32_0, %Rb32_1, 0, 8;"},
	{"integer-arithmetic", "mad without .lo", "8.5", "sm_90", "mad.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;"},
	// extended precision
	{"extended-precision", "16-bit addc", "8.5", "sm_90", "addc.cc.u16 %Ru16_0, %Ru16_1, %Ru16_2;"},
	// floating point
	{"float-arithmetic", "div.f32 without rounding", "8.5", "sm_90", "div.f32 %Rf32_1, %Rf32_2, %Rf32_3;"},
	{"float-arithmetic", "fma without rounding", "8.5", "sm_90", "fma.f32 %Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3;"},
	{"float-arithmetic", "sin without .approx", "8.5", "sm_90", "sin.f32 %Rf32_0, %Rf32_1;"},
	{"float-arithmetic", "sqrt without rounding", "8.5", "sm_90", "sqrt.f32 %Rf32_0, %Rf32_1;"},
	{"float-arithmetic", "ex2 without .approx", "8.5", "sm_90", "ex2.f32 %Rf32_0, %Rf32_1;"},
	{"float-arithmetic", "integer constant as float", "8.5", "sm_90", "add.f32 %Rf32_1, %Rf32_2, 1;"},
	{"float-arithmetic", "integer register as float", "8.5", "sm_90", "add.f32 %Rf32_0, %Ru32_1, %Rf32_2;"},
	{"float-arithmetic", "rem on floats", "8.5", "sm_90", "rem.f32 %Rf32_0, %Rf32_1, %Rf32_2;"},
	{"float-arithmetic", "max operand missing", "8.5", "sm_90", "max.f32 %Rf32_0, %Rf32_1;"},
	{"float-arithmetic", ".full after .ftz", "8.5", "sm_90", "div.ftz.full.f32 %Rf32_0, %Rf32_1, %Rf32_2;"},
	{"float-arithmetic", "f64 operands of f32", "8.5", "sm_90", "mul.rn.f32 %Rf64_0, %Rf64_1, %Rf64_2;"},
	{"float-arithmetic", "copysign of f16", "8.5", "sm_90", "copysign.f16 %Rf16_0, %Rf16_1, %Rf16_2;"},
	// half precision
	{"half-arithmetic", "bf16 add too new", "8.5", "sm_80", "add.bf16 %Rb16_0, %Rb16_1, %Rb16_2;"},
	{"half-arithmetic", "integer register as f16", "8.5", "sm_90", "add.f16 %Rf16_0, %Ru16_1, %Rf16_2;"},
	{"half-arithmetic", "f16x2 in 16 bits", "8.5", "sm_90", "fma.rn.f16x2 %Rf16_0, %Rf16_1, %Rf16_2, %Rf16_3;"},
	// comparison and selection
	{"comparison", "setp into .b32", "8.5", "sm_90", "setp.eq.u32 %Rb32_1, %Ru32_2, %Ru32_3;"},
	{"comparison", ".lt on bit-size", "8.5", "sm_90", "setp.lt.b32 %Rpred_0, %Rb32_1, %Rb32_2;"},
	{"comparison", "setp operand too many", "8.5", "sm_90", "setp.eq.u32 %Rpred_0, %Ru32_1, %Ru32_2, %Rpred_1;"},
	{"comparison", "selp with integer selector", "8.5", "sm_90", "selp.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;"},
	{"comparison", "setp without comparison", "8.5", "sm_90", "setp.u32 %Rpred_0, %Ru32_1, %Ru32_2;"},
	{"half-comparison", ".lo on f16", "8.5", "sm_90", "setp.lo.f16 %Rpred_0, %Rf16_1, %Rf16_2;"},
	{"half-comparison", ".ftz on bf16 set", "8.5", "sm_90", "set.lt.ftz.bf16.f32 %Rb16_0, %Rf32_1, %Rf32_2;"},
	{"half-comparison", "16-bit result of f16x2", "8.5", "sm_90", "set.eq.u16.f16x2 %Ru16_0, %Rf16x2_1, %Rf16x2_2;"},
	{"half-comparison", "f32 result of f16", "8.5", "sm_90", "set.eq.f32.f16 %Rf32_0, %Rf16_1, %Rf16_2;"},
	{"half-comparison", "integer-result set.f16 too old", "6.4", "sm_53", "set.lt.u32.f16 %Ru32_0, %Rf16_1, %Rf16_2;"},
	{"half-comparison", "set.bf16 too new", "8.5", "sm_89", "set.eq.bf16.f32 %Rb16_0, %Rf32_1, %Rf32_2;"},
	{"half-comparison", "f16 registers for bf16", "8.5", "sm_90", "set.eq.u32.bf16 %Ru32_0, %Rf16_1, %Rf16_2;"},
	{"half-comparison", "BoolOp without c", "8.5", "sm_90", "set.eq.and.f16.f16 %Rf16_0, %Rf16_1, %Rf16_2;"},
	{"half-comparison", "p|q of scalar f16", "8.5", "sm_90", "setp.eq.f16 %Rpred_0|%Rpred_1, %Rf16_1, %Rf16_2;"},
	// logic and shift
	{"logic-shift", "and on unsigned", "8.5", "sm_90", "and.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"logic-shift", "64-bit shift amount", "8.5", "sm_90", "shl.b64 %Rb64_0, %Rb64_1, %Rb64_2;"},
	{"logic-shift", "lop3 with four sources", "8.5", "sm_90", "lop3.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3, %Rb32_4, 0x96;"},
	{"logic-shift", "shf without direction", "8.5", "sm_90", "shf.wrap.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Ru32_3;"},
	{"logic-shift", "not with two sources", "8.5", "sm_90", "not.b32 %Rb32_0, %Rb32_1, %Rb32_2;"},
	// data movement and conversion
	{"data-movement", "mov.u32 from 64 bits", "8.5", "sm_90", "mov.u32 %Ru32_3, %Ru64_4;"},
	{"data-movement", ".b128 on sm_61", "8.5", "sm_61", ".reg .b128 %q;"},
	{"data-movement", "cvt without rounding", "8.5", "sm_90", "cvt.f32.u32 %Rf32_0, %Ru32_1;"},
	{"data-movement", "cvt.sat that cannot overflow", "8.5", "sm_90", "cvt.sat.u32.u16 %Ru32_0, %Ru16_1;"},
	{"data-movement", "ld.relaxed without scope", "8.5", "sm_90", "ld.relaxed.global.u32 %Ru32_0, [%Ru64_1];"},
	{"data-movement", "256-bit vector", "8.5", "sm_90", "ld.global.v4.f64 {%Rf64_0, %Rf64_1, %Rf64_2, %Rf64_3}, [%Ru64_1];"},
	{"data-movement", "ld into narrower register", "8.5", "sm_90", "ld.global.u32 %Ru16_0, [%Ru64_1];"},
	{"data-movement", "address without brackets", "8.5", "sm_90", "ld.global.u32 %Ru32_0, %Ru64_1;"},
	{"data-movement", "shfl operand too many", "8.5", "sm_90", "shfl.sync.up.b32 %Rb32_0, %Rb32_1, 1, 0, 0xffffffff, 3;"},
	{"data-movement", "mapa too new", "7.8", "sm_80", "mapa.u64 %Ru64_0, %Ru64_1, %Ru32_2;"},
	{"data-movement", "write a special register", "8.5", "sm_90", "mov.u32 %tid.x, %Ru32_0;"},
	{"data-movement", "isspacep into a register", "8.5", "sm_90", "isspacep.global %Ru32_0, %Ru64_1;"},
	{"data-movement", "cvta to 32 bits", "8.5", "sm_90", "cvta.to.global.u32 %Ru32_0, %Ru64_1;"},
	{"data-movement", "cache hint with volatile", "8.5", "sm_90", "ld.volatile.global.L2::cache_hint.u32 %Ru32_0, [%Ru64_1], %Ru64_2;"},
	{"data-movement", "policy sizes reversed", "8.5", "sm_90", "createpolicy.range.global.L2::evict_last.b64 %Rb64_0, [%Ru64_1], 64, 16;"},
	{"data-movement", "prefetch hint too new", "8.5", "sm_75", "prefetch.global.L2::evict_last [%Ru64_0];"},
	{"data-movement", "bulk size not a multiple of 16", "8.5", "sm_90", "cp.async.bulk.global.shared::cta.bulk_group [%Ru64_0], [%Ru64_1], 24;"},
	// control flow
	{"control-flow", "branch to a register", "8.5", "sm_90", "bra %Ru32_0;"},
	{"control-flow", "ret.sync", "8.5", "sm_90", "ret.sync;"},
	{"control-flow", "unknown label", "8.5", "sm_90", "bra NOWHERE;"},
	// synchronization
	{"synchronization", "bar.sync 16", "8.5", "sm_90", "bar.sync 16;"},
	{"synchronization", "thread count not a multiple of 32", "8.5", "sm_90", "bar.sync 1, 33;"},
	{"synchronization", "membar.gpu", "8.5", "sm_90", "membar.gpu;"},
	{"synchronization", "atom.add.s64", "8.5", "sm_90", "atom.global.add.s64 %Rs64_0, [%Ru64_1], %Rs64_2;"},
	{"synchronization", "cluster scope too new", "8.5", "sm_80", "atom.global.cluster.add.u32 %Ru32_0, [%Ru64_1], %Ru32_2;"},
	{"synchronization", "vote without mask", "8.5", "sm_90", "vote.sync.any.pred %Rpred_0, %Rpred_1;"},
	{"synchronization", "fence.acq_rel without scope", "8.5", "sm_90", "fence.acq_rel;"},
	{"synchronization", "redux too new", "8.5", "sm_75", "redux.sync.add.u32 %Ru32_0, %Ru32_1, 0xffffffff;"},
	{"synchronization", "bar.red with integer predicate", "8.5", "sm_90", "bar.red.popc.u32 %Ru32_0, 1, %Ru32_1;"},
	{"synchronization", "elect without predicate", "8.5", "sm_90", "elect.sync %Ru32_0, 0xffffffff;"},
	{"synchronization", "activemask into a predicate", "8.5", "sm_90", "activemask.b32 %Rpred_0;"},
	{"synchronization", "vote without .sync", "8.5", "sm_90", "vote.any.pred %Rpred_0, %Rpred_1;"},
	{"synchronization", "griddepcontrol too new", "8.5", "sm_80", "griddepcontrol.wait;"},
	// misc, stack, matrices
	{"misc", "nanosleep too new", "8.5", "sm_61", "nanosleep.u32 %Ru32_0;"},
	{"misc", "setmaxnreg 20", "8.5", "sm_90a", "setmaxnreg.inc.sync.aligned.u32 20;"},
	{"misc", "testp into a register", "8.5", "sm_90", "testp.finite.f32 %Ru32_0, %Rf32_1;"},
	{"stack", "stacksave into 32 bits", "8.5", "sm_90", "stacksave.u64 %Ru32_0;"},
	{"warp-mma", "ldmatrix too new", "8.5", "sm_70", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%Rb32_0}, [%Ru64_0];"},
	{"wgmma", "wgmma without sm_90a", "8.5", "sm_90", "wgmma.fence.sync.aligned;"},
	{"tcgen05", "tcgen05 before PTX 8.6", "8.5", "sm_90a", "tcgen05.wait::st.sync.aligned;"},
	// more, across classes
	{"data-movement", "predicate into .b32", "8.5", "sm_90", "mov.b32 %Rb32_0, %Rpred_0;"},
	{"data-movement", "cvt source of the wrong width", "8.5", "sm_90", "cvt.rn.f32.f64 %Rf32_0, %Rf32_1;"},
	{"data-movement", "vector load into a scalar", "8.5", "sm_90", "ld.shared.v2.u32 %Ru32_0, [%Ru64_0];"},
	{"data-movement", "vector arity", "8.5", "sm_90", "ld.global.nc.v2.u32 {%Ru32_0}, [%Ru64_0];"},
	{"data-movement", "ldu with a third operand", "8.5", "sm_90", "ldu.global.u32 %Ru32_0, [%Ru64_0], 4;"},
	{"data-movement", "vector special register as scalar", "8.5", "sm_90", "mov.u32 %Ru32_0, %tid;"},
	{"data-movement", "cp.async.ca of 32 bytes", "8.5", "sm_90", "cp.async.ca.shared.global [%Ru64_0], [%Ru64_1], 32;"},
	{"data-movement", "cp.async.wait_all too new", "8.5", "sm_75", "cp.async.wait_all;"},
	{"data-movement", "shfl without member mask", "8.5", "sm_90", "shfl.sync.idx.b32 %Rb32_0, %Rb32_1, 1, 0x1f;"},
	{"data-movement", "prmt mode with a fourth operand missing", "8.5", "sm_90", "prmt.b32.f4e %Rb32_0, %Rb32_1, %Rb32_2;"},
	{"integer-arithmetic", "neg of unsigned", "8.5", "sm_90", "neg.u32 %Ru32_0, %Ru32_1;"},
	{"integer-arithmetic", "float constant for an integer", "8.5", "sm_90", "min.u32 %Ru32_0, %Ru32_1, 0f3F800000;"},
	{"integer-arithmetic", "mul24 on 64 bits", "8.5", "sm_90", "mul24.lo.u64 %Ru64_0, %Ru64_1, %Ru64_2;"},
	{"integer-arithmetic", "sad operand missing", "8.5", "sm_90", "sad.u32 %Ru32_0, %Ru32_1, %Ru32_2;"},
	{"integer-arithmetic", "clz into 64 bits", "8.5", "sm_90", "clz.b64 %Ru64_0, %Rb64_1;"},
	{"logic-shift", "float shift amount", "8.5", "sm_90", "shr.u32 %Ru32_0, %Ru32_1, %Rf32_2;"},
	{"logic-shift", "brev on unsigned", "8.5", "sm_90", "brev.u32 %Ru32_0, %Ru32_1;"},
	{"float-arithmetic", "tanh too new", "8.5", "sm_70", "tanh.approx.f32 %Rf32_0, %Rf32_1;"},
	{"float-arithmetic", "cvt.rni from f16 register as f32", "8.5", "sm_90", "cvt.rni.f32.f32 %Rf32_0, %Rf16_1;"},
	{"synchronization", "bar.warp.sync with a predicate", "8.5", "sm_90", "bar.warp.sync %Rpred_0;"},
	{"synchronization", "atom.cas operand missing", "8.5", "sm_90", "atom.global.cas.b32 %Rb32_0, [%Ru64_0], %Rb32_1;"},
	{"synchronization", "red with a destination", "8.5", "sm_90", "red.global.add.u32 %Ru32_0, [%Ru64_0], %Ru32_1;"},
	{"synchronization", "mbarrier.init without count", "8.5", "sm_90", "mbarrier.init.shared.b64 [%Ru64_0];"},
	{"synchronization", "fence.proxy.async too new", "8.5", "sm_80", "fence.proxy.async;"},
	{"synchronization", ".arrive after .aligned", "8.5", "sm_90", "barrier.aligned.arrive 4, 32;"},
	{"control-flow", "exit with an operand", "8.5", "sm_90", "exit %Ru32_0;"},
	{"control-flow", "call of an undeclared function", "8.5", "sm_90", "call nowhere;"},
}

// TestMistakes checks that `ptxkit check` reports an error on the line of
// each one-line mistake, and, where ptxas 12.5 is installed, that ptxas
// rejects the line too (and accepts the kernel without it). It prints the
// share caught per class.
func TestMistakes(t *testing.T) {
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	type tally struct{ caught, total int }
	byClass := map[string]*tally{}
	caught := 0
	checked := map[string]bool{}
	for _, m := range mistakes {
		header := opKernelHeader(m.version, m.target)
		first := strings.Count(header, "\n") + 1
		src := header + m.line + "\n" + kernelFooter
		if ptxas != "" {
			key := m.version + " " + m.target
			if !checked[key] {
				checked[key] = true
				if l := ptxasErrorLines(t, ptxas, dir, m.target, header+kernelFooter); len(l) > 0 {
					t.Fatalf("the kernel without the mistake does not assemble for PTX %s %s: lines %v", m.version, m.target, l)
				}
			}
			if lines, crashed := ptxasVerdicts(t, ptxas, dir, m.target, src); !lines[first] {
				t.Errorf("[%s] %s: ptxas 12.5 accepts %q (PTX %s %s, crashed %v): not a mistake", m.class, m.what, m.line, m.version, m.target, crashed)
			}
		}
		ours, diags := checkCommandErrorLines(src)
		tl := byClass[m.class]
		if tl == nil {
			tl = &tally{}
			byClass[m.class] = tl
		}
		tl.total++
		if ours[first] {
			tl.caught++
			caught++
			continue
		}
		t.Errorf("[%s] %s: ptxkit reports no error on %q (PTX %s %s): %v", m.class, m.what, m.line, m.version, m.target, diags)
	}
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	slices.Sort(classes)
	t.Logf("one-line mistakes caught: %d/%d", caught, len(mistakes))
	for _, k := range classes {
		t.Logf("  %-20s %3d/%d", k, byClass[k].caught, byClass[k].total)
	}
	if len(mistakes) < 60 {
		t.Errorf("only %d mistakes; the table should hold at least 60", len(mistakes))
	}
}

// checkCommandErrorLines returns the lines with errors as `ptxkit check`
// reports them: syntax errors, else name resolution's and the checker's.
func checkCommandErrorLines(src string) (map[int]bool, diag.List) {
	m, l := parser.ParseString("k.ptx", src)
	if !l.HasErrors() {
		_, rl := resolve.Module(m)
		l = append(l, rl...)
		l = append(l, Module(m, Config{})...)
	}
	lines := map[int]bool{}
	for _, d := range l {
		if d.Severity == diag.Error {
			lines[int(d.Pos.Line)] = true
		}
	}
	return lines, l
}

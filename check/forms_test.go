package check

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// formCase is a golden diagnostic of an instruction outside the store
// family: the rule, its position, and a piece of its message.
type formCase struct {
	class   string
	body    string
	version string
	target  string
	rule    string
	col     int32
	msg     string // a part of the message
}

// TestFormRules has, for every instruction class, instructions with one
// mistake each and the diagnostic the checker must give (rule, column,
// message), beginning with the mistakes a new user makes most.
func TestFormRules(t *testing.T) {
	cases := []formCase{
		// mistakes users make
		{"integer-arithmetic", "addd.u32 %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "unknown-opcode", 1, "did you mean add?"},
		{"integer-arithmetic", "add.u32 %Ru32_0, %Ru32_1;", "8.5", "sm_90", "operand-count", 1, "add takes 3 operands (d, a, b), not 2"},
		{"data-movement", "mov.u32 %Ru32_3, %Ru64_4;", "8.5", "sm_90", "operand-type", 18, "%Ru64_4 of type .u64 does not fit"},
		{"comparison", "setp.eq.u32 %Rb32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "operand-type", 13, "must be a predicate"},
		{"float-arithmetic", "div.f32 %Rf32_1, %Rf32_2, %Rf32_3;", "8.5", "sm_90", "missing-qualifier", 1, ".approx, .full, .rn, .rz, .rm, .rp"},
		{"synchronization", "bar.sync 16;", "8.5", "sm_90", "operand-range", 10, "0..15, not 16"},
		{"data-movement", ".reg .b128 %q;", "8.5", "sm_61", "target", 1, ".b128 requires sm_70"},
		{"float-arithmetic", "add.f32 %Rf32_1, %Rf32_2, 1;", "8.5", "sm_90", "operand-immediate", 27, "integer constant 1 is not a .f32 operand"},
		{"integer-arithmetic", "mul.u32 %Ru32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "missing-qualifier", 1, ".lo, .hi, .wide"},
		{"integer-arithmetic", "add.u32 5, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "operand-kind", 9, "must be a register"},
		{"integer-arithmetic", "add.u32 %Ru32_1, gb, %Ru32_3;", "8.5", "sm_90", "operand-kind", 18, "not variable gb"},
		// a ptxas 12.5 rule: directed rounding with .ftz narrows to a 32-bit destination
		{"data-movement", "cvt.rz.ftz.f32.f64 %Rb64_1, %Rf64_2;", "8.5", "sm_90", "operand-type", 20, "needs a 32-bit destination"},
		// floating-point constants of bit-size operands must have their width
		{"data-movement", "mov.b64 %Rb64_1, 0f3F800000;", "8.5", "sm_90", "operand-immediate", 18, "a 32-bit floating-point constant is not a .b64 operand"},
		{"data-movement", "mov.b32 %Rb32_1, 1.5;", "8.5", "sm_90", "operand-immediate", 18, "a 64-bit floating-point constant is not a .b32 operand"},
		{"comparison", "setp.ne.b64 %Rpred_1, %Rb64_1, 0f3F800000;", "8.5", "sm_90", "operand-immediate", 32, "a 32-bit floating-point constant is not a .b64 operand"},
		// packed mov operands (ptxas: "Argument vector size mismatch", "Incompatible elements")
		{"data-movement", "mov.u32 %Ru32_1, {0, %Ru32_2};", "8.5", "sm_90", "operand-type", 18, "2 elements of a packed mov.u32 operand must together be 32 bits, not 64"},
		{"data-movement", "mov.b64 %Rb64_1, {%Rb16_1, %Rb32_2, %Rb16_2};", "8.5", "sm_90", "operand-vector", 18, "has 2 or 4 elements, not 3"},
		{"data-movement", "mov.b64 %Rb64_1, {%Rb32_1, %Rb16_2};", "8.5", "sm_90", "operand-vector", 28, "must have one width: %Rb16_2 is 16 bits, not 32"},
		{"data-movement", "mov.u32 %Ru32_1, {%Ru32_2};", "8.5", "sm_90", "operand-vector", 18, "has 2 or 4 elements, not 1"},
		// integer arithmetic
		{"integer-arithmetic", "add.sat.u32 %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "qualifier-not-allowed", 4, ".sat is not a qualifier of add"},
		{"integer-arithmetic", "mul.wide.u32 %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "operand-type", 14, "64-bit"},
		{"integer-arithmetic", "add.b32 %Rb32_0, %Rb32_1, %Rb32_2;", "8.5", "sm_90", "type-not-allowed", 4, ".b32 is not a type of add"},
		{"integer-arithmetic", "dp4a.u32.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_60", "target", 1, "requires sm_61"},
		// extended precision
		{"extended-precision", "addc.cc.u16 %Ru16_0, %Ru16_1, %Ru16_2;", "8.5", "sm_90", "type-not-allowed", 8, ".u16 is not a type of addc"},
		// float arithmetic
		{"float-arithmetic", "fma.f32 %Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3;", "8.5", "sm_90", "missing-qualifier", 1, "fma needs one of .rn"},
		{"float-arithmetic", "add.f32 %Rf32_0, %Ru32_1, %Rf32_2;", "8.5", "sm_90", "operand-type", 18, "of type .u32 does not fit operand a"},
		{"float-arithmetic", "sin.f32 %Rf32_0, %Rf32_1;", "8.5", "sm_90", "missing-qualifier", 1, "sin needs .approx"},
		// half precision
		{"half-arithmetic", "add.bf16 %Rb16_0, %Rb16_1, %Rb16_2;", "8.5", "sm_80", "target", 1, "requires sm_90"},
		{"half-arithmetic", "add.f16 %Rf16_0, %Ru16_1, %Rf16_2;", "8.5", "sm_90", "operand-type", 18, "of type .u16 does not fit"},
		// comparison and selection
		{"comparison", "setp.lt.b32 %Rpred_0, %Rb32_1, %Rb32_2;", "8.5", "sm_90", "cmp-type", 5, ".lt does not compare .b32"},
		{"comparison", "setp.eq.u32 %Rpred_0, %Ru32_1, %Ru32_2, %Rpred_1;", "8.5", "sm_90", "operand-count", 41, "setp takes 3 operands"},
		{"comparison", "selp.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "operand-type", 37, "must be a predicate"},
		// half comparison
		{"half-comparison", "setp.lo.f16 %Rpred_0, %Rf16_1, %Rf16_2;", "8.5", "sm_90", "type-not-allowed", 8, ".f16 is not a type of setp"},
		{"half-comparison", "set.eq.u16.f16x2 %Ru16_0, %Rf16x2_1, %Rf16x2_2;", "8.5", "sm_90", "type-not-allowed", 11, ".f16x2 is not a type of set (.f16, .bf16 here)"},
		{"half-comparison", "set.eq.f16.bf16 %Rf16_0, %Rb16_1, %Rb16_2;", "8.5", "sm_90", "type-not-allowed", 11, "(.b16, .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f16, .f32, .f64 here)"},
		{"half-comparison", "set.lt.ftz.f16.f64 %Rf16_0, %Rf64_1, %Rf64_2;", "8.5", "sm_90", "type-not-allowed", 15, ".f64 is not a type of set (.f16, .f32 here)"},
		{"half-comparison", "set.lt.u32.f16 %Ru32_0, %Rf16_1, %Rf16_2;", "6.4", "sm_53", "ptx-version", 1, "requires PTX ISA 6.5"},
		{"half-comparison", "set.ne.and.bf16x2.bf16x2 %Rb32_0, %Rb32_1, %Rb32_2, %Rpred_0;", "8.5", "sm_89", "target", 1, "requires sm_90"},
		{"half-comparison", "set.eq.bf16.bf16 %Rb16_0, %Rf16_1, %Rb16_2;", "8.5", "sm_90", "operand-type", 27, "%Rf16_1 of type .f16 does not fit operand a of set (.bf16)"},
		{"half-comparison", "set.lo.f16.s32 %Rf16_0, %Rs32_1, %Rs32_2;", "8.5", "sm_90", "cmp-type", 4, ".lo does not compare .s32 values"},
		{"half-comparison", "setp.eq.f16 %Rpred_0|%Rpred_1, %Rf16_1, %Rf16_2;", "8.5", "sm_90", "operand-kind", 13, "setp writes one predicate p, not a pair p|q"},
		{"half-comparison", "set.eq.f16x2.f16x2 %Rf16x2_0, %Rf16x2_1, %Rf16x2_2, %Rpred_0;", "8.5", "sm_90", "operand-count", 53, "set takes 3 operands"},
		{"half-comparison", "set.lt.u32.f16.pred %Ru32_0, %Rf16_1, %Rf16_2;", "8.5", "sm_90", "ignored-qualifier", 15, ".pred means nothing on set"},
		// logic and shift
		{"logic-shift", "and.u32 %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "type-not-allowed", 4, ".u32 is not a type of and"},
		{"logic-shift", "shl.b64 %Rb64_0, %Rb64_1, %Rb64_2;", "8.5", "sm_90", "operand-type", 27, "does not fit operand b of shl (.u32)"},
		{"logic-shift", "lop3.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3, 256;", "8.5", "sm_90", "operand-range", 46, "ptxas uses its low 8 bits (0x00)"},
		// data movement and conversion
		{"data-movement", "cvt.f32.u32 %Rf32_0, %Ru32_1;", "8.5", "sm_90", "missing-qualifier", 1, "cvt needs one of .rn, .rz, .rm, .rp"},
		{"data-movement", "cvt.sat.u32.u16 %Ru32_0, %Ru16_1;", "8.5", "sm_90", "cvt-sat", 4, ".sat cannot change"},
		{"data-movement", "ld.relaxed.global.u32 %Ru32_0, [%Ru64_1];", "8.5", "sm_90", "missing-qualifier", 3, "requires one of .cta"},
		{"data-movement", "ld.global.v4.f64 {%Rf64_0, %Rf64_1, %Rf64_2, %Rf64_3}, [%Ru64_1];", "8.5", "sm_90", "vector-size", 10, "256 bits"},
		{"data-movement", "ld.global.u32 %Ru16_0, [%Ru64_1];", "8.5", "sm_90", "operand-type", 15, "of type .u16 does not fit"},
		{"data-movement", "ld.global.u32 %Ru32_0, %Ru64_1;", "8.5", "sm_90", "operand-address", 24, "address in brackets"},
		{"data-movement", "shfl.sync.up.b32 %Rb32_0, %Rb32_1, 1, 0, 0xffffffff, 3;", "8.5", "sm_90", "operand-count", 54, "shfl takes 5 operands"},
		{"data-movement", "mapa.u64 %Ru64_0, %Ru64_1, %Ru32_2;", "7.8", "sm_80", "target", 1, "requires sm_90"},
		// control flow
		{"control-flow", "bra %Ru32_0;", "8.5", "sm_90", "operand-kind", 5, "must be a label"},
		{"control-flow", "ret.sync;", "8.5", "sm_90", "qualifier-not-allowed", 4, ".sync is not a qualifier of ret"},
		// synchronization
		{"synchronization", "bar.sync 1, 33;", "8.5", "sm_90", "operand-range", 13, "multiple of the warp size"},
		{"synchronization", "membar.gpu;", "8.5", "sm_90", "qualifier-not-allowed", 7, ".gpu is not a qualifier of membar"},
		{"synchronization", "atom.global.add.s64 %Rs64_0, [%Ru64_1], %Rs64_2;", "8.5", "sm_90", "type-not-allowed", 16, ".s64 is not a type of atom"},
		{"synchronization", "atom.global.cluster.add.u32 %Ru32_0, [%Ru64_1], %Ru32_2;", "8.5", "sm_80", "target", 12, ".cluster requires sm_90"},
		{"synchronization", "vote.sync.any.pred %Rpred_0, %Rpred_1;", "8.5", "sm_90", "operand-count", 1, "vote takes 3 operands"},
		{"synchronization", "fence.acq_rel;", "8.5", "sm_90", "missing-qualifier", 1, ".cta, .cluster, .gpu, .sys"},
		{"synchronization", "redux.sync.add.u32 %Ru32_0, %Ru32_1, 0xffffffff;", "8.5", "sm_75", "target", 1, "requires sm_80"},
		// ptxas 12.5's rules found by the differential test (seeds 3-6)
		{"data-movement", "createpolicy.range.global.L2::evict_last.b64 %Rb64_0, [%Ru64_1], 59, 4;", "8.5", "sm_90", "operand-range", 66, "primary size 59 of createpolicy.range exceeds the total size 4"},
		{"data-movement", "createpolicy.range.L2::evict_last.b64 %Rb64_0, [%Ru64_1], -1, 4;", "8.5", "sm_90", "operand-range", 59, "primary size -1"},
		{"data-movement", "createpolicy.cvt.L2.b64 43, %Ru64_1;", "8.5", "sm_90", "operand-kind", 25, "must be a register"},
		{"data-movement", "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%Ru64_0], [%Ru64_1], %Ru32_0, %Rf64_0;", "8.5", "sm_90", "operand-type", 91, "of type .f64 does not fit operand pol"},
		{"data-movement", "ld.volatile.global.L2::cache_hint.u32 %Ru32_0, [%Ru64_1], %Ru64_2;", "8.5", "sm_90", "qualifier-conflict", 19, "cannot be combined with .volatile"},
		{"half-comparison", "setp.geu.bf16x2 %Rpred_0, %Rpred_1, %Rb32_1;", "8.5", "sm_90", "operand-type", 27, "does not fit operand a"},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.trans.b16 %Rb32_0, %Rb64_1;", "8.5", "sm_90", "operand-type", 48, "does not fit operand a"},
		{"integer-arithmetic", "mul.lo.u32.pred %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "qualifier-not-allowed", 11, ".pred"},
		{"float-arithmetic", "mul.rn.f64.pred %Rf64_0, %Rf64_1, %Rf64_2;", "8.5", "sm_90", "ignored-qualifier", 11, ".pred means nothing"},
		{"float-arithmetic", "tanh.approx.f32.pred %Rf32_0, %Rf32_1;", "8.5", "sm_90", "ignored-qualifier", 16, ".pred means nothing"},
		// ptxas reads the opcode and the qualifiers that name the
		// instruction first (OpForm.Head); testp properties, .pred on set
		// and the alternate types on movmatrix are ignored after the name;
		// cp names the destination's state space first
		{"data-movement", "cp.shared::cta.async.mbarrier.arrive.b64 [%Ru64_0];", "8.5", "sm_90", "qualifier-order", 15, "cp.async.mbarrier.arrive must be written first"},
		{"data-movement", "cp.async.bulk.read.wait_group 0;", "8.5", "sm_90", "qualifier-order", 19, "cp.async.bulk.wait_group must be written first"},
		{"integer-arithmetic", "mul.s32.lo %Rs32_0, %Rs32_1, %Rs32_2;", "8.5", "sm_90", "qualifier-order", 8, "mul.lo must be written first"},
		{"integer-arithmetic", "mad.infinite.wide.u32 %Ru64_0, %Ru32_1, %Ru32_2, %Ru64_3;", "8.5", "sm_90", "qualifier-order", 13, "mad.wide must be written first"},
		{"logic-shift", "shf.wrap.r.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Ru32_3;", "8.5", "sm_90", "qualifier-order", 9, "shf.r must be written first"},
		{"synchronization", "fence.sc.proxy.alias;", "8.5", "sm_90", "qualifier-order", 9, "fence.proxy must be written first"},
		{"synchronization", "bar.infinite.sync 0;", "8.5", "sm_90", "ignored-qualifier", 4, ".infinite means nothing"},
		{"data-movement", "cp.async.bulk.shared::cluster.global.infinite.mbarrier::complete_tx::bytes [%Ru64_0], [%Ru64_1], %Ru32_0, [%Ru64_2];", "8.5", "sm_90", "ignored-qualifier", 37, ".infinite means nothing"},
		{"data-movement", "cp.async.ca.global.shared [%Ru64_0], [%Ru64_1], 4;", "8.5", "sm_90", "state-space-order", 19, ".shared is written after .global"},
		{"data-movement", "cp.async.bulk.global.shared::cluster.mbarrier::complete_tx::bytes [%Ru64_0], [%Ru64_1], %Ru32_0, [%Ru64_2];", "8.5", "sm_90", "state-space-order", 21, "cp.async.bulk names the destination's state space first"},
		{"data-movement", "cp.async.ca.shared.shared::cta.global [%Ru64_0], [%Ru64_1], 4;", "8.5", "sm_90", "qualifier-conflict", 19, ".shared::cta conflicts"},
		{"comparison", "set.pred.ge.s32.f64 %Rs32_0, 0d3FF0000000000000, %Rf64_1;", "8.5", "sm_90", "ignored-qualifier", 4, ".pred means nothing"},
		{"synchronization", "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.add.u32.pred [%Ru64_0], %Ru32_1, [%Ru64_2];", "8.5", "sm_90", "qualifier-not-allowed", 63, ".pred is not a qualifier"},
		{"warp-mma", "movmatrix.sync.bf16x2.aligned.m8n8.trans.b16 %Rb32_0, %Rb32_1;", "8.5", "sm_90", "ignored-qualifier", 15, ".bf16x2 means nothing"},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.trans.s4.u4.b16 %Rb32_0, %Rb32_1;", "8.5", "sm_90", "ignored-qualifier", 37, ".u4 means nothing"},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.col.trans.col.b16 %Rb32_0, %Rb32_1;", "7.8", "sm_75", "ignored-qualifier", 28, ".col means nothing"},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.trans.bf16x2.b16 %Rb32_0, %Rb32_1;", "8.5", "sm_75", "target", 34, ".bf16x2 requires sm_80"},
		// a .f16 register holds no .bf16, a .f16x2 register no .bf16x2
		{"data-movement", "cvt.f16.bf16 %Rf16_0, %Rf16_1;", "8.5", "sm_90", "operand-type", 23, "does not fit operand a of cvt (.bf16)"},
		{"half-arithmetic", "add.rn.bf16x2 %Rf16x2_0, %Rb32_1, %Rb32_2;", "8.5", "sm_90", "operand-type", 15, "does not fit operand d of add (.bf16x2)"},
		// 8-bit float pairs to and from .f16x2 take exact .b16 and 32-bit registers
		{"data-movement", "cvt.rn.f16x2.e4m3x2 %Rb32_0, %Rf16_1;", "8.5", "sm_90", "operand-type", 30, "does not fit operand a of cvt"},
		{"data-movement", "cvt.rn.f16x2.e4m3x2 %Rb64_0, %Rb16_1;", "8.5", "sm_90", "operand-type", 21, "does not fit operand d of cvt"},
		{"data-movement", "cvt.rn.e5m2x2.f16x2 %Rb16_0, %Rb32_1;", "8.5", "sm_90", "missing-qualifier", 1, ".satfinite"},
		{"extended-precision", "addc.sat.u32 %Ru32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "qualifier-not-allowed", 5, ".sat is not a qualifier of addc"},
		{"misc", "pmevent.infinite.mask 2;", "8.5", "sm_90", "qualifier-not-allowed", 17, ".mask is not a qualifier of pmevent"},
		{"integer-arithmetic", "bmsk.clamp.b32 %Rf32_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "operand-type", 16, "does not fit operand d of bmsk"},
		{"data-movement", "ld.relaxed.sys.b128 %Rb128_0, [%Ru64_1];", "8.3", "sm_90", "ptx-version", 1, "requires PTX ISA 8.4"},
		{"synchronization", "atom.shared.xor.b32 %Rb32_0, [%Ru64_1], %Rb32_2, %Rb64_3;", "8.5", "sm_80", "operand-type", 50, "does not fit operand a of atom (.b32)"},
		{"data-movement", "ld.v2.f32 {%Rs32_0, %Rf32_1}, [%Ru64_0];", "8.5", "sm_90", "operand-vector", 11, "must not mix integer and floating-point"},
		{"data-movement", "ld.v2.u32 {%Rf32_0, %Rf32_1}, [%Ru64_0];", "8.5", "sm_90", "operand-type", 12, "does not fit .u32"},
		{"data-movement", "ld.volatile.local.u32 %Ru32_0, [%Ru64_0];", "8.5", "sm_90", "qualifier-conflict", 12, ".local cannot be combined with .volatile"},
		{"data-movement", "cvt.rn.relu.ftz.bf16.f32 %Rb16_0, %Rf32_1;", "8.5", "sm_90", "qualifier-not-allowed", 12, ".ftz is not a qualifier of cvt"},
		{"float-arithmetic", "div.ftz.full.f32 %Rf32_0, %Rf32_1, %Rf32_2;", "8.5", "sm_90", "qualifier-order", 8, "div.full must be written first"},
		{"data-movement", "cvt.sat.pack.s8.s32.b32 %Rb32_0, %Rs32_1, %Rs32_2, %Rb32_3;", "8.5", "sm_90", "qualifier-order", 8, "cvt.pack must be written first"},
		{"data-movement", "createpolicy.L2::evict_last.fractional.b64 %Rb64_0;", "8.5", "sm_90", "qualifier-order", 28, "createpolicy.fractional must be written first"},
		{"data-movement", "createpolicy.cvt.L2.b64 %Rf64_0, %Ru64_1;", "8.5", "sm_90", "operand-type", 25, "of type .f64 does not fit operand d"},
		{"data-movement", "ld.volatile.global.L1::evict_last.u32 %Ru32_0, [%Ru64_1];", "8.5", "sm_90", "qualifier-conflict", 19, "cannot be combined with .volatile"},
		{"data-movement", "cvt.pack.sat.s8.s32.b32 %Rb32_0, %Rs32_1, %Rs32_2, %Rb16_3;", "8.5", "sm_90", "operand-type", 52, "does not fit operand c"},
		{"data-movement", "mov.u32 %Ru32_0, %tid;", "8.5", "sm_90", "operand-kind", 18, "special register %tid holds a vector"},
		{"synchronization", "redux.sync.and.b32 %Rb32_0, %Rf32_1, 0xffffffff;", "8.5", "sm_90", "operand-type", 29, "of type .f32 does not fit operand a"},
		{"data-movement", "cvt.rn.relu.relu.bf16.f32 %Rb16_0, %Rf32_1;", "8.5", "sm_90", "duplicate-qualifier", 12, "duplicate .relu"},
		{"data-movement", "getctarank.s16 %Ru32_0, %Ru16_1;", "8.5", "sm_90", "type-not-allowed", 11, ".s16 is not a type of getctarank"},
		{"misc", "setmaxnreg.dec.sync.aligned.b32 64;", "8.5", "sm_90a", "type-not-allowed", 28, ".b32 is not a type of setmaxnreg"},
		{"data-movement", "cvta.global.to.u64 %Ru64_0, %Ru64_1;", "8.5", "sm_90", "qualifier-not-allowed", 12, ".to is not a qualifier of cvta"},
		{"synchronization", "fence.proxy.tensormap::generic.local.release.gpu;", "8.5", "sm_90", "qualifier-not-allowed", 31, ".local is not a qualifier of fence"},
		{"data-movement", "cvta.global.u32 %Ru32_0, %Ru32_1;", "8.5", "sm_90", "address-size", 12, "cvta.u32 converts a 32-bit address"},
		{"data-movement", "cvta.to.param.u64 %Ru64_0, %Ru64_1;", "7.6", "sm_90", "ptx-version", 8, ".param requires PTX ISA 7.7"},
		{"synchronization", "atom.global.exch.b32 %Rb32_0, [%Ru64_1], %Rb32_2, %Rf64_3;", "8.5", "sm_90", "operand-type", 51, "of type .f64 does not fit operand a of atom"},
		{"synchronization", "vote.sync.sync.ballot.b32 %Rb32_0, %Rpred_0, 3;", "8.5", "sm_90", "duplicate-qualifier", 10, "duplicate .sync"},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.trans.bf16 %Rb32_0, %Rb32_1;", "8.5", "sm_90", "missing-type", 1, ""},
		{"warp-mma", "movmatrix.sync.aligned.m8n8.trans.bf16.b16 %Rb32_0, %Rb32_1;", "8.5", "sm_75", "target", 34, ".bf16 requires sm_80"},
		// .f16x2 registers outside the half classes (ptxas 12.5; docs/ptxas-differences.md)
		{"misc", "nanosleep.u32 %Rf16x2_0;", "8.5", "sm_90", "operand-type", 15, "of type .f16x2 does not fit operand a of nanosleep"},
		{"logic-shift", "shl.b32 %Rb32_0, %Rb32_1, %Rf16x2_2;", "8.5", "sm_90", "operand-type", 27, "does not fit operand b of shl (.u32)"},
		{"synchronization", "bar.warp.sync %Rf16x2_0;", "8.5", "sm_90", "operand-type", 15, "does not fit operand a of bar.warp.sync"},
		{"synchronization", "mbarrier.pending_count.b64 %Rf16x2_0, %Ru64_1;", "8.5", "sm_90", "operand-type", 28, "does not fit operand d"},
		{"synchronization", "redux.sync.min.u32 %Ru32_0, %Rf16x2_1, 0xffffffff;", "8.5", "sm_90", "operand-type", 29, "does not fit operand a of redux"},
		{"comparison", "setp.eq.u32 %Rf16x2_0, %Ru32_1, %Ru32_2;", "8.5", "sm_90", "operand-type", 13, "must be a predicate"},
		{"logic-shift", "xor.pred %Rpred_0, !%Rf16x2_1, %Rpred_2;", "8.5", "sm_90", "operand-type", 20, "! negates a .pred register"},
		{"logic-shift", "and.b32 %Rb32_0, !%Rb32_1, %Rb32_2;", "8.5", "sm_90", "operand-kind", 18, "must be a register or constant"},
		{"synchronization", "vote.sync.all.pred %Rpred_0, !%Rf16x2_1, 1;", "8.5", "sm_90", "operand-type", 30, "! negates a .pred register"},
		{"synchronization", "vote.sync.all.pred %Rf16x2_0, %Rpred_1, 1;", "8.5", "sm_80", "operand-type", 20, "must be a predicate"},
		{"synchronization", "barrier.red.or.pred %Rf16x2_0, 1, %Rpred_1;", "8.5", "sm_86", "operand-type", 21, "must be a predicate"},
		{"data-movement", "cvt.rn.satfinite.e4m3x2.f32 %Rf16_0, %Rf32_1, %Rf32_2;", "8.5", "sm_90", "operand-type", 29, "does not fit operand d"},
		// ptxas 12.5's word fence.proxy; .any/.all on bar
		{"synchronization", "fence.shared::cta.proxy.async;", "8.5", "sm_90", "qualifier-order", 18, "fence.proxy must be written first"},
		{"synchronization", "fence.release.proxy.tensormap::generic.gpu;", "8.5", "sm_90", "qualifier-order", 14, "fence.proxy must be written first"},
		{"synchronization", "bar.sync.any 1;", "8.5", "sm_90", "ignored-qualifier", 9, ".any means nothing on bar.sync"},
		{"synchronization", "bar.any.sync 1;", "8.5", "sm_90", "ignored-qualifier", 4, ".any means nothing on bar.sync"},
		{"synchronization", "bar.red.popc.any.any.u32 %Ru32_0, 1, %Rpred_1;", "8.5", "sm_90", "qualifier-conflict", 17, ".any conflicts"},
		{"synchronization", "bar.any.arrive 1, 32;", "8.5", "sm_90", "qualifier-order", 8, "bar.arrive must be written first"},
		{"synchronization", "bar.sync.any.all 1;", "8.5", "sm_90", "qualifier-conflict", 13, ".all conflicts"},
		{"synchronization", "bar.arrive.all 1, 32;", "8.5", "sm_90", "qualifier-not-allowed", 11, ".all is not a qualifier of bar.arrive"},
		// an integer multiply's mode is part of its name; .relaxed loads and .b128 with .sys (ptxas 12.5)
		{"integer-arithmetic", "mul.finite.lo.s32 %Rs32_0, %Rs32_1, %Rs32_2;", "8.5", "sm_90", "qualifier-order", 11, "mul.lo must be written first"},
		{"extended-precision", "mad.cc.lo.u32 %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "qualifier-order", 7, "mad.lo must be written first"},
		{"integer-arithmetic", "bmsk.clamp.b32 %Rf32_0, 5, 3;", "8.5", "sm_90", "operand-type", 16, "does not fit operand d of bmsk (.u32)"},
		{"data-movement", "ld.relaxed.cta.local.u32 %Ru32_0, [%Ru64_1];", "8.5", "sm_90", "qualifier-conflict", 15, ".local cannot be combined with .relaxed"},
		{"data-movement", "ld.relaxed.sys.b128 %Rb128_0, [%Ru64_1];", "8.3", "sm_90", "ptx-version", 1, "requires PTX ISA 8.4"},
		{"data-movement", "ld.global.f32 %Ru32_0, [%Ru64_1];", "8.5", "sm_90", "operand-type", 15, "does not fit operand d of ld"},
		{"synchronization", "red.relaxed.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [sh], 1, [sh];", "8.5", "sm_90", "qualifier-order", 12, "red.async must be written first"},
		// misc and stack
		{"misc", "nanosleep.u32 %Ru32_0;", "8.5", "sm_61", "target", 1, "requires sm_70"},
		{"misc", "setmaxnreg.inc.sync.aligned.u32 20;", "8.5", "sm_90a", "operand-range", 33, "multiple of 8 in 24..256"},
		{"stack", "stacksave.u64 %Ru32_0;", "8.5", "sm_90", "operand-type", 15, "does not fit"},
		// warp-level matrix, wgmma, tcgen05, textures: opcode, qualifiers, versions
		{"warp-mma", "ldmatrix.sync.aligned.m8n8.x4.foo.shared.b16 {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, [%Ru64_0];", "8.5", "sm_90", "unknown-qualifier", 30, "unknown qualifier .foo"},
		{"wgmma", "wgmma.fence.sync.aligned;", "8.5", "sm_90", "target", 1, "requires sm_90a"},
		{"tcgen05", "tcgen05.wait::st.sync.aligned;", "8.5", "sm_90a", "ptx-version", 1, "requires PTX ISA 8.6"},
		{"texture", "texx.2d.v4.f32.f32 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, [%Ru64_0, {%Rf32_0, %Rf32_1}];", "8.5", "sm_90", "unknown-opcode", 1, "did you mean tex?"},
		{"surface", "suld.b.2d.v9.b32 {%Rb32_0}, [%Ru64_0, {%Rs32_0, %Rs32_1}];", "8.5", "sm_90", "unknown-qualifier", 10, "unknown qualifier .v9"},
		{"simd-video", "vadd4.u32.u32.u32.foo %Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3;", "8.5", "sm_90", "unknown-qualifier", 18, "unknown qualifier .foo"},
	}
	for _, c := range cases {
		l, first := checkSnippet(t, c.version, c.target, c.body)
		found := false
		for _, d := range l {
			if d.Rule == c.rule && int(d.Pos.Line) == first && d.Pos.Col == c.col && strings.Contains(d.Message, c.msg) {
				found = true
				if d.Severity == diag.Error && d.Spec == "" {
					t.Errorf("%s: %s without spec: %+v", c.body, c.rule, d)
				}
			}
		}
		if !found {
			t.Errorf("[%s] %s (PTX %s, %s): want %s at %d:%d containing %q, got %v", c.class, c.body, c.version, c.target, c.rule, first, c.col, c.msg, l)
		}
	}
}

// TestFormsValid checks instructions of every class that ptxas 12.5
// accepts: no diagnostic at all.
func TestFormsValid(t *testing.T) {
	bodies := []string{
		"add.s32 %Rs32_0, %Ru32_1, 7;", "mad.wide.u32 %Ru64_0, %Ru32_1, %Ru32_2, %Ru64_3;", "addc.cc.u32 %Ru32_0, %Ru32_1, %Ru32_2;",
		"fma.rn.ftz.f32 %Rf32_0, %Rf32_1, %Rb32_2, 0f3F800000;", "div.approx.f32 %Rf32_0, %Rf32_1, %Rf32_2;",
		"add.rn.f16x2 %Rf16x2_0, %Rb32_1, %Rf16x2_2;", "setp.ne.and.f32 %Rpred_0|%Rpred_1, %Rf32_0, 0f00000000, !%Rpred_2;",
		"selp.b64 %Rb64_0, %Rb64_1, 42, %Rpred_0;", "lop3.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3, 0x96;",
		"shf.l.wrap.b32 %Rb32_0, %Rb32_1, %Rb32_2, %Ru32_3;", "cvt.rn.f32.s32 %Rf32_0, %Rs32_1;", "cvt.u32.u8 %Ru32_0, %Ru16_1;",
		"mov.b64 {%Rb32_0, %Rb32_1}, %Rb64_0;", "mov.u64 %Ru64_0, gb;", "mov.u32 %Ru32_0, %tid.x;",
		"ld.global.nc.v2.f32 {%Rf32_0, %Rf32_1}, [%Ru64_0+8];", "ld.acquire.gpu.global.u32 %Ru64_0, [%Ru64_1];",
		"cvta.to.global.u64 %Ru64_0, %Ru64_1;", "isspacep.shared %Rpred_0, %Ru64_1;", "bar.sync 0;", "bar.red.popc.u32 %Ru32_0, 1, %Rpred_0;",
		"membar.gl;", "fence.proxy.alias;", "atom.global.cas.b32 %Rb32_0, [%Ru64_0], %Rb32_1, %Rb32_2;",
		"red.global.add.f32 [%Ru64_0], %Rf32_1;", "shfl.sync.bfly.b32 %Rb32_0|%Rpred_0, %Rb32_1, 1, 31, 0xffffffff;",
		"vote.sync.ballot.b32 %Rb32_0, %Rpred_0, 0xffffffff;", "activemask.b32 %Rb32_0;", "nanosleep.u32 100;",
		"bra.uni GL;", "trap;", "exit;",
		// ptxas 12.5 takes these (probed; docs/ptxas-differences.md)
		"movmatrix.sync.aligned.m8n8.trans.b16 %Rpred_0, %Rpred_1;", "setp.geu.bf16x2 %Rpred_0, %Rb32_1, %Rpred_1;",
		"ld.volatile.global.L2::128B.u32 %Ru32_0, [%Ru64_1];", "createpolicy.range.L2::evict_first.b64 %Rb64_0, [%Ru64_1], 4, 4;",
		"createpolicy.range.global.L2::evict_first.b64 %Rb64_0, [%Ru64_1], %Ru32_0, 4;",
		"cp.async.bulk.global.shared::cta.bulk_group.cluster [%Ru64_0], [%Ru64_1], %Ru32_0;",
		"mov.v4.u32 {%Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3}, %tid;", "mov.v4.u32 vb4, %ntid;",
		"getctarank.shared::cluster.s64 %Ru32_0, %Ru64_1;", "cp.async.ca.shared::cta.global [%Ru64_0], [%Ru64_1], 4;", "fence.proxy.tensormap::generic.shared::cluster.release.gpu;", "barrier.aligned.sync 4, 32;",
		"cp.async.bulk.global.shared::cta.bulk_group [%Ru64_0], [%Ru64_1], 0;", "div.full.ftz.f32 %Rf32_0, %Rf32_1, %Rf32_2;",
		"cvt.pack.sat.s8.s32.b32 %Rb32_0, %Rs32_1, %Rs32_2, %Rf64_3;", "createpolicy.fractional.L2::evict_last.b64 %Rb64_0, 0f3F000000;",
		"mul.rn.f32 %Rf32_0, %Rf32_1, %Rf32_2;", "ld.global.L1::no_allocate.L2::64B.u32 %Ru32_0, [%Ru64_1];",
		"cvt.f16.bf16 %Rf16_0, %Rb16_1;", "add.rn.bf16x2 %Rb32_0, %Rb32_1, %Rb32_2;",
		"cvt.rn.relu.f16x2.e5m2x2 %Rf16x2_0, %Rb16_1;", "cvt.rn.satfinite.e4m3x2.f16x2 %Ru16_0, %Rb32_1;",
		"addc.sat.s32 %Rs32_0, %Rs32_1, 7;", "subc.s32.sat %Rs32_0, 63, %Rs32_1;", "pmevent.mask 2;", "pmevent 2;",
		"atom.global.xor.b32 %Rb32_0, [%Ru64_1], %Rb32_2, %Rb32_3;", "atom.shared::cta.exch.b32 %Rb32_0, [%Ru64_1], %Rb32_2;", "atom.shared::cluster.and.b32 %Rb32_0, [%Ru64_1], %Rb32_2, %Rb32_3;",
		"cvt.rz.ftz.bf16.f32 %Rb16_0, %Rf32_1;", "ld.weak.local.u32 %Ru32_0, [%Ru64_0];",
		"ldu.v2.f64 {%Rs64_1, %Rs64_0}, [%Ru64_7];", "ld.v2.u32 {%Rb32_0, %Rf32_1}, [%Ru64_0];", "ld.global.nc.v4.f32 {%Ru32_0, %Rs32_1, %Rb32_2, _}, [%Ru64_0];",
		// .f16x2 registers as ptxas 12.5 takes them outside the half classes
		"add.u32 %Rf16x2_0, %Ru32_1, %Rf16x2_2;", "xor.pred %Rf16x2_0, %Rpred_1, %Rf16x2_2;", "mov.pred %Rpred_0, %Rf16x2_1;",
		"bar.red.and.pred %Rf16x2_0, 1, %Rpred_1;", "vote.sync.any.pred %Rpred_0, %Rf16x2_1, 1;", "barrier.red.or.pred %Rf16x2_0, 1, %Rpred_1;",
		"cvt.u8.s32 %Rf16x2_0, %Rs32_1;", "ld.global.s8 %Rf16x2_0, [%Ru64_1];", "dp4a.u32.u32 %Ru32_0, %Rf16x2_1, %Rf16x2_2, %Ru32_3;",
		"ldu.global.b128 %Rb128_0, [%Ru64_1];", "ld.relaxed.sys.b128 %Rb128_0, [%Ru64_1];", "ld.global.v2.f32 {%Ru32_0, %Rs32_1}, [%Ru64_2];",
		"ldu.global.v2.f64 {%Ru64_0, %Ru64_1}, [%Ru64_2];",
		"and.pred %Rpred_0, !%Rpred_1, %Rpred_2;", "mov.pred %Rpred_0, !%Rpred_1;", "fence.proxy.shared::cta.async;", "fence.proxy.release.shared::cluster.gpu.tensormap::generic;",
		// half-precision set and setp (PTX ISA 9.7.7), as ptxas 12.5 takes them
		"set.eq.u32.f16 %Ru32_0, %Rf16_1, %Rf16_2;", "set.lt.ftz.f16x2.f16x2 %Rf16x2_0, %Rf16x2_1, %Rf16x2_2;",
		"set.ne.and.bf16x2.bf16x2 %Rb32_0, %Rb32_1, %Rb32_2, !%Rpred_0;", "set.gtu.ftz.f16.f32 %Rf16_0, %Rf32_1, 0f3F800000;",
		"set.lo.bf16.u64 %Ru16_0, %Ru64_1, %Ru64_2;", "set.num.xor.s16.bf16 %Rs16_0, %Rb16_1, %Rb16_2, %Rpred_1;",
		"set.leu.bf16.f16 %Rb16_0, %Rf16_1, %Rf16_2;", "set.nan.s32.bf16x2 %Rs32_0, %Rb32_1, %Rb32_2;",
		"set.eq.bf16x2.bf16x2 %Rf16x2_0, %Rb32_1, %Rb32_2;", "setp.lt.or.bf16x2 %Rpred_0|%Rpred_1, %Rb32_1, %Rb32_2, %Rpred_2;",
		"setp.geu.and.ftz.f16x2 %Rpred_0|%Rpred_1, %Rf16x2_1, %Rf16x2_2, !%Rpred_2;", "setp.eq.and.bf16 %Rpred_0, %Rb16_1, %Rb16_2, %Rpred_2;",
	}
	for _, b := range bodies {
		src := opKernelHeader("8.5", "sm_90") + b + "\n" + kernelFooter
		m, errs := parser.ParseString("t.ptx", src)
		if len(errs) > 0 {
			t.Fatalf("syntax errors in %q: %v", b, errs)
		}
		if l := Module(m, Config{}); len(l) > 0 {
			t.Errorf("%s: want no diagnostics, got %v", b, l)
		}
	}
}

// TestBlockShadowing checks that a nested block's declaration shadows the
// function's only inside the block, as ptxas 12.5 accepts.
func TestBlockShadowing(t *testing.T) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	{
		.reg .b16 %rd1;
		mov.b16 %rd1, 5;
	}
	st.global.u64 [%rd2], %rd1;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if l := Module(m, Config{}); len(l) > 0 {
		t.Errorf("want no diagnostics, got %v", l)
	}
	inner := strings.Replace(src, "mov.b16 %rd1, 5;", "mov.b64 %rd1, 5;", 1)
	m, _ = parser.ParseString("t.ptx", inner)
	if l := Module(m, Config{}); len(l) != 1 || l[0].Rule != "operand-type" || l[0].Pos.Line != 10 {
		t.Errorf("mov.b64 into the block's .b16 %%rd1: want one operand-type error on line 10, got %v", l)
	}
}

package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// compilerForm is one instruction line whose verdict the checker got wrong
// on real compiler output or on operand kinds: forms that compilers emit
// or older PTX allows (a false error is worse than a missed one), and
// operands ptxas rejects. ok is ptxas 12.5's verdict; for PTX ISA 8.6 and
// later it is the verdict of the manual's syntax, which ptxas 12.5 cannot
// give.
type compilerForm struct {
	what            string
	version, target string
	line            string
	ok              bool
}

// compilerDecls are the declarations every compilerForm kernel has; the
// .f16x2 registers only where the target and version have them.
const compilerDecls = `.reg .pred %p<4>;
.reg .b16 %h<4>;
.reg .b32 %r<9>;
.reg .u32 %u<4>;
.reg .s32 %s<4>;
.reg .b64 %rd<9>;
.reg .u64 %ud<4>;
.reg .f32 %f<9>;
.reg .f64 %fd<9>;
.shared .align 8 .b64 bar;
.global .align 8 .b32 gv[4];
`

var compilerForms = []compilerForm{
	// vote without .sync: PTX 1.2-6.3; removed on sm_70 and later from 6.4.
	{"vote.any without .sync", "2.0", "sm_20", "vote.any.pred %p2, %p1;", true},
	{"vote.all without .sync, negated", "3.0", "sm_30", "vote.all.pred %p2, !%p1;", true},
	{"vote.uni without .sync", "6.0", "sm_70", "vote.uni.pred %p2, %p1;", true},
	{"vote.ballot without .sync", "4.0", "sm_35", "vote.ballot.b32 %r1, %p1;", true},
	{"vote.pred without a mode or .sync", "6.0", "sm_61", "vote.pred %p2, %p1;", true},
	{"vote.pred without a mode, removed at 6.4 on sm_70", "6.4", "sm_70", "vote.pred %p2, %p1;", false},
	// .acc::f16, like .acc::f32, is ignored by ptxas 12.5 outside multimem
	{".acc::f16 on add", "8.5", "sm_90a", "add.acc::f16.f32 %f1, %f2, %f3;", true},
	{".acc::f16 on ld", "8.5", "sm_90a", "ld.global.acc::f16.b32 %r1, [%rd1];", true},
	{".acc::f16 on multimem before 8.6", "8.5", "sm_90a", "multimem.ld_reduce.relaxed.sys.global.add.acc::f16.v4.f16x2 {%r1, %r2, %r3, %r4}, [%rd1];", false},
	{"multimem FP8 with .acc::f16", "8.6", "sm_100a", "multimem.ld_reduce.add.acc::f16.v4.e5m2 {%r1, %r2, %r3, %r4}, [%rd1];", true},
	// vector atom and red (8.1, sm_90): a braced source of the .vN length
	{"vector atom, .f32", "8.1", "sm_90", "atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};", true},
	{"vector atom, generic address, sink", "8.5", "sm_90a", "atom.v2.f32.add _, [%rd1], {%f5, %f6};", true},
	{"vector red, .f16x2", "8.5", "sm_90a", "red.global.v2.f16x2.add.noftz [%rd1], {%r1, %r2};", true},
	{"vector red, .bf16, .v8", "8.5", "sm_90a", "red.global.v8.bf16.add.noftz [%rd1], {%h0, %h1, %h2, %h3, %h0, %h1, %h2, %h3};", true},
	{"vector atom, constants in the source", "8.5", "sm_90a", "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {1.0, 2.0};", true},
	{"vector atom, a scalar source", "8.5", "sm_90a", "atom.global.v2.f32.add {%f1, %f2}, [%rd1], %f3;", false},
	{"vector red, a scalar source", "8.5", "sm_90a", "red.global.v2.f16x2.add.noftz [%rd1], %r1;", false},
	{"vector atom, three sources for .v2", "8.5", "sm_90a", "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4, %f5};", false},
	{"vector atom, mixed int and float source", "8.5", "sm_90a", "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %u1};", false},
	{"vector atom, .min on .f32", "8.5", "sm_90a", "atom.global.v2.f32.min {%f1, %f2}, [%rd1], {%f3, %f4};", false},
	{"vector atom on .shared", "8.5", "sm_90a", "atom.shared.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};", false},
	{"vector atom, .v8 .f32", "8.5", "sm_90a", "atom.global.v8.f32.add {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};", false},
	// cvt forms ptxas 12.5 takes (7.8, sm_90) and the surface clamp it requires
	{"cvt .relu to .tf32", "7.8", "sm_90", "cvt.rn.relu.tf32.f32 %r1, %f1;", true},
	{"cvt .bf16 to .bf16 with integer rounding", "7.8", "sm_90", "cvt.rpi.bf16.bf16 %h1, %h2;", true},
	{"cvt .bf16 to .bf16 with float rounding", "7.8", "sm_90", "cvt.rn.bf16.bf16 %h1, %h2;", false},
	{"suld without a clamp mode", "8.5", "sm_90a", "suld.b.1d.b32 %r1, [%rd1, {%r2}];", false},
	{"istypep", "8.5", "sm_90a", "istypep.texref %p1, %rd1;", true},
	// the manual's sections: sured's operation/type pairs, applypriority, discard
	{"sured.b.min on .s64", "8.5", "sm_90a", "sured.b.min.1d.s64.trap [%rd1, {%r1}], %rd2;", true},
	{"sured.b.add on .s64", "8.5", "sm_90a", "sured.b.add.1d.s64.trap [%rd1, {%r1}], %rd2;", false},
	{"sured.b.add on .b32", "8.5", "sm_90a", "sured.b.add.1d.b32.trap [%rd1, {%r1}], %r2;", false},
	{"sured.p.max on .b64", "8.5", "sm_90a", "sured.p.max.1d.b64.trap [%rd1, {%r1}], %rd2;", true},
	{"sured.p.add on .b64", "8.5", "sm_90a", "sured.p.add.1d.b64.trap [%rd1, {%r1}], %rd2;", false},
	{"sured.p.min on .u32", "8.5", "sm_90a", "sured.p.min.1d.u32.trap [%rd1, {%r1}], %r2;", false},
	{"applypriority", "7.4", "sm_80", "applypriority.global.L2::evict_normal [%rd1], 128;", true},
	{"applypriority, a size other than 128", "8.5", "sm_90a", "applypriority.L2::evict_normal [%rd1], 64;", false},
	{"applypriority before sm_80", "7.4", "sm_75", "applypriority.global.L2::evict_normal [%rd1], 128;", false},
	{"discard", "8.5", "sm_90a", "discard.L2 [gv], 128;", true},
	{"discard, a 32-bit address", "8.5", "sm_90a", "discard.global.L2 [%r1], 128;", false},
	{"discard on .L1", "8.5", "sm_90a", "discard.global.L1 [%rd1], 128;", false},
	{"tensormap.replace .swizzle_atomicity", "8.6", "sm_100a", "tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd1], 1;", true},
	{"vector atom, a sink in the source", "8.5", "sm_90a", "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f1, _};", false},
	{"vector red, a sink in the source", "8.5", "sm_90a", "red.global.v2.f16x2.add.noftz [%rd1], {%r1, _};", false},
	// ldmatrix and stmatrix fragments: a braced vector of .xN (.b32) registers
	{"ldmatrix .x2", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, %f2}, [%rd1];", true},
	{"ldmatrix .x1, one braced register", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r1}, [%r2];", true},
	{"ldmatrix .x1, a scalar register", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r1, [%rd1];", false},
	{"ldmatrix .x2, four registers", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, %r2, %r3, %r4}, [%rd1];", false},
	{"ldmatrix, 16-bit registers", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%h1, %h2}, [%rd1];", false},
	{"ldmatrix, a sink among the destinations", "8.5", "sm_90a", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, _}, [%rd1];", true},
	{"stmatrix .x2, a register and a constant", "8.5", "sm_90a", "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd1], {1, %r1};", true},
	{"stmatrix .x2, constants only", "8.5", "sm_90a", "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd1], {1, 2};", false},
	{"stmatrix .x4, 64-bit registers", "8.5", "sm_90a", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd1], {%rd1, %rd2, %rd3, %rd4};", false},
	// wmma.load fragments: the count and register class per shape and type; .aligned from PTX 6.3
	{"wmma.load.a .f16, 8 registers", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", true},
	{"wmma.load.a .f16, 4 registers", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4}, [%rd1];", false},
	{"wmma.load.a .f16, .f32 registers", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];", false},
	{"wmma.load.c .f32 with a stride", "8.5", "sm_90a", "wmma.load.c.sync.aligned.col.m16n16k16.shared.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], %r1;", true},
	{"wmma.load.b .u8 m8n32k16, 4 registers", "8.5", "sm_90a", "wmma.load.b.sync.aligned.col.m8n32k16.u8 {%r1, %r2, %r3, %r4}, [%rd1];", true},
	{"wmma.load.a .u8 m8n32k16, 4 registers", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m8n32k16.u8 {%r1, %r2, %r3, %r4}, [%rd1];", false},
	{"wmma.load.a .f64, a .b32 register", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m8n8k4.f64 {%r1}, [%rd1];", false},
	{"wmma.load.a .f64, a .f64 register", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd1}, [%rd1];", true},
	{"wmma.load.a .s4, a scalar register", "8.5", "sm_90a", "wmma.load.a.sync.aligned.row.m8n8k32.s4 %r1, [%rd1];", false},
	{"wmma.load without .aligned at 6.0", "6.0", "sm_70", "wmma.load.a.sync.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", true},
	{"wmma.load without .aligned at 6.3", "6.3", "sm_70", "wmma.load.a.sync.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", false},
	{"wmma.mma without .aligned at 6.4", "6.4", "sm_70", "wmma.mma.sync.row.row.m16n16k16.f32.f32 {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};", false},
	// txq and suq: a handle (.texref/.samplerref/.surfref variable or 64-bit register), no offset
	{"txq on a 64-bit register", "8.5", "sm_90a", "txq.width.b32 %r1, [%rd1];", true},
	{"txq.level with a lod", "8.5", "sm_90a", "txq.level.height.b32 %r1, [%rd1], %r2;", true},
	{"txq on a register with an offset", "8.5", "sm_90a", "txq.width.b32 %r1, [%rd1+16];", false},
	{"txq on a 32-bit register", "8.5", "sm_90a", "txq.depth.b32 %r1, [%r2];", false},
	{"txq on a global variable", "8.5", "sm_90a", "txq.width.b32 %r1, [gv];", false},
	{"txq with two queries", "8.5", "sm_90a", "txq.width.height.b32 %r1, [%rd1];", false},
	{"suq on a 64-bit register", "8.5", "sm_90a", "suq.memory_layout.b32 %r1, [%rd1];", true},
	{"suq into a 64-bit register", "8.5", "sm_90a", "suq.width.b32 %rd2, [%rd1];", false},
	{"tensormap.replace .swizzle_atomicity before 8.6", "8.5", "sm_90a", "tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd1], 1;", false},
	{"vote.any without .sync on sm_61 at 6.4", "6.4", "sm_61", "vote.any.pred %p2, %p1;", true},
	{"vote.any without .sync on sm_70 at 6.4", "6.4", "sm_70", "vote.any.pred %p2, %p1;", false},
	{"vote.ballot without .sync on sm_80", "7.0", "sm_80", "vote.ballot.b32 %r1, %p1;", false},
	{"vote.ballot without .sync before 2.0", "1.4", "sm_13", "vote.ballot.b32 %r1, %p1;", false},
	{"vote without .sync, a mask", "6.0", "sm_61", "vote.any.pred %p2, %p1, 1;", false},
	// mad.f32 without a rounding mode: sm_1x at any version, else before 3.2.
	{"mad.f32 without rounding, sm_13", "1.4", "sm_13", "mad.f32 %f1, %f2, %f3, %f4;", true},
	{"mad.ftz.sat.f32 without rounding, sm_20 at 3.1", "3.1", "sm_20", "mad.sat.ftz.f32 %f1, %f2, %f3, %f4;", true},
	{"mad.f32 without rounding, sm_12 at 8.0", "8.0", "sm_12", "mad.f32 %f1, %f2, %f3, %f4;", true},
	{"mad.f32 without rounding, sm_30 at 3.2", "3.2", "sm_30", "mad.f32 %f1, %f2, %f3, %f4;", false},
	{"mad.f32 without rounding, sm_90", "8.0", "sm_90", "mad.f32 %f1, %f2, %f3, %f4;", false},
	{"mad.f64 without rounding at 1.4", "1.4", "sm_13", "mad.f64 %fd1, %fd2, %fd3, %fd4;", false},
	{"mad.rn.f32 on sm_13", "1.4", "sm_13", "mad.rn.f32 %f1, %f2, %f3, %f4;", false},
	// DPX: add/min/max on .s16x2 and .u16x2 (PTX 8.0, sm_90), registers only,
	// .b32 registers (not .u32 or .s32).
	{"add.s16x2", "8.0", "sm_90a", "add.s16x2 %r1, %r2, %r3;", true},
	{"add.u16x2", "8.0", "sm_90", "add.u16x2 %r1, %r2, %r3;", true},
	{"min.s16x2.relu", "8.0", "sm_90a", "min.s16x2.relu %r1, %r2, %r3;", true},
	{"max.u16x2", "8.0", "sm_90a", "max.u16x2 %r1, %r2, %r3;", true},
	{"add.s16x2 before 8.0", "7.8", "sm_90", "add.s16x2 %r1, %r2, %r3;", false},
	{"add.u16x2 on sm_89", "8.0", "sm_89", "add.u16x2 %r1, %r2, %r3;", false},
	{"add.s16x2 with a constant", "8.0", "sm_90", "add.s16x2 %r1, %r2, 1;", false},
	{"add.s16x2 into .u32", "8.0", "sm_90", "add.s16x2 %u1, %r2, %r3;", false},
	{"min.s16x2 from .s32", "8.0", "sm_90", "min.s16x2 %r1, %s2, %r3;", false},
	{"max.u16x2 with a constant", "8.0", "sm_90", "max.u16x2 %r1, 5, %r3;", false},
	{"sub.s16x2", "8.0", "sm_90", "sub.s16x2 %r1, %r2, %r3;", false},
	{"add.sat.s16x2", "8.0", "sm_90", "add.sat.s16x2 %r1, %r2, %r3;", false},
	// An immediate parity (0 or 1) in mbarrier.try_wait/test_wait.parity.
	{"try_wait.parity 0", "8.0", "sm_90", "mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;", true},
	{"try_wait.parity 1 with a time limit", "8.0", "sm_90", "mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 1, 1000;", true},
	{"test_wait.parity 1", "7.1", "sm_80", "mbarrier.test_wait.parity.shared.b64 %p1, [bar], 1;", true},
	{"try_wait.parity 2", "8.0", "sm_90", "mbarrier.try_wait.parity.shared.b64 %p1, [bar], 2;", false},
	{"try_wait.parity -1", "8.0", "sm_90", "mbarrier.try_wait.parity.shared.b64 %p1, [bar], -1;", false},
	{"test_wait.parity 64-bit register", "8.0", "sm_90", "mbarrier.test_wait.parity.shared.b64 %p1, [bar], %rd1;", false},
	// .f32x2 arithmetic (PTX ISA 8.6, sm_100; 9.7.3.3-9.7.3.6): .b64 registers.
	{"add.f32x2", "8.6", "sm_100a", "add.f32x2 %rd1, %rd2, %rd3;", true},
	{"add.rn.ftz.f32x2", "8.6", "sm_100", "add.rn.ftz.f32x2 %rd1, %rd2, %rd3;", true},
	{"sub.rz.f32x2", "8.7", "sm_120", "sub.rz.f32x2 %rd1, %rd2, %rd3;", true},
	{"mul.rm.f32x2", "8.6", "sm_100", "mul.rm.f32x2 %rd1, %rd2, %rd3;", true},
	{"fma.rn.ftz.f32x2", "8.6", "sm_100", "fma.rn.ftz.f32x2 %rd1, %rd2, %rd3, %rd4;", true},
	{"fma.f32x2 without rounding", "8.6", "sm_100", "fma.f32x2 %rd1, %rd2, %rd3, %rd4;", false},
	{"add.sat.f32x2", "8.6", "sm_100", "add.sat.f32x2 %rd1, %rd2, %rd3;", false},
	{"add.f32x2 from .f64", "8.6", "sm_100", "add.f32x2 %rd1, %fd2, %rd3;", false},
	{"add.f32x2 with a constant", "8.6", "sm_100", "add.f32x2 %rd1, %rd2, 0d3FF0000000000000;", false},
	{"add.f32x2 on sm_90a", "8.6", "sm_90a", "add.f32x2 %rd1, %rd2, %rd3;", false},
	{"add.f32x2 at 8.5", "8.5", "sm_90", "add.f32x2 %rd1, %rd2, %rd3;", false},
	// Operand kinds ptxas 12.5 rejects (or takes) where the checker did not.
	{"elect.sync constant|p", "8.0", "sm_90", "elect.sync 0x10|%p2, 0xffffffff;", false},
	{"elect.sync _|p", "8.0", "sm_90", "elect.sync _|%p2, 0xffffffff;", true},
	{"elect.sync d|_", "8.0", "sm_90", "elect.sync %r1|_, 0xffffffff;", false},
	{"match.all.sync constant|p", "8.0", "sm_90", "match.all.sync.b32 0x10|%p3, %r1, 0xffffffff;", false},
	{"match.any.sync d|p", "8.0", "sm_90", "match.any.sync.b32 %r2|%p3, %r1, 0xffffffff;", false},
	{"shfl.sync d|p", "8.0", "sm_90", "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, 0xffffffff;", true},
	{"shfl.sync d|_", "8.0", "sm_90", "shfl.sync.idx.b32 %r1|_, %r2, 0, 31, 0xffffffff;", true},
	{"shfl.sync _|p", "8.0", "sm_90", "shfl.sync.idx.b32 _|%p1, %r2, 0, 31, 0xffffffff;", false},
	{"lop3 d|p without a BoolOp", "8.0", "sm_90", "lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x96;", false},
	{"add d|p", "8.0", "sm_90", "add.u32 %u1|%p1, %u2, %u3;", false},
	{"mbarrier.arrive constant state", "8.0", "sm_90", "mbarrier.arrive.shared.b64 -1, [bar];", false},
	{"mbarrier.arrive 32-bit state", "8.0", "sm_90", "mbarrier.arrive.shared.b64 %r1, [bar];", false},
	{"mbarrier.arrive count -1", "8.0", "sm_90", "mbarrier.arrive.shared.b64 %rd1, [bar], -1;", false},
	{"mbarrier.arrive_drop count 0", "8.0", "sm_90", "mbarrier.arrive_drop.shared.b64 %rd1, [bar], 0;", false},
	{"mbarrier.arrive _", "8.0", "sm_90", "mbarrier.arrive.shared.b64 _, [bar];", true},
	{"cp.async from a .pred address", "8.0", "sm_90", "cp.async.ca.shared.global [bar], [%p1], 8;", false},
	{"prefetch through a 32-bit register", "8.0", "sm_90", "prefetch.global.L2 [%r3];", false},
	{"atom through a 32-bit register", "8.0", "sm_80", "atom.add.u32 %u1, [%r3], 1;", false},
	{"atom.shared through a 32-bit register", "8.0", "sm_90", "atom.shared.add.u32 %u1, [%r3], 1;", true},
	{"red at an immediate address", "8.0", "sm_90", "red.cta.global.max.s64 [256], %rd1;", false},
	{"ld at an immediate address", "8.0", "sm_90", "ld.global.u32 %u1, [256];", false},
	{"ld.local at an immediate address", "8.0", "sm_90", "ld.local.u32 %u1, [256];", true},
	{"ld with a cache hint into constants", "8.0", "sm_90", "ld.global.L2::cache_hint.v2.u32 {1, 2}, [%rd1], %rd2;", false},
	{"atom with a cache hint", "8.0", "sm_90", "atom.global.L2::cache_hint.add.u32 %u1, [%rd1], 1, %rd2;", true},
	{"red with a cache hint", "8.0", "sm_80", "red.relaxed.gpu.L2::cache_hint.add.f32 [%rd1], %f1, %rd2;", true},
	{"atom.cas with a cache hint", "8.0", "sm_90", "atom.global.L2::cache_hint.cas.b32 %r1, [%rd1], 1, 2, %rd2;", false},
	{"atom.shared with a cache hint", "8.0", "sm_90", "atom.shared.L2::cache_hint.add.u32 %u1, [bar], 1, %rd2;", false},
	{"add of a special register", "8.0", "sm_90", "add.u32 %u1, %tid.x, 1;", false},
	{"setp of a special register", "8.0", "sm_90", "setp.eq.u32 %p1, %laneid, 0;", false},
	{"cvt of a special register", "8.0", "sm_90", "cvt.u64.u32 %ud1, %tid.x;", true},
	{"mov of a special register", "8.0", "sm_90", "mov.u32 %u1, %tid.x;", true},
	{"mov.u64 of a 32-bit special register", "8.0", "sm_90", "mov.u64 %ud1, %tid.x;", false},
	{"add of an address constant", "8.0", "sm_90", "add.s64 %rd1, gv+4, %rd2;", true},
	{"add.f32 of an address constant", "8.0", "sm_90", "add.f32 %f1, gv+4, %f2;", false},
	{"setp into _", "8.0", "sm_90", "setp.eq.u32 _, %u1, 0;", true},
	{"and.pred into _", "8.0", "sm_90", "and.pred _, %p1, %p2;", false},
	{"add into _", "8.0", "sm_90", "add.u32 _, %u1, 1;", false},
	{"atom into _", "8.0", "sm_90", "atom.global.add.u32 _, [%rd1], 1;", true},
	{"set with a constant predicate -1", "8.0", "sm_90", "setp.lt.and.s32 %p1, %s1, %s2, -1;", true},
	{"set with _ as predicate", "8.0", "sm_90", "setp.lt.and.s32 %p1, %s1, %s2, _;", false},
	{"atom.shared on a global variable", "8.0", "sm_90", "atom.shared.add.u32 %u1, [gv], 1;", false},
	{"prefetch of a shared variable as global", "8.0", "sm_90", "prefetch.global.L2 [bar];", false},
	{"cvt.pack from constants", "8.0", "sm_90", "cvt.pack.sat.u16.s32 %u1, 1, %s2;", true},
	// Special registers as old compilers read them: 16-bit reads of 32-bit
	// registers, integer conversions only.
	{"cvt.s32.u16 of %ctaid.x", "1.2", "sm_10", "cvt.s32.u16 %s1, %ctaid.x;", true},
	{"mov.u16 of %ntid.x", "1.4", "sm_13", "mov.u16 %h1, %ntid.x;", true},
	{"cvt.u64.u16 of %tid.x", "8.0", "sm_90", "cvt.u64.u16 %ud1, %tid.x;", true},
	{"cvt.rn.f32.u32 of %tid.x", "8.0", "sm_90", "cvt.rn.f32.u32 %f1, %tid.x;", false},
	{"mov.u64 of %tid.x", "8.0", "sm_90", "mov.u64 %ud1, %tid.x;", false},
	// .f64 on sm_10-sm_12 (compilers wrote it with map_f64_to_f32).
	{"add.f64 on sm_10", "1.4", "sm_10", "add.f64 %fd1, %fd2, %fd3;", true},
	{"div.rn.f64 at PTX 1.2", "1.2", "sm_12", "div.rn.f64 %fd1, %fd2, %fd3;", true},
	{"sqrt.rn.f64 on sm_11", "1.3", "sm_11", "sqrt.rn.f64 %fd1, %fd2;", true},
	{"fma.rn.f64 at PTX 1.2", "1.2", "sm_12", "fma.rn.f64 %fd1, %fd2, %fd3, %fd1;", false},
}

// compilerKernel returns a kernel of PTX version v for target tg with the
// compilerDecls and the line, and the line's number.
func compilerKernel(v, tg, line string) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, ".version %s\n.target %s\n", v, tg)
	if v >= "2.3" || len(v) > 3 {
		b.WriteString(".address_size 64\n")
	}
	b.WriteString(".entry k\n{\n")
	b.WriteString(compilerDecls)
	n := strings.Count(b.String(), "\n") + 1
	b.WriteString(line + "\n" + kernelFooter)
	return b.String(), n
}

// ptxasArch is the -arch ptxas 12.5 assembles a module of target tg for:
// the target itself, or sm_52 for the targets it no longer builds for
// (the module's .target still decides what the module may use).
func ptxasArch(tg string) string {
	n, _ := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(tg, "sm_"), "af"))
	if n < 50 {
		return "sm_52"
	}
	return tg
}

// TestCompilerForms checks the checker's verdict on each compilerForm, and,
// where ptxas 12.5 is installed and the version is at most 8.5, that the
// recorded verdict is ptxas's.
func TestCompilerForms(t *testing.T) { runCompilerForms(t, compilerForms) }

// runCompilerForms checks the checker's verdict on each of forms, and
// ptxas 12.5's where it is installed and the version is at most 8.5.
func runCompilerForms(t *testing.T, forms []compilerForm) {
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	for _, c := range forms {
		src, ln := compilerKernel(c.version, c.target, c.line)
		ours, diags := checkCommandErrorLines(src)
		if ours[ln] == c.ok {
			t.Errorf("%s: %q (PTX %s %s): checker says ok=%v, want %v: %v", c.what, c.line, c.version, c.target, !ours[ln], c.ok, diags)
		}
		for l := range ours {
			if l != ln {
				t.Errorf("%s: error on line %d outside the case: %v", c.what, l, diags)
			}
		}
		if ptxas == "" || c.version > "8.5" || len(c.version) > 3 {
			continue
		}
		lines := ptxasErrorLines(t, ptxas, dir, ptxasArch(c.target), src)
		if lines[ln] == c.ok {
			t.Errorf("%s: %q (PTX %s %s): ptxas 12.5 says ok=%v, the table %v", c.what, c.line, c.version, c.target, !lines[ln], c.ok)
		}
		for l := range lines {
			if l != ln {
				t.Errorf("%s: ptxas 12.5 reports line %d outside the case", c.what, l)
			}
		}
	}
	if ptxas == "" {
		t.Logf("ptxas 12.5 not found: verdicts checked against the table only")
	}
}

// TestHiddenParam checks ".hidden .param" in a kernel's parameter list,
// which nvcc 13.1 writes (PTX ISA 9.1): accepted from PTX ISA 8.6, an
// error before, where ptxas 12.5 rejects it too.
func TestHiddenParam(t *testing.T) {
	const kernel = ".version %s\n.target %s\n.address_size 64\n" +
		".visible .entry k(\n.param .u64 .ptr .global .align 1 k_param_0,\n.hidden .param .align 64 .b8 k_param_1[128]\n)\n{\nret;\n}\n"
	for _, c := range []struct {
		version, target string
		ok              bool
	}{{"9.1", "sm_120a", true}, {"8.6", "sm_100a", true}, {"8.5", "sm_90a", false}, {"7.0", "sm_70", false}} {
		src := fmt.Sprintf(kernel, c.version, c.target)
		ours, diags := checkCommandErrorLines(src)
		if want := map[int]bool{6: true}; c.ok && len(ours) != 0 || !c.ok && !maps.Equal(ours, want) {
			t.Errorf("PTX %s: checker errors on lines %v, want ok=%v on line 6: %v", c.version, sortedLines(ours), c.ok, diags)
		}
		if ptxas := ptxasPath("12.5"); ptxas != "" && c.version <= "8.5" {
			if l, fatal := ptxasRun(t, ptxas, t.TempDir(), c.target, src); !l[6] && fatal != 6 {
				t.Errorf("PTX %s: ptxas 12.5 accepts .hidden .param", c.version)
			}
		}
	}
}

// callModule calls functions with argument lists that match their
// declarations and lists that do not; callErrorLines are the lines ptxas
// 12.5 reports ("Call has wrong number of parameters", "Type of argument
// does not match formal parameter", "Alignment of argument does not
// match").
const callModule = `.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) f(.param .b32 a, .param .b64 b)
{
ret;
}
.func g(.param .b32 a)
{
ret;
}
.func h(.param .align 8 .b8 a[16])
{
ret;
}
.visible .entry k()
{
.reg .b32 %r<4>;
.reg .f32 %f<4>;
{
.param .b32 p0;
.param .b64 p1;
.param .b32 r0;
.param .b64 q0;
.param .b16 h0;
.param .f32 pf;
.param .align 8 .b8 arr[16];
.param .align 4 .b8 arr4[16];
.param .align 8 .b8 arr8[8];
.param .b8 b4[4];
call (r0), f, (p0, p1);
call (r0), f, (p0);
call (r0), f, (p0, p1, p0);
call f, (p0, p1);
call (r0), f, (p1, p0);
call (q0), f, (p0, p1);
call g, (p0);
call (r0), g, (p0);
call g, (p1);
call g, (h0);
call g;
call g, (pf);
call g, (%r1);
call g, (%f1);
call g, (5);
call h, (arr);
call h, (arr4);
call h, (arr8);
call g, (b4);
call h, (p0);
}
ret;
}
`

var callErrorLines = []int{32, 33, 34, 35, 36, 38, 39, 40, 41, 47, 48, 49, 50}

// TestCallArguments checks call argument lists against the callee's
// declaration.
func TestCallArguments(t *testing.T) {
	ours, diags := checkCommandErrorLines(callModule)
	if got := sortedLines(ours); !slices.Equal(got, callErrorLines) {
		t.Errorf("checker errors on lines %v, want %v: %v", got, callErrorLines, diags)
	}
	if ptxas := ptxasPath("12.5"); ptxas != "" {
		if got := sortedLines(ptxasErrorLines(t, ptxas, t.TempDir(), "sm_90", callModule)); !slices.Equal(got, callErrorLines) {
			t.Errorf("ptxas 12.5 reports lines %v, the test %v", got, callErrorLines)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// TestExplainEveryClass explains one instruction of each class outside the
// store family and checks its meaning, operand types, requirements and
// problems.
func TestExplainEveryClass(t *testing.T) {
	cases := []struct {
		class, instr string
		args         []string
		code         int
		want         map[string]string // section -> text it contains
	}{
		{"integer-arithmetic", "mul.wide.s32 %rd1, %r2, %r3;", nil, exitOK, map[string]string{
			"instruction": "mul: Multiply two values", "operands": "d     destination register of type .s64", "requires": "PTX ISA 1.0"}},
		{"extended-precision", "addc.cc.u32 %r1, %r2, %r3;", nil, exitOK, map[string]string{
			"instruction": "addc: Add with carry-in", "operands": "a     register or constant of type .u32"}},
		{"float-arithmetic", "div.f32 %f1, %f2, %f3;", nil, exitFail, map[string]string{
			"instruction": "syntax: div.approx{.ftz}.f32 d, a, b", "problems": "div needs one of .approx, .full, .rn, .rz, .rm, .rp [missing-qualifier]"}},
		{"half-arithmetic", "add.rn.bf16x2 %r1, %r2, %r3;", []string{"--target", "sm_80", "--ptx", "7.8"}, exitFail, map[string]string{
			"requires": "PTX ISA 7.8, sm_90 or higher", "problems": "requires sm_90 or higher (target is sm_80) [target]"}},
		{"comparison", "setp.lt.b32 %p1, %r1, %r2;", nil, exitFail, map[string]string{
			"operands": "p     destination predicate", "problems": ".lt does not compare .b32 values [cmp-type]"}},
		{"half-comparison", "setp.eq.f16x2 %p1|%p2, %r1, %r2;", []string{"--target", "sm_53", "--ptx", "6.0"}, exitOK, map[string]string{
			"instruction": "setp: Compare two values", "operands": "p     destination predicate (p, or p|q)", "problems": "none"}},
		{"half-comparison", "set.lt.ftz.u16.f16 %rs1, %h1, %h2;", []string{"--target", "sm_53", "--ptx", "6.5"}, exitOK, map[string]string{
			"instruction": "syntax: set<.eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan>{.ftz}<.u16|.s16|.u32|.s32>.f16 d, a, b",
			"operands":    "a     register or constant of type .f16", "requires": "PTX ISA 6.5, sm_53 or higher", "problems": "none"}},
		{"half-comparison", "set.ne.and.bf16x2.bf16x2 %r1, %r2, %r3, !%p1;", []string{"--target", "sm_80", "--ptx", "7.8"}, exitFail, map[string]string{
			"instruction": "(PTX ISA 9.7.7.1; half-comparison)", "operands": "c     predicate, ! negates it",
			"requires": "PTX ISA 7.8, sm_90 or higher", "problems": "set requires sm_90 or higher (target is sm_80) [target]"}},
		{"half-comparison", "set.eq.f16.bf16 %h1, %h2, %h3;", nil, exitFail, map[string]string{
			"problems": ".bf16 is not a type of set (.b16, .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f16, .f32, .f64 here)"}},
		{"half-comparison", "setp.lt.bf16 %p1|%p2, %h1, %h2;", []string{"--target", "sm_90", "--ptx", "7.8"}, exitFail, map[string]string{
			"operands": "p     destination predicate", "problems": "setp writes one predicate p, not a pair p|q"}},
		{"logic-shift", "lop3.b32 %r1, %r2, %r3, %r4, 0x96;", nil, exitOK, map[string]string{
			"operands": "n     integer constant below 256", "instruction": "(PTX ISA 9.7.8.6; logic-shift)"}},
		{"data-movement", "cvt.rn.f32.u64 %f1, %rd1;", nil, exitOK, map[string]string{
			"operands": "a     register or constant of type .u64", "instruction": "cvt: Convert a value"}},
		{"data-movement", "ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];", []string{"--target", "sm_30", "--ptx", "7.0"}, exitFail, map[string]string{
			"requires": "PTX ISA 3.1, sm_32 or higher", "operands": "destination registers may be wider"}},
		{"data-movement", "st.bulk.weak.shared::cta [%r1], %rd2, 0;", []string{"--target", "sm_90", "--ptx", "8.5"}, exitFail, map[string]string{
			"instruction": "st.bulk: Zero-initialize", "requires": "PTX ISA 8.6, sm_100 or higher", "problems": "st.bulk requires PTX ISA 8.6 (this file declares 8.5)"}},
		{"control-flow", "bra.uni L1;", nil, exitOK, map[string]string{"operands": "label", "instruction": "bra: Branch"}},
		{"synchronization", "atom.global.cluster.add.u32 %r1, [%rd1], 1;", []string{"--target", "sm_80", "--ptx", "8.0"}, exitFail, map[string]string{
			"requires": ".cluster (PTX 7.8, sm_90 or higher)", "problems": "atom .cluster requires sm_90 or higher (target is sm_80) [target]"}},
		{"synchronization", "bar.sync 16;", nil, exitFail, map[string]string{"problems": "0..15, not 16 [operand-range]"}},
		{"warp", "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, 0xffffffff;", []string{"--target", "sm_70", "--ptx", "6.0"}, exitOK, map[string]string{
			"instruction": "shfl.sync: Exchange a register", "operands": "mask  register or constant of type .u32"}},
		{"async-copy", "cp.async.ca.shared.global [%r1], [%rd1], 16;", []string{"--target", "sm_75", "--ptx", "7.0"}, exitFail, map[string]string{
			"instruction": "cp.async: Copy from global to shared", "problems": "requires sm_80"}},
		{"warp-mma", "wgmma.fence.sync.aligned;", []string{"--target", "sm_90", "--ptx", "8.0"}, exitFail, map[string]string{
			"requires": "sm_90a", "problems": "requires sm_90a"}},
		{"tcgen05", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;", []string{"--target", "sm_100a", "--ptx", "8.6"}, exitOK, map[string]string{
			"instruction": "tcgen05.alloc: Allocate tensor memory columns", "problems": "none"}},
		{"texture", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tx, {%f5, %f6}];", nil, exitOK, map[string]string{
			"instruction": "tex: Texture lookup", "operands": "not described in detail"}},
		{"misc", "nanosleep.u32 100;", []string{"--target", "sm_61", "--ptx", "6.3"}, exitFail, map[string]string{
			"problems": "nanosleep requires sm_70 or higher"}},
		{"unknown", "addd.u32 %r1, %r2, %r3;", nil, exitFail, map[string]string{
			"instruction": "no instruction addd in the PTX ISA", "problems": "did you mean add?"}},
	}
	for _, c := range cases {
		out, errOut, code := explain(t, append([]string{c.instr}, c.args...)...)
		if code != c.code {
			t.Errorf("[%s] %s: exit %d, want %d\n%s%s", c.class, c.instr, code, c.code, out, errOut)
		}
		for title, want := range c.want {
			if got := section(out, title); !strings.Contains(got, want) {
				t.Errorf("[%s] %s: section %q = %q, want it to contain %q", c.class, c.instr, title, got, want)
			}
		}
	}
}

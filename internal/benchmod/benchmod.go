// Package benchmod generates the large many-kernel PTX modules that the
// benchmarks of the front end, the validator and the ptxkit command
// measure, and that scripts/bench-check.sh gives to ptxas.
package benchmod

import (
	"fmt"
	"strings"
)

// benchKernel is one kernel of the benchmark module: index arithmetic,
// loads and the store forms kernels use (vector, strong, shared, local,
// cache-hinted, predicated). %d is replaced by the kernel number.
const benchKernel = `.visible .entry store_kernel_%d(
	.param .u64 out,
	.param .u64 in,
	.param .u32 n
)
{
	.reg .pred %%p<4>;
	.reg .b32 %%r<24>;
	.reg .f32 %%f<12>;
	.reg .b64 %%rd<16>;
	.shared .align 16 .b32 tile[256];
	.local .align 16 .b32 spill[4];

	ld.param.u64 %%rd1, [out];
	ld.param.u64 %%rd2, [in];
	ld.param.u32 %%r1, [n];
	cvta.to.global.u64 %%rd3, %%rd1;
	cvta.to.global.u64 %%rd4, %%rd2;
	mov.u32 %%r2, %%tid.x;
	mov.u32 %%r3, %%ctaid.x;
	mov.u32 %%r4, %%ntid.x;
	mad.lo.s32 %%r5, %%r3, %%r4, %%r2;
	setp.ge.s32 %%p1, %%r5, %%r1;
	@%%p1 bra $L_done_%d;
	mul.wide.s32 %%rd5, %%r5, 16;
	add.s64 %%rd6, %%rd4, %%rd5;
	ld.global.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd6];
	add.f32 %%f5, %%f1, %%f2;
	mul.f32 %%f6, %%f3, %%f4;
	fma.rn.f32 %%f7, %%f5, %%f6, %%f1;
	add.s64 %%rd7, %%rd3, %%rd5;
	st.global.v4.f32 [%%rd7], {%%f5, %%f6, %%f7, %%f1};
	st.global.cs.f32 [%%rd7+4], %%f7;
	st.global.L1::no_allocate.v2.f32 [%%rd7+8], {%%f1, %%f2};
	shl.b32 %%r6, %%r2, 2;
	mov.u32 %%r7, tile;
	add.s32 %%r8, %%r7, %%r6;
	st.shared.f32 [%%r8], %%f7;
	st.shared.u32 [tile+4], %%r5;
	bar.sync 0;
	ld.shared.f32 %%f8, [%%r8];
	st.local.f32 [spill], %%f8;
	st.local.v2.u32 [spill+8], {%%r5, %%r6};
	ld.local.f32 %%f9, [spill];
	st.relaxed.gpu.global.u32 [%%rd7+12], %%r5;
	st.release.sys.global.f32 [%%rd7], %%f9;
	st.volatile.global.u32 [%%rd7+4], %%r6;
	cvt.rn.f16.f32 %%r9, %%f9;
	st.global.b16 [%%rd7+2], %%r9;
	st.global.u8 [%%rd7+1], %%r5;
	setp.eq.s32 %%p2, %%r2, 0;
	@%%p2 st.global.b64 [%%rd7+8], %%rd5;
	@!%%p2 st.global.wt.u32 [%%rd7+8], %%r5;
	st.global.L2::cache_hint.u32 [%%rd7], %%r5, %%rd5;
	st.shared.v4.b32 [%%r8], {%%r5, %%r6, %%r7, %%r8};
	st.u32 [%%rd1], %%r5;
$L_done_%d:
	ret;
}

`

// Check returns a module of about size bytes made of benchKernel
// copies.
func Check(size int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, benchKernel, i, i, i)
	}
	return b.String()
}

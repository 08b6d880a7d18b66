package emu

import (
	"strings"
	"testing"
)

// chainKernel: f(prev, n) keeps x = 3n+1 in its own .local frame, passes
// &x (generic) to f(&x, n-1) and after the call reads both *prev (the
// caller's x, or the kernel's y) and its own x again:
// f(prev, 0) = *prev; f(prev, n) = f(&x, n-1) + *prev + x. Each thread
// recurses tid%7 deep from y = 1000+tid.
const chainKernel = header + `
.func (.param .b32 ret) f(.param .b64 prev, .param .b32 n)
{
	.local .align 4 .b8 depot[4];
	.reg .b64 %rd<6>;
	.reg .b32 %r<12>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [prev];
	ld.param.u32 %r1, [n];
	mad.lo.u32 %r2, %r1, 3, 1;
	st.local.u32 [depot], %r2;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra BASE;
	mov.u64 %rd2, depot;
	cvta.local.u64 %rd3, %rd2;
	sub.u32 %r3, %r1, 1;
	{
	.param .b64 a0;
	.param .b32 a1;
	.param .b32 r0;
	st.param.b64 [a0], %rd3;
	st.param.b32 [a1], %r3;
	call.uni (r0), f, (a0, a1);
	ld.param.b32 %r4, [r0];
	}
	ld.u32 %r5, [%rd1];
	ld.local.u32 %r6, [depot];
	add.u32 %r7, %r4, %r5;
	add.u32 %r8, %r7, %r6;
	st.param.b32 [ret], %r8;
	ret;
BASE:
	ld.u32 %r9, [%rd1];
	st.param.b32 [ret], %r9;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.local .align 4 .b8 y[4];
	.reg .b64 %rd<8>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1000;
	st.local.u32 [y], %r2;
	mov.u64 %rd2, y;
	cvta.local.u64 %rd3, %rd2;
	rem.u32 %r3, %r1, 7;
	{
	.param .b64 a0;
	.param .b32 a1;
	.param .b32 r0;
	st.param.b64 [a0], %rd3;
	st.param.b32 [a1], %r3;
	call.uni (r0), f, (a0, a1);
	ld.param.b32 %r4, [r0];
	}
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r4;
	ret;
}
`

func chain(prev, n uint32) uint32 {
	if n == 0 {
		return prev
	}
	x := 3*n + 1
	return chain(x, n-1) + prev + x
}

// TestRecursionFrames: each activation has its own .local frame (a
// pointer to the caller's variable still reads the caller's value) and its
// own registers; lanes of a warp recurse to different depths.
func TestRecursionFrames(t *testing.T) {
	for _, seed := range []uint64{0, 4} {
		res := launch(t, chainKernel, Config{Block: dims(64, 1, 1), Seed: seed}, buf(4*64))
		got := u32s(res.Buffers[0].Data)
		for i := range 64 {
			if want := chain(uint32(1000+i), uint32(i%7)); got[i] != want {
				t.Fatalf("seed %d thread %d: %d, want %d", seed, i, got[i], want)
			}
		}
	}
}

// TestRecursionDepthLimit: unbounded recursion stops at the emulator's
// call depth with an "unsupported" report naming the limit (the program
// may be valid; the emulator stops there).
func TestRecursionDepthLimit(t *testing.T) {
	src := strings.Replace(chainKernel, "rem.u32 %r3, %r1, 7;", "add.u32 %r3, %r1, 1000;", 1)
	res := launchReport(t, src, Config{Block: dims(32, 1, 1)}, buf(4*32))
	wantReport(t, res, RuleUnsupported, "deeper than 64")
}

// mutualKernel: even(n) and odd(n) call each other, odd through a function
// pointer; out[t] = even(t) for t < 40.
const mutualKernel = header + `
.func (.param .b32 r) odd(.param .b32 n);

.func (.param .b32 r) even(.param .b32 n)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra YES;
	sub.u32 %r2, %r1, 1;
	mov.u64 %rd1, odd;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r2;
	prot: .callprototype (.param .b32 _) _ (.param .b32 _);
	call (b), %rd1, (a), prot;
	ld.param.b32 %r3, [b];
	}
	st.param.b32 [r], %r3;
	ret;
YES:
	st.param.b32 [r], 1;
	ret;
}

.func (.param .b32 r) odd(.param .b32 n)
{
	.reg .b32 %r<4>;
	.reg .pred %p<2>;
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra NO;
	sub.u32 %r2, %r1, 1;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r2;
	call (b), even, (a);
	ld.param.b32 %r3, [b];
	}
	st.param.b32 [r], %r3;
	ret;
NO:
	st.param.b32 [r], 0;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r1;
	call (b), even, (a);
	ld.param.b32 %r2, [b];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
`

// TestMutualRecursionThroughPointer: a cycle through an indirect call is
// recursive too.
func TestMutualRecursionThroughPointer(t *testing.T) {
	res := launch(t, mutualKernel, Config{Block: dims(40, 1, 1)}, buf(4*40))
	for i, v := range u32s(res.Buffers[0].Data) {
		if want := uint32(1 - i%2); v != want {
			t.Fatalf("even(%d) = %d, want %d", i, v, want)
		}
	}
}

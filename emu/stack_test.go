package emu

import "testing"

// allocaKernel: per iteration, stacksave, alloca 24 bytes (alignment 16),
// store three words, call g (which allocas and fills 64 bytes of its own),
// alloca 8 more bytes, read the three words back and stackrestore. out
// gets, per thread: the first and second allocation's addresses of each
// iteration and the sum of the words read.
const allocaKernel = header + `
.func g(.param .b32 v)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [v];
	alloca.u64 %rd1, 64;
	st.local.u32 [%rd1], %r1;
	st.local.u32 [%rd1+60], %r1;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<12>;
	.reg .b32 %r<12>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 32;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r2, 0;
	mov.u32 %r9, 0;
LOOP:
	stacksave.u64 %rd4;
	alloca.u64 %rd5, 24, 16;
	add.u32 %r3, %r1, %r2;
	st.local.u32 [%rd5], %r3;
	st.local.u32 [%rd5+8], %r3;
	st.local.u32 [%rd5+20], %r3;
	{
	.param .b32 a;
	st.param.b32 [a], 0xdead;
	call g, (a);
	}
	alloca.u64 %rd6, 8;
	ld.local.u32 %r4, [%rd5];
	ld.local.u32 %r5, [%rd5+8];
	ld.local.u32 %r6, [%rd5+20];
	add.u32 %r9, %r9, %r4;
	add.u32 %r9, %r9, %r5;
	add.u32 %r9, %r9, %r6;
	cvt.u32.u64 %r7, %rd5;
	cvt.u32.u64 %r8, %rd6;
	mul.wide.u32 %rd7, %r2, 8;
	add.u64 %rd8, %rd3, %rd7;
	st.global.v2.u32 [%rd8], {%r7, %r8};
	stackrestore.u64 %rd4;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 3;
	@%p1 bra LOOP;
	st.global.u32 [%rd3+24], %r9;
	ret;
}
`

// TestAllocaStack: allocations are aligned, survive calls (the callee's
// own allocation is freed when it returns) and are freed by
// stackrestore, so every iteration gets the same addresses.
func TestAllocaStack(t *testing.T) {
	res := launch(t, allocaKernel, Config{Block: dims(32, 1, 1)}, buf(32*32))
	o := u32s(res.Buffers[0].Data)
	for tid := range 32 {
		w := o[8*tid : 8*tid+8]
		first, second := w[0], w[1]
		if first%16 != 0 || second != first+24 {
			t.Fatalf("thread %d: allocations at %d and %d; want 16-aligned, then 24 bytes later", tid, first, second)
		}
		for it := 1; it < 3; it++ {
			if w[2*it] != first || w[2*it+1] != second {
				t.Fatalf("thread %d iteration %d: %d, %d after stackrestore; want %d, %d", tid, it, w[2*it], w[2*it+1], first, second)
			}
		}
		if want := uint32(3 * (3*tid + 0 + 1 + 2)); w[6] != want {
			t.Fatalf("thread %d: sum %d, want %d", tid, w[6], want)
		}
	}
}

// TestAllocaOverflowAndBadRestore: the stack is bounded, and
// stackrestore takes only stack addresses.
func TestAllocaOverflowAndBadRestore(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 n)
{
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [n];
	alloca.u64 %rd2, %rd1;
	stackrestore.u64 %rd1;
	ret;
}
`
	res := launchReport(t, src, Config{Block: dims(32, 1, 1)}, scalar(1<<20))
	wantReport(t, res, ruleCallDepth, "overflows")
	res = launchReport(t, src, Config{Block: dims(32, 1, 1)}, scalar(3))
	wantReport(t, res, ruleOutOfBounds, "stackrestore")
}

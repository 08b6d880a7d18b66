package emu

import "testing"

const heapPTX = header + `
.extern .func (.param .b64 ret) malloc (.param .b64 size);
.extern .func free (.param .b64 p);
.visible .entry k(.param .u64 out, .param .u32 twice)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	.reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r3, [twice];
	mov.u32 %r1, %tid.x;
	{
	.param .b64 a;
	.param .b64 r;
	st.param.b64 [a], 64;
	call.uni (r), malloc, (a);
	ld.param.b64 %rd2, [r];
	}
	st.u32 [%rd2+60], %r1;
	ld.u32 %r2, [%rd2+60];
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r2;
	{
	.param .b64 b;
	st.param.b64 [b], %rd2;
	call.uni free, (b);
	}
	setp.eq.u32 %p, %r3, 0;
	@%p bra DONE;
	{
	.param .b64 c;
	st.param.b64 [c], %rd2;
	call.uni free, (c);
	}
DONE:
	ret;
}
`

func TestMallocFree(t *testing.T) {
	res := launch(t, heapPTX, Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1)}, buf(256), scalar(0))
	for i, v := range u32s(res.Buffers[0].Data) {
		if v != uint32(i) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	if h := res.Mem.heap; len(h.used) != 0 || len(h.free) != 1 || h.free[0].n != HeapBytes {
		t.Errorf("the heap is not whole again: %d live blocks, free spans %v", len(h.used), h.free)
	}
	res = launchReport(t, heapPTX, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)}, buf(128), scalar(1))
	wantReport(t, res, "bad-free", "not a block malloc returned")
}

func TestAssertfail(t *testing.T) {
	src := header + `
.extern .func __assertfail (.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 cs);
.global .align 1 .b8 msg[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 func[2] = {107, 0};
.visible .entry k()
{
	.reg .b64 %rd<4>;
	.reg .b32 %r1;
	.reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p, %r1, 3;
	@%p bra DONE;
	cvta.global.u64 %rd1, msg;
	cvta.global.u64 %rd2, file;
	cvta.global.u64 %rd3, func;
	{
	.param .b64 a; .param .b64 b; .param .b32 c; .param .b64 d; .param .b64 e;
	st.param.b64 [a], %rd1;
	st.param.b64 [b], %rd2;
	st.param.b32 [c], 12;
	st.param.b64 [d], %rd3;
	st.param.b64 [e], 1;
	call.uni __assertfail, (a, b, c, d, e);
	}
DONE:
	ret;
}
`
	res := launchReport(t, src, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)})
	wantReport(t, res, "assert", "a.cu:12: k: block: [0,0,0], thread: [3,0,0] Assertion `x > 0` failed.")
}

func TestHeapSize(t *testing.T) {
	p := compile(t, heapPTX)
	mem := NewMemory()
	if mem.SetHeapSize(1<<40) || !mem.SetHeapSize(64<<10) || mem.HeapSize() != 64<<10 {
		t.Fatal("heap size limits")
	}
	out := mem.Alloc("out", 256, 256)
	l := &Launch{Kernel: p, Mem: mem, Config: Config{Grid: dims(1, 1, 1), Block: dims(64, 1, 1)}, Args: []Arg{scalar(out.Base), scalar(0)}}
	if res, err := l.Run(); err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	if len(mem.heap.region.Data) != 64<<10 {
		t.Errorf("heap of %d bytes", len(mem.heap.region.Data))
	}
	if mem.SetHeapSize(1 << 20) {
		t.Error("the heap size changed after a kernel used the heap")
	}
}

package emu

import (
	"testing"
)

func TestStoreGlobalU32(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r2, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd3, %rd2, %rd3;
	mul.lo.u32 %r3, %r2, 2654435761;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	res := launch(t, src, Config{Grid: dims(3, 1, 1), Block: dims(40, 1, 1)}, buf(120*4))
	got := u32s(res.Buffers[0].Data)
	for i, v := range got {
		if want := uint32(i) * 2654435761; v != want {
			t.Fatalf("out[%d] = %#x, want %#x", i, v, want)
		}
	}
	if res.Stats.ThreadInsts != 120*11 {
		t.Errorf("thread insts = %d, want %d", res.Stats.ThreadInsts, 120*11)
	}
}

package emu

import (
	"math/rand/v2"
	"testing"
)

// TestRegPlusImmOperands checks "register ± integer" source operands
// (ptxas computes the register plus the immediate) against values computed
// here, for 16-, 32- and 64-bit registers, with wrap-around, a negative
// immediate, a guarded instruction and a store's value operand.
func TestRegPlusImmOperands(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out, .param .u32 v, .param .u64 w)
{
	.reg .pred %p<2>;
	.reg .b16 %h<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [v];
	ld.param.u64 %rd2, [w];
	mov.u32 %r2, %r1+5;
	mov.u32 %r3, %r1+-3;
	add.u32 %r4, %r1-7, 1;
	st.global.u32 [%rd1], %r2;
	st.global.u32 [%rd1+4], %r3;
	st.global.u32 [%rd1+8], %r4;
	st.global.u32 [%rd1+12], %r1+0x100;
	mov.u64 %rd3, %rd2+9;
	st.global.u64 [%rd1+16], %rd3;
	cvt.u16.u32 %h1, %r1;
	mov.b16 %h2, %h1+2;
	st.global.u16 [%rd1+24], %h2;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r5, 77;
	@%p1 mov.u32 %r5, %r1+1;
	st.global.u32 [%rd1+28], %r5;
	ret;
}
`
	r := rand.New(rand.NewPCG(3, 4))
	for _, v := range []uint32{0, 1, 10, 0xffffffff, 0xfffffffd, r.Uint32(), r.Uint32()} {
		w := r.Uint64()
		if v == 0xffffffff {
			w = ^uint64(3) // wraps
		}
		res := launch(t, src, Config{Grid: dims(1, 1, 1), Block: dims(1, 1, 1)}, buf(32), scalar(uint64(v)), scalar(w))
		out := res.Buffers[0].Data
		got := u32s(out)
		want := []uint32{v + 5, v - 3, v - 7 + 1, v + 0x100}
		for i, x := range want {
			if got[i] != x {
				t.Errorf("v=%d: word %d = %d, want %d", v, i, got[i], x)
			}
		}
		if g := uint64(got[4]) | uint64(got[5])<<32; g != w+9 {
			t.Errorf("w=%d: 64-bit sum %d, want %d", w, g, w+9)
		}
		if g := uint16(got[6]); g != uint16(v)+2 {
			t.Errorf("v=%d: 16-bit sum %d, want %d", v, g, uint16(v)+2)
		}
		want5 := uint32(77)
		if v == 0 {
			want5 = 1
		}
		if got[7] != want5 {
			t.Errorf("v=%d: guarded sum %d, want %d", v, got[7], want5)
		}
	}
}

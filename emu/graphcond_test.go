package emu

import (
	"encoding/binary"
	"testing"
)

// TestGraphSetConditional checks the device side of conditional graph
// nodes: cudaGraphSetConditional stores the value in the 32-bit cell the
// handle addresses, and a handle that addresses no memory is reported.
func TestGraphSetConditional(t *testing.T) {
	src := header + `
.extern .func cudaGraphSetConditional (.param .b64 h, .param .b32 v);
.visible .entry k(.param .u64 h, .param .u32 v)
{
	.reg .b64 %rd1;
	.reg .b32 %r<3>;
	.reg .pred %p;
	ld.param.u64 %rd1, [h];
	ld.param.u32 %r1, [v];
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p, %r2, 5;
	@%p bra DONE;
	add.u32 %r1, %r1, %r2;
	{
	.param .b64 a; .param .b32 b;
	st.param.b64 [a], %rd1;
	st.param.b32 [b], %r1;
	call.uni cudaGraphSetConditional, (a, b);
	}
DONE:
	ret;
}
`
	res := launch(t, src, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)}, buf(8), scalar(40))
	if got := binary.LittleEndian.Uint32(res.Buffers[0].Data); got != 45 {
		t.Errorf("condition = %d, want 45", got)
	}
	bad := launchReport(t, src, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)}, scalar(8), scalar(1))
	wantReport(t, bad, ruleOutOfBounds, "does not lie inside any global allocation")
}

package emu

import (
	"fmt"
	"strings"
	"testing"
)

// alternatingKernel stores to A and B in turn (the pattern prevSpan
// serves from the warp's previous allocation), reads A back after each
// store to B, and in its last round offsets lane 9's address by pbad
// bytes, so that a bad offset faults on a store served that way.
const alternatingKernel = header + `
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pbad)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pbad];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd1, %rd5;
	add.s64 %rd7, %rd2, %rd5;
	mul.wide.u32 %rd9, %r1, 16;
	add.s64 %rd8, %rd2, %rd9;
	setp.eq.u32 %p2, %r1, 9;
	mov.u32 %r2, 0;
	mov.u32 %r5, 0;
$L:
	add.u32 %r3, %r1, %r2;
	st.global.u32 [%rd6], %r3;
	st.global.v4.u32 [%rd8+512], {%r3, %r3, %r3, %r3};
	ld.global.u32 %r4, [%rd6];
	add.u32 %r5, %r5, %r4;
	st.global.u32 [%rd7], %r5;
	add.u32 %r2, %r2, 1;
	setp.eq.u32 %p1, %r2, 3;
	@%p1 bra $LAST;
	setp.lt.u32 %p1, %r2, 4;
	@%p1 bra $L;
	ret;
$LAST:
	@%p2 add.s64 %rd6, %rd6, %rd3;
	bra $L;
}
`

// TestPrevAllocationMatchesLaneChecks runs the alternating kernel with the
// per-warp check on and off, with lane 9's last address inside A,
// misaligned, past A's end and in B, and compares reports, counters and
// buffers.
func TestPrevAllocationMatchesLaneChecks(t *testing.T) {
	defer func() { warpChecks = true }()
	prog := compile(t, alternatingKernel)
	run := func(bad int64) string {
		res, err := execute(prog, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)},
			[]Arg{buf(256), buf(1024), scalar(uint64(bad))})
		if err != nil {
			t.Fatal(err)
		}
		return resultText(res)
	}
	for _, bad := range []int64{0, 4, 2, 256, 1 << 20, -8} {
		warpChecks = false
		lane := run(bad)
		warpChecks = true
		warp := run(bad)
		if lane != warp {
			t.Errorf("offset %d: per-warp path differs from per-lane path\nper lane:\n%s\nper warp:\n%s", bad, lane, warp)
		}
	}
	if out := run(0); !containsAll(out, "stored [") || containsAll(out, "report") {
		t.Errorf("in-bounds run: %s", out)
	}
	if out := run(256); !containsAll(out, "report") {
		t.Errorf("lane 9 past A's end did not report:\n%s", out)
	}
}

// resultText is what TestPrevAllocationMatchesLaneChecks compares: the
// report, the counters and every buffer.
func resultText(res *Result) string {
	var b strings.Builder
	if res.Report != nil {
		fmt.Fprintf(&b, "report: %s\n", res.Report.Error())
	}
	fmt.Fprintf(&b, "stored %v loaded %v\n", res.Stats.Stored, res.Stats.Loaded)
	for i, r := range res.Buffers {
		if r != nil {
			fmt.Fprintf(&b, "arg%d: %x\n", i, r.Data)
		}
	}
	return b.String()
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

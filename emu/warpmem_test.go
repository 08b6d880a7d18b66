package emu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// The per-warp check of the 32-bit and .v4 loads and stores (warpWindow) must
// give exactly what the per-lane path gives: the same bytes, the same
// counters, and for a faulting warp the same report (rule, lane, message).

// warpMemKernel stores a per-thread value at A or B plus an offset taken
// from a table (per thread: u32 select B, u32 active, s64 offset), loads it
// back and writes what it loaded to out. op is "u32" or "v4"; space is
// "global" or "shared" (then the offset is from the shared array sm and
// select is ignored).
func warpMemKernel(op, space string) string {
	var addr, st, ld string
	if space == "global" {
		addr = `	setp.ne.u32 %p1, %r2, 0;
	selp.b64 %rd8, %rd2, %rd1, %p1;
	add.s64 %rd9, %rd8, %rd7;`
	} else {
		addr = `	mov.u64 %rd8, sm;
	add.s64 %rd9, %rd8, %rd7;
	cvt.u32.u64 %r20, %rd9;`
	}
	a := "[%rd9]"
	if space == "shared" {
		a = "[%r20]"
	}
	if op == "u32" {
		st = "@%p2 st." + space + ".u32 " + a + ", %r4;"
		ld = "@%p2 ld." + space + ".u32 %r5, " + a + ";"
	} else {
		st = "@%p2 st." + space + ".v4.u32 " + a + ", {%r4, %r6, %r7, %r8};"
		ld = "@%p2 ld." + space + ".v4.u32 {%r10, %r11, %r12, %r5}, " + a + ";"
	}
	return header + `
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 ptab, .param .u64 pout)
{
	.reg .pred %p<3>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<16>;
	.shared .align 16 .b8 sm[1024];
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [ptab];
	ld.param.u64 %rd4, [pout];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd5, %r1, 16;
	add.s64 %rd6, %rd3, %rd5;
	ld.global.u32 %r2, [%rd6];
	ld.global.u32 %r3, [%rd6+4];
	ld.global.u64 %rd7, [%rd6+8];
	setp.ne.u32 %p2, %r3, 0;
` + addr + `
	add.u32 %r4, %r1, 100;
	add.u32 %r6, %r1, 200;
	add.u32 %r7, %r1, 300;
	add.u32 %r8, %r1, 400;
	` + st + `
	` + ld + `
	mul.wide.u32 %rd10, %r1, 4;
	add.s64 %rd11, %rd4, %rd10;
	st.global.u32 [%rd11], %r5;
	ret;
}
`
}

// warpMemPattern is one warp's addresses: per lane, which buffer, whether
// the lane is active and the byte offset.
type warpMemPattern struct {
	name   string
	sel    func(l int) bool
	active func(l int) bool
	off    func(l, n int) int64
}

func always(int) bool { return true }
func never(int) bool  { return false }

var warpMemPatterns = []warpMemPattern{
	{"affine", never, always, func(l, n int) int64 { return int64(l * n) }},
	{"reversed", never, always, func(l, n int) int64 { return int64((31 - l) * n) }},
	{"same address", never, always, func(l, n int) int64 { return 0 }},
	{"strided", never, always, func(l, n int) int64 { return int64(l * 2 * n) }},
	{"partial mask", never, func(l int) bool { return l%3 != 0 }, func(l, n int) int64 { return int64(l * n) }},
	{"one lane", never, func(l int) bool { return l == 17 }, func(l, n int) int64 { return int64(l * n) }},
	{"two allocations", func(l int) bool { return l >= 16 }, always, func(l, n int) int64 { return int64(l * n) }},
	{"misaligned lane 7", never, always, func(l, n int) int64 { return int64(l*n) + b2i(l == 7)*2 }},
	{"misaligned inactive lane", never, func(l int) bool { return l != 7 }, func(l, n int) int64 { return int64(l*n) + b2i(l == 7)*2 }},
	{"past the end on lane 9", never, always, func(l, n int) int64 { return int64(l*n) + b2i(l == 9)*(1<<10) }},
	{"last bytes of the buffer", never, always, func(l, n int) int64 { return int64(1024 - (32-l)*n) }},
	{"before the buffer on lane 30", never, always, func(l, n int) int64 { return int64(l*n) - b2i(l == 30)*(1<<12) }},
}

// warpMemRun runs kernel with pattern p (access width n) and returns
// what a comparison needs: the report, the counters and every buffer.
func warpMemRun(t *testing.T, prog *Program, p warpMemPattern, n int) string {
	t.Helper()
	tab := make([]byte, 32*16)
	for l := range 32 {
		if p.sel(l) {
			tab[l*16] = 1
		}
		if p.active(l) {
			tab[l*16+4] = 1
		}
		binary.LittleEndian.PutUint64(tab[l*16+8:], uint64(p.off(l, n)))
	}
	res, err := execute(prog, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)},
		[]Arg{buf(1024), buf(1024), {IsBuffer: true, Buffer: tab}, buf(128)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if res.Report != nil {
		fmt.Fprintf(&b, "report: %s\n", res.Report.Error())
	}
	fmt.Fprintf(&b, "stored %v loaded %v\n", res.Stats.Stored, res.Stats.Loaded)
	for i, r := range res.Buffers {
		fmt.Fprintf(&b, "arg%d: %x\n", i, r.Data)
	}
	return b.String()
}

// TestWarpChecksMatchLaneChecks runs every pattern through the four
// specialised handlers with the per-warp check on and off.
func TestWarpChecksMatchLaneChecks(t *testing.T) {
	defer func() { warpChecks = true }()
	for _, space := range []string{"global", "shared"} {
		for _, op := range []string{"u32", "v4"} {
			prog := compile(t, warpMemKernel(op, space))
			n := map[string]int{"u32": 4, "v4": 16}[op]
			for _, p := range warpMemPatterns {
				warpChecks = false
				lane := warpMemRun(t, prog, p, n)
				warpChecks = true
				warp := warpMemRun(t, prog, p, n)
				if lane != warp {
					t.Errorf("%s %s, %s: per-warp path differs from per-lane path\nper lane:\n%s\nper warp:\n%s", space, op, p.name, lane, warp)
				}
			}
		}
	}
}

// TestWarpChecksOutcomes pins what some patterns do, so that agreement of
// the two paths is not agreement on something wrong.
func TestWarpChecksOutcomes(t *testing.T) {
	prog := compile(t, warpMemKernel("u32", "global"))
	run := func(name string) *Result {
		for _, p := range warpMemPatterns {
			if p.name != name {
				continue
			}
			tab := make([]byte, 32*16)
			for l := range 32 {
				tab[l*16] = byte(b2i(p.sel(l)))
				tab[l*16+4] = byte(b2i(p.active(l)))
				binary.LittleEndian.PutUint64(tab[l*16+8:], uint64(p.off(l, 4)))
			}
			res, err := execute(prog, Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1)},
				[]Arg{buf(1024), buf(1024), {IsBuffer: true, Buffer: tab}, buf(128)})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		t.Fatalf("no pattern %q", name)
		return nil
	}
	res := run("same address")
	if res.Report != nil || binary.LittleEndian.Uint32(res.Buffers[0].Data) != 131 {
		t.Errorf("same address: report %v, word %d; want lane 31's 131", res.Report, binary.LittleEndian.Uint32(res.Buffers[0].Data))
	}
	res = run("two allocations")
	if res.Report != nil || u32s(res.Buffers[0].Data)[15] != 115 || u32s(res.Buffers[1].Data)[16] != 116 || u32s(res.Buffers[0].Data)[16] != 0 {
		t.Errorf("two allocations: report %v, A[15]=%d A[16]=%d B[16]=%d", res.Report, u32s(res.Buffers[0].Data)[15], u32s(res.Buffers[0].Data)[16], u32s(res.Buffers[1].Data)[16])
	}
	res = run("misaligned lane 7")
	wantReport(t, res, ruleMisaligned, "misaligned 4-byte store")
	if res.Report.Thread.Lane != 7 {
		t.Errorf("misaligned lane 7: report names thread %v", res.Report.Thread)
	}
	// The lanes before the faulting one stored, as they do on a GPU's
	// per-lane order in this emulator; the lanes after did not.
	if w := u32s(res.Buffers[0].Data); w[6] != 106 || w[8] != 0 {
		t.Errorf("misaligned lane 7: words 6 and 8 are %d and %d, want 106 and 0", w[6], w[8])
	}
	if res = run("misaligned inactive lane"); res.Report != nil {
		t.Errorf("an inactive misaligned lane reported: %v", res.Report)
	}
	res = run("past the end on lane 9")
	wantReport(t, res, ruleOutOfBounds)
	if res.Report.Thread.Lane != 9 {
		t.Errorf("past the end: report names thread %v", res.Report.Thread)
	}
}

// TestWarpBounds checks the per-warp test itself (laneBounds, holds) on
// windows made by hand.
func TestWarpBounds(t *testing.T) {
	data := make([]byte, 4096)
	win := fastWindow{base: 0x1000, data: data}
	affine := func(stride, first uint64) []uint64 {
		a := make([]uint64, 32)
		for l := range a {
			a[l] = first + uint64(l)*stride
		}
		return a
	}
	all := ^uint32(0)
	cases := []struct {
		name string
		win  fastWindow
		addr []uint64
		exec uint32
		disp uint64
		n    uint64
		want bool
	}{
		{"affine inside", win, affine(4, 0x1000), all, 0, 4, true},
		{"up to the last byte", win, affine(16, 0x1000+4096-512), all, 0, 16, true},
		{"one byte past the end", win, affine(16, 0x1000+4096-512+16), all, 0, 16, false},
		{"displacement past the end", win, affine(4, 0x1000), all, 4096, 4, false},
		{"negative displacement inside", win, affine(4, 0x1100), all, ^uint64(0xff), 4, true},
		{"below the base", win, affine(4, 0xff0), all, 0, 4, false},
		{"misaligned", win, affine(4, 0x1002), all, 0, 4, false},
		{"misaligned for 16", win, affine(4, 0x1000), all, 0, 16, false},
		{"bad lane inactive", win, append(affine(4, 0x1000)[:31], 0x9999), all >> 1, 0, 4, true},
		{"bad lane active", win, append(affine(4, 0x1000)[:31], 0x9999), all, 0, 4, false},
		{"wraps around", win, affine(4, 0x1000), all, ^uint64(0x2000), 4, false},
		{"empty window", fastWindow{}, affine(4, 0), all, 0, 4, false},
	}
	for _, c := range cases {
		or, lo, hi := laneBounds((*[32]uint64)(c.addr), c.exec, c.disp)
		if got := or&(c.n-1) == 0 && c.win.holds(lo, hi, c.n); got != c.want {
			t.Errorf("%s: span = %v, want %v", c.name, got, c.want)
		}
	}
	if !bytes.Equal(data, make([]byte, 4096)) {
		t.Error("the check wrote to the window")
	}
}

package emu

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// TestLLCCalls: LLVM's direct, indirect (function-pointer table), struct
// returning and vector-argument calls, and printf through vprintf.
func TestLLCCalls(t *testing.T) {
	const w = 0x100000007
	res := launch(t, readKernel(t, "llc_calls.ptx"), Config{Block: dims(4, 1, 1)}, buf(16), buf(64), scalar(w))
	var want strings.Builder
	for tid := range 4 {
		a := tid * 2
		b := a * 5 // scale(a, 5.5) for even tids
		if tid%2 == 1 {
			b = a + 5 // offset(a, 5.5)
		}
		s := uint32(b) + uint32(w&0xffffffff)
		if got := binary.LittleEndian.Uint32(res.Buffers[0].Data[4*tid:]); got != s {
			t.Errorf("out[%d] = %d, want %d", tid, got, s)
		}
		v := res.Buffers[1].Data[16*tid:]
		for i, f := range []float32{1, 2, 3, float32(s)} {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(v[4*i:])); got != f {
				t.Errorf("vout[%d][%d] = %v, want %v", tid, i, got, f)
			}
		}
		want.WriteString(sprintf("call tid=%d s=%d w=%d f=%.2f c=%c%%\n", tid, s, uint64(w)*3, float64(s)*0.25, 'A'+tid))
	}
	if got := string(res.Stats.Printf); got != want.String() {
		t.Errorf("printf output:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestPrintfFormats drives vprintf by hand: integer widths and flags,
// strings, floats, pointers and a literal percent sign.
func TestPrintfFormats(t *testing.T) {
	src := header + `
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.global .align 1 .b8 fmtstr[] = {FORMAT};
.global .align 1 .b8 word[3] = {104,105,0};
.visible .entry k() {
	.local .align 8 .b8 buf[56];
	.reg .b64 %rd<8>;
	.reg .b32 %r<4>;
	mov.u64 %rd1, buf;
	cvta.local.u64 %rd2, %rd1;
	mov.u32 %r1, -5;
	st.local.u32 [%rd1], %r1;
	st.local.u32 [%rd1+4], 42;
	st.local.u32 [%rd1+8], 48879;
	st.local.u64 [%rd1+16], -9000000000;
	mov.u64 %rd3, word;
	st.local.u64 [%rd1+24], %rd3;
	st.local.f64 [%rd1+32], 0d3FF8000000000000;
	st.local.u32 [%rd1+40], 90;
	st.local.u64 [%rd1+48], 4096;
	mov.u64 %rd4, fmtstr;
	{
	.param .b64 p0;
	.param .b64 p1;
	.param .b32 ret;
	st.param.b64 [p0], %rd4;
	st.param.b64 [p1], %rd2;
	call.uni (ret), vprintf, (p0, p1);
	ld.param.b32 %r2, [ret];
	}
	ret;
}`
	format := "%d %5u %08x %lld %s %g %-3c|%% %p\n\x00"
	var bytes []string
	for _, c := range []byte(format) {
		bytes = append(bytes, sprintf("%d", c))
	}
	res := launch(t, strings.Replace(src, "FORMAT", strings.Join(bytes, ","), 1), Config{}, []Arg{}...)
	want := "-5    42 0000beef -9000000000 hi 1.5 Z  |% 0x1000\n"
	if got := string(res.Stats.Printf); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestIndirectCallBadPointer: calling through something that is not a
// function address is reported.
func TestIndirectCallBadPointer(t *testing.T) {
	src := header + `
.func (.param .b32 r) f(.param .b32 x) { .reg .b32 %r1; ld.param.b32 %r1, [x]; st.param.b32 [r], %r1; ret; }
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<3>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, f;
	add.u64 %rd2, %rd2, %rd1;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], 1;
	proto: .callprototype (.param .b32 _) _ (.param .b32 _);
	call (b), %rd2, (a), proto;
	ld.param.b32 %r1, [b];
	}
	st.global.u32 [%rd1], %r1;
	ret;
}`
	res := launchReport(t, src, Config{}, buf(4))
	wantReport(t, res, ruleWrongWindow, "not the address of a function")
	good := strings.Replace(src, "add.u64 %rd2, %rd2, %rd1;", "", 1)
	if res := launch(t, good, Config{}, buf(4)); binary.LittleEndian.Uint32(res.Buffers[0].Data) != 1 {
		t.Errorf("indirect call result %v", res.Buffers[0].Data)
	}
}

// TestBrxIdx: an indexed branch through a .branchtargets list, lanes
// taking different targets; an index past the list is reported.
func TestBrxIdx(t *testing.T) {
	body := `
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	ts: .branchtargets L0, L1, L2;
	brx.idx %r2, ts;
L0:
	mov.u32 %r3, 100;
	bra.uni J;
L1:
	mov.u32 %r3, 200;
	bra.uni J;
L2:
	mov.u32 %r3, 300;
J:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;`
	res := launch(t, kernel1(body, ""), Config{Block: dims(40, 1, 1)}, buf(160))
	for i, v := range u32s(res.Buffers[0].Data) {
		if v != uint32(100*(i%3+1)) {
			t.Fatalf("lane %d: %d", i, v)
		}
	}
	bad := strings.Replace(body, "rem.u32 %r2, %r1, 3;", "rem.u32 %r2, %r1, 5;", 1)
	wantReport(t, launchReport(t, kernel1(bad, ""), Config{Block: dims(40, 1, 1)}, buf(160)), ruleOutOfBounds, "brx.idx index 3")
}

// TestAliasCall: ".alias a, b" makes a call of a run b.
func TestAliasCall(t *testing.T) {
	src := header + `
.func (.param .b32 r) seven() { st.param.b32 [r], 7; ret; }
.visible .func (.param .b32 r) lucky();
.alias lucky, seven;
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd1;
	.reg .b32 %r1;
	ld.param.u64 %rd1, [out];
	{
	.param .b32 v;
	call.uni (v), lucky, ();
	ld.param.b32 %r1, [v];
	}
	st.global.u32 [%rd1], %r1;
	ret;
}`
	res := launch(t, src, Config{}, buf(4))
	if got := binary.LittleEndian.Uint32(res.Buffers[0].Data); got != 7 {
		t.Fatalf("got %d", got)
	}
}

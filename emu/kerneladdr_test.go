package emu

import (
	"encoding/binary"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestKernelAddressInitializer: a module variable may hold kernels'
// addresses (the device runtime's PTX keeps such a table). Each kernel
// gets a distinct address; calling through one is a wrong-window report,
// since the emulator launches no kernel from device code.
func TestKernelAddressInitializer(t *testing.T) {
	src := header + `
.entry a(.param .u64 p);
.entry b(.param .u64 p);
.global .align 8 .u64 tab[3] = {a, b, a};
.entry a(.param .u64 p) { ret; }
.entry b(.param .u64 p) { ret; }
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	ld.global.u64 %rd2, [tab];
	ld.global.u64 %rd3, [tab+8];
	ld.global.u64 %rd4, [tab+16];
	st.global.u64 [%rd1], %rd2;
	st.global.u64 [%rd1+8], %rd3;
	st.global.u64 [%rd1+16], %rd4;
	ret;
}`
	res := launchKernel(t, src, "k", buf(24))
	d := res.Buffers[0].Data
	a, b, a2 := binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:]), binary.LittleEndian.Uint64(d[16:])
	if a == 0 || a == b || a != a2 {
		t.Errorf("kernel addresses %#x %#x %#x: want two distinct nonzero addresses, the first repeated", a, b, a2)
	}
	call := header + `
.entry a(.param .u64 p) { ret; }
.global .align 8 .u64 tab[1] = {a};
.visible .entry k(.param .u64 out) {
	.reg .b64 %rd<3>;
	ld.global.u64 %rd2, [tab];
	{
	.param .b64 x;
	st.param.b64 [x], 0;
	proto: .callprototype _ (.param .b64 _);
	call %rd2, (x), proto;
	}
	ret;
}`
	res = launchKernel(t, call, "k", buf(4))
	wantReport(t, res, ruleWrongWindow, "not the address of a function")
}

// launchKernel runs the named kernel of src.
func launchKernel(t *testing.T, src, name string, args ...Arg) *Result {
	t.Helper()
	m, errs := parser.ParseString("test.ptx", src)
	if errs.HasErrors() {
		t.Fatalf("parse: %v", errs.Err())
	}
	p, errs := Decode(m, name)
	if errs.HasErrors() {
		t.Fatalf("decode: %v", errs.Err())
	}
	res, err := execute(p, Config{}, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

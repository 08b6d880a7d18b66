package cudrv

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

func TestLinkTwoPTXModules(t *testing.T) {
	lib := `.version 8.5
.target sm_90
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [x];
	shl.b32 %r1, %r1, 1;
	st.param.b32 [r], %r1;
	ret;
}
`
	main := `.version 8.5
.target sm_90
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r1;
	call.uni (b), twice, (a);
	ld.param.b32 %r2, [b];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r2;
	ret;
}
`
	l := NewLinker()
	if r, msg := l.Add(InputPTX, []byte(main+"\x00"), "main.ptx", 90); r != Success {
		t.Fatal(r, msg)
	}
	if r, msg := l.Add(InputPTX, []byte(lib), "lib.ptx", 90); r != Success {
		t.Fatal(r, msg)
	}
	if r, _ := l.Add(InputCubin, []byte("\x7fELF"), "x.cubin", 90); r != ErrNotSupported {
		t.Errorf("cubin input: %v", r)
	}
	out, r, msg := l.Complete()
	if r != Success {
		t.Fatal(r, msg)
	}
	if strings.Count(string(out), ".version") != 1 || strings.Contains(string(out), ".extern .func") {
		t.Fatalf("linked module:\n%s", out)
	}
	d, _ := newTestDriver(t)
	mod, r, detail := d.LoadModule(out)
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, r := d.GetFunction(mod, "k")
	if r != Success {
		t.Fatal(r)
	}
	p, _ := d.MemAlloc(128)
	if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, [][]byte{u64(p)}); r != Success || d.State() != Success {
		t.Fatalf("launch of the linked kernel: %v %v", r, d.State())
	}
	b, _ := d.Device(p, 128)
	for i := range 32 {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != uint32(2*i) {
			t.Fatalf("out[%d] = %d, want %d", i, got, 2*i)
		}
	}
}

// TestLinkFunctionPointers links a unit whose module variable holds the
// address of a device function another unit defines (as separate
// compilation of a table of device function pointers gives), and a unit
// whose table names kernels it declares before defining them (as the
// device runtime's PTX does). The variables the link places first must
// find every name declared; a kernel then calls through the pointer.
func TestLinkFunctionPointers(t *testing.T) {
	lib := `.version 8.5
.target sm_90
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [x];
	shl.b32 %r1, %r1, 1;
	st.param.b32 [r], %r1;
	ret;
}
`
	main := `.version 8.5
.target sm_90
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .global .align 8 .u64 fp = twice;
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.global.u64 %rd3, [fp];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], %r1;
	proto: .callprototype (.param .b32 _) _ (.param .b32 _);
	call (b), %rd3, (a), proto;
	ld.param.b32 %r2, [b];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r2;
	ret;
}
`
	table := `.version 8.5
.target sm_90
.address_size 64
.entry e
(
.param .u64 e_param_0
)
;
.global .align 8 .u64 tab[1] = {e};
.entry e(
.param .u64 e_param_0
)
{
	ret;
}
`
	l := NewLinker()
	for i, in := range []string{lib, main, table} {
		if r, msg := l.Add(InputPTX, []byte(in), fmt.Sprintf("unit%d.ptx", i+1), 90); r != Success {
			t.Fatal(r, msg)
		}
	}
	out, r, msg := l.Complete()
	if r != Success {
		t.Fatal(r, msg)
	}
	d, errs := newTestDriver(t)
	mod, r, detail := d.LoadModule(out)
	if r != Success {
		t.Fatalf("%v %s\nlinked module:\n%s", r, detail, out)
	}
	fn, r := d.GetFunction(mod, "k")
	if r != Success {
		t.Fatal(r)
	}
	p, _ := d.MemAlloc(128)
	if r := d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, [][]byte{u64(p)}); r != Success || d.State() != Success {
		t.Fatalf("launch of the linked kernel: %v %v\n%s\n%s", r, d.State(), errs, out)
	}
	b, _ := d.Device(p, 128)
	for i := range 32 {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != uint32(2*i) {
			t.Fatalf("out[%d] = %d, want %d", i, got, 2*i)
		}
	}
}

package emu

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestSharedLimitPerKernel: the 227 KiB limit holds per launch (the
// launched kernel's static shared memory plus the dynamic bytes), not for
// the module: three kernels of 120 KiB each (a module-scope array, one in
// a called function, one in the kernel's body) each launch, a kernel
// reaching two of them is refused, and so is a launch whose dynamic bytes
// take it over.
func TestSharedLimitPerKernel(t *testing.T) {
	src := header + `
.shared .align 16 .b8 tileA[122880];
.shared .align 16 .b8 tileB[122880];
.extern .shared .align 16 .b8 dyn[];

.func touchB(.param .u32 i) {
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [i];
	mov.u32 %r2, tileB;
	add.u32 %r2, %r2, %r1;
	st.shared.u8 [%r2], %r1;
	ret;
}

.func (.param .u32 r) inner() {
	.shared .align 4 .b8 scratch[122880];
	.reg .b32 %r<3>;
	mov.u32 %r1, scratch;
	st.shared.u32 [%r1+122876], 7;
	ld.shared.u32 %r2, [%r1+122876];
	st.param.u32 [r], %r2;
	ret;
}

.visible .entry useA(.param .u64 out) {
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, tileA;
	st.shared.u32 [%r1+122876], 5;
	ld.shared.u32 %r2, [%r1+122876];
	st.global.u32 [%rd1], %r2;
	ret;
}

.visible .entry useB(.param .u64 out) {
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	{
	.param .u32 a;
	st.param.u32 [a], 3;
	call touchB, (a);
	}
	st.global.u32 [%rd1], 6;
	ret;
}

.visible .entry useInner(.param .u64 out) {
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	{
	.param .u32 r;
	call (r), inner, ();
	ld.param.u32 %r1, [r];
	}
	st.global.u32 [%rd1], %r1;
	ret;
}

.visible .entry empty() {
	ret;
}

.visible .entry useAB(.param .u64 out) {
	.reg .b32 %r<3>;
	mov.u32 %r1, tileA;
	mov.u32 %r2, tileB;
	ret;
}
`
	m, errs := parser.ParseString("test.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	for kernel, want := range map[string]uint32{"useA": 5, "useB": 6, "useInner": 7, "empty": 0} {
		p, errs := Decode(m, kernel)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", kernel, errs.Err())
		}
		if p.sharedStatic > 122880 {
			t.Errorf("%s: %d bytes of static shared memory, want at most 122880", kernel, p.sharedStatic)
		}
		args := []Arg{buf(4)}
		if kernel == "empty" {
			args = nil
		}
		res, err := execute(p, Config{Block: dims(32, 1, 1)}, args)
		if err != nil || res.Report != nil {
			t.Fatalf("%s: %v %v", kernel, err, res.Report)
		}
		if kernel != "empty" {
			if got := u32s(res.Buffers[0].Data)[0]; got != want {
				t.Errorf("%s wrote %d, want %d", kernel, got, want)
			}
		}
	}
	if _, errs := Decode(m, "useAB"); !errs.HasErrors() || !strings.Contains(errs.Err().Error(), "245760 bytes of static shared memory") {
		t.Errorf("useAB reaches 240 KiB of shared memory: got %v", errs.Err())
	}
	p, _ := Decode(m, "useA")
	if _, err := execute(p, Config{Block: dims(32, 1, 1), SharedBytes: 112 << 10}, []Arg{buf(4)}); err == nil || !strings.Contains(err.Error(), "bytes of shared memory per CTA") {
		t.Errorf("120 KiB static and 112 KiB dynamic: got %v, want the launch refused", err)
	}
}

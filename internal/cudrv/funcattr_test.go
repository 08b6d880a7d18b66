package cudrv

import "testing"

const sharedPTX = `.version 8.5
.target sm_90
.address_size 64
.shared .align 4 .b8 moduleLevel[64];
.visible .entry tiles(.param .u64 p)
{
	.shared .align 8 .b8 tile[1024];
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	st.shared.u32 [tile], %r1;
	st.shared.u32 [moduleLevel], %r1;
	ret;
}
`

// cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) is the kernel's
// static shared memory, as cudaFuncGetAttributes' sharedSizeBytes reports.
func TestFuncAttrStaticShared(t *testing.T) {
	d, _ := newTestDriver(t)
	mod, r, detail := d.LoadModule([]byte(sharedPTX))
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, r := d.GetFunction(mod, "tiles")
	if r != Success {
		t.Fatal(r)
	}
	if got, r := d.FuncAttr(fn, 1); r != Success || got < 1024+64 {
		t.Errorf("static shared bytes %d (%v), want at least %d", got, r, 1024+64)
	}
	mod2, _, _ := d.LoadModule([]byte(testPTX))
	axpy, _ := d.GetFunction(mod2, "axpy")
	if got, _ := d.FuncAttr(axpy, 1); got != 0 {
		t.Errorf("a kernel without shared memory: %d bytes", got)
	}
}

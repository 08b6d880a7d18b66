package emu

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestManyRegisterSlots: a kernel with 100,000 registers (beyond the
// former 32,768-slot limit; large unrolled kernels declare this many)
// runs, and declarations beyond the 2^20-slot bound, in one declaration
// or in several, are refused with the bound in the message.
func TestManyRegisterSlots(t *testing.T) {
	src := kernel1(`
	.reg .b32 %big<100000>;
	mov.u32 %big99999, 41;
	add.u32 %big50000, %big99999, 1;
	st.global.u32 [%rd1], %big50000;`, "")
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(4))
	if got := u32s(res.Buffers[0].Data)[0]; got != 42 {
		t.Fatalf("got %d, want 42", got)
	}
	for _, decls := range []string{
		"\t.reg .b32 %r<2000000>;\n",
		"\t.reg .b64 %a<600000>;\n\t.reg .b64 %b<600000>;\n",
	} {
		src := header + ".visible .entry k()\n{\n" + decls + "\tret;\n}\n"
		m, errs := parser.ParseString("big.ptx", src)
		if errs.HasErrors() {
			t.Fatal(errs.Err())
		}
		_, errs = Decode(m, "")
		if !errs.HasErrors() || !strings.Contains(errs.Err().Error(), "1048576 register slots") {
			t.Errorf("%q: got %v, want the 1048576-slot bound", decls, errs.Err())
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// typoPTX misspells a qualifier of st (.relaxd, .globl) and an opcode.
const typoPTX = `.version 8.5
.target sm_90
.address_size 64
.entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	st.global.relaxd.gpu.u32 [%rd1], %r1;
	stt.global.u32 [%rd1], %r1;
	st.globl.u32 [%rd1], %r1;
	mbarrier.arive.shared.b64 %rd1, [%rd1];
	ret;
}
`

func TestCheckDidYouMean(t *testing.T) {
	code, _, errs := runCmd(t, typoPTX, "check", "-")
	if code != exitFail {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"-:9:11: error: unknown qualifier .relaxd on st; did you mean .relaxed? [unknown-qualifier]\n\tspec: PTX ISA 9.7.9.11 (st)\n\tfix: write .relaxed\n",
		"-:10:2: error: unknown instruction stt; did you mean st? [unknown-opcode]",
		"-:11:4: error: unknown qualifier .globl on st; did you mean .global? [unknown-qualifier]",
		"did you mean .arrive?",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("output lacks %q:\n%s", want, errs)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// sourceKernel stores out[tid] for 8 threads into a 16-byte buffer: thread
// 4 stores out of bounds, at the line .loc 1 12 5 of add.cu stands for.
const sourceKernel = `.version 8.0
.target sm_90
.address_size 64
.file 1 "add.cu"
.file 2 "kernel.py"
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.loc 2 53 0
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	mul.wide.u32 %rd2, %r1, 4;
	.loc 1 12 5
	}
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
`

// TestRunReportNamesSourceAndParameter: a sanitizer report names the line
// of the source the PTX was compiled from (.loc, .file) and the kernel
// parameter the buffer was passed as.
func TestRunReportNamesSourceAndParameter(t *testing.T) {
	k := writeFile(t, "k.ptx", sourceKernel)
	code, _, errs := runCmd(t, "", "run", k, "--block", "8", "--arg", "buf:16", "--arg", "3")
	if code != exitSanitize {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	for _, want := range []string{
		k + ":18:2: sanitizer: 4-byte store",
		"nearest allocation arg0 (parameter out) is",
		"\n  source: add.cu:12:5 (.loc)\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// Column 0 is left out; without .loc there is no source line.
	py := strings.Replace(sourceKernel, "\t.loc 1 12 5\n", "", 1)
	_, _, errs = runCmd(t, "", "run", writeFile(t, "py.ptx", py), "--block", "8", "--arg", "buf:16", "--arg", "3")
	if !strings.Contains(errs, "\n  source: kernel.py:53 (.loc)\n") {
		t.Errorf("stderr lacks kernel.py:53:\n%s", errs)
	}
	bare := strings.Replace(py, "\t.loc 2 53 0\n", "", 1)
	_, _, errs = runCmd(t, "", "run", writeFile(t, "bare.ptx", bare), "--block", "8", "--arg", "buf:16", "--arg", "3")
	if strings.Contains(errs, "source:") {
		t.Errorf("a source line without .loc:\n%s", errs)
	}
}

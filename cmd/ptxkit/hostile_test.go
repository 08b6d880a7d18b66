package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileKernel stores %tid.x to out[0]; it takes a pointer and a .u32.
const hostileKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	st.global.u32 [%rd1], %r2;
	ret;
}
`

// TestRunHostileFlags runs ptxkit run with absurd and malformed flags and
// launch arguments: each must fail with exit status 2 and a message naming
// the problem, before any emulation.
func TestRunHostileFlags(t *testing.T) {
	k := writeFile(t, "k.ptx", hostileKernel)
	args := []string{"--arg", "buf:16", "--arg", "3"}
	cases := []struct {
		name  string
		flags []string
		want  string
	}{
		{"grid zero", append([]string{"--grid", "0"}, args...), `--grid "0": dimensions are positive integers`},
		{"grid 2^32", append([]string{"--grid", "4294967296"}, args...), `--grid "4294967296"`},
		{"grid y too large", append([]string{"--grid", "1,65536"}, args...), "larger than a GPU allows"},
		{"grid too many CTAs", append([]string{"--grid", "65536,65535,65535"}, args...), "grid of 281466386841600 CTAs; the emulator runs at most 16777216"},
		{"grid over emulator cap", append([]string{"--grid", "16777217"}, args...), "at most 16777216 CTAs"},
		{"block 2000", append([]string{"--block", "2000"}, args...), "2000 threads per CTA (at most 1024"},
		{"block overflow product", append([]string{"--block", "2147483647,2147483647,2"}, args...), "threads per CTA (at most 1024"},
		{"block zero", append([]string{"--block", "0,1"}, args...), `--block "0,1"`},
		{"block four dims", append([]string{"--block", "1,1,1,1"}, args...), "at most three dimensions"},
		{"cluster not dividing", append([]string{"--grid", "4", "--cluster", "3"}, args...), "grid x dimension (4) is not a multiple of the cluster x dimension (3)"},
		{"cluster too big", append([]string{"--grid", "9,9,9", "--cluster", "9,9,9"}, args...), "cluster of 729 CTAs (at most 16)"},
		{"shared negative", append([]string{"--shared-bytes", "-1"}, args...), "--shared-bytes -1: want a byte count of 0 or more"},
		{"shared huge", append([]string{"--shared-bytes", "9223372036854775807"}, args...), "bytes of shared memory per CTA (at most 232448)"},
		{"shared float", append([]string{"--shared-bytes", "1e12"}, args...), `invalid value "1e12"`},
		{"buf negative", []string{"--arg", "buf:-1", "--arg", "3"}, `buffer size "-1"`},
		{"buf 1e18", []string{"--arg", "buf:1e18", "--arg", "3"}, `buffer size "1e18"`},
		{"buf too large", []string{"--arg", "buf:1073741825", "--arg", "3"}, "at most 1073741824 bytes (1024 MiB) of buffers per launch"},
		{"fill 300", []string{"--arg", "buf:10:fill=300", "--arg", "3"}, `fill byte "300" must be 0..255`},
		{"buf option", []string{"--arg", "buf:10:zero", "--arg", "3"}, `unknown buffer option "zero"`},
		{"file missing", []string{"--arg", "file:/nonexistent/x", "--arg", "3"}, "no such file"},
		{"file empty path", []string{"--arg", "file:", "--arg", "3"}, "file: needs a PATH"},
		{"file directory", []string{"--arg", "file:" + t.TempDir(), "--arg", "3"}, "is a directory"},
		{"too few args", []string{"--arg", "buf:16"}, "kernel k takes 2 parameters (out .u64, n .u32); 1 argument given"},
		{"too many args", []string{"--arg", "buf:16", "--arg", "1", "--arg", "2"}, "3 arguments given"},
		{"float for pointer", []string{"--arg", "1.5", "--arg", "3"}, `--arg 0 (out): "1.5" is not an integer`},
		{"u32 overflow", []string{"--arg", "buf:16", "--arg", "99999999999"}, "does not fit in .u32"},
		{"hex too long", []string{"--arg", "buf:16", "--arg", "hex:0102030405"}, "5 bytes given for a 4-byte parameter"},
		{"hex odd", []string{"--arg", "buf:16", "--arg", "hex:123"}, `hex bytes "123"`},
		{"seed negative", append([]string{"--seed", "-1"}, args...), `invalid value "-1" for flag -seed`},
		{"jobs zero", append([]string{"--jobs", "0"}, args...), "--jobs must be at least 1"},
		{"jobs negative", append([]string{"--jobs", "-1"}, args...), "--jobs must be at least 1"},
		{"kernel missing", append([]string{"--kernel", "nope"}, args...), `no .entry kernel named "nope" (kernels: k)`},
		{"async bogus", append([]string{"--async", "bogus"}, args...), `invalid value "bogus" for flag -async: want eager, delayed or random`},
		{"dump bogus", append([]string{"--dump", "bogus"}, args...), `unknown --dump "bogus"`},
		{"dump-bytes negative", append([]string{"--dump-bytes", "-5"}, args...), "--dump-bytes -5"},
		{"dump-tmem four dims", append([]string{"--dump-tmem", "1,2,3,4"}, args...), "at most three dimensions"},
		{"dump-tmem negative", append([]string{"--dump-tmem", "-1"}, args...), "non-negative integers"},
		{"dump-tmem outside grid", append([]string{"--dump-tmem", "5"}, args...), "CTA (5,0,0) is outside the grid (1,1,1)"},
		{"out unwritable", append([]string{"--out", filepath.Join(k, "sub")}, args...), "--out:"},
		{"two files", append([]string{k}, args...), "one FILE at most, got 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", append([]string{"run", k}, c.flags...)...)
			wantCode := exitUsage
			if c.name == "kernel missing" {
				wantCode = exitFail
			}
			if code != wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, errs)
			}
			if !strings.Contains(errs, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, errs)
			}
			if strings.Contains(out, "completed") || strings.Contains(out, "stopped by") {
				t.Errorf("the launch ran although a flag is bad:\n%s", out)
			}
			if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine") {
				t.Errorf("crash:\n%s", errs)
			}
		})
	}
}

// TestRunHostileExtremesAccepted checks flag values at the edges of what
// is valid: they run.
func TestRunHostileExtremesAccepted(t *testing.T) {
	k := writeFile(t, "k.ptx", hostileKernel)
	for _, flags := range [][]string{
		{"--seed", "18446744073709551615"},
		{"--jobs", "1000"}, // one CTA: the kernel's CTAs would store the same words, a data race of the emulator's goroutines under -race
		{"--max-steps", "0"},
		{"--block", "1024"},
		{"--block", "16,1,64"},
		{"--grid", "16", "--cluster", "16"},
		{"--arg", "buf:0x10:fill=0xff"},
	} {
		args := append([]string{"run", k}, flags...)
		if !strings.HasPrefix(flags[0], "--arg") {
			args = append(args, "--arg", "buf:16")
		}
		args = append(args, "--arg", "3")
		code, out, errs := runCmd(t, "", args...)
		if code != exitOK || !strings.Contains(out, "completed") {
			t.Errorf("%v: exit %d, stderr:\n%s", flags, code, errs)
		}
	}
}

// twoBufferKernel takes two pointers and does nothing.
const twoBufferKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b)
{
	ret;
}
`

// TestRunUnboundedFileArgs feeds endless files, as FILE and as file:
// arguments: devices are refused before any byte is read.
func TestRunUnboundedFileArgs(t *testing.T) {
	k := writeFile(t, "k2.ptx", twoBufferKernel)
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skipf("no %s on this system", dev)
		}
		code, _, errs := runCmd(t, "", "run", k, "--arg", "buf:16", "--arg", "file:"+dev)
		if code != exitUsage || !strings.Contains(errs, "ptxkit run: --arg 1 (b): "+dev+" is a device, not a file: its input may never end") {
			t.Errorf("file:%s: exit %d, stderr:\n%s", dev, code, errs)
		}
		code, _, errs = runCmd(t, "", "run", dev)
		if code != exitUsage || !strings.Contains(errs, "ptxkit run: "+dev+" is a device, not a file") {
			t.Errorf("FILE %s: exit %d, stderr:\n%s", dev, code, errs)
		}
	}
}

// TestRunBuffersBoundedTogether checks that the limit on buffer arguments
// applies to their sum, not to each alone, and that a file: argument
// counts against it.
func TestRunBuffersBoundedTogether(t *testing.T) {
	k := writeFile(t, "k2.ptx", twoBufferKernel)
	code, _, errs := runCmd(t, "", "run", k, "--arg", "buf:1073741000", "--arg", "buf:1000")
	if code != exitUsage || !strings.Contains(errs, "launch: argument 1 (b): buffer of 1000 bytes: the buffers of a launch take at most 1073741824 bytes (1024 MiB) together; 824 are left") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	f := writeFile(t, "data.bin", strings.Repeat("x", 1000))
	code, _, errs = runCmd(t, "", "run", k, "--arg", "buf:1073741000", "--arg", "file:"+f)
	if code != exitUsage || !strings.Contains(errs, "launch: argument 1 (b): buffer of 1000 bytes: the buffers of a launch take at most 1073741824 bytes (1024 MiB) together; 824 are left") {
		t.Errorf("file over the remaining budget: exit %d, stderr:\n%s", code, errs)
	}
}

// TestRunHostileKernels runs kernels that would loop forever or need more
// memory than the emulator allows: each ends with a clear message.
func TestRunHostileKernels(t *testing.T) {
	head := ".version 8.0\n.target sm_90\n.address_size 64\n"
	cases := []struct {
		name  string
		body  string
		flags []string
		code  int
		want  string
	}{
		{"infinite loop", ".visible .entry k()\n{\nL:\tbra.uni L;\n}\n", []string{"--max-steps", "100000"}, exitSanitize,
			"exceeded 100000 warp-instructions (--max-steps) [max-steps]"},
		{"infinite loop in every cluster", ".visible .entry k()\n{\nL:\tbra.uni L;\n}\n", []string{"--max-steps", "1000", "--grid", "64", "--jobs", "2"}, exitSanitize,
			"cluster 0 exceeded 1000 warp-instructions"},
		{"many clusters each under --max-steps", ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .pred %p<2>;\nL:\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, 1000;\n\t@%p1 bra.uni L;\n\tret;\n}\n",
			[]string{"--max-steps", "5000", "--max-launch-steps", "100000", "--grid", "1000"}, exitSanitize,
			"the launch exceeded 100000 warp-instructions over all its clusters (--max-launch-steps)"},
		{"100M registers", ".visible .entry k()\n{\n\t.reg .b32 %r<100000000>;\n\tret;\n}\n", nil, exitSanitize, "too many registers"}, // an emulator limit: README's exit 3
		{"1 GB local array", ".visible .entry k()\n{\n\t.local .b8 a[1000000000];\n\tret;\n}\n", nil, exitFail, "variable a is too large"},
		{"4 GB shared array", ".visible .entry k()\n{\n\t.shared .b8 a[4000000000];\n\tret;\n}\n", nil, exitFail, "variable a is too large"},
		{"8 GB global array", ".global .b8 g[8000000000];\n.visible .entry k()\n{\n\tret;\n}\n", nil, exitFail, "variable g is too large"},
		{"many CTAs with big local frames", ".visible .entry k()\n{\n\t.local .b8 a[500000];\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, a;\n\tst.local.u8 [%rd1], 1;\n\tret;\n}\n",
			[]string{"--block", "1024", "--grid", "16", "--cluster", "16"}, exitUsage, "emulating one cluster needs 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := writeFile(t, "k.ptx", head+c.body)
			code, _, errs := runCmd(t, "", append([]string{"run", k}, c.flags...)...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d (want %d), stderr lacks %q:\n%s", code, c.code, c.want, errs)
			}
		})
	}
}

// TestSassHostileInputs feeds ptxkit sass inputs that are not SASS, are
// truncated, endless or huge: each gets exit status 1 or 2 and a short
// message with a position, and no more than sass.MaxErrors of them.
func TestSassHostileInputs(t *testing.T) {
	garbage := strings.Repeat("x\n", 100000)
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"many bad lines", garbage, []string{"asm", "--arch", "sm_90"}, exitFail, "-:101:1: too many errors (100); the rest of the input is not checked"},
		{"megabyte opcode", strings.Repeat("A", 1<<20) + " [R1], R2 ;\n", []string{"asm", "--arch", "sm_90"}, exitFail,
			`-:1:1: opcode: unknown opcode "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA..."`},
		{"NUL byte", "STS [R1], R2 \x00;\n", []string{"asm", "--arch", "sm_90"}, exitFail, `-:1:14: unexpected "\x00" after operands`},
		{"directive line", ".version 8.0\n", []string{"asm", "--arch", "sm_90"}, exitFail, `-:1:1: opcode: expected an opcode (STS, STL, STG, ST or STAS), found ".version"`},
		{"unknown arch", "", []string{"asm", "--arch", "sm_99"}, exitUsage, `invalid value "sm_99" for flag -arch: want one of sm_50,`},
		{"odd raw length", "abc", []string{"disasm", "--arch", "sm_90"}, exitFail, "-: 3 bytes is not a multiple of 16 (one sm_90 instruction)"},
		{"truncated raw", strings.Repeat("\x00", 17), []string{"disasm", "--arch", "sm_90"}, exitFail, "17 bytes is not a multiple of 16"},
		{"many non-store words", strings.Repeat("\xff", 16*1000) + "\x88\x73\x00\x01\x02\x00\x00\x00\x00\x08\x00\x00\x00\xe2\x0f\x00", []string{"disasm", "--arch", "sm_90"}, exitFail,
			"-: 900 more words did not decode (the first 100 are shown)"},
		{"non-store word", strings.Repeat("\xff", 16), []string{"disasm", "--arch", "sm_90"}, exitFail, "-: address 0x0000: 0xffffffffffffffffffffffffffffffff is not a store instruction"},
		{"empty hex", "", []string{"disasm", "--arch", "sm_90", "--hex", ""}, exitFail, `word 1: "": 0 hex digits; want 32 for sm_90`},
		{"long hex", "", []string{"disasm", "--arch", "sm_90", "--hex", "0x" + strings.Repeat("f", 1000)}, exitFail, "1000 hex digits; want 32 for sm_90"},
		{"bad hex", "", []string{"disasm", "--arch", "sm_50", "--hex", "0xzzzzzzzzzzzzzzzz"}, exitFail, `word 1: "0xzzzzzzzzzzzzzzzz": not a hexadecimal word`},
		{"lower unknown target", "", []string{"lower", "--arch", "sm_99", "x.ptx"}, exitUsage, `invalid value "sm_99" for flag -arch: want sm_50 to sm_90, sm_100, sm_103, sm_110 or sm_120`},
		{"lower target junk", "", []string{"lower", "--arch", "sm_80x", "x.ptx"}, exitUsage, `invalid value "sm_80x" for flag -arch: want sm_50 to sm_90, sm_100, sm_103, sm_110 or sm_120`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runSassCLI(t, c.stdin, c.args...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d (want %d); stderr lacks %q:\n%.600s", code, c.code, c.want, errs)
			}
			if n := strings.Count(errs, "\n"); n > 101 {
				t.Errorf("%d lines of errors", n)
			}
		})
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		for _, sub := range []string{"asm", "disasm", "lower"} {
			code, _, errs := runSassCLI(t, "", sub, "--arch", "sm_90", "/dev/zero")
			if code != exitUsage || !strings.Contains(errs, "/dev/zero is a device, not a file: its input may never end") {
				t.Errorf("%s /dev/zero: exit %d, stderr %q", sub, code, errs)
			}
		}
	}
}

// TestRunHostileScalars checks the messages for numbers that do not fit
// their parameter's type.
func TestRunHostileScalars(t *testing.T) {
	k := writeFile(t, "t.ptx", `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .f32 a, .param .s64 b, .param .align 8 .b8 s[24])
{
	ret;
}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"1e400", "1", "hex:00"}, "--arg 0 (a): 1e400 is out of range for .f32"},
		{[]string{"0x", "1", "hex:00"}, `--arg 0 (a): "0x" is not a number`},
		{[]string{"1", "-9223372036854775809", "hex:00"}, "--arg 1 (b): -9223372036854775809 does not fit in .s64"},
		{[]string{"1", "99999999999999999999", "hex:00"}, "--arg 1 (b): 99999999999999999999 does not fit in .s64"},
		{[]string{"1", "1.5", "hex:00"}, `--arg 1 (b): "1.5" is not an integer`},
		{[]string{"1", "1", "5"}, "parameter 2 (s) is an aggregate of 24 bytes; pass its bytes (hex:...)"},
		{[]string{"1", "1", "hex:" + strings.Repeat("00", 25)}, "--arg 2 (s): 25 bytes given for a 24-byte parameter"},
	} {
		args := []string{"run", k}
		for _, a := range c.args {
			args = append(args, "--arg", a)
		}
		code, _, errs := runCmd(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", c.args, code, c.want, errs)
		}
	}
}

// traceLoopKernel issues 32 cp.async per iteration and waits for them,
// ITER times.
const traceLoopKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	.shared .align 16 .b8 buf[64];
	ld.param.u64 %rd1, [src];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, buf;
	mov.u32 %r2, 0;
L:
	cp.async.ca.shared.global [%r1], [%rd1], 4;
	cp.async.wait_all;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, ITER;
	@%p1 bra.uni L;
	ret;
}
`

// TestRunTraceBounded checks that --trace keeps bounded memory for a
// kernel issuing many asynchronous operations: a cluster's operations
// after the first emu.MaxTracedAsync are not traced, at most
// maxTraceEvents events are printed, and the output does not depend on
// --jobs.
func TestRunTraceBounded(t *testing.T) {
	k := writeFile(t, "tr.ptx", strings.Replace(traceLoopKernel, "ITER", "600", 1))
	timeout := (defaultTimeout * raceSlowdown).String()
	code, out, errs := runCmd(t, "", "run", k, "--arg", "buf:64", "--trace", "--dump", "none", "--timeout", timeout)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 600*32 operations, the first 16384 traced with 3 events each.
	if !strings.Contains(out, "asynchronous operations (49152 events;") ||
		!strings.Contains(out, "(operations after the first 16384 of a cluster are not traced)") {
		t.Errorf("one cluster:\n%.500s", out[max(0, len(out)-500):])
	}
	var outs [2]string
	for i, jobs := range []string{"1", "2"} {
		code, outs[i], errs = runCmd(t, "", "run", k, "--arg", "buf:64", "--trace", "--dump", "none", "--grid", "3", "--jobs", jobs, "--timeout", timeout)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	if !strings.Contains(outs[0], "asynchronous operations (147456 events;") || !strings.Contains(outs[0], "... 47456 more events not shown (at most 100000 are)") {
		t.Errorf("three clusters:\n%.500s", outs[0][max(0, len(outs[0])-500):])
	}
	if outs[0] != outs[1] {
		t.Errorf("--jobs 1 and --jobs 2 print different traces")
	}
}

// TestCheckFmtBoundedInput checks that check and fmt refuse endless or
// oversized inputs and directories with a usage error instead of reading
// without bound.
func TestCheckFmtBoundedInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	for _, cmd := range []string{"check", "fmt"} {
		code, _, errs := runCmd(t, "", cmd, "/dev/zero")
		if code != exitUsage || !strings.Contains(errs, "/dev/zero is a device, not a file: its input may never end") {
			t.Errorf("%s /dev/zero: exit %d, stderr:\n%s", cmd, code, errs)
		}
		dir := t.TempDir()
		code, _, errs = runCmd(t, "", cmd, dir)
		if code != exitUsage || !strings.Contains(errs, "is a directory") {
			t.Errorf("%s DIR: exit %d, stderr:\n%s", cmd, code, errs)
		}
	}
}

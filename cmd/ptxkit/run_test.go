package main

import (
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunExampleCompletes(t *testing.T) {
	code, out, errs := runCmd(t, "", "run")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if !strings.Contains(out, "completed") || !strings.Contains(out, "arg0:") {
		t.Errorf("output lacks the result:\n%s", out)
	}
}

// TestRunOutFiles checks the bytes written with --out against values
// computed here (the kernel stores tid.x*3 as u32 and stores nothing past
// the launch).
func TestRunOutFiles(t *testing.T) {
	src := writeFile(t, "k.ptx", `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 mul)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r2, [mul];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r3, %r1, %r2;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`)
	dir := t.TempDir()
	code, out, errs := runCmd(t, "", "run", src, "--block", "10", "--arg", "buf:48:fill=0xab", "--arg", "3", "--out", dir, "--dump", "u32")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "arg0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 48 {
		t.Fatalf("arg0.bin has %d bytes", len(b))
	}
	for i := range 12 {
		v := binary.LittleEndian.Uint32(b[4*i:])
		want := uint32(3 * i)
		if i >= 10 {
			want = 0xabababab
		}
		if v != want {
			t.Errorf("word %d = %#x, want %#x", i, v, want)
		}
	}
	if !strings.Contains(out, "[0] 0 3 6 9") {
		t.Errorf("typed dump missing:\n%s", out)
	}
}

var updateGolden = flag.Bool("update", false, "rewrite testdata/emu/*.golden")

// TestRunTestdataKernels runs every testdata/emu kernel with the flags in
// its .args file and compares stdout with its .golden file (regenerate
// with go test -run TestRunTestdataKernels -update; the buffer contents are
// checked against Go references in emu/kernels_test.go). Output must not
// depend on --jobs.
func TestRunTestdataKernels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "emu", "*.args"))
	if len(files) == 0 {
		t.Fatal("no testdata/emu/*.args files")
	}
	for _, argsFile := range files {
		base := strings.TrimSuffix(argsFile, ".args")
		t.Run(filepath.Base(base), func(t *testing.T) {
			text, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", base + ".ptx"}, strings.Fields(string(text))...)
			code, out1, errs := runCmd(t, "", append(args, "--jobs", "2")...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			_, out2, _ := runCmd(t, "", append(args, "--jobs", "1")...)
			if out1 != out2 {
				t.Errorf("output differs between --jobs 2 and --jobs 1")
			}
			golden := base + ".golden"
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(out1), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out1 != string(want) {
				t.Errorf("stdout differs from %s:\n%s", golden, out1)
			}
		})
	}
}

func TestRunSanitizerExit(t *testing.T) {
	src := writeFile(t, "bad.ptx", validPTX)
	code, out, errs := runCmd(t, "", "run", src, "--block", "4", "--arg", "buf:2")
	if code != exitSanitize {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitSanitize, errs)
	}
	for _, want := range []string{"bad.ptx:10:", "[out-of-bounds]", "thread (0,0,0)", "st.global.u32"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "stopped by the sanitizer") {
		t.Errorf("stdout: %s", out)
	}
}

func TestRunErrors(t *testing.T) {
	good := writeFile(t, "k.ptx", validPTX)
	bad := writeFile(t, "bad.ptx", invalidPTX)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", bad}, exitFail, "bad.ptx"},
		{[]string{"run", good, "--arg", "buf:64", "--grid", "0"}, exitUsage, "--grid"},
		{[]string{"run", good, "--arg", "buf:64", "--block", "2000"}, exitUsage, "threads per CTA"},
		{[]string{"run", good}, exitUsage, "takes 1 parameters"},
		{[]string{"run", good, "--arg", "buf:x"}, exitUsage, "buffer size"},
		{[]string{"run", good, "--arg", "buf:8:fill=300"}, exitUsage, "fill byte"},
		{[]string{"run", good, "--arg", "file:/nonexistent/x"}, exitUsage, "nonexistent"},
		{[]string{"run", good, "--arg", "buf:8", "--kernel", "nope"}, exitFail, "no .entry kernel named"},
		{[]string{"run", good, "--arg", "buf:8", "--async", "later"}, exitUsage, `invalid value "later" for flag -async`},
		{[]string{"run", good, "--arg", "buf:8", "--dump", "x"}, exitUsage, "--dump"},
		{[]string{"run", good, "--arg", "buf:8", "--grid", "3", "--cluster", "2"}, exitUsage, "multiple of the cluster"},
		{[]string{"run", good, good}, exitUsage, "one FILE"},
		{[]string{"run", "--bogus"}, exitUsage, "bogus"},
	}
	for _, c := range cases {
		code, _, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args[1:], code, errs, c.code, c.msg)
		}
	}
}

func TestRunStats(t *testing.T) {
	good := writeFile(t, "k.ptx", validPTX)
	code, out, _ := runCmd(t, "", "run", good, "--arg", "buf:4", "--block", "1", "--stats")
	if code != exitOK {
		t.Fatal(code)
	}
	for _, want := range []string{"instructions: 4 warp-level, 4 thread-level", "bytes stored: .global 4", "wall time:"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
}

// TestRunStructParam passes a struct by value as hex bytes (llc's
// ".param .align 8 .b8 p[16]" form).
func TestRunStructParam(t *testing.T) {
	src := writeFile(t, "s.ptx", `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .align 8 .b8 s[16])
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [s+4];
	ld.param.u64 %rd2, [s+8];
	st.global.u32 [%rd1], %r1;
	st.global.u64 [%rd1+8], %rd2;
	ret;
}
`)
	code, out, errs := runCmd(t, "", "run", src, "--block", "1", "--arg", "buf:16", "--arg", "hex:00000000_2a000000_0102030405060708", "--dump", "hex")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "2a 00 00 00 00 00 00 00 01 02 03 04 05 06 07 08") {
		t.Errorf("dump:\n%s", out)
	}
	code, _, errs = runCmd(t, "", "run", src, "--arg", "buf:16", "--arg", "hex:"+strings.Repeat("00", 17))
	if code != exitUsage || !strings.Contains(errs, "17 bytes") {
		t.Errorf("oversized struct: exit %d, %s", code, errs)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runSassCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"sass"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSassAsmSeedExamples(t *testing.T) {
	src := "STL.32    [R3+0x1234], R1;   // store to Local address\nSTS.64    [R3 - 16], R4;\n\nSTS.32    [0x12], R1;\n"
	code, out, errs := runSassCLI(t, src, "asm", "--arch", "sm_50")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	want := "0xef54000123470301\tSTL [R3+0x1234], R1\n0xef5d0fffff070304\tSTS.64 [R3+-0x10], R4\n0xef5c00000127ff01\tSTS [0x12], R1\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestSassAsmRawRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, arch := range []string{"sm_52", "sm_90"} {
		in := filepath.Join(dir, arch+".sass")
		raw := filepath.Join(dir, arch+".bin")
		src := "@!P0 STL.U8 [R0+-0x8], R5 &rd=0x1 ?WAIT3_END_GROUP\nSTS.128 [R4+0x10], R8\nSTL [0x64], R4 &req={0,3}\nSTS [RZ], RZ\n"
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, asmOut, errs := runSassCLI(t, "", "asm", "--arch", arch, "--sched", in, "--raw", raw)
		if code != 0 {
			t.Fatalf("%s asm: exit %d: %s", arch, code, errs)
		}
		code, disOut, errs := runSassCLI(t, "", "disasm", "--arch", arch, "--sched", raw)
		if code != 0 {
			t.Fatalf("%s disasm: exit %d: %s", arch, code, errs)
		}
		// Maxwell bundles are padded with NOPs to three instructions.
		disOut = strings.ReplaceAll(disOut, "0x50b0000000070f00\tNOP\n", "")
		if disOut != asmOut {
			t.Errorf("%s: disasm of the raw file\n%s\ndiffers from asm\n%s", arch, disOut, asmOut)
		}
		if !strings.Contains(asmOut, "&rd=0x1 ?WAIT3_END_GROUP") || !strings.Contains(asmOut, "&req={0,3}") {
			t.Errorf("%s: schedule annotations lost:\n%s", arch, asmOut)
		}
	}
}

func TestSassAsmErrors(t *testing.T) {
	src := "STS.128 [R1], R2\nSTL [R1+0x800000], R2\nSTS.U9 [R1], R2\nSTL.CG [R1 R2\nSTS [R1], R2\n"
	code, out, errs := runSassCLI(t, src, "asm", "--arch", "sm_90", "--strict")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"-:1:15: Rb: R2 is not a multiple of 4",
		"-:2:9: offset: 0x800000 out of range [-0x800000, 0x7fffff]",
		"-:3:5: modifier: STS has no modifier .U9",
		"-:4:12: expected '+', '-' or ']' in address",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.HasSuffix(out, "\tSTS [R1], R2\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("valid line not printed: %q", out)
	}
	if code, _, errs := runSassCLI(t, "STS.128 [R1], R2\n", "asm", "--arch", "sm_90", "--allow-misaligned"); code != 0 || errs != "" {
		t.Errorf("--allow-misaligned: exit %d, %q", code, errs)
	}
}

// TestSassAsmMisaligned checks that a misaligned tuple, which nvdisasm
// prints, assembles with a warning by default.
func TestSassAsmMisaligned(t *testing.T) {
	code, out, errs := runSassCLI(t, "STS.128 [R1], R2\n", "asm", "--arch", "sm_90")
	if code != 0 || out != "0x000fe20000000c000000000201007388\tSTS.128 [R1], R2\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if want := "-:1:15: warning: Rb: R2 is not a multiple of 4"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	if code, _, _ := runSassCLI(t, "", "asm", "--arch", "sm_90", "--strict", "--allow-misaligned"); code != 2 {
		t.Errorf("--strict --allow-misaligned: exit %d, want 2", code)
	}
}

func TestSassDisasmHex(t *testing.T) {
	code, out, errs := runSassCLI(t, "", "disasm", "--arch", "sm_90", "--hex", "0x000fe20000000c000000100400007388", "0x001fe20008000804fffff000ff007988")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "0x000fe20000000c000000100400007388\tSTS.128 [R0+0x10], R4\n0x001fe20008000804fffff000ff007988\tSTS [UR4+-0x10], R0\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	code, _, errs = runSassCLI(t, "", "disasm", "--arch", "sm_50", "--hex", "0x0000000000001234")
	if code != 1 || !strings.Contains(errs, "word 1: 0x0000000000001234 is not a store instruction") {
		t.Errorf("bad word: exit %d, %q", code, errs)
	}
	// A word with a digit missing is an error, not a padded word.
	code, _, errs = runSassCLI(t, "", "disasm", "--arch", "sm_90", "--hex", "0x000fe20000000c00000010040000738")
	if code != 1 || !strings.Contains(errs, "31 hex digits; want 32 for sm_90") {
		t.Errorf("short word: exit %d, %q", code, errs)
	}
	// STG without .E (sm_80) and the hidden descriptor: disasm's text
	// assembles back to the word.
	for _, w := range []string{"0x000fe8000011880000000c0502007386", "0x000fe8000c1019040000040502007986", "0x000fe8000811890400000c05ff007986"} {
		code, out, errs := runSassCLI(t, "", "disasm", "--arch", "sm_80", "--hex", w)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", w, code, errs)
		}
		_, text, _ := strings.Cut(strings.TrimSpace(out), "\t")
		code, out, errs = runSassCLI(t, text+" ?trans4\n", "asm", "--arch", "sm_80")
		if code != 0 || !strings.HasPrefix(out, w+"\t") {
			t.Errorf("%s: %q assembles to %q (exit %d, %s)", w, text, out, code, errs)
		}
	}
	code, _, errs = runSassCLI(t, "", "disasm", "--arch", "sm_50", "--hex", "0xzzzzzzzzzzzzzzzz")
	if code != 1 || !strings.Contains(errs, "not a hexadecimal word") {
		t.Errorf("bad hex: exit %d, %q", code, errs)
	}
}

func TestSassDisasmRawErrors(t *testing.T) {
	code, _, errs := runSassCLI(t, "0123456789", "disasm", "--arch", "sm_50")
	if code != 1 || !strings.Contains(errs, "not a multiple of 32") {
		t.Errorf("short raw: exit %d, %q", code, errs)
	}
}

func TestSassUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"asm"}, {"asm", "--arch", "sm_30"}, {"frob"}, {"disasm", "--arch", "sm_90", "--hex"}, {"lower", "--arch", "sm_90"}} {
		if code, _, _ := runSassCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestSassLower(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	st.global.cg.u32 [%rd1], %r1;
	st.release.gpu.global.v2.u32 [%rd1+8], {%r1, %r2};
	st.local.wt.u8 [%rd2], %r1;
	st.volatile.local.u32 [%rd2], %r1;
}
`
	f := filepath.Join(t.TempDir(), "k.ptx")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runSassCLI(t, "", "lower", "--arch", "sm_90", f)
	if code != 1 {
		t.Errorf("exit %d, want 1 (st.volatile.local)", code)
	}
	wantOut := f + ":8:2\tst.global.cg.u32\tSTG.E.STRONG.GPU\n" +
		f + ":9:2\tst.release.gpu.global.v2.u32\tMEMBAR.ALL.CTA; MEMBAR.ALL.GPU; ERRBAR; STG.E.64.STRONG.GPU\n" +
		f + ":10:2\tst.local.wt.u8\tSTL.U8\n"
	if out != wantOut {
		t.Errorf("got\n%s\nwant\n%s", out, wantOut)
	}
	if !strings.Contains(errs, ":11:2: error: st.volatile.local.u32: Modifier '.volatile' cannot be applied to '.local' space") {
		t.Errorf("stderr: %q", errs)
	}
	// Blackwell: the forms ptxas 13.0's words show, and "unknown" for the rest.
	src = strings.NewReplacer("st.global.cg.u32", "st.global.L1::no_allocate.u32", "st.local.wt.u8", "st.shared.s16").Replace(src)
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runSassCLI(t, "", "lower", "--arch", "sm_100a", f)
	wantOut = f + ":8:2\tst.global.L1::no_allocate.u32\tSTG.E.NA\n" + f + ":10:2\tst.shared.s16\tSTS.S16\n"
	if code != 1 || out != wantOut || !strings.Contains(errs, ":9:2: unknown: st.release.gpu.global.v2.u32: no ptxas 13.0 output") {
		t.Errorf("sm_100a: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestExplainShowsSASS(t *testing.T) {
	var out, errb bytes.Buffer
	run([]string{"explain", "st.release.gpu.shared.u32 [%r1], %r2;", "--target", "sm_90"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(out.String(), "SASS (ptxas) sm_90: MEMBAR.ALL.CTA; MEMBAR.ALL.GPU; ERRBAR; STS\n") {
		t.Errorf("explain output lacks the SASS lowering:\n%s", out.String())
	}
	out.Reset()
	run([]string{"explain", "st.local.b128 [%rd1], %q1;"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(out.String(), "sm_50: not compiled (.b128 needs sm_70 or later)") || !strings.Contains(out.String(), "sm_90: STL.128") {
		t.Errorf("explain output:\n%s", out.String())
	}
}

package main

import (
	"strings"
	"testing"
)

// TestSassRun runs a store sequence: widths, the ImmS24 offset, a uniform
// register, a false guard, forced alignment, and faults beyond the
// allocation and the 16 MiB window.
func TestSassRun(t *testing.T) {
	src := "STS.128 [R1+0x10], R4\nSTL.U8 [R2+-0x3], R4\n@P0 STS [R1], R4\nSTS [R1+0x2], R5\nSTS [R1+UR4+0x4], R5\nSTS [R1+0xfff0], R4\nSTS [0xfffffe], R4\n"
	code, out, errs := runSassCLI(t, src, "run", "--arch", "sm_90", "--set", "R1=0x20", "--set", "R2=8",
		"--set", "R4=0x03020100", "--set", "R5=0x07060504", "--set", "UR4=0x100", "--shared", "0x400")
	want := "-:1: STS.128 [R1+0x10], R4: shared[0x30] = 00 01 02 03 04 05 06 07 00 00 00 00 00 00 00 00\n" +
		"-:2: STL.U8 [R2+-0x3], R4: local[0x5] = 00\n" +
		"-:3: @P0 STS [R1], R4: predicated off\n" +
		"-:4: STS [R1+0x2], R5: shared[0x20] = 04 05 06 07\n" +
		"-:5: STS [R1+UR4+0x4], R5: shared[0x124] = 04 05 06 07\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	for _, w := range []string{
		"-:6: fault: invalid shared write of size 4: address outside allocated memory: address 0x10010",
		"-:7: fault: invalid shared write of size 4: address outside the window: address 0xfffffe",
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	code, _, errs = runSassCLI(t, "STS [R1+0x2], R5\n", "run", "--arch", "sm_50", "--trap-misaligned")
	if code != 1 || !strings.Contains(errs, "misaligned address: address 0x2") {
		t.Errorf("--trap-misaligned: exit %d, %q", code, errs)
	}
	code, _, errs = runSassCLI(t, "STG.E [R2], R5\nSTS [R1], Q\n", "run", "--arch", "sm_50")
	if code != 1 || !strings.Contains(errs, "-:1: STG.E [R2], R5: only STS and STL run") || !strings.Contains(errs, "-:2:11: Rb: bad register") {
		t.Errorf("non-window store: exit %d, %q", code, errs)
	}
	for _, bad := range [][]string{{"--set", "RU4=1"}, {"--set", "P0=2"}, {"--set", "R255=1"}, {"--shared", "0x1000001"}, {"--local", "-1"}} {
		if code, _, _ := runSassCLI(t, "", append([]string{"run", "--arch", "sm_90"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

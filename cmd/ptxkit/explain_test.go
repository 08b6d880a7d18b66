package main

import (
	"bytes"
	"strings"
	"testing"
)

func explain(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"explain"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// section returns the lines of one titled section of explain's output.
func section(out, title string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out, "\n") {
		if len(l) < 13 {
			continue
		}
		head := strings.TrimSpace(l[:12])
		if head != "" {
			in = head == title
		}
		if in {
			b.WriteString(strings.TrimSpace(l[13:]) + "\n")
		}
	}
	return b.String()
}

func TestExplainValidStore(t *testing.T) {
	out, _, code := explain(t, "st.global.relaxed.gpu.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};", "--target", "sm_80", "--ptx", "7.0")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checks := map[string]string{
		"state space": ".global",
		"semantics":   "strong relaxed store at scope .gpu",
		"access":      "4 × .u32 = 16 bytes per thread\nthe address must be 16-byte aligned",
		"vector":      ".v4: elements at ascending addresses",
		"completion":  "synchronous",
		"requires":    "PTX ISA 6.0, sm_70 or higher",
		"problems":    "none",
	}
	for title, want := range checks {
		if got := section(out, title); !strings.Contains(got, want) {
			t.Errorf("section %q = %q, want it to contain %q", title, got, want)
		}
	}
	if !strings.Contains(section(out, "requires"), ".relaxed                     PTX 6.0, sm_70 or higher") {
		t.Errorf("per-qualifier requirement missing:\n%s", section(out, "requires"))
	}
}

func TestExplainReportsProblems(t *testing.T) {
	out, _, code := explain(t, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];", "--ptx", "8.0", "--target", "sm_80")
	if code != exitFail {
		t.Fatalf("exit %d, want %d:\n%s", code, exitFail, out)
	}
	p := section(out, "problems")
	for _, want := range []string{
		"col 1: st.async requires PTX ISA 8.1 (this file declares 8.0) [ptx-version]",
		"fix: raise .version to 8.1",
		"st.async requires sm_90 or higher (target is sm_80) [target]",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("problems lack %q:\n%s", want, p)
		}
	}
	if c := section(out, "completion"); !strings.Contains(c, "complete-tx of 4 bytes") {
		t.Errorf("completion = %q", c)
	}
}

func TestExplainBareOpcode(t *testing.T) {
	out, _, code := explain(t, "st.global.v4.u32", "--target", "sm_70", "--ptx", "6.0")
	if code != exitOK || section(out, "problems") != "none\n" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestExplainQualifierPosition(t *testing.T) {
	out, _, code := explain(t, "st.global.relaxed.u32 [%rd1], %r1")
	if code != exitFail {
		t.Fatalf("exit %d", code)
	}
	if p := section(out, "problems"); !strings.Contains(p, "col 10: .relaxed requires a scope [st-sem-scope]") {
		t.Errorf("problems = %q", p)
	}
}

func TestExplainTensorStore(t *testing.T) {
	out, _, code := explain(t, "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], 2, {%r2, %r3}", "--target", "sm_100a", "--ptx", "8.6")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if a := section(out, "access"); !strings.Contains(a, "2 × 32-bit registers per thread (8 bytes; 256 per warp)") {
		t.Errorf("access = %q", a)
	}
	if v := section(out, "vector"); !strings.Contains(v, "threads 16-31 at taddr+immHalfSplitoff") {
		t.Errorf("vector = %q", v)
	}
	out, _, code = explain(t, "tcgen05.st.sync.aligned.16x64b.x4.b32 [%r1], {%r2, %r3}", "--target", "sm_90a", "--ptx", "8.6")
	if code != exitFail {
		t.Fatalf("exit %d", code)
	}
	p := section(out, "problems")
	for _, want := range []string{"needs exactly 4 registers (Table 50), not 2", "requires sm_100a, sm_101a, sm_110a"} {
		if !strings.Contains(p, want) {
			t.Errorf("problems lack %q:\n%s", want, p)
		}
	}
}

func TestExplainFamilyGate(t *testing.T) {
	out, _, code := explain(t, "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;", "--target", "sm_80")
	if code != exitFail || !strings.Contains(out, "mbarrier.try_wait requires sm_90 or higher (target is sm_80)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestExplainUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"st.u32 [%rd1], %r1", "--target", "sm_9x"},
		{"st.u32 [%rd1], %r1", "--ptx", "eight"},
		{"st.u32 [%rd1], %r1", "--bogus"},
	} {
		_, errOut, code := explain(t, args...)
		if code != exitUsage || errOut == "" {
			t.Errorf("explain %q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestExplainSyntaxError(t *testing.T) {
	out, _, code := explain(t, "st.global.u32 [%rd1, %r1")
	if code != exitFail || !strings.Contains(section(out, "problems"), "[syntax]") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestExplainDeterministic(t *testing.T) {
	a, _, _ := explain(t, "st.mmio.relaxed.sys.global.cg.u32 [%rd1], %r1", "--target", "sm_70", "--ptx", "8.1")
	b, _, _ := explain(t, "st.mmio.relaxed.sys.global.cg.u32 [%rd1], %r1", "--target", "sm_70", "--ptx", "8.1")
	if a != b {
		t.Error("output differs between runs")
	}
	if !strings.Contains(a, ".mmio cannot be combined with .cg") || !strings.Contains(a, ".mmio requires PTX ISA 8.2") {
		t.Errorf("mmio problems missing:\n%s", a)
	}
}

func FuzzExplain(f *testing.F) {
	f.Add("st.global.relaxed.gpu.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};", "sm_80", "7.0")
	f.Add("tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], 2, {%r2, %r3}", "sm_100a", "8.6")
	f.Add("st.async.mbarrier::complete_tx::bytes.v2.f32 [%r1], {1.0, _}, [x]", "", "")
	f.Fuzz(func(t *testing.T, instr, target, ptx string) {
		args := []string{instr}
		if target != "" {
			args = append(args, "--target", target)
		}
		if ptx != "" {
			args = append(args, "--ptx", ptx)
		}
		_, _, code := explain(t, args...)
		if code != exitOK && code != exitFail && code != exitUsage {
			t.Errorf("exit %d", code)
		}
	})
}

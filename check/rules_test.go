package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// checkSnippet checks body inside the differential test's kernel (which
// declares %R<type>_0..7 registers, gb, cn, sh, lc and the kernel
// parameter p) and returns the diagnostics and the line of body's first
// line.
func checkSnippet(t *testing.T, version, target, body string) (diag.List, int) {
	t.Helper()
	header := kernelHeader(version, target)
	src := header + body + "\n" + kernelFooter
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatalf("syntax errors in %q: %v", body, errs)
	}
	return Module(m, Config{}), strings.Count(header, "\n") + 1
}

type ruleCase struct {
	body    string
	version string
	target  string
	rule    string
	line    int // line within body, 0-based
	col     int32
}

// TestRules has one failing instruction per rule, with the position the
// diagnostic must point at (the offending qualifier or operand).
func TestRules(t *testing.T) {
	cases := []ruleCase{
		{"st.const.u32 [cn], %Ru32_0;", "8.5", "sm_90", "st-const", 0, 3},
		{"st.param::entry.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-param-entry", 0, 3},
		{"st.global.relaxed.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-sem-scope", 0, 10},
		{"st.global.sys.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-scope-sem", 0, 10},
		{"st.weak.gpu.global.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-scope-sem", 0, 8},
		{"st.mmio.global.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-mmio-relaxed", 0, 3},
		{"st.mmio.relaxed.gpu.global.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-mmio-scope", 0, 3},
		{"st.mmio.relaxed.sys.shared.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-mmio-space", 0, 20},
		{"st.mmio.relaxed.sys.global.v2.u32 [%Rb64_0], {%Ru32_0, %Ru32_1};", "8.5", "sm_90", "st-mmio-form", 0, 3},
		{"st.relaxed.sys.local.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-sem-space", 0, 15},
		{"st.volatile.param.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-sem-space", 0, 12},
		{"st.release.gpu.global.cg.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-cop-sem", 0, 22},
		{"st.global.cs.L1::evict_last.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-cop-evict", 0, 10},
		{"st.volatile.global.L1::no_allocate.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-volatile-evict", 0, 3},
		{"st.shared.L1::evict_first.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-evict-space", 0, 3},
		{"st.local.L2::cache_hint.u32 [%Rb64_0], %Ru32_0, %Rb64_1;", "8.5", "sm_90", "st-cache-hint-space", 0, 9},
		{"st.global.v2.b128 [%Rb64_0], {%Rb128_0, %Rb128_1};", "8.5", "sm_90", "st-vec-b128", 0, 10},
		{"st.global.v8.u16 [%Rb64_0], {%Ru16_0, %Ru16_0, %Ru16_0, %Ru16_0, %Ru16_0, %Ru16_0, %Ru16_0, %Ru16_0};", "8.8", "sm_100", "st-v8-type", 0, 10},
		{"st.shared.v8.u32 [%Rb64_0], {%Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0};", "8.8", "sm_100", "st-wide-vec-space", 0, 10},
		{"st.global.L2::evict_last.v4.u32 [%Rb64_0], {%Ru32_0, %Ru32_0, %Ru32_0, %Ru32_0};", "8.8", "sm_100", "st-l2-evict-vec", 0, 10},
		{"st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [%Rb32_0], %Ru32_0, [%Rb32_1];", "8.5", "sm_90", "st-async-scope", 0, 14},
		{"st.async.release.cluster.global.u32 [%Rb64_0], %Ru32_0;", "8.7", "sm_100", "st-async-scope", 0, 17},
		{"st.async.mmio.release.gpu.global.u32 [%Rb64_0], %Ru32_0;", "8.7", "sm_100", "st-async-mmio", 0, 9},
		{"st.async.shared::cta.mbarrier::complete_tx::bytes.u32 [%Rb32_0], %Ru32_0, [%Rb32_1];", "8.5", "sm_90", "st-async-space", 0, 9},
		{"st.async.shared::cluster.u32 [%Rb32_0], %Ru32_0, [%Rb32_1];", "8.5", "sm_90", "st-async-completion", 0, 1},
		{"st.async.shared::cluster.mbarrier::complete_tx::bytes.u16 [%Rb32_0], %Ru16_0, [%Rb32_1];", "8.5", "sm_90", "st-async-type", 0, 54},
		{"st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u64 [%Rb32_0], {%Ru64_0, %Ru64_0, %Ru64_0, %Ru64_0}, [%Rb32_1];", "8.5", "sm_90", "st-async-vec", 0, 54},
		{"tcgen05.st.sync.aligned.16x128b.x128.b32 [%Rb32_0], {%Rb32_1};", "8.6", "sm_100a", "tcgen05-shape-num", 0, 32},
		{"tcgen05.st.sync.16x64b.x1.b32 [%Rb32_0], {%Rb32_1};", "8.6", "sm_100a", "missing-qualifier", 0, 1},
		{"st.global.u33 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "unknown-qualifier", 0, 10},
		{"st.global.ca.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "qualifier-not-allowed", 0, 10},
		{"st.global.shared.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "qualifier-conflict", 0, 10},
		{"st.global.u32.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "qualifier-conflict", 0, 14},
		{"st.global.relaxed.cluster.u32 [%Rb64_0], %Ru32_0;", "7.4", "sm_90", "ptx-version", 0, 18},
		{"st.global.relaxed.cluster.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_80", "target", 0, 18},
		{"st.global.L2::cache_hint.u32 [%Rb64_0], %Ru32_0, %Rb64_1;", "8.5", "sm_75", "target", 0, 10},
		{"st.global.u32 [%Rb64_0], %Ru32_0, %Rb64_1;", "8.5", "sm_90", "st-cache-policy", 0, 35},
		{"st.global.L2::cache_hint.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "st-cache-policy", 0, 10},
		{"st.global.L2::cache_hint.u32 [%Rb64_0], %Ru32_0, %Ru32_1;", "8.5", "sm_90", "st-cache-policy", 0, 50},
		{"st.global.u32 [%Rb64_0];", "8.5", "sm_90", "operand-count", 0, 1},
		{"tcgen05.st.sync.aligned.16x64b.x1.b32 [%Rb32_0], 2, {%Rb32_1};", "8.6", "sm_100a", "tcgen05-split-offset", 0, 50},
		{"tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%Rb32_0], {%Rb32_1};", "8.6", "sm_100a", "tcgen05-split-offset", 0, 24},
		{"tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%Rb32_0], %Rb32_2, {%Rb32_1};", "8.6", "sm_100a", "tcgen05-split-offset", 0, 52},
		{"tcgen05.st.sync.aligned.16x64b.x2.b32 [%Rb32_0], {%Rb32_1};", "8.6", "sm_100a", "tcgen05-regs", 0, 50},
		{"tcgen05.st.sync.aligned.16x64b.x2.b32 [%Rb32_0], {%Rb32_1, %Rb64_1};", "8.6", "sm_100a", "tcgen05-regs", 0, 60},
		{"st.global.u32 %Rb64_0, %Ru32_0;", "8.5", "sm_90", "operand-address", 0, 15},
		{"st.global.u32 [64], %Ru32_0;", "8.5", "sm_90", "address-immediate", 0, 15},
		{"st.global.u32 [%Rf32_0], %Ru32_0;", "8.5", "sm_90", "address-register-type", 0, 16},
		{"st.global.u32 [%Rb32_0], %Ru32_0;", "8.5", "sm_90", "address-size", 0, 16},
		{"st.param.u32 [p], %Ru32_0;", "8.5", "sm_90", "st-param-input", 0, 15},
		{"st.global.u32 [sh+4], %Ru32_0;", "8.5", "sm_90", "address-space", 0, 16},
		{"st.u32 [cn], %Ru32_0;", "8.5", "sm_90", "address-space", 0, 9},
		{"st.global.v4.u32 [%Rb64_0], {%Ru32_0, %Ru32_1};", "8.5", "sm_90", "vector-arity", 0, 29},
		{"st.global.v2.u32 [%Rb64_0], %Ru32_0;", "8.5", "sm_90", "vector-arity", 0, 29},
		{"st.global.v2.u32 [%Rb64_0], {%Ru32_0, %Ru64_1};", "8.5", "sm_90", "vector-mixed", 0, 39},
		{"st.global.v2.u32 [%Rb64_0], {%Ru32_0, %Rf32_1};", "8.5", "sm_90", "vector-mixed", 0, 39},
		{"st.global.v2.u32 [%Rb64_0], {%Ru32_0, _};", "8.5", "sm_90", "st-sink", 0, 39},
		{"st.global.f32 [%Rb64_0], 1;", "8.5", "sm_90", "immediate-type", 0, 26},
		{"st.global.u32 [%Rb64_0], 1.5;", "8.5", "sm_90", "immediate-type", 0, 26},
		{"st.global.u32 [%Rb64_0], %tid.x;", "8.5", "sm_90", "special-register", 0, 26},
		{"st.global.u32 [%Rb64_0], gb;", "8.5", "sm_90", "value-register", 0, 26},
		{"st.global.u32 [%Rb64_0], %Ru16_0;", "8.5", "sm_90", "operand-type", 0, 26},
		{"st.global.u8 [%Rb64_0], %Rf32_0;", "8.5", "sm_90", "operand-type", 0, 25},
		{"st.global.b128 [%Rb64_0], %Rb64_0;", "8.5", "sm_90", "operand-type", 0, 27},
		{"st.global.u32 [%Rb64_0], %Rpred_0;", "8.5", "sm_90", "operand-type", 0, 26},
		{"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%Rb32_0], %Ru64_0, [%Rb32_1];", "8.5", "sm_90", "operand-type", 0, 70},
		{"{\n.param .b32 arg0;\n@%Rpred_0 st.param.b32 [arg0], %Rb32_0;\n}", "8.5", "sm_90", "st-param-predicated", 2, 1},
	}
	for _, c := range cases {
		l, first := checkSnippet(t, c.version, c.target, c.body)
		line := first + c.line
		found := false
		for _, d := range l {
			if d.Rule == c.rule && int(d.Pos.Line) == line && d.Pos.Col == c.col {
				found = true
				if d.Message == "" || (d.Severity == diag.Error && d.Spec == "" && d.Rule != "operand-count") {
					t.Errorf("%s: %s without message or spec: %+v", c.body, c.rule, d)
				}
			}
		}
		if !found {
			t.Errorf("%s (PTX %s, %s): want %s at %d:%d, got %v", c.body, c.version, c.target, c.rule, line, c.col, l)
		}
	}
}

// TestValid lists instructions that must validate clean.
func TestValid(t *testing.T) {
	cases := []struct{ body, version, target string }{
		{"st.global.u32 [%Rb64_0], %Ru32_0;", "6.0", "sm_50"},
		{"st.L1::no_allocate.relaxed.sys.global.u64 [%Rb64_0], %Ru64_1;", "7.4", "sm_70"},
		{"st.release.global.sys.v4.b32 [%Rb64_0], {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3};", "6.0", "sm_70"},
		{"st.global.volatile.b32 [%Rb64_0], %Rb32_0;", "6.0", "sm_50"},
		{"st.weak.global.cs.v4.f32 [%Rb64_0], {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3};", "6.0", "sm_70"},
		{"st.shared::cta.release.cta.u32 [sh+4], %Ru32_0;", "7.8", "sm_70"},
		{"st.shared::cluster.u32 [sh+8], %Ru32_0;", "7.8", "sm_90"},
		{"st.global.mmio.relaxed.sys.u32 [gb], %Ru32_0;", "8.2", "sm_70"},
		{"st.local.u32 [lc+4], %Ru32_0;", "6.0", "sm_50"},
		{"st.local.s32 [100], %Rs32_0;", "6.0", "sm_50"},
		{"st.global.L2::cache_hint.b32 [%Rb64_0], %Rb32_0, %Rb64_1;", "7.4", "sm_80"},
		{"st.global.b128 [%Rb64_0], %Rb128_0;", "8.3", "sm_70"},
		{"st.relaxed.sys.global.b128 [%Rb64_0], %Rb128_0;", "8.4", "sm_70"},
		{"st.global.L2::evict_last.v8.f32 [%Rb64_0], {%Rf32_0, _, %Rf32_2, %Rf32_3, %Rf32_4, %Rf32_5, %Rf32_6, %Rf32_7};", "8.8", "sm_100"},
		{"st.global.L1::evict_first.L2::evict_last.v4.u64 [%Rb64_0], {%Ru64_0, %Ru64_1, %Ru64_2, %Ru64_3};", "8.8", "sm_100"},
		{"st.local.volatile.u32 [lc], %Ru32_0;", "9.1", "sm_90"},
		{"st.global.u8 [%Rb64_0], %Ru32_0;", "6.0", "sm_50"},
		{"st.global.b16 [%Rb64_0], %Rf32_0;", "6.0", "sm_50"},
		{"st.global.b32 [%Rb64_0], %Rb64_0;", "6.0", "sm_50"},
		{"st.global.f32 [%Rb64_0], 0f3F800000;", "6.0", "sm_50"},
		{"st.release.gpu.global.s32 [%Rb64_0], 0;", "6.0", "sm_70"},
		{"st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%Rb32_0], {%Rb32_1, %Rb32_2, %Rb32_3, %Rb32_4}, [%Rb32_5];", "8.1", "sm_90"},
		{"st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.s64 [%Rb32_0], {%Rs64_0, %Rs64_1}, [%Rb32_5];", "8.1", "sm_90"},
		{"st.async.release.sys.global.b32 [%Rb64_0], %Rb32_0;", "8.7", "sm_100"},
		{"st.async.mmio.release.sys.global.b64 [%Rb64_0], %Rb64_1;", "8.7", "sm_100"},
		{"tcgen05.st.sync.aligned.16x64b.x4.b32 [%Rb32_0], {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3};", "8.6", "sm_100a"},
		{"tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [%Rb32_1], {%Rb32_0, %Rb32_1};", "8.6", "sm_101a"},
		{"tcgen05.st.sync.aligned.32x32b.unpack::16b.x1.b32 [%Rb32_1], {%Rb32_0};", "8.8", "sm_103f"},
		{"tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%Rb32_1+64], 32, {%Rb32_0, %Rb32_1};", "9.0", "sm_110f"},
		{"{\n.param .b32 arg0;\nst.param.b32 [arg0], %Rb32_0;\n}", "8.5", "sm_90"},
	}
	for _, c := range cases {
		l, _ := checkSnippet(t, c.version, c.target, c.body)
		if l.HasErrors() {
			t.Errorf("%s (PTX %s, %s): %v", c.body, c.version, c.target, l)
		}
	}
}

func TestWarnings(t *testing.T) {
	l, first := checkSnippet(t, "8.5", "sm_90", "mapa.shared::cluster.u32 %Rb32_1, %Rb32_0, 1;\nst.shared::cta.u32 [%Rb32_1], %Rb32_2;\nst.shared::cluster.u32 [%Rb32_1], %Rb32_2;")
	var warns []diag.Diagnostic
	for _, d := range l {
		if d.Severity == diag.Warning {
			warns = append(warns, d)
		}
	}
	if len(warns) != 1 || warns[0].Rule != "st-shared-cta-mapa" || int(warns[0].Pos.Line) != first+1 || warns[0].Pos.Col != 21 {
		t.Errorf("mapa warning: %v", l)
	}
	if l.HasErrors() {
		t.Errorf("errors: %v", l)
	}
	l, first = checkSnippet(t, "8.5", "sm_90", "cvta.to.global.u64 %Rb64_1, %Rb64_0;\nadd.s64 %Rb64_2, %Rb64_1, 16;\n"+
		"st.global.u32 [%Rb64_2], %Rb32_2;\nst.shared.u32 [%Rb64_2], %Rb32_2;\ncvta.shared.u64 %Rb64_3, %Rb64_0;\n"+
		"st.u32 [%Rb64_3], %Rb32_2;\nst.shared.u32 [%Rb64_3+4], %Rb32_2;\nmov.u64 %Rb64_3, 0;\nst.shared.u32 [%Rb64_3], %Rb32_2;")
	var got []string
	for _, d := range l {
		got = append(got, fmt.Sprintf("%d:%s", int(d.Pos.Line)-first, d.Rule))
	}
	if strings.Join(got, " ") != "3:address-origin 6:address-origin" {
		t.Errorf("address-origin warnings: %v", l)
	}
	l, first = checkSnippet(t, "8.5", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%Rb32_0], vb4.x, [%Rb32_1];")
	if len(l) != 1 || l[0].Rule != "st-async-scalar-vector" || l[0].Severity != diag.Warning || int(l[0].Pos.Line) != first || l[0].Pos.Col != 73 {
		t.Errorf("st.async scalar for a vector: %v", l)
	}
	l, first = checkSnippet(t, "8.5", "sm_90", "st.shared.u32 [%Rb32_0], {%Rb32_2};")
	if len(l) != 1 || l[0].Rule != "st-braced-scalar" || l[0].Severity != diag.Warning || int(l[0].Pos.Line) != first {
		t.Errorf("braced scalar: %v", l)
	}
}

func TestHeaderAndConfig(t *testing.T) {
	src := ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nst.global.relaxed.cluster.u32 [%rd1], %r1;\nret;\n}\n"
	m, _ := parser.ParseString("h.ptx", src)
	l := Module(m, Config{})
	if !hasRule(l, "target-version") || l[0].Pos.Line != 2 {
		t.Errorf("target sm_90 in PTX 7.0 not reported at .target: %v", l)
	}
	l = Module(m, Config{PTX: "8.0"})
	if l.HasErrors() {
		t.Errorf("--ptx 8.0: %v", l)
	}
	l = Module(m, Config{PTX: "8.0", Target: "sm_80"})
	if !hasRule(l, "target") {
		t.Errorf("--target sm_80: %v", l)
	}
	l = Module(m, Config{Target: "sm_9z"})
	if !hasRule(l, "config") {
		t.Errorf("bad --target: %v", l)
	}
	if err := (Config{PTX: "8"}).Validate(); err == nil {
		t.Error("PTX 8 accepted")
	}
}

// TestPerfDirectiveValues checks the performance-tuning directives whose
// values ptxas 12.5 requires to be positive ("Positive non-zero value
// expected for maxntid"), and the two it accepts with 0.
func TestPerfDirectiveValues(t *testing.T) {
	cases := []struct {
		directive string
		col       int32 // column of the reported value; 0 when valid
	}{
		{".maxntid 1, 0, 1", 13},
		{".reqntid 32, 0", 14},
		{".maxnreg 0", 10},
		{".minnctapersm 0", 15},
		{".maxntid 256, 1, 1", 0},
		{".reqntid 128", 0},
		{".reqnctapercluster 0, 1, 1", 0},
		{".maxclusterrank 0", 0},
	}
	for _, tc := range cases {
		src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n" + tc.directive + "\n{\nret;\n}\n"
		m, errs := parser.ParseString("p.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", tc.directive, errs)
		}
		l := Module(m, Config{})
		if tc.col == 0 {
			if l.HasErrors() {
				t.Errorf("%s: unexpected %v", tc.directive, l)
			}
			continue
		}
		if len(l) != 1 || l[0].Rule != "perf-directive-value" || l[0].Pos.Line != 5 || l[0].Pos.Col != tc.col {
			t.Errorf("%s: got %v, want perf-directive-value at 5:%d", tc.directive, l, tc.col)
		}
	}
}

func FuzzModule(f *testing.F) {
	f.Add(kernelHeader("8.5", "sm_90") + "st.global.v4.u32 [%Rb64_0+4], {%Ru32_0, 1, _, %tid.x};\n" + kernelFooter)
	f.Add(kernelHeader("8.6", "sm_100a") + "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%Rb32_0], 2, {%Rb32_1};\n" + kernelFooter)
	f.Add(".version 8.5\n.target sm_90\n.entry k(){ st.async.u32 [x], {y}, z; mapa.u32 %r, %r, 1; st.shared [%r], 1; }")
	f.Fuzz(func(t *testing.T, src string) {
		m, _ := parser.ParseString("f.ptx", src)
		Module(m, Config{})
	})
}

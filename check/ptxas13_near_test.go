package check

import (
	"fmt"
	"testing"
)

// ptxas13Near is a store of the two kinds whose ptxas 13.0 verdicts the
// recorded set (testdata ptxas13/st_cases.jsonl) holds back: st.async with
// an offset mbarrier address at PTX ISA 8.3, and a .v4.f64 volatile store
// with a sink element at PTX ISA 9.0. Each verdict is derived from the
// recorded cases nearest to it (named by id) and the section's rules;
// ok12 is ptxas 12.5's verdict where the version is at most 8.5 (checked
// against ptxas 12.5 where it is installed, by TestPtxas13NearForms12).
type ptxas13Near struct {
	version, target string
	line            string
	ok13            bool   // ptxas 13.0, derived
	ok12            string // ptxas 12.5: "ok", "error" or "" (PTX ISA 8.6+)
	why             string // the recorded cases and rules the verdict rests on
}

var ptxas13NearForms = []ptxas13Near{
	// st.async, offset mbarrier, PTX ISA 8.3
	{"8.3", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r1, [sh+64];", true, "ok", "cases 254, 591, 645, 2531"},
	{"8.3", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r1, [%r3+8];", true, "ok", "cases 254, 510 (a register mbarrier)"},
	{"8.3", "sm_90a", "st.async.mbarrier::complete_tx::bytes.v4.b32 [%rd2], {%r1, %r2, %r1, %r2}, [%rd3+16];", true, "ok", "cases 2290, 2531"},
	{"8.3", "sm_90", "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.f64 [%r2+8], %fd1, [sh+-8];", true, "ok", "cases 591, 1926"},
	{"8.3", "sm_90", "st.async.shared::cta.mbarrier::complete_tx::bytes.b32 [sh+4], %r1, [sh+64];", true, "error", "case 3658 (.weak.shared::cta at 8.3), 1108"},
	{"8.3", "sm_90", "st.async.weak.shared.mbarrier::complete_tx::bytes.v2.s32 [sh+4], {%r1, %r2}, [%r3+8];", true, "error", "case 2503 (.weak.shared at 8.5)"},
	{"8.3", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b16 [sh], {%h1, %h2}, [sh+64];", false, "error", "case 841: 16-bit types need the form without an mbarrier"},
	{"8.3", "sm_90", "st.async.global.mbarrier::complete_tx::bytes.b32 [%rd2], %r1, [sh+64];", false, "error", "case 3811: .global is the release form (PTX ISA 8.7, sm_100)"},
	{"8.3", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r1, sh+64;", false, "error", "cases 2752, 3402: an mbarrier without brackets"},
	{"8.3", "sm_80", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r1, [sh+64];", false, "error", "case 3337: st.async needs sm_90"},
	{"8.0", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r1, [sh+64];", false, "error", "case 569: st.async needs PTX ISA 8.1"},
	// .v4.f64 volatile store with a sink, PTX ISA 9.0
	{"9.0", "sm_100", "st.volatile.v4.f64 [%rd2+8], {%fd1, _, %fd1, %fd2};", true, "", "cases 1927 (volatile .v4.f64, 8.8), 3996 and 773 (a sink in a 256-bit store)"},
	{"9.0", "sm_100f", "st.volatile.global.v4.f64 [gv], {_, _, %fd1, %fd2};", true, "", "cases 3996, 773"},
	{"9.0", "sm_120", "st.volatile.global.v4.f64 [%rd2], {%fd1, %fd2, %fd1, _};", true, "", "cases 3996, 90"},
	{"9.0", "sm_90", "st.volatile.global.v4.f64 [%rd2], {%fd1, _, %fd1, %fd2};", false, "", "cases 3501, 3585: 256-bit stores need sm_100"},
	{"9.0", "sm_100", "st.volatile.shared.v4.f64 [sh], {%fd1, _, %fd1, %fd2};", false, "", "cases 1966, 2240: 256-bit stores need .global or generic"},
	{"9.0", "sm_100", "st.volatile.local.v4.f64 [%rd2], {%fd1, _, %fd1, %fd2};", false, "", "case 3872, 3160"},
	{"9.0", "sm_100", "st.volatile.global.L2::cache_hint.v4.f64 [%rd2], {%fd1, _, %fd1, %fd2}, %rd3;", false, "", "case 3192, 509: .L2::cache_hint with .volatile"},
	{"9.0", "sm_100", "st.volatile.global.v2.f64 [%rd2], {%fd1, _};", false, "", "cases 2307, 395: a sink only in 256-bit stores"},
	{"9.0", "sm_100", "st.volatile.global.v4.f64 [%rd2], {%fd1, _, %f1, %fd2};", false, "", "case 1668: vector elements of mixed types"},
	{"8.7", "sm_100a", "st.volatile.global.v4.f64 [%rd2], {%fd1, _, %fd1, %fd2};", false, "", "case 1699: 256-bit stores need PTX ISA 8.8"},
}

// ptxas13NearModule is the recorded cases' kernel around one line.
func ptxas13NearModule(c ptxas13Near) string {
	return fmt.Sprintf(`.version %s
.target %s
.address_size 64
.global .align 16 .b8 gv[512];
.visible .entry k(.param .u64 p)
{
  .reg .pred %%p<3>;
  .reg .b16 %%h<3>;
  .reg .b32 %%r<4>;
  .reg .b64 %%rd<4>;
  .reg .f32 %%f<3>;
  .reg .f64 %%fd<3>;
  .shared .align 16 .b8 sh[512];
  %s
  ret;
}
`, c.version, c.target, c.line)
}

// TestPtxas13NearForms checks the derived ptxas 13.0 verdicts with the
// validator following ptxas 13.0, and, for PTX ISA 8.5 and older, ptxas
// 12.5's verdicts with the default configuration (which follows ptxas 12.5
// there): st.async on .shared::cta is a form ptxas 13.0 accepts and ptxas
// 12.5 rejects.
func TestPtxas13NearForms(t *testing.T) {
	const line = 14
	for _, c := range ptxas13NearForms {
		src := ptxas13NearModule(c)
		lines, diags := fullErrorLines(src, Config{Ptxas: "13.0"})
		for l := range lines {
			if l != line {
				t.Errorf("%s (PTX %s %s): an error off the line: %v", c.line, c.version, c.target, diags)
			}
		}
		if lines[line] == c.ok13 {
			t.Errorf("%s (PTX %s %s): ptxas 13.0 %s (%s), ptxkit --ptxas 13.0 %s: %v", c.line, c.version, c.target,
				verdictWord(c.ok13), c.why, verdictWord(!lines[line]), diags)
		}
		if c.ok12 == "" {
			continue
		}
		lines, diags = fullErrorLines(src, Config{})
		if lines[line] != (c.ok12 == "error") {
			t.Errorf("%s (PTX %s %s): ptxas 12.5 %s, ptxkit (default) %s: %v", c.line, c.version, c.target,
				c.ok12, verdictWord(!lines[line]), diags)
		}
	}
}

// TestPtxas13NearForms12 checks the recorded ptxas 12.5 verdicts of the
// near forms against ptxas 12.5 where it is installed.
func TestPtxas13NearForms12(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skip("ptxas 12.5 not found")
	}
	dir := t.TempDir()
	for _, c := range ptxas13NearForms {
		if c.ok12 == "" {
			continue
		}
		got := ptxasErrorLines(t, ptxas, dir, ptxasArch(c.target), ptxas13NearModule(c))
		if got[14] != (c.ok12 == "error") {
			t.Errorf("%s (PTX %s %s): recorded ptxas 12.5 %s, ptxas 12.5 says otherwise", c.line, c.version, c.target, c.ok12)
		}
	}
}

func verdictWord(ok bool) string {
	if ok {
		return "accepts"
	}
	return "rejects"
}

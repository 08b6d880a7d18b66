package main

import (
	"encoding/json"
	"regexp"
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

// warnPTX has a warning (a duplicate .sat) on line 9 and an error (a
// relaxed store without a scope) on line 10.
const warnPTX = `.version 8.5
.target sm_90
.address_size 64
.entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	add.sat.sat.s32 %r1, %r1, %r2;
	st.global.relaxed.u32 [%rd1], %r1;
	ret;
}
`

func TestCheckWerror(t *testing.T) {
	onlyWarning := strings.Replace(warnPTX, "st.global.relaxed.u32", "st.global.u32", 1)
	code, _, errs := runCmd(t, onlyWarning, "check", "-")
	if code != exitOK || !strings.Contains(errs, "-:9:9: warning: duplicate .sat [duplicate-qualifier]") {
		t.Fatalf("without --werror: exit %d\n%s", code, errs)
	}
	code, _, errs = runCmd(t, onlyWarning, "check", "--werror", "-")
	if code != exitFail || !strings.Contains(errs, "-:9:9: error: duplicate .sat [duplicate-qualifier]") {
		t.Errorf("--werror: exit %d\n%s", code, errs)
	}
	code, out, _ := runCmd(t, onlyWarning, "check", "--werror", "--format=json", "-")
	if code != exitFail || !strings.Contains(out, `"severity":"error","rule":"duplicate-qualifier"`) {
		t.Errorf("--werror JSON: exit %d\n%s", code, out)
	}
}

func TestCheckDisable(t *testing.T) {
	code, _, errs := runCmd(t, warnPTX, "check", "--disable", "st-sem-scope", "-")
	if code != exitOK || strings.Contains(errs, "st-sem-scope") || !strings.Contains(errs, "duplicate-qualifier") {
		t.Errorf("--disable st-sem-scope: exit %d\n%s", code, errs)
	}
	code, _, errs = runCmd(t, warnPTX, "check", "--disable", "st-sem-scope,duplicate-qualifier", "-")
	if code != exitOK || errs != "" {
		t.Errorf("--disable both: exit %d\n%q", code, errs)
	}
	// An id no rule has is named, with the nearest one; the check goes on.
	code, _, errs = runCmd(t, warnPTX, "check", "--disable", "st-sem-scop", "-")
	if code != exitFail || !strings.Contains(errs, "ptxkit check: warning: --disable st-sem-scop: no rule has this id; did you mean st-sem-scope?") {
		t.Errorf("--disable of a misspelt rule: exit %d\n%s", code, errs)
	}
}

func TestCheckIgnoreComment(t *testing.T) {
	// At the end of the line it is on.
	src := strings.Replace(warnPTX, "%r1;\n\tret;", "%r1; // ptxkit:ignore st-sem-scope\n\tret;", 1)
	code, _, errs := runCmd(t, src, "check", "-")
	if code != exitOK || strings.Contains(errs, "st-sem-scope") || !strings.Contains(errs, "duplicate-qualifier") {
		t.Errorf("trailing comment: exit %d\n%s", code, errs)
	}
	// Alone on the line before, with two rules; the warning of line 10
	// (now 11) is silenced, the line after it is not.
	src = strings.Replace(warnPTX, "\tadd.sat.sat.s32", "\t// ptxkit:ignore duplicate-qualifier, st-sem-scope\n\tadd.sat.sat.s32", 1)
	code, _, errs = runCmd(t, src, "check", "-")
	if code != exitFail || strings.Contains(errs, "duplicate-qualifier") || !strings.Contains(errs, "-:11:11: error: .relaxed requires a scope [st-sem-scope]") {
		t.Errorf("comment on the line before: exit %d\n%s", code, errs)
	}
	// Another rule's name silences nothing.
	src = strings.Replace(warnPTX, "%r1;\n\tret;", "%r1; // ptxkit:ignore st-scope-sem\n\tret;", 1)
	if code, _, errs = runCmd(t, src, "check", "-"); code != exitFail || !strings.Contains(errs, "[st-sem-scope]") {
		t.Errorf("other rule: exit %d\n%s", code, errs)
	}
}

func TestCheckMaxDiagnostics(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n")
	for range 250 {
		b.WriteString("st.global.relaxed.u32 [%rd1], %r1;\n")
	}
	for range 5 {
		b.WriteString("add.sat.sat.s32 %r1, %r1, %r2;\n")
	}
	b.WriteString("ret;\n}\n")
	code, _, errs := runCmd(t, b.String(), "check", "-")
	if code != exitFail || strings.Count(errs, "[st-sem-scope]") != 200 ||
		!strings.HasSuffix(errs, "ptxkit check: 55 more diagnostics not shown (50 errors, 5 warnings); the first 200 are; --max-diagnostics 0 shows all\n") {
		t.Errorf("default cap: exit %d, %d shown\n%s", code, strings.Count(errs, "\n"), errs[max(0, len(errs)-300):])
	}
	_, _, errs = runCmd(t, b.String(), "check", "--max-diagnostics", "3", "-")
	if strings.Count(errs, "[st-sem-scope]") != 3 || !strings.Contains(errs, "252 more diagnostics not shown (247 errors, 5 warnings); the first 3 are") {
		t.Errorf("--max-diagnostics 3:\n%s", errs)
	}
	_, _, errs = runCmd(t, b.String(), "check", "--max-diagnostics", "0", "-")
	if strings.Count(errs, "[st-sem-scope]") != 250 || strings.Contains(errs, "not shown") {
		t.Errorf("--max-diagnostics 0 shows %d", strings.Count(errs, "[st-sem-scope]"))
	}
	// JSON is for programs: never capped.
	_, out, _ := runCmd(t, b.String(), "check", "--format=json", "-")
	if n := strings.Count(out, "\n"); n != 255 {
		t.Errorf("JSON has %d lines, want 255", n)
	}
}

func TestCheckSARIFRulesAndStdin(t *testing.T) {
	src := warnPTX + ".entry k2()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %q9;\n\tret;\n}\n"
	code, out, errs := runCmd(t, src, "check", "--format=sarif", "--stdin-name", "kernels/k.ptx", "-")
	if code != exitFail {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct {
						ID              string
						FullDescription *struct{ Text string }
						Help            *struct{ Text string }
					}
				}
			}
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if v := run.Tool.Driver.Version; !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("driver version %q is not numeric", v)
	}
	if len(run.Tool.Driver.Rules) != 3 {
		t.Errorf("%d rules, want 3 (a validator rule, a qualifier rule, a front-end rule)", len(run.Tool.Driver.Rules))
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.FullDescription == nil || r.FullDescription.Text == "" || r.Help == nil || r.Help.Text == "" {
			t.Errorf("rule %s lacks fullDescription or help", r.ID)
		}
	}
	for _, res := range run.Results {
		if a := res.Locations[0].PhysicalLocation.ArtifactLocation; a.URI != "kernels/k.ptx" || a.URIBaseID != "%SRCROOT%" {
			t.Errorf("standard input reported at %+v", a)
		}
	}
	// Text and JSON use the name too.
	if _, _, errs := runCmd(t, src, "check", "--stdin-name", "kernels/k.ptx", "-"); !strings.Contains(errs, "kernels/k.ptx:10:11: error") {
		t.Errorf("text: %s", errs)
	}
}

// v8b16PTX stores .v8.b16, which the ISA pages forbid and ptxas 13.0
// accepts: a warning at PTX ISA 8.8, an error under --strict.
const v8b16PTX = `.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b16 %h<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.b16 %h1, 7;
	st.global.v8.b16 [%rd1], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
	ret;
}
`

func TestStrictEverywhere(t *testing.T) {
	f := writeFile(t, "v8.ptx", v8b16PTX)
	const rule = "[st-v8-type]"
	inst := "st.global.v8.b16 [%rd1], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", f}, exitOK, "warning: .v8"},
		{[]string{"check", "--strict", f}, exitFail, "error: .v8"},
		{[]string{"run", f, "--arg", "buf:16"}, exitOK, ""},
		{[]string{"run", "--strict", f, "--arg", "buf:16"}, exitFail, "error: .v8"},
		{[]string{"explain", inst, "--target", "sm_100a", "--ptx", "8.8"}, exitOK, "warning: col 10: .v8"},
		{[]string{"explain", "--strict", inst, "--target", "sm_100a", "--ptx", "8.8"}, exitFail, "error: col 10: .v8"},
	} {
		code, out, errs := runCmd(t, "", c.args...)
		if code != c.code || c.want != "" && !strings.Contains(out+errs, c.want) || c.want != "" && !strings.Contains(out+errs, rule) {
			t.Errorf("%v: exit %d (want %d), want %q in\n%s%s", c.args[:2], code, c.code, c.want, out, errs)
		}
	}
}

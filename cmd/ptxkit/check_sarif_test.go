package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/sariftest"
)

// TestCheckSARIF runs `ptxkit check --format=sarif` on a file with one
// error and checks the log names the rule at the qualifier's position.
func TestCheckSARIF(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "k.ptx")
	src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" +
		".reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\nst.global.relaxed.u32 [%rd1], %r1;\nret;\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"check", "--format=sarif", file}, strings.NewReader(""), &out, &errb)
	if code != exitFail {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("log = %+v", log)
	}
	r := log.Runs[0].Results[0]
	reg := r.Locations[0].PhysicalLocation.Region
	if r.RuleID != "st-sem-scope" || r.Level != "error" || reg.StartLine != 9 || reg.StartColumn != 10 {
		t.Errorf("result = %+v", r)
	}
	out.Reset()
	code = run([]string{"check", "--format=sarif", "--target", "sm_90", "--ptx", "5.0", file}, strings.NewReader(""), &out, &errb)
	if code != exitFail || !strings.Contains(out.String(), `"ruleId": "ptx-version"`) {
		t.Errorf("--ptx 5.0: exit %d\n%s", code, out.String())
	}
}

// sarifLog is the part of a SARIF log the tests read.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string
	Runs    []struct {
		ColumnKind string
		Tool       struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID               string
					ShortDescription struct{ Text string }
					FullDescription  *struct{ Text string }
					Help             *struct{ Text string }
				}
			}
		}
		Invocations []struct {
			ExecutionSuccessful        *bool
			ToolExecutionNotifications []struct {
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
			}
		}
		Results []struct {
			RuleID    string
			RuleIndex int
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI, URIBaseID string }
					Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
				}
			}
		}
	}
}

func checkSARIF(t *testing.T, args ...string) (int, sarifLog, string) {
	t.Helper()
	code, out, errs := runCmd(t, "", append([]string{"check", "--format=sarif"}, args...)...)
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\nstderr: %s", code, err, out, errs)
	}
	for _, e := range sariftest.Check([]byte(out)) {
		t.Errorf("schema: %s", e)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 || log.Runs[0].Invocations[0].ExecutionSuccessful == nil {
		t.Fatalf("log lacks version, its run or the run's invocation: %+v", log)
	}
	return code, log, errs
}

// TestCheckSARIFNonASCII checks a file whose comments hold multi-byte
// characters: the log declares code point columns and its columns count
// code points, so that they point at the qualifier, not bytes past it.
func TestCheckSARIFNonASCII(t *testing.T) {
	// "// données – é" is 14 code points and 18 bytes; the store follows on
	// the same line after a block comment with 3 two-byte characters.
	src := ".version 8.5 // données – é\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" +
		".reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\n/* äöü */ st.global.relaxed.u32 [%rd1], %r1; // ½\nret;\n}\n"
	file := writeFile(t, "u.ptx", src)
	code, log, _ := checkSARIF(t, file)
	run := log.Runs[0]
	if code != exitFail || run.ColumnKind != "unicodeCodePoints" || len(run.Results) != 1 {
		t.Fatalf("exit %d, %+v", code, run)
	}
	reg := run.Results[0].Locations[0].PhysicalLocation.Region
	line := strings.Split(src, "\n")[reg.StartLine-1]
	runes := []rune(line)
	// The region must cover ".relaxed" counted in code points.
	if reg.StartLine != 9 || reg.EndLine != 9 || string(runes[reg.StartColumn-1:reg.EndColumn-1]) != ".relaxed" {
		t.Errorf("region %+v covers %q, want .relaxed", reg, string(runes[min(reg.StartColumn-1, len(runes)):min(reg.EndColumn-1, len(runes))]))
	}
	if !*run.Invocations[0].ExecutionSuccessful || run.Tool.Driver.Version == "" {
		t.Errorf("invocation %+v, driver %+v", run.Invocations[0], run.Tool.Driver)
	}
}

// TestCheckSARIFCapped checks a file with 100,000 errors: the log holds
// the first DefaultMaxResults and a notification with the count dropped.
func TestCheckSARIFCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\n")
	const n = 100000
	for range n {
		b.WriteString("st.global.relaxed.u32 [%rd1], %r1;\n")
	}
	b.WriteString("ret;\n}\n")
	file := writeFile(t, "many.ptx", b.String())
	code, log, _ := checkSARIF(t, file)
	run := log.Runs[0]
	if code != exitFail || len(run.Results) != diag.DefaultMaxResults {
		t.Fatalf("exit %d, %d results, want %d", code, len(run.Results), diag.DefaultMaxResults)
	}
	if last := run.Results[len(run.Results)-1].Locations[0].PhysicalLocation.Region; last.StartLine != 8+diag.DefaultMaxResults {
		t.Errorf("last result at line %d: the first results in order are not the ones kept", last.StartLine)
	}
	notes := run.Invocations[0].ToolExecutionNotifications
	want := fmt.Sprintf("%d of %d results were dropped: the log holds the first %d", n-diag.DefaultMaxResults, n, diag.DefaultMaxResults)
	if len(notes) != 1 || notes[0].Message.Text != want || notes[0].Level != "warning" {
		t.Errorf("notifications %+v, want %q", notes, want)
	}
}

// TestCheckSARIFUnreadable checks that a file that cannot be read still
// gives a valid log: the readable files' results and an error
// notification naming the other, with the invocation unsuccessful.
func TestCheckSARIFUnreadable(t *testing.T) {
	bad := writeFile(t, "bad.ptx", strings.Replace(validPTX, "st.global.u32", "st.global.relaxed.u32", 1))
	missing := filepath.Join(t.TempDir(), "missing.ptx")
	code, log, errs := checkSARIF(t, missing, bad)
	run := log.Runs[0]
	inv := run.Invocations[0]
	if code != exitUsage || *inv.ExecutionSuccessful || len(run.Results) != 1 || len(inv.ToolExecutionNotifications) != 1 {
		t.Fatalf("exit %d, %+v", code, run)
	}
	n := inv.ToolExecutionNotifications[0]
	if n.Level != "error" || !strings.Contains(n.Message.Text, "no such file") || !strings.HasSuffix(n.Locations[0].PhysicalLocation.ArtifactLocation.URI, "/missing.ptx") {
		t.Errorf("notification %+v", n)
	}
	if !strings.Contains(errs, "missing.ptx: no such file") {
		t.Errorf("stderr %q", errs)
	}
}

// TestCheckSARIFRuleHelp checks that a rule's description and help come
// from the rule, not from one of its results: two results of one rule
// with different messages give one rule whose help is the isa table's fix.
func TestCheckSARIFRuleHelp(t *testing.T) {
	src := strings.Replace(validPTX, "st.global.u32 [%rd1], %r1;", "st.global.relaxed.u32 [%rd1], %r1;\n\tst.global.release.u32 [%rd1], %r1;", 1)
	code, log, _ := checkSARIF(t, writeFile(t, "k.ptx", src))
	run := log.Runs[0]
	if code != exitFail || len(run.Results) != 2 || run.Results[0].Message.Text == run.Results[1].Message.Text {
		t.Fatalf("exit %d, results %+v", code, run.Results)
	}
	rules := run.Tool.Driver.Rules
	if len(rules) != 1 || rules[0].ID != "st-sem-scope" {
		t.Fatalf("rules %+v", rules)
	}
	r := rules[0]
	if r.Help == nil || r.Help.Text != "add a scope: .cta, .cluster, .gpu or .sys" || r.FullDescription == nil ||
		!strings.Contains(r.FullDescription.Text, "PTX ISA 9.7.9.11") || strings.Contains(r.ShortDescription.Text, "requires a scope") {
		t.Errorf("st-sem-scope: %+v", r)
	}
	code, log, _ = checkSARIF(t, writeFile(t, "k.ptx", strings.Replace(validPTX, "[%rd1], %r1", "[%rd1], %q1", 1)))
	rules = log.Runs[0].Tool.Driver.Rules
	if code != exitFail || len(rules) != 1 || rules[0].Help == nil || !strings.Contains(rules[0].Help.Text, "Declare the register") {
		t.Errorf("exit %d, rules %+v", code, rules)
	}
}

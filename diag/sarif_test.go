package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/token"
)

func sampleList() List {
	return List{
		{File: "k.ptx", Pos: token.Pos{Offset: 40, Line: 5, Col: 10}, End: token.Pos{Offset: 48, Line: 5, Col: 18},
			Severity: Error, Rule: "st-sem-scope", Message: ".relaxed requires a scope",
			Spec: "PTX ISA 9.7.9.11 (st)", Fix: "add a scope: .cta, .cluster, .gpu or .sys"},
		{File: "dir/k.ptx", Pos: token.Pos{Offset: 3, Line: 1, Col: 4}, End: token.Pos{Offset: 9, Line: 1, Col: 10},
			Severity: Warning, Rule: "st-shared-cta-mapa", Message: "address from mapa"},
		{File: "k.ptx", Pos: token.Pos{Offset: 60, Line: 7, Col: 3}, Severity: Error, Rule: "st-sem-scope", Message: "again"},
		{File: "/abs/x y.ptx", Severity: Note, Rule: "", Message: "no position"},
	}
}

// TestSARIFStructure checks the output against the requirements of the
// SARIF 2.1.0 schema for the objects it writes (required properties,
// enums, minimums) and GitHub code scanning's rules.
func TestSARIFStructure(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, sampleList()); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if log["version"] != "2.1.0" {
		t.Errorf("version = %v", log["version"])
	}
	if s, _ := log["$schema"].(string); !strings.Contains(s, "sarif-2.1.0") {
		t.Errorf("$schema = %v", log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "ptxkit" {
		t.Errorf("driver name = %v", driver["name"])
	}
	rules := driver["rules"].([]any)
	ruleIDs := map[string]int{}
	for i, r := range rules {
		r := r.(map[string]any)
		id, _ := r["id"].(string)
		if id == "" {
			t.Errorf("rule %d has no id", i)
		}
		ruleIDs[id] = i
		if sd, _ := r["shortDescription"].(map[string]any); sd["text"] == "" || sd == nil {
			t.Errorf("rule %s has no shortDescription.text", id)
		}
	}
	if len(rules) != 3 {
		t.Errorf("%d rules, want 3 distinct ids: %v", len(rules), ruleIDs)
	}
	results := run["results"].([]any)
	if len(results) != 4 {
		t.Fatalf("%d results, want 4", len(results))
	}
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	for i, r := range results {
		r := r.(map[string]any)
		id := r["ruleId"].(string)
		idx, ok := ruleIDs[id]
		if !ok {
			t.Errorf("result %d: ruleId %q not among the rules", i, id)
		}
		if int(r["ruleIndex"].(float64)) != idx {
			t.Errorf("result %d: ruleIndex %v, rule %q is at %d", i, r["ruleIndex"], id, idx)
		}
		if !levels[r["level"].(string)] {
			t.Errorf("result %d: level %v", i, r["level"])
		}
		if msg := r["message"].(map[string]any); msg["text"] == "" {
			t.Errorf("result %d: empty message", i)
		}
		if fp := r["partialFingerprints"].(map[string]any); len(fp) == 0 {
			t.Errorf("result %d: no fingerprint", i)
		}
		locs := r["locations"].([]any)
		phys := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
		art := phys["artifactLocation"].(map[string]any)
		if art["uri"] == "" {
			t.Errorf("result %d: empty uri", i)
		}
		if reg, ok := phys["region"].(map[string]any); ok {
			if reg["startLine"].(float64) < 1 {
				t.Errorf("result %d: startLine %v", i, reg["startLine"])
			}
			if c, ok := reg["startColumn"]; ok && c.(float64) < 1 {
				t.Errorf("result %d: startColumn %v", i, c)
			}
		}
	}
	first := results[0].(map[string]any)
	loc := first["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
	if got := loc["artifactLocation"].(map[string]any)["uriBaseId"]; got != "%SRCROOT%" {
		t.Errorf("relative path without %%SRCROOT%%: %v", got)
	}
	reg := loc["region"].(map[string]any)
	// Without the source, columns cannot be counted in code points: the
	// region gives the byte offset and length instead.
	if reg["startLine"].(float64) != 5 || reg["byteOffset"].(float64) != 40 || reg["byteLength"].(float64) != 8 || reg["startColumn"] != nil {
		t.Errorf("region = %v", reg)
	}
	if !strings.Contains(first["message"].(map[string]any)["text"].(string), "fix: add a scope") {
		t.Errorf("message lacks the fix: %v", first["message"])
	}
	last := results[3].(map[string]any)
	art := last["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
	if art["uri"] != "file:///abs/x%20y.ptx" {
		t.Errorf("absolute uri = %v", art["uri"])
	}
}

func TestSARIFEmptyAndDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteSARIF(&a, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.String(), `"results": []`) || !strings.Contains(a.String(), `"rules": []`) {
		t.Errorf("empty log lacks empty arrays:\n%s", a.String())
	}
	a.Reset()
	WriteSARIF(&a, sampleList())
	WriteSARIF(&b, sampleList())
	if a.String() != b.String() {
		t.Error("output differs between runs")
	}
}

func TestSARIFCodePointColumns(t *testing.T) {
	src := []byte("// é\nst.global.u32 [x], é;\n")
	// "é" is two bytes: byte column 5 on line 1 ends after it (code point 4).
	l := List{{File: "u.ptx", Pos: token.Pos{Offset: 24, Line: 2, Col: 19}, End: token.Pos{Offset: 26, Line: 2, Col: 21}, Rule: "x", Message: "m"},
		{File: "u.ptx", Pos: token.Pos{Offset: 5, Line: 1, Col: 6}, Rule: "x", Message: "m"}}
	var buf bytes.Buffer
	err := WriteSARIFWith(&buf, l, SARIFOptions{Source: func(string) []byte { return src }})
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartColumn, EndColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r0 := log.Runs[0].Results[0].Locations[0].PhysicalLocation.Region
	r1 := log.Runs[0].Results[1].Locations[0].PhysicalLocation.Region
	if r0.StartColumn != 19 || r0.EndColumn != 21 {
		t.Errorf("ASCII line: columns %d-%d, want 19-21", r0.StartColumn, r0.EndColumn)
	}
	if r1.StartColumn != 5 {
		t.Errorf("after a 2-byte rune: column %d, want 5", r1.StartColumn)
	}
}

// TestSARIFInvocationAndCap checks the objects the SARIF 2.1.0 schema
// requires of an invocation (executionSuccessful) and of a notification
// (message; level one of none, note, warning, error), the cap on results
// and the driver's versions.
func TestSARIFInvocationAndCap(t *testing.T) {
	var buf bytes.Buffer
	opt := SARIFOptions{ToolVersion: "v1.2.3", ToolRevision: "abc", MaxResults: 2,
		Failures: []Failure{{File: "gone.ptx", Err: errors.New("open gone.ptx: no such file or directory")}}}
	if err := WriteSARIFWith(&buf, sampleList(), opt); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version, SemanticVersion string
					Properties               map[string]string
				}
			}
			Invocations []map[string]any
			Results     []any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if d := run.Tool.Driver; d.Version != "1.2.3" || d.SemanticVersion != "1.2.3" || d.Properties["revision"] != "abc" || d.Properties["moduleVersion"] != "v1.2.3" {
		t.Errorf("driver %+v", d)
	}
	if len(run.Results) != 2 || len(run.Invocations) != 1 {
		t.Fatalf("%d results, %d invocations", len(run.Results), len(run.Invocations))
	}
	inv := run.Invocations[0]
	if ok, present := inv["executionSuccessful"].(bool); !present || ok {
		t.Errorf("executionSuccessful = %v", inv["executionSuccessful"])
	}
	notes := inv["toolExecutionNotifications"].([]any)
	want := []string{"error: open gone.ptx: no such file or directory", "warning: 2 of 4 results were dropped: the log holds the first 2"}
	if len(notes) != len(want) {
		t.Fatalf("notifications %v", notes)
	}
	for i, n := range notes {
		n := n.(map[string]any)
		if got := n["level"].(string) + ": " + n["message"].(map[string]any)["text"].(string); got != want[i] {
			t.Errorf("notification %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestIsSemver(t *testing.T) {
	for v, want := range map[string]bool{"1.2.3": true, "0.0.0-20260101-abc": true, "1.2.3+meta": true, "1.2": false, "01.2.3": false, "(devel)": false, "1.2.x": false} {
		if isSemver(v) != want {
			t.Errorf("isSemver(%q) = %v", v, !want)
		}
	}
}

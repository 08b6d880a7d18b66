package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

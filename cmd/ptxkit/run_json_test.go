package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunJSON: --format=json writes one object with the launch, the
// report (its source line and thread), and every buffer in hex.
func TestRunJSON(t *testing.T) {
	k := writeFile(t, "k.ptx", sourceKernel)
	code, out, errs := runCmd(t, "", "run", k, "--block", "8", "--arg", "buf:16", "--arg", "3", "--format=json")
	if code != exitSanitize || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rec struct {
		File, Kernel, Status string
		Block                [3]int
		Report               struct {
			Rule, Source, Opcode string
			Line, Col            int
			Thread               struct {
				Thread [3]int
				Lane   int
			}
		}
		Buffers []struct {
			Arg       int
			Parameter string
			Bytes     int
			Hex       string
		}
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one line, got:\n%s", out)
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	r := rec.Report
	if rec.File != k || rec.Kernel != "k" || rec.Status != "stopped" || rec.Block != [3]int{8, 1, 1} ||
		r.Rule != "out-of-bounds" || r.Line != 18 || r.Col != 2 || r.Source != "add.cu:12:5" || r.Opcode != "st.global.u32" ||
		r.Thread.Thread != [3]int{4, 0, 0} || r.Thread.Lane != 4 {
		t.Errorf("record %+v", rec)
	}
	if len(rec.Buffers) != 1 || rec.Buffers[0].Parameter != "out" || rec.Buffers[0].Bytes != 16 ||
		rec.Buffers[0].Hex != "00000000010000000200000003000000" {
		t.Errorf("buffers %+v", rec.Buffers)
	}

	// A program that does not validate: its diagnostics as JSON Lines.
	bad := writeFile(t, "bad.ptx", strings.Replace(sourceKernel, "ret;", "bogus;", 1))
	code, out, _ = runCmd(t, "", "run", bad, "--format=json")
	if code != exitFail || !strings.HasPrefix(out, `{"file":"`+bad+`","line":19,`) {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if code, _, errs := runCmd(t, "", "run", k, "--format=xml"); code != exitUsage || !strings.Contains(errs, "format") {
		t.Errorf("--format=xml: exit %d, stderr %q", code, errs)
	}
}

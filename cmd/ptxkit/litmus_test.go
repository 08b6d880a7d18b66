package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Message passing with a release store and an acquire load at GPU scope:
// the flag read synchronizes with the flag write (§8.8, §8.9.4), so reading
// the flag and then stale data is impossible.
const litmusMPAcqRel = `PTX MP-acq-rel
{
x=0; flag=0;
}
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0            ;
 st.weak x, 1            | ld.acquire.gpu r0, flag   ;
 st.release.gpu flag, 1  | ld.weak r1, x             ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
`

// The same with relaxed operations: nothing orders the two stores or the
// two loads, so the stale read is allowed.
const litmusMPRelaxed = `PTX MP-relaxed
{
x=0; flag=0;
}
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0            ;
 st.weak x, 1            | ld.relaxed.gpu r0, flag   ;
 st.relaxed.gpu flag, 1  | ld.weak r1, x             ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
`

// A spin loop on a flag nobody sets never ends.
const litmusSpinForever = `PTX spin
{
flag=0;
}
 P0@cta 0,gpu 0             ;
 LC00:                      ;
 ld.relaxed.gpu r0, flag    ;
 bne r0, 0, LC01            ;
 goto LC00                  ;
 LC01:                      ;
exists (P0:r0 == 1)
`

func writeLitmus(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func litmusJSON(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	return recs
}

func TestLitmusJSONVerdicts(t *testing.T) {
	acq := writeLitmus(t, "mp-acq.litmus", litmusMPAcqRel)
	rlx := writeLitmus(t, "mp-rlx.litmus", litmusMPRelaxed)
	for _, model := range []string{"ptx-v6.0", "ptx-v7.5"} {
		code, out, errs := runCmd(t, "", "litmus", "--model", model, "--format=json", acq, rlx)
		if code != exitFail { // MP-acq-rel FAILs: its witness is unreachable
			t.Fatalf("%s: exit %d, want %d, stderr %q", model, code, exitFail, errs)
		}
		recs := litmusJSON(t, out)
		if len(recs) != 2 {
			t.Fatalf("%s: %d records, want 2", model, len(recs))
		}
		want := []struct {
			file, test, witness string
			pass                bool
		}{{acq, "MP-acq-rel", "unreachable", false}, {rlx, "MP-relaxed", "reachable", true}}
		for i, w := range want {
			r := recs[i]
			if r["file"] != w.file || r["test"] != w.test || r["model"] != model || r["witness"] != w.witness || r["pass"] != w.pass {
				t.Errorf("%s record %d = %v, want file %s test %s witness %s pass %v", model, i, r, w.file, w.test, w.witness, w.pass)
			}
			if !strings.HasPrefix(r["condition"].(string), "exists") {
				t.Errorf("condition %q", r["condition"])
			}
			// Four combinations of the two reads, one excluded by synchronization.
			n := r["executions"].(float64)
			if w.pass && n != 4 || !w.pass && n != 3 {
				t.Errorf("%s %s: %v executions", model, w.test, n)
			}
		}
	}
}

func TestLitmusTextShowsWitness(t *testing.T) {
	rlx := writeLitmus(t, "mp-rlx.litmus", litmusMPRelaxed)
	code, out, _ := runCmd(t, "", "litmus", rlx)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"witness reachable: PASS", "* P1:r0=1; P1:r1=0", "a witness execution:", "ld.relaxed.gpu r0, flag", "from e"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	acq := writeLitmus(t, "mp-acq.litmus", litmusMPAcqRel)
	_, out, _ = runCmd(t, "", "litmus", acq)
	if strings.Contains(out, "a witness execution") || !strings.Contains(out, "witness unreachable: FAIL") {
		t.Errorf("unreachable witness output:\n%s", out)
	}
}

func TestLitmusTermination(t *testing.T) {
	spin := writeLitmus(t, "spin.litmus", litmusSpinForever)
	acq := writeLitmus(t, "mp-acq.litmus", litmusMPAcqRel)
	code, out, _ := runCmd(t, "", "litmus", "--property", "termination", "--format=json", spin, acq)
	if code != exitFail { // the spin loop FAILs termination
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	recs := litmusJSON(t, out)
	if recs[0]["witness"] != "reachable" || recs[0]["pass"] != false || recs[0]["property"] != "termination" {
		t.Errorf("spin loop: %v", recs[0])
	}
	if recs[1]["witness"] != "unreachable" || recs[1]["pass"] != true {
		t.Errorf("loop-free test: %v", recs[1])
	}
}

func TestLitmusExitStatus(t *testing.T) {
	good := writeLitmus(t, "mp.litmus", litmusMPRelaxed)
	failing := writeLitmus(t, "mp-acq.litmus", litmusMPAcqRel)
	bad := writeLitmus(t, "bad.litmus", "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.bogus x, 1 ;\nexists (x == 1)\n")
	misnamed := writeLitmus(t, "misnamed.litmus", strings.Replace(litmusMPRelaxed, "P1:r1", "P1:r7", 1))
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"litmus", good}, exitOK, ""},
		{[]string{"litmus", good, failing}, exitFail, ""}, // a FAIL verdict
		{[]string{"litmus", misnamed}, exitFail, "thread P1 has no register r7"},
		{[]string{"litmus", bad, good}, exitFail, "bad.litmus:4: P0: bad store qualifiers .bogus"},
		{[]string{"litmus"}, exitUsage, "usage"},
		{[]string{"litmus", "--model", "ptx-v9", good}, exitUsage, `invalid value "ptx-v9" for flag -model`},
		{[]string{"litmus", "--property", "speed", good}, exitUsage, `invalid value "speed" for flag -property`},
		{[]string{"litmus", "--format=xml", good}, exitUsage, `invalid value "xml" for flag -format`},
		{[]string{"litmus", filepath.Join(t.TempDir(), "missing.litmus")}, exitUsage, "no such file"},
	}
	for _, c := range cases {
		code, _, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d stderr %q, want %d containing %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

// TestLitmusJSONError: a file that does not parse still gets a JSON line,
// with its error, and the exit status is 1.
func TestLitmusJSONError(t *testing.T) {
	bad := writeLitmus(t, "bad.litmus", "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x ;\nexists (x == 1)\n")
	good := writeLitmus(t, "mp.litmus", litmusMPAcqRel)
	code, out, _ := runCmd(t, "", "litmus", "--format=json", bad, good)
	recs := litmusJSON(t, out)
	if code != exitFail || len(recs) != 2 {
		t.Fatalf("exit %d, %d records", code, len(recs))
	}
	if recs[0]["file"] != bad || !strings.Contains(recs[0]["error"].(string), "st needs a location and a value") || recs[0]["witness"] != nil {
		t.Errorf("error record %v", recs[0])
	}
	if recs[1]["witness"] != "unreachable" {
		t.Errorf("second record %v", recs[1])
	}
}

func TestLitmusStdinAndMixedProxy(t *testing.T) {
	code, out, _ := runCmd(t, litmusMPRelaxed, "litmus", "--format=json", "-")
	if code != exitOK || litmusJSON(t, out)[0]["witness"] != "reachable" {
		t.Fatalf("stdin: exit %d, %s", code, out)
	}
	// A mixedproxy template with two instances: a surface store then a
	// generic load of the same address, without and with fence.proxy.surface.
	tmpl := `.global x;
.surfref s virtually aliases x;

d0.b0.t0 {
  sust [s], 1;
  $0
  ld r0, [x];
}

$1 (r0 $2 1) as r0;

$$
                     | permit | !=
fence.proxy.surface; | assert | ==
`
	f := writeLitmus(t, "cowr.test", tmpl)
	code, out, errs := runCmd(t, "", "litmus", "--format=json", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := litmusJSON(t, out)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	// Without the fence the generic load may miss the surface store
	// (§8.9.5: no proxy-preserved causality); with it, it may not.
	if recs[0]["witness"] != "reachable" || recs[0]["pass"] != true || recs[0]["expected"] != "reachable" {
		t.Errorf("instance 1: %v", recs[0])
	}
	if recs[1]["witness"] != "unreachable" || recs[1]["pass"] != true || recs[1]["instance"] != 2.0 {
		t.Errorf("instance 2: %v", recs[1])
	}
}

func TestLitmusPTXKernel(t *testing.T) {
	k := filepath.Join("..", "..", "testdata", "litmus", "mp-release-acquire.ptx")
	code, out, errs := runCmd(t, "", "litmus", "--format=json", "--threads", "0,1", k)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := litmusJSON(t, out)[0]
	if r["test"] != "publish" || r["witness"] != "unreachable" || r["pass"] != true {
		t.Errorf("%v", r)
	}
	if code, _, errs := runCmd(t, "", "litmus", k); code != exitUsage || !strings.Contains(errs, "--threads") {
		t.Errorf("without --threads: exit %d, %q", code, errs)
	}
	if code, _, _ := runCmd(t, "", "litmus", "--threads", "x", k); code != exitUsage {
		t.Errorf("bad --threads: exit %d", code)
	}
}

// TestLitmusDeterministic: the same files give the same bytes.
func TestLitmusDeterministic(t *testing.T) {
	var files []string
	for _, f := range []string{"st-async-mp.litmus", "bulk-copy-missing-proxy-fence.litmus", "mbarrier-relaxed-arrive.litmus"} {
		files = append(files, filepath.Join("..", "..", "testdata", "litmus", f))
	}
	files = append(files, writeLitmus(t, "mp.litmus", litmusMPRelaxed))
	for _, format := range []string{"--format=text", "--format=json"} {
		args := append([]string{"litmus", format}, files...)
		_, first, _ := runCmd(t, "", args...)
		for range 3 {
			if _, again, _ := runCmd(t, "", args...); again != first {
				t.Fatalf("%s: output differs between runs", format)
			}
		}
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// keepGoingKernel has three distinct problems: an out-of-bounds store by
// threads 16..31 of a 64-byte buffer, a misaligned load by threads 0..3,
// and a shfl by the even lanes that reads the odd ones, which do not
// execute it.
const keepGoingKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	setp.lt.u32 %p1, %r1, 4;
	@!%p1 bra SKIP;
	ld.global.u32 %r2, [%rd1+2];
	st.global.u32 [%rd1+60], %r2;
SKIP:
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p2, %r3, 0;
	add.u32 %r5, %r1, 1;
	@%p2 shfl.sync.idx.b32 %r4, %r1, %r5, 0x1f, 0x55555555;
	ret;
}
`

// TestRunKeepGoingText: without --keep-going the run stops at the first
// report; with it, the three problems are reported in order with their
// counts, and the run exits 3 all the same.
func TestRunKeepGoingText(t *testing.T) {
	k := writeFile(t, "k.ptx", keepGoingKernel)
	code, out, errs := runCmd(t, "", "run", k, "--arg", "buf:64", "--dump", "none")
	if code != exitSanitize || strings.Count(errs, "sanitizer:") != 1 || !strings.Contains(out, "stopped by the sanitizer") {
		t.Fatalf("without --keep-going: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "run", k, "--arg", "buf:64", "--dump", "none", "--keep-going")
	if code != exitSanitize || !strings.Contains(out, "ran to the end with 3 distinct problems reported") {
		t.Fatalf("exit %d\nstdout:\n%s", code, out)
	}
	want := []string{"[out-of-bounds]", "hit 16 times, first by the thread named", "[misaligned]", "hit 4 times", "[shfl-inactive-lane]", "hit once"}
	at := 0
	for _, w := range want {
		i := strings.Index(errs[at:], w)
		if i < 0 {
			t.Fatalf("stderr lacks %q after offset %d:\n%s", w, at, errs)
		}
		at += i + len(w)
	}
	_, _, again := runCmd(t, "", "run", k, "--arg", "buf:64", "--dump", "none", "--keep-going")
	if again != errs {
		t.Errorf("a second run reports differently:\n%s\n---\n%s", again, errs)
	}
}

// TestRunKeepGoingJSON: "report" stays the first problem and "reports"
// carries them all with their counts; --max-reports bounds them and
// counts what it left out.
func TestRunKeepGoingJSON(t *testing.T) {
	k := writeFile(t, "k.ptx", keepGoingKernel)
	type rep struct {
		Rule  string
		Line  int
		Count int
	}
	var rec struct {
		Status  string
		Report  rep
		Reports []rep
		LeftOut int `json:"reports_left_out"`
	}
	code, out, _ := runCmd(t, "", "run", k, "--arg", "buf:64", "--keep-going", "--format=json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitSanitize {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	want := []rep{{"out-of-bounds", 13, 16}, {"misaligned", 16, 4}, {"shfl-inactive-lane", 22, 1}}
	if rec.Status != "reported" || rec.Report.Rule != "out-of-bounds" || len(rec.Reports) != 3 || rec.LeftOut != 0 {
		t.Fatalf("record: %+v", rec)
	}
	for i := range want {
		if rec.Reports[i] != want[i] {
			t.Errorf("reports[%d] = %+v, want %+v", i, rec.Reports[i], want[i])
		}
	}
	rec.Reports = nil
	_, out, _ = runCmd(t, "", "run", k, "--arg", "buf:64", "--keep-going", "--max-reports", "1", "--format=json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || len(rec.Reports) != 1 || rec.LeftOut != 5 {
		t.Fatalf("--max-reports 1: %v %+v", err, rec)
	}
	_, out, _ = runCmd(t, "", "run", k, "--arg", "buf:64", "--format=json")
	if strings.Contains(out, `"reports"`) {
		t.Errorf("without --keep-going the record has reports:\n%s", out)
	}
	if code, _, errs := runCmd(t, "", "run", k, "--arg", "buf:64", "--keep-going", "--max-reports", "0"); code != exitUsage || !strings.Contains(errs, "--max-reports 0") {
		t.Errorf("--max-reports 0: exit %d, %s", code, errs)
	}
}

// TestRunKeepGoingStops: a report the run cannot go on from (trap) still
// ends it, after the problems before it.
func TestRunKeepGoingStops(t *testing.T) {
	k := writeFile(t, "k.ptx", `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1+1];
	trap;
	st.global.u32 [%rd1], 7;
	ret;
}
`)
	code, out, errs := runCmd(t, "", "run", k, "--arg", "buf:16", "--keep-going", "--dump", "u32")
	if code != exitSanitize || !strings.Contains(out, "2 distinct problems reported (--keep-going); stopped by the sanitizer") ||
		!strings.Contains(out, "[0] 0 0 0 0") || !strings.Contains(errs, "[misaligned]") || !strings.Contains(errs, "[trap]") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestRunKeepGoingRace: under --race a divergent barrier and the data race
// it lets through are both reported.
func TestRunKeepGoingRace(t *testing.T) {
	code, out, errs := runCmd(t, "", "run", "../../testdata/race/bar_partial_race.ptx", "--block", "64", "--arg", "buf:256",
		"--race", "--keep-going", "--dump", "none")
	if code != exitSanitize || !strings.Contains(out, "2 distinct problems") ||
		strings.Index(errs, "[barrier-divergent]") < 0 || strings.Index(errs, "[data-race]") < strings.Index(errs, "[barrier-divergent]") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

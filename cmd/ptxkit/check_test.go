package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs the ptxkit command line in-process.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const validPTX = `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	st.global.u32 [%rd1], %r1;
	ret;
}
`

const invalidPTX = `.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<2>;
	mov.u32 %r2, 1;
	st.global.u32 [%rd9], %r1
}
`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckValidFile(t *testing.T) {
	f := writeFile(t, "ok.ptx", validPTX)
	code, out, errOut := runCmd(t, "", "check", f)
	if code != exitOK || out != "" || errOut != "" {
		t.Fatalf("check valid: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestCheckTextDiagnostics(t *testing.T) {
	f := writeFile(t, "bad.ptx", invalidPTX)
	code, out, errOut := runCmd(t, "", "check", f)
	if code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	if out != "" {
		t.Errorf("text diagnostics on stdout: %q", out)
	}
	// Line 8 lacks its ';': a syntax error stops resolution.
	want := f + ":8:27: error: missing ';' at end of statement [syntax]\n"
	if errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}

func TestCheckResolveErrorsJSON(t *testing.T) {
	src := strings.Replace(invalidPTX, "%r1\n}", "%r1;\n}", 1)
	code, out, errOut := runCmd(t, src, "check", "--format=json", "-")
	if code != exitFail || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	type jd struct {
		File, Severity, Rule, Message string
		Line, Col, EndLine, EndCol    int
	}
	var got []jd
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var d struct {
			File     string `json:"file"`
			Line     int    `json:"line"`
			Col      int    `json:"col"`
			EndLine  int    `json:"end_line"`
			EndCol   int    `json:"end_col"`
			Severity string `json:"severity"`
			Rule     string `json:"rule"`
			Message  string `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("bad JSON line %q: %v", sc.Text(), err)
		}
		got = append(got, jd{d.File, d.Severity, d.Rule, d.Message, d.Line, d.Col, d.EndLine, d.EndCol})
	}
	want := []jd{
		{"-", "error", "register-out-of-range", "%r2 is out of range: %r<2> declares %r0 to %r1", 7, 10, 7, 13},
		{"-", "error", "undeclared-register", "register %rd9 is not declared", 8, 17, 8, 21},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("diagnostic %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCheckFlagsAfterFiles(t *testing.T) {
	bad := writeFile(t, "bad.ptx", strings.Replace(invalidPTX, "%r1\n}", "%r1;\n}", 1))
	code, out, errOut := runCmd(t, "", "check", bad, "--format=json")
	if code != exitFail || errOut != "" || strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, `{"file":"`+bad) {
		t.Fatalf("flags after the file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// After "--" everything is a file, even a name that looks like a flag.
	if code, _, errOut := runCmd(t, "", "check", "--", "--format=json"); code != exitUsage || !strings.Contains(errOut, "--format=json") {
		t.Errorf("after --: exit %d, stderr %q", code, errOut)
	}
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", "--format=xml", "x.ptx"},
		{"check", "--bogus", "x.ptx"},
		{"check", filepath.Join(t.TempDir(), "missing.ptx")},
		{"fmt"},
		{"fmt", filepath.Join(t.TempDir(), "missing.ptx")},
	} {
		if code, _, errOut := runCmd(t, "", args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: exit %d (stderr %q), want %d with a message", args, code, errOut, exitUsage)
		}
	}
}

func TestFmt(t *testing.T) {
	code, out, errOut := runCmd(t, "  .version 8.5\n.target sm_90\n.entry k ( ) { ret ; }\n", "fmt", "-")
	want := ".version 8.5\n.target sm_90\n\n.entry k()\n{\n\tret;\n}\n"
	if code != exitOK || out != want || errOut != "" {
		t.Fatalf("fmt: exit %d, stdout %q (want %q), stderr %q", code, out, want, errOut)
	}
	code, out, errOut = runCmd(t, ".entry k( { ret; }\n", "fmt", "-")
	if code != exitFail || out != "" || !strings.Contains(errOut, "-:1:") {
		t.Fatalf("fmt of bad input: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestCheckTestdataClean(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "hand", "*.ptx"))
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	args := append([]string{"check", "--format=json"}, files...)
	code, out, errOut := runCmd(t, "", args...)
	// The validator may report warnings, but the front end must not fail.
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(line, `"rule":"syntax"`) || strings.Contains(line, `"rule":"undeclared`) {
			t.Errorf("front-end diagnostic on valid testdata: %s", line)
		}
	}
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestFmtKeepsComments(t *testing.T) {
	in := "// header\n.version 8.5\n.entry k() // kernel\n{\n  mov.u32 %r1, /* inline */ 1; // trailing\n\n\n  // before ret\n  ret;\n}\n"
	want := "// header\n.version 8.5\n\n.entry k() // kernel\n{\n\tmov.u32 %r1, 1; /* inline */ // trailing\n\n\t// before ret\n\tret;\n}\n"
	code, out, errOut := runCmd(t, in, "fmt", "-")
	if code != exitOK || out != want || errOut != "" {
		t.Fatalf("fmt: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

func TestFmtListAndWrite(t *testing.T) {
	messy := writeFile(t, "messy.ptx", ".version 8.5\n.entry k ( ) { ret ; }\n")
	clean := writeFile(t, "clean.ptx", ".version 8.5\n\n.entry k()\n{\n\tret;\n}\n")
	code, out, errOut := runCmd(t, "", "fmt", "-l", messy, clean)
	if code != exitFail || out != messy+"\n" || errOut != "" { // 1: a file needs formatting
		t.Fatalf("fmt -l: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := runCmd(t, "", "fmt", "-l", clean); code != exitOK || out != "" {
		t.Fatalf("fmt -l of a formatted file: exit %d, stdout %q", code, out)
	}
	code, out, errOut = runCmd(t, "", "fmt", "-w", messy)
	if code != exitOK || out != "" || errOut != "" {
		t.Fatalf("fmt -w: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	got, err := os.ReadFile(messy)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(clean)
	if !bytes.Equal(got, want) {
		t.Errorf("after fmt -w:\n%s\nwant:\n%s", got, want)
	}
	if code, _, _ := runCmd(t, "", "fmt", "-w", "-"); code != exitUsage {
		t.Errorf("fmt -w - : exit %d, want %d", code, exitUsage)
	}
}

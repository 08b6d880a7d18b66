package check

import (
	"bufio"
	"encoding/json"
	"errors"
	"github.com/ptxkit/ptxkit/internal/testref"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// ptxas13Dir holds ptxas 13.0's recorded verdicts (PTX ISA 8.6-9.0), beside
// the project root.
var ptxas13Dir = testref.Path("oracle", "ptxas13")

// A ptxas13Case is one recorded case: a small kernel whose only
// questionable line is Line, and the lines ptxas 13.0 reported errors on.
type ptxas13Case struct {
	ID         int      `json:"id"`
	Version    string   `json:"version"`
	Target     string   `json:"target"`
	Instr      string   `json:"instr"`
	Line       int      `json:"line"`
	Text       string   `json:"text"`
	RC         int      `json:"ptxas_rc"`
	ErrorLines []int    `json:"ptxas_error_lines"`
	Msgs       []string `json:"ptxas_msgs"`
}

func readPtxas13(t *testing.T, name string) []ptxas13Case {
	t.Helper()
	f, err := os.Open(filepath.Join(ptxas13Dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("ptxas 13.0 verdicts not found (%s): ../shared is absent", ptxas13Dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []ptxas13Case
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c ptxas13Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestPtxas13Agreement checks every recorded ptxas 13.0 verdict with the
// validator following ptxas 13.0 (Config.Ptxas "13.0"): a case agrees when
// the validator reports an error on the case's line exactly when ptxas
// did, and no error anywhere else. Every form ptxas accepts that strict
// mode rejects (the pages forbid it) must carry a warning.
func TestPtxas13Agreement(t *testing.T) {
	for _, file := range []string{"st_cases.jsonl", "tcgen05_cases.jsonl"} {
		t.Run(strings.TrimSuffix(file, ".jsonl"), func(t *testing.T) {
			cases := readPtxas13(t, file)
			bad, warned := 0, 0
			for _, c := range cases {
				lines, l := fullErrorLines(c.Text, Config{Ptxas: "13.0"})
				if !agrees(c, lines) {
					bad++
					t.Errorf("case %d (%s, %s) %s: ptxas 13.0 %s, ptxkit %s\n\tptxas: %s\n\tptxkit: %s",
						c.ID, c.Version, c.Target, c.Instr, verdict(c.RC != 0), verdict(lines[c.Line]),
						strings.Join(c.Msgs, "; "), ourMsgs(l))
					continue
				}
				if c.RC != 0 {
					continue
				}
				if strict, _ := fullErrorLines(c.Text, Config{Ptxas: "13.0", Strict: true}); strict[c.Line] {
					warned++
					if !hasWarning(l, c.Line) {
						t.Errorf("case %d %s: accepted against the page without a warning", c.ID, c.Instr)
					}
				}
			}
			t.Logf("%d/%d cases agree with ptxas 13.0; %d accepted against the pages, with a warning", len(cases)-bad, len(cases), warned)
		})
	}
}

// TestPtxas13Default checks the default choice of ptxas (Config.Ptxas ""):
// ptxas 13.0's verdict from PTX ISA 8.6 on; up to 8.5, where ptxas 12.5
// decides, the cases ptxas 13.0 accepts against the pages are rejected,
// as ptxas 12.5 does (checked with it when it is installed).
func TestPtxas13Default(t *testing.T) {
	cases := readPtxas13(t, "st_cases.jsonl")
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	older := 0
	for _, c := range cases {
		lines, l := fullErrorLines(c.Text, Config{})
		if agrees(c, lines) {
			continue
		}
		v, _ := isa.ParseVersion(c.Version)
		if v >= ptxas13Since || c.RC != 0 {
			t.Errorf("case %d (%s, %s) %s: ptxas 13.0 %s, ptxkit %s: %s", c.ID, c.Version, c.Target, c.Instr,
				verdict(c.RC != 0), verdict(lines[c.Line]), ourMsgs(l))
			continue
		}
		older++
		if ptxas != "" && !ptxasErrorLines(t, ptxas, dir, c.Target, c.Text)[c.Line] {
			t.Errorf("case %d (%s, %s) %s: rejected, but ptxas 12.5 accepts it", c.ID, c.Version, c.Target, c.Instr)
		}
	}
	if ptxas == "" {
		t.Logf("ptxas 12.5 not checked: %s", oracle.SkipMessage)
	}
	t.Logf("%d cases up to PTX ISA 8.5 follow ptxas 12.5 against ptxas 13.0", older)
}

// agrees reports whether the lines with errors are those ptxas reported:
// the case's line exactly when ptxas rejected it, and no other.
func agrees(c ptxas13Case, lines map[int]bool) bool {
	for n := range lines {
		if n != c.Line {
			return false
		}
	}
	return lines[c.Line] == (c.RC != 0)
}

func hasWarning(l diag.List, line int) bool {
	for _, d := range l {
		if d.Severity == diag.Warning && int(d.Pos.Line) == line {
			return true
		}
	}
	return false
}

func verdict(reject bool) string {
	if reject {
		return "rejects"
	}
	return "accepts"
}

func ourMsgs(l diag.List) string {
	var s []string
	for _, d := range l {
		if d.Severity == diag.Error {
			s = append(s, d.Message+" ["+d.Rule+"]")
		}
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// fullErrorLines runs the whole front end and the validator on src as
// ptxkit check does (syntax, then resolution, then validation, each only
// when the one before found no error) and returns the lines with errors.
func fullErrorLines(src string, cfg Config) (map[int]bool, diag.List) {
	m, l := parser.ParseString("k.ptx", src)
	if !l.HasErrors() {
		_, rerrs := resolve.Module(m)
		l = append(l, rerrs...)
		if !rerrs.HasErrors() {
			l = append(l, Module(m, cfg)...)
		}
	}
	lines := map[int]bool{}
	for _, d := range l {
		if d.Severity == diag.Error {
			lines[int(d.Pos.Line)] = true
		}
	}
	return lines, l
}

// TestAgainstPageSeverity pins the severity of each form ptxas 13.0 accepts
// against the pages, without the recorded cases: a warning from PTX ISA
// 8.6 on, an error under Strict or when following ptxas 12.5, and an error
// up to PTX ISA 8.5 by default.
func TestAgainstPageSeverity(t *testing.T) {
	forms := []struct{ target, instr, rule string }{
		{"sm_100a", "st.async.shared::cta.mbarrier::complete_tx::bytes.b32 [sh], %r1, [sh+64]", "st-async-space"},
		{"sm_100a", "st.async.shared.b32 [sh], %r1, [sh+64]", "st-async-completion"},
		{"sm_100a", "st.async.global.b32 [%rd1], %r1, [%rd2]", "st-async-space"},
		{"sm_100a", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [sh], %r1", "operand-count"},
		{"sm_100a", "st.async.mbarrier::complete_tx::bytes.b16 [%rd1], %h1", "st-async-type"},
		{"sm_100a", "st.global.v8.b16 [%rd1], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1}", "st-v8-type"},
		{"sm_100a", "tcgen05.st.sync.32x32b.x1.b32 [%r1], {%r2}", "missing-qualifier"},
	}
	for _, f := range forms {
		src := func(version string) string {
			return ".version " + version + "\n.target " + f.target + "\n.address_size 64\n.visible .entry k()\n{\n" +
				"  .reg .b16 %h<2>;\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n  .shared .align 16 .b8 sh[512];\n  " +
				f.instr + ";\n  ret;\n}\n"
		}
		for _, tc := range []struct {
			version string
			cfg     Config
			want    diag.Severity
		}{
			{"8.8", Config{}, diag.Warning},
			{"8.8", Config{Strict: true}, diag.Error},
			{"8.8", Config{Ptxas: "12.5"}, diag.Error},
			{"8.8", Config{Ptxas: "13.0"}, diag.Warning},
		} {
			_, l := fullErrorLines(src(tc.version), tc.cfg)
			var got []string
			found := false
			for _, d := range l {
				got = append(got, d.Severity.String()+" "+d.Rule+": "+d.Message)
				if d.Rule == f.rule && d.Severity == tc.want {
					found = true
				} else if d.Severity == diag.Error && tc.want == diag.Warning {
					found = false
					break
				}
			}
			if !found {
				t.Errorf("%s with PTX %s %+v: want one %v [%s], got %q", f.instr, tc.version, tc.cfg, tc.want, f.rule, got)
			}
		}
	}
}

// TestNarrowAsyncOperandCount checks that ptxas 13.0's leniency on 16-bit
// st.async types holds only without the mbarrier operand: the
// three-operand form stays an error when following ptxas 13.0.
func TestNarrowAsyncOperandCount(t *testing.T) {
	for _, tc := range []struct {
		ops  string
		want diag.Severity
	}{
		{"[%rd1], %h1", diag.Warning},
		{"[%rd1], %h1, [%rd2]", diag.Error},
	} {
		src := ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n" +
			"  .reg .b16 %h<2>;\n  .reg .b64 %rd<3>;\n" +
			"  st.async.mbarrier::complete_tx::bytes.b16 " + tc.ops + ";\n  ret;\n}\n"
		_, l := fullErrorLines(src, Config{Ptxas: "13.0"})
		found := false
		for _, d := range l {
			if d.Rule == "st-async-type" {
				found = true
				if d.Severity != tc.want {
					t.Errorf("st.async .b16 %s: %v %s, want %v", tc.ops, d.Severity, d.Message, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("st.async .b16 %s: no st-async-type diagnostic in %s", tc.ops, ourMsgs(l))
		}
	}
}

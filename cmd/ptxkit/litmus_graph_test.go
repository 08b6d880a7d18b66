package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

const mpRelAcq = "../../testdata/litmus/mp-release-acquire.ptx"

// dotEdges returns the edges of one outcome cluster of a --dot graph as
// "FROM -rel-> TO" with the cluster prefix removed.
func dotEdges(t *testing.T, dot, cluster string) []string {
	t.Helper()
	i := strings.Index(dot, "subgraph cluster_"+cluster+" {")
	if i < 0 {
		t.Fatalf("no cluster %s in:\n%s", cluster, dot)
	}
	re := regexp.MustCompile(`(?m)^    ` + cluster + `_(e\d+) -> ` + cluster + `_(e\d+) \[color=\w+, fontcolor=\w+, label="(\w+)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(dot[i:], -1) {
		out = append(out, m[1]+" -"+m[3]+"-> "+m[2])
	}
	return out
}

func TestLitmusDotMessagePassing(t *testing.T) {
	code, dot, errs := runCmd(t, "", "litmus", "--dot", "--threads", "0,1", mpRelAcq)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(dot, "digraph litmus {") || !strings.HasSuffix(dot, "}\n") {
		t.Fatalf("not one digraph:\n%s", dot)
	}
	// Three allowed outcomes, each an execution; the condition's outcome
	// (flag seen, data stale) is forbidden.
	for _, want := range []string{
		`label="allowed outcome P1:%r1=0; P1:%r2=0 (1 execution)"`,
		`label="allowed outcome P1:%r1=0; P1:%r2=42 (1 execution)"`,
		`label="allowed outcome P1:%r1=1; P1:%r2=42 (1 execution)"`,
		`label="thread P0\ncta 0, gpu 0"`, `label="thread P1\ncta 1, gpu 0"`, `label="initial state"`,
		`g0_o2_e3 [shape=box, style=rounded, fontname="Helvetica", fontsize=11, label="e3: W flag=1\nst.release.gpu.global.u32 [flag], 1\n(release, gpu)"]`,
		`g0_forbidden [shape=note`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("dot lacks %s:\n%s", want, dot)
		}
	}
	// The outcome where the reader sees the flag: the release store and the
	// data reach it through rf, po orders each thread, the acquire
	// synchronizes with the release, and init writes come first in co.
	got := strings.Join(dotEdges(t, dot, "g0_o2"), "\n")
	want := strings.Join([]string{
		"e2 -po-> e3", "e4 -po-> e5",
		"e3 -rf-> e4", "e2 -rf-> e5",
		"e0 -co-> e2", "e1 -co-> e3",
		"e3 -sw-> e4",
	}, "\n")
	if got != want {
		t.Errorf("edges of the flag-seen outcome:\n%s\nwant\n%s", got, want)
	}
	// Where the reader sees neither, both reads are fr-before the writes.
	got = strings.Join(dotEdges(t, dot, "g0_o0"), "\n")
	for _, e := range []string{"e4 -fr-> e3", "e5 -fr-> e2", "e1 -rf-> e4", "e0 -rf-> e5"} {
		if !strings.Contains(got, e) {
			t.Errorf("stale outcome lacks %s:\n%s", e, got)
		}
	}
	t.Run("graphviz", func(t *testing.T) {
		dotBin, err := exec.LookPath("dot")
		if err != nil {
			t.Skip("Graphviz's dot is not installed: the DOT was checked structurally only")
		}
		cmd := exec.Command(dotBin, "-Tsvg")
		cmd.Stdin = strings.NewReader(dot)
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("<svg")) {
			t.Fatalf("dot rejects the graph: %v\n%s", err, out)
		}
		if bytes.Contains(out, []byte("Warning")) || bytes.Contains(out, []byte("syntax error")) {
			t.Errorf("dot warns:\n%s", out)
		}
	})
}

func TestLitmusSVG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		code, _, errs := runCmd(t, "", "litmus", "--format=svg", "--threads", "0,1", mpRelAcq)
		if code != exitUsage || !strings.Contains(errs, "needs Graphviz's dot") {
			t.Errorf("without dot: exit %d, %q", code, errs)
		}
		t.Skip("Graphviz's dot is not installed: checked the message that says so")
	}
	code, svg, errs := runCmd(t, "", "litmus", "--format=svg", "../../testdata/litmus/st-async-mp.litmus")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = false // the DOCTYPE names an external DTD
	nodes := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "g" {
			for _, a := range se.Attr {
				if a.Name.Local == "class" && a.Value == "node" {
					nodes++
				}
			}
		}
	}
	// st-async-mp: init, P0's st.async (its write and its arrive), P1's
	// try_wait and load, and the note on the forbidden condition.
	if nodes != 6 {
		t.Errorf("%d nodes drawn, want 6", nodes)
	}
	for _, want := range []string{"thread P0", "thread P1", "W data=42", "arrive bar", "wait bar", "forbidden"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestLitmusJSONWitnessExecution(t *testing.T) {
	code, out, errs := runCmd(t, "", "litmus", "--format=json", "--threads", "0,1", "../../testdata/litmus/mp-relaxed.ptx")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec struct {
		Witness string `json:"witness"`
		Exec    struct {
			Events []struct {
				ID     int    `json:"id"`
				Thread string `json:"thread"`
				Action string `json:"action"`
				Sem    string `json:"sem"`
				Scope  string `json:"scope"`
				Where  string `json:"where"`
			} `json:"events"`
			PO, RF, CO, FR, SW [][2]int
		} `json:"witness_execution"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	x := rec.Exec
	if rec.Witness != "reachable" || len(x.Events) != 6 {
		t.Fatalf("witness %s with %d events:\n%s", rec.Witness, len(x.Events), out)
	}
	// The witness: the relaxed flag is seen, the data is not.
	if x.Events[4].Where != "cta 1, gpu 0" || x.Events[0].Where != "" {
		t.Errorf("scope tree: %+v", x.Events)
	}
	if x.Events[4].Action != "R flag=1" || x.Events[5].Action != "R data=0" || x.Events[3].Sem != "relaxed" || x.Events[3].Scope != "gpu" {
		t.Errorf("events: %+v", x.Events)
	}
	has := func(rel [][2]int, a, b int) bool {
		for _, e := range rel {
			if e == [2]int{a, b} {
				return true
			}
		}
		return false
	}
	if !has(x.RF, 3, 4) || !has(x.RF, 0, 5) || !has(x.CO, 0, 2) || !has(x.FR, 5, 2) || !has(x.PO, 2, 3) || len(x.SW) != 0 {
		t.Errorf("relations: po %v rf %v co %v fr %v sw %v", x.PO, x.RF, x.CO, x.FR, x.SW)
	}
}

func TestLitmusDotFlagConflict(t *testing.T) {
	code, _, errs := runCmd(t, "", "litmus", "--dot", "--format=json", mpRelAcq)
	if code != exitUsage || !strings.Contains(errs, "choose one") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

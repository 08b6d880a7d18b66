package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/ptxkit/ptxkit/mm"
)

// writeLitmusGraph writes the executions of the decided tests as one
// Graphviz digraph (--format=dot), or draws it with dot (--format=svg):
// a cluster per allowed outcome of each test holding an execution that
// ends in it, and a note for a condition no allowed execution reaches.
func writeLitmusGraph(w io.Writer, recs []*litmusRecord, opt litmusOptions) error {
	var b bytes.Buffer
	b.WriteString("digraph litmus {\n  compound=true; newrank=true; fontname=\"Helvetica\";\n  node [fontname=\"Helvetica\"]; edge [fontname=\"Helvetica\"];\n")
	for i, r := range recs {
		writeRecordGraph(&b, fmt.Sprintf("g%d", i), r)
	}
	b.WriteString("}\n")
	if opt.graph == "dot" {
		_, err := w.Write(b.Bytes())
		return err
	}
	svg, err := drawDot(b.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(svg)
	return err
}

// writeRecordGraph writes the clusters of one test: an execution per
// allowed outcome (the witness's outcomes first), or the witness
// execution of a termination check.
func writeRecordGraph(b *bytes.Buffer, prefix string, r *litmusRecord) {
	name := r.Test
	if r.Instance > 0 {
		name = fmt.Sprintf("%s#%d", name, r.Instance)
	}
	fmt.Fprintf(b, "  subgraph cluster_%s {\n  label=%s; fontsize=16; style=solid;\n", prefix, mm.DotQuote(fmt.Sprintf("%s under %s: %s", name, r.Model, r.Condition)))
	drawnAny := false
	for _, witness := range []bool{true, false} {
		for i, o := range r.Outcomes {
			if o.Witness != witness || o.Example == nil {
				continue
			}
			role := "allowed outcome"
			if witness {
				role = "witness: allowed outcome"
			}
			title := fmt.Sprintf("%s %s (%s)", role, o.State, plural(o.Count, "execution"))
			o.Example.Graph(r.prog).WriteDot(b, fmt.Sprintf("%s_o%d", prefix, i), title)
			drawnAny = true
		}
	}
	if !drawnAny && r.result != nil && r.result.Witness != nil {
		r.result.Witness.Graph(r.prog).WriteDot(b, prefix+"_w", "witness: "+r.Condition)
		drawnAny = true
	}
	if !r.result.Reachable {
		fmt.Fprintf(b, "  %s_forbidden [shape=note, fontname=\"Helvetica\", label=%s];\n", prefix,
			mm.DotQuote("forbidden: no allowed execution satisfies\n"+r.Condition))
	}
	b.WriteString("  }\n")
}

// drawDot runs Graphviz's dot on a graph and returns the SVG.
func drawDot(graph []byte) ([]byte, error) {
	path, err := exec.LookPath("dot")
	if err != nil {
		return nil, errors.New("--format=svg needs Graphviz's dot on PATH (or use --dot and draw it elsewhere)")
	}
	cmd := exec.Command(path, "-Tsvg")
	cmd.Stdin = bytes.NewReader(graph)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dot: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// plural writes n with the noun, made plural when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package check

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// placement is one way of moving or adding a qualifier in a valid
// instruction: where ptxas 12.5 reads the instruction's name
// (OpForm.Head), which qualifiers it ignores after the name (testp
// properties, .pred on some instructions, the alternate types on
// movmatrix) and in what order it takes the rest (docs/ptxas-differences.md).
type placement struct {
	name string
	edit func(quals []string) []string
}

var placements = []placement{
	{"valid", func(q []string) []string { return q }},
	{".pred last", func(q []string) []string { return append(q, ".pred") }},
	{".pred first", func(q []string) []string { return append([]string{".pred"}, q...) }},
	{".infinite last", func(q []string) []string { return append(q, ".infinite") }},
	{".infinite first", func(q []string) []string { return append([]string{".infinite"}, q...) }},
	{".bf16x2 last", func(q []string) []string { return append(q, ".bf16x2") }},
	{"first qualifier last", func(q []string) []string {
		if len(q) < 2 {
			return nil
		}
		return append(q[1:], q[0])
	}},
	{"second and third swapped", func(q []string) []string {
		if len(q) < 3 {
			return nil
		}
		q[1], q[2] = q[2], q[1]
		return q
	}},
}

// TestPtxasQualifierPlacement builds a valid instance of every form with
// described operands that the version and target have, applies each
// placement, and compares the checker's verdict on each line with ptxas
// 12.5's. PTXKIT_PLACE_TARGET sets the version and target ("8.5 sm_90a").
func TestPtxasQualifierPlacement(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skipf("ptxas 12.5: %s", oracle.SkipMessage)
	}
	v, tg := "8.5", "sm_90a"
	if f := strings.Fields(os.Getenv("PTXKIT_PLACE_TARGET")); len(f) == 2 {
		v, tg = f[0], f[1]
	}
	g := newOpGen(rand.New(rand.NewPCG(3, 4)), v, tg, "")
	var lines, what []string
	for _, f := range g.forms {
		if f.PTX > g.version || !f.Arch.Allows(g.target, g.version) {
			continue
		}
		quals, ops, _, ok := g.instance(f)
		if !ok {
			continue
		}
		for _, p := range placements {
			q := p.edit(append([]string(nil), quals...))
			if q == nil {
				continue
			}
			line := f.Opcode + strings.Join(q, "")
			if len(ops) > 0 {
				line += " " + strings.Join(ops, ", ")
			}
			lines = append(lines, line+";")
			what = append(what, p.name)
		}
	}
	bad := 0
	for s := 0; s < len(lines); s += 200 {
		bad += placementBatch(t, ptxas, v, tg, lines[s:min(s+200, len(lines))], what[s:])
	}
	t.Logf("%d lines (PTX %s, %s), %d disagree", len(lines), v, tg, bad)
}

// placementBatch assembles one batch of lines and reports each line on
// which the checker and ptxas disagree; it returns their number.
func placementBatch(t *testing.T, ptxas, v, tg string, lines, what []string) int {
	dir := t.TempDir()
	header := opKernelHeader(v, tg)
	first := strings.Count(header, "\n") + 1
	src := header + strings.Join(lines, "\n") + "\n" + kernelFooter
	theirs, _ := ptxasVerdicts(t, ptxas, dir, tg, src)
	ours, _ := ourErrorLines(src, "")
	if len(theirs) > 0 {
		again, _ := ptxasVerdicts(t, ptxas, dir, tg, acceptedOnly(src, first, len(lines), ours))
		for ln := range again {
			theirs[ln] = true
		}
	}
	bad := 0
	for i, line := range lines {
		ln := first + i
		want := theirs[ln]
		if want != ours[ln] {
			single, _ := ptxasVerdicts(t, ptxas, dir, tg, header+line+"\n"+kernelFooter)
			want = single[first]
		}
		if want != ours[ln] {
			bad++
			t.Errorf("%s (%s): ptxas error=%v, ptxkit error=%v", line, what[i], want, ours[ln])
		}
	}
	return bad
}

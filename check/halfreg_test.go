package check

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
)

var genReg = regexp.MustCompile(`%R[a-z0-9]+_[0-9]`)

type halfBase struct {
	f    *isa.OpForm
	d    isa.OpDecode
	head string   // opcode and qualifiers
	ops  []string // operands
}

// halfBases returns up to four valid-looking instances of every form with
// described operands (PTX 8.5, target tg).
func halfBases(tg string) []halfBase {
	g := newOpGen(rand.New(rand.NewPCG(7, 7)), "8.5", tg, "")
	var l []halfBase
	for _, f := range g.forms {
		for k := 0; k < 4; k++ {
			quals, ops, _, ok := g.instance(f)
			if !ok {
				break
			}
			b := halfBase{f: f, head: f.Opcode + strings.Join(quals, ""), ops: ops}
			isa.DecodeOp(f.Opcode, quals, isa.LookupQuals(quals, nil), -1, &b.d, nil)
			l = append(l, b)
		}
	}
	return l
}

func (b *halfBase) line(ops []string) string { return b.head + " " + strings.Join(ops, ", ") + ";" }

// halfRegGrid returns the instances of bases with each register operand
// in turn replaced by a .f16 and a .f16x2 register (PTX ISA 9.4.1 says
// nothing of half registers in other operands; ptxas 12.5 takes them in
// some: docs/ptxas-differences.md), each (form, operand, type) once.
func halfRegGrid(bases []halfBase) []string {
	seen := map[string]bool{}
	var l []string
	for _, b := range bases {
		for i, o := range b.ops {
			if i >= len(b.f.Operands) || !strings.HasPrefix(strings.TrimPrefix(o, "!"), "%R") {
				continue
			}
			t, bits := wantType(&b.d, &b.f.Operands[i])
			for _, h := range []string{"f16", "f16x2"} {
				key := fmt.Sprintf("%s|%d|%s|%s|%d", b.f.Name, i, h, t, bits)
				if seen[key] {
					continue
				}
				seen[key] = true
				mut := slices.Clone(b.ops)
				mut[i] = genReg.ReplaceAllString(o, "%R"+h+"_1")
				l = append(l, b.line(mut))
			}
		}
	}
	return l
}

// acceptedBases returns the bases ptxas accepts on target tg.
func acceptedBases(t *testing.T, ptxas, dir, tg string, bases []halfBase) []halfBase {
	header := opKernelHeader("8.5", tg)
	first := strings.Count(header, "\n") + 1
	var src strings.Builder
	src.WriteString(header)
	for _, b := range bases {
		src.WriteString(b.line(b.ops) + "\n")
	}
	src.WriteString(kernelFooter)
	bad, _ := ptxasVerdicts(t, ptxas, dir, tg, src.String())
	var l []halfBase
	for i, b := range bases {
		if !bad[first+i] {
			l = append(l, b)
		}
	}
	return l
}

// TestHalfRegGrid compares the checker with ptxas 12.5 line by line on
// halfRegGrid: every operand slot of every form with a .f16 and a .f16x2
// register, on sm_90a, on sm_80 (where ptxas assembles vote.sync and
// barrier.red without .aligned as a routine call) and on sm_60.
func TestHalfRegGrid(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skipf("ptxas 12.5: %s", oracle.SkipMessage)
	}
	dir := t.TempDir()
	targets := []string{"sm_90a", "sm_80", "sm_60"}
	if testing.Short() {
		targets = targets[:1]
	}
	for _, tg := range targets {
		lines := halfRegGrid(acceptedBases(t, ptxas, dir, tg, halfBases(tg)))
		header := opKernelHeader("8.5", tg)
		first := strings.Count(header, "\n") + 1
		src := header + strings.Join(lines, "\n") + "\n" + kernelFooter
		theirs, crashed := ptxasVerdicts(t, ptxas, dir, tg, src)
		ours, diags := ourErrorLines(src, "")
		if crashed {
			t.Fatalf("ptxas crashed on the grid (%s)", tg)
		}
		var mine []int
		for i := range lines {
			if !ours[first+i] {
				mine = append(mine, i)
			}
		}
		again, crashedOn := splitVerdicts(t, ptxas, dir, tg, header, lines, mine)
		agree, valid, total := 0, 0, 0
		for i, line := range lines {
			ln := first + i
			if crashedOn[i] {
				t.Logf("PTX 8.5 %s: ptxas crashes on %s (left out)", tg, line)
				continue
			}
			total++
			want := theirs[ln] || again[i]
			if want != ours[ln] {
				// ptxas stops before its later passes (routine calls, 32-bit
				// addresses) when a file has errors: the line on its own decides.
				single, _ := ptxasVerdicts(t, ptxas, dir, tg, header+line+"\n"+kernelFooter)
				want = single[first]
			}
			if !want {
				valid++
			}
			if want == ours[ln] {
				agree++
				continue
			}
			var msgs []string
			for _, d := range diags {
				if int(d.Pos.Line) == ln {
					msgs = append(msgs, d.Message)
				}
			}
			t.Errorf("PTX 8.5 %s: %s: ptxas error=%v, ptxkit error=%v %q", tg, line, want, ours[ln], msgs)
		}
		t.Logf("PTX 8.5 %s: %d/%d lines agree with ptxas 12.5 (%d accepted, %d left out)", tg, agree, total, valid, len(lines)-total)
		if valid == 0 {
			t.Errorf("ptxas accepts no line of the grid on %s", tg)
		}
	}
}

// splitVerdicts assembles lines[idx...] together (the lines ptxkit accepts,
// which ptxas takes to its later passes when no line has an error) and
// returns the indices ptxas reports; where ptxas crashes it splits the set
// in two, down to single lines, which it returns as crashed.
func splitVerdicts(t *testing.T, ptxas, dir, tg, header string, lines []string, idx []int) (bad, crashed map[int]bool) {
	bad, crashed = map[int]bool{}, map[int]bool{}
	if len(idx) == 0 {
		return bad, crashed
	}
	first := strings.Count(header, "\n") + 1
	var b strings.Builder
	b.WriteString(header)
	for _, i := range idx {
		b.WriteString(lines[i] + "\n")
	}
	b.WriteString(kernelFooter)
	got, crash := ptxasVerdicts(t, ptxas, dir, tg, b.String())
	if !crash {
		for k, i := range idx {
			bad[i] = got[first+k]
		}
		return bad, crashed
	}
	if len(idx) == 1 {
		crashed[idx[0]] = true
		return bad, crashed
	}
	for _, half := range [][]int{idx[:len(idx)/2], idx[len(idx)/2:]} {
		b2, c2 := splitVerdicts(t, ptxas, dir, tg, header, lines, half)
		maps.Copy(bad, b2)
		maps.Copy(crashed, c2)
	}
	return bad, crashed
}

package check

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// The operand-kind enumeration: every operand position of every form of
// isa/data/instructions.txt whose operands are described, in a valid
// instance of the form, replaced by every kind of operand (a register of
// each class and width, vectors, immediates of each form, addresses of
// each form, a symbol, a label, predicates, the sink _, special
// registers). ptxas 12.5's verdict on each line is recorded in
// testdata/ptxas/operand-kinds.tsv.gz (PTXKIT_RECORD_KINDS=1 with ptxas
// installed writes it, PTXKIT_VERIFY_KINDS=1 compares the record with
// ptxas again), and TestOperandKinds compares the checker with the record,
// so CI without ptxas still asserts every verdict. The lines where the
// checker and ptxas still differ are listed, with the reason, in
// testdata/ptxas/operand-kinds-known.txt: a difference not listed fails
// the test, and so does a listed one that is gone (PTXKIT_KINDS_KNOWN=1
// rewrites the list).

const (
	kindsFile    = "../testdata/ptxas/operand-kinds.tsv.gz"
	kindsKnown   = "../testdata/ptxas/operand-kinds-known.txt"
	kindsVersion = "8.5"
	kindsTarget  = "sm_90a"
)

// operandKinds are the operand texts put in each position; the names they
// use are declared by kernelHeader and opKernelHeader.
var operandKinds = []struct{ name, text string }{
	{"reg.b8", "%Rb8_1"}, {"reg.b16", "%Rb16_1"}, {"reg.b32", "%Rb32_1"}, {"reg.b64", "%Rb64_1"}, {"reg.b128", "%Rb128_1"},
	{"reg.u8", "%Ru8_1"}, {"reg.u16", "%Ru16_1"}, {"reg.u32", "%Ru32_1"}, {"reg.u64", "%Ru64_1"},
	{"reg.s8", "%Rs8_1"}, {"reg.s16", "%Rs16_1"}, {"reg.s32", "%Rs32_1"}, {"reg.s64", "%Rs64_1"},
	{"reg.f16", "%Rf16_1"}, {"reg.f16x2", "%Rf16x2_1"}, {"reg.f32", "%Rf32_1"}, {"reg.f64", "%Rf64_1"},
	{"reg.pred", "%Rpred_1"}, {"pred.not", "!%Rpred_1"}, {"pred.pair", "%Rpred_1|%Rpred_2"},
	{"reg.pair", "%Rb32_1|%Rpred_2"}, {"imm.pair", "0x10|%Rpred_2"},
	{"reg.vec4", "vf4"}, {"reg.vecelem", "vb4.x"},
	{"imm.0", "0"}, {"imm.1", "1"}, {"imm.neg", "-1"}, {"imm.hex", "0x10"}, {"imm.big", "4294967296"},
	{"imm.f32", "0f3F800000"}, {"imm.f64", "0d3FF0000000000000"}, {"imm.dec", "1.5"}, {"imm.expr", "(2+3)"},
	{"vec2.b32", "{%Rb32_1, %Rb32_2}"}, {"vec4.b32", "{%Rb32_1, %Rb32_2, %Rb32_3, %Rb32_4}"},
	{"vec4.f32", "{%Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4}"}, {"vec2.b64", "{%Rb64_1, %Rb64_2}"},
	{"vec4.f32h", "{%Rf32_1, %Rf32_2, %Rb16_1, %Rf32_3}"}, {"vec4.u32p", "{%Ru32_1, %Ru32_2, %Ru32_3, %Rpred_3}"},
	{"vec4.b64b32", "{%Rb64_1, %Rb32_2, %Rb32_3, %Rb32_4}"}, {"vec2.imm", "{1, 2}"}, {"vec2.sink", "{%Rb32_1, _}"},
	{"addr.r64", "[%Ru64_1]"}, {"addr.r32", "[%Ru32_1]"}, {"addr.r64off", "[%Ru64_1+16]"}, {"addr.var", "[gb]"},
	{"addr.varoff", "[gb+16]"}, {"addr.shared", "[sh]"}, {"addr.imm", "[256]"}, {"addr.pred", "[%Rpred_1]"},
	{"addr.f32", "[%Rf32_1]"}, {"addr.param", "[p]"},
	{"sym.global", "gb"}, {"sym.shared", "sh"}, {"sym.offset", "gb+4"}, {"label", "GL"},
	{"sink", "_"}, {"sreg.tid", "%tid.x"}, {"sreg.laneid", "%laneid"}, {"sreg.clock64", "%clock64"},
}

// kindCase is one enumerated line and ptxas 12.5's verdict on it.
type kindCase struct {
	form, pos int    // the data file line of the form, the operand position (-1: the valid instance)
	kind      string // operandKinds name, or "base"
	line      string
	ok        bool
}

// enumerateKinds returns the lines of the enumeration, without verdicts.
func enumerateKinds() []kindCase { return enumerateKindsOf(nil) }

// enumerateKindsOf returns the lines of the enumeration of the forms keep
// keeps (nil: every form).
func enumerateKindsOf(keep func(f *isa.OpForm) bool) []kindCase {
	pv, _ := isa.ParseVersion(kindsVersion)
	pt, _ := isa.ParseTarget(kindsTarget)
	var cases []kindCase
	for _, f := range isa.AllForms() {
		if f.AnyOperands || f.PTX > pv || !f.Arch.Allows(pt, pv) || f.Removed(pv, pt) || f.Opcode == "call" {
			continue
		}
		if keep != nil && !keep(f) {
			continue
		}
		g := newOpGen(rand.New(rand.NewPCG(uint64(f.Line), 7)), kindsVersion, kindsTarget, "")
		var quals, ops []string
		ok := false
		for try := 0; try < 16 && !ok; try++ {
			quals, ops, _, ok = g.instance(f)
			ok = ok && len(ops) == len(f.Operands) // every position, optional ones too
		}
		if !ok {
			continue
		}
		if atomCrash(f.Opcode, quals, ops) {
			continue
		}
		head := f.Opcode + strings.Join(quals, "")
		line := func(ops []string) string { return head + " " + strings.Join(ops, ", ") + ";" }
		cases = append(cases, kindCase{form: f.Line, pos: -1, kind: "base", line: line(ops)})
		for i := range ops {
			for _, k := range operandKinds {
				o := append([]string(nil), ops...)
				o[i] = k.text
				cases = append(cases, kindCase{form: f.Line, pos: i, kind: k.name, line: line(o)})
			}
		}
	}
	return cases
}

// kindsKernel returns the kernel of a batch of cases and the line of the
// first.
func kindsKernel(cases []kindCase) (string, int) {
	h := opKernelHeader(kindsVersion, kindsTarget)
	var b strings.Builder
	b.WriteString(h)
	for _, c := range cases {
		b.WriteString(c.line + "\n")
	}
	b.WriteString(kernelFooter)
	return b.String(), strings.Count(h, "\n") + 1
}

// ptxasKinds fills in ptxas 12.5's verdicts of cases, n per run; a batch
// on which ptxas crashes is split until the crashing line is alone, and
// that line is left out (dropped is true).
func ptxasKinds(t *testing.T, ptxas string, cases []kindCase) []kindCase {
	dir := t.TempDir()
	var out []kindCase
	var run func(cs []kindCase)
	run = func(cs []kindCase) {
		src, first := kindsKernel(cs)
		lines, crashed := ptxasVerdicts(t, ptxas, dir, kindsTarget, src)
		if crashed {
			if len(cs) == 1 {
				t.Logf("ptxas 12.5 crashes on %q: left out", cs[0].line)
				return
			}
			run(cs[:len(cs)/2])
			run(cs[len(cs)/2:])
			return
		}
		for i := range cs {
			cs[i].ok = !lines[first+i]
		}
		confirmAccepted(t, ptxas, dir, cs)
		out = append(out, cs...)
	}
	const batch = 600
	for i := 0; i < len(cases); i += batch {
		run(cases[i:min(i+batch, len(cases))])
	}
	return out
}

// confirmAccepted assembles the lines ptxas accepted among other lines it
// rejected again, alone, until they all pass: some checks (a 32-bit
// address in a 64-bit module) come after the errors of other lines have
// stopped ptxas.
func confirmAccepted(t *testing.T, ptxas, dir string, cs []kindCase) {
	for {
		var idx []int
		var ok []kindCase
		for i, c := range cs {
			if c.ok {
				idx = append(idx, i)
				ok = append(ok, c)
			}
		}
		if len(ok) == 0 {
			return
		}
		src, first := kindsKernel(ok)
		lines, crashed := ptxasVerdicts(t, ptxas, dir, kindsTarget, src)
		if crashed {
			return
		}
		changed := false
		for j, i := range idx {
			if lines[first+j] {
				cs[i].ok, changed = false, true
			}
		}
		if !changed {
			return
		}
	}
}

func writeKinds(t *testing.T, cases []kindCase) {
	var b strings.Builder
	fmt.Fprintf(&b, "# ptxas 12.5 verdicts (1 accepts, 0 rejects) of every operand kind in every operand position of the forms\n")
	fmt.Fprintf(&b, "# of isa/data/instructions.txt, in kernels of PTX ISA %s for %s (check/enumerate_test.go).\n", kindsVersion, kindsTarget)
	b.WriteString("# form-line\tposition\tkind\tverdict\tinstruction\n")
	for _, c := range cases {
		v := 0
		if c.ok {
			v = 1
		}
		fmt.Fprintf(&b, "%d\t%d\t%s\t%d\t%s\n", c.form, c.pos, c.kind, v, c.line)
	}
	if err := os.MkdirAll(filepath.Dir(kindsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(kindsFile)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = time.Time{} // the same verdicts give the same bytes
	if _, err := io.WriteString(zw, b.String()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readKinds(t *testing.T) []kindCase {
	f, err := os.Open(kindsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return parseKindCases(t, kindsFile, zr)
}

// parseKindCases reads the lines "form, position, kind, verdict,
// instruction" (tab separated; # comments) of a recorded kinds file.
func parseKindCases(t *testing.T, name string, r io.Reader) []kindCase {
	var cases []kindCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		p := strings.SplitN(l, "\t", 5)
		if len(p) != 5 {
			t.Fatalf("%s: bad line %q", name, l)
		}
		form, _ := strconv.Atoi(p[0])
		pos, _ := strconv.Atoi(p[1])
		cases = append(cases, kindCase{form: form, pos: pos, kind: p[2], ok: p[3] == "1", line: p[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// checkKinds returns the checker's verdicts of cases, checked in kernels
// of 400 lines; a kernel with a syntax or name-resolution error (which
// silences the validator in the whole function) is checked again a line
// per kernel.
func checkKinds(cases []kindCase) []bool {
	ok := make([]bool, len(cases))
	const batch = 400
	for i := 0; i < len(cases); i += batch {
		cs := cases[i:min(i+batch, len(cases))]
		src, first := kindsKernel(cs)
		m, perrs := parser.ParseString("k.ptx", src)
		_, rerrs := resolve.Module(m)
		if perrs.HasErrors() || rerrs.HasErrors() {
			for j, c := range cs {
				src, first := kindsKernel([]kindCase{c})
				lines, _ := checkCommandErrorLines(src)
				ok[i+j] = !lines[first]
			}
			continue
		}
		lines := map[int]bool{}
		for _, d := range Module(m, Config{}) {
			if d.Severity == diag.Error {
				lines[int(d.Pos.Line)] = true
			}
		}
		for j := range cs {
			ok[i+j] = !lines[first+j]
		}
	}
	return ok
}

// TestOperandKinds compares the checker's verdict on every enumerated line
// with ptxas 12.5's recorded one.
func TestOperandKinds(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if os.Getenv("PTXKIT_RECORD_KINDS") != "" {
		if ptxas == "" {
			t.Fatal("PTXKIT_RECORD_KINDS needs ptxas 12.5")
		}
		writeKinds(t, ptxasKinds(t, ptxas, enumerateKinds()))
	}
	cases := readKinds(t)
	if os.Getenv("PTXKIT_VERIFY_KINDS") != "" && ptxas != "" {
		again := ptxasKinds(t, ptxas, cases)
		if len(again) != len(cases) {
			t.Errorf("ptxas 12.5 gave %d verdicts of %d recorded", len(again), len(cases))
		}
		for i := range min(len(again), len(cases)) {
			if again[i].ok != cases[i].ok {
				t.Errorf("ptxas 12.5 now says ok=%v on %q, recorded %v", again[i].ok, cases[i].line, cases[i].ok)
			}
		}
	}
	ours := checkKinds(cases)
	var falseErr, falseOK []string
	byKind := map[string][2]int{}
	for i, c := range cases {
		k := byKind[c.kind]
		k[1]++
		if ours[i] == c.ok {
			k[0]++
		} else if c.ok {
			falseErr = append(falseErr, c.line)
		} else {
			falseOK = append(falseOK, c.line)
		}
		byKind[c.kind] = k
	}
	agree := len(cases) - len(falseErr) - len(falseOK)
	t.Logf("operand kinds: %d/%d lines agree with ptxas 12.5 (%.2f%%): %d false errors, %d false accepts",
		agree, len(cases), 100*float64(agree)/float64(max(1, len(cases))), len(falseErr), len(falseOK))
	if testing.Verbose() {
		names := make([]string, 0, len(byKind))
		for k := range byKind {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			t.Logf("  %-14s %5d/%d", k, byKind[k][0], byKind[k][1])
		}
	}
	var now []string
	for _, l := range falseErr {
		now = append(now, "accepts\t"+l)
	}
	for _, l := range falseOK {
		now = append(now, "rejects\t"+l)
	}
	if os.Getenv("PTXKIT_KINDS_KNOWN") != "" {
		writeKnownKinds(t, now)
	}
	known := readKnownKinds(t)
	for _, l := range now {
		if !known[l] {
			verdict, line, _ := strings.Cut(l, "\t")
			t.Errorf("ptxas 12.5 %s %q, the checker does not (not in %s)", verdict, line, kindsKnown)
		}
		delete(known, l)
	}
	for l := range known {
		t.Errorf("%s lists %q, where the checker now agrees with ptxas 12.5: remove it", kindsKnown, l)
	}
}

// readKnownKinds reads the differences testdata/ptxas/operand-kinds-known.txt
// lists: "accepts" or "rejects" (ptxas's verdict), a tab, the line.
func readKnownKinds(t *testing.T) map[string]bool {
	b, err := os.ReadFile(kindsKnown)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && l[0] != '#' {
			m[l] = true
		}
	}
	return m
}

// writeKnownKinds rewrites the list of known differences, keeping its
// comment lines at the top.
func writeKnownKinds(t *testing.T, now []string) {
	var head []string
	if b, err := os.ReadFile(kindsKnown); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "#") {
				head = append(head, l)
			}
		}
	}
	sort.Strings(now)
	out := strings.Join(append(head, now...), "\n") + "\n"
	if err := os.WriteFile(kindsKnown, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

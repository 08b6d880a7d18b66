package parser_test

import (
	"bufio"
	"fmt"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// corpusPath is the store-family conformance corpus, relative to this
// package.
var corpusPath = testref.Path("corpus", "stores.tsv")

type corpusRow struct {
	line  int
	instr string
	note  string
}

func readCorpus(t testing.TB) []corpusRow {
	t.Helper()
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 5 {
			t.Fatalf("%s:%d: %d columns, want 5", corpusPath, n, len(cols))
		}
		rows = append(rows, corpusRow{line: n, instr: cols[0], note: cols[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// regKinds maps placeholder register prefixes to their declared type
// (the corpus README: r -> %rN, l -> %rdN, f -> %fN, d -> %fdN, h -> %rsN,
// q -> %rqN).
var regKinds = []struct{ prefix, typ string }{
	{"%rd", ".b64"}, {"%rs", ".b16"}, {"%rq", ".b128"}, {"%fd", ".f64"},
	{"%r", ".b32"}, {"%f", ".f32"}, {"%p", ".pred"},
}

// invalidNote matches the notes of rows that are not valid PTX.
var invalidNote = regexp.MustCompile(`(?i)invalid|illegal|not a legal`)

var (
	regRE   = regexp.MustCompile(`%[A-Za-z0-9_$]+`)
	identRE = regexp.MustCompile(`(^|[^%.\w$])([A-Za-z_$][\w$]*)`)
)

// wrapInstruction builds a kernel that declares every register and name an
// instruction uses, so that the instruction can be parsed in context.
func wrapInstruction(instr string) string {
	regs := map[string]string{}  // declared register name -> type
	names := map[string]string{} // plain identifiers -> declaration kind
	body := instr
	if i := strings.Index(body, " "); i >= 0 {
		body = body[i:]
	} else {
		body = ""
	}
	guard := ""
	if strings.HasPrefix(instr, "@") {
		f := strings.Fields(instr)
		guard = strings.TrimLeft(f[0], "@!")
		body = strings.TrimPrefix(instr, f[0])
		if i := strings.Index(strings.TrimSpace(body), " "); i >= 0 {
			body = strings.TrimSpace(body)[i:]
		} else {
			body = ""
		}
	}
	for _, r := range regRE.FindAllString(body+" "+guard, -1) {
		if resolve.LookupSpecial(r) != nil {
			continue
		}
		typ := ".b32"
		for _, k := range regKinds {
			if strings.HasPrefix(r, k.prefix) {
				typ = k.typ
				break
			}
		}
		regs[r] = typ
	}
	if guard != "" && !strings.HasPrefix(guard, "%") {
		regs[guard] = ".pred"
	}
	for _, m := range identRE.FindAllStringSubmatch(body, -1) {
		n := m[2]
		if n == "_" || regs[n] != "" || resolve.LookupConstant(n) != nil {
			continue
		}
		if vectorUse(body, n) {
			// "x16_0.y": a vector register of the instruction's type.
			regs[n] = ".v4 " + lastType(instr)
			continue
		}
		names[n] = ".b32"
	}
	var b strings.Builder
	b.WriteString(".version 8.7\n.target sm_100a\n.address_size 64\n\n")
	for _, n := range sortedKeys(names) {
		fmt.Fprintf(&b, ".global .align 16 .b8 %s[256];\n", n)
	}
	b.WriteString(".visible .entry corpus_kernel()\n{\n")
	for _, r := range sortedKeys(regs) {
		fmt.Fprintf(&b, "\t.reg %s %s;\n", regs[r], r)
	}
	b.WriteString("\t" + instr + "\n}\n")
	return b.String()
}

// vectorUse reports whether name is used with a vector component in s.
func vectorUse(s, name string) bool {
	for _, c := range []string{".x", ".y", ".z", ".w"} {
		if strings.Contains(s, name+c) {
			return true
		}
	}
	return false
}

// lastType returns the last type qualifier of an instruction (".b16" in
// "st.b16"), or ".b32".
func lastType(instr string) string {
	quals := strings.Split(opcodeOf(instr), ".")
	for i := len(quals) - 1; i > 0; i-- {
		switch q := "." + quals[i]; q[1] {
		case 'b', 's', 'u', 'f':
			if len(q) > 2 && q[2] >= '0' && q[2] <= '9' {
				return q
			}
		}
	}
	return ".b32"
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestCorpus parses every instruction of the conformance corpus inside a
// kernel that declares its operands, and checks the print/parse round trip.
func TestCorpus(t *testing.T) {
	rows := readCorpus(t)
	failed := 0
	for _, r := range rows {
		src := wrapInstruction(r.instr)
		name := fmt.Sprintf("stores.tsv:%d", r.line)
		m, errs := parser.ParseString(name, src)
		if errs.HasErrors() {
			if invalidNote.MatchString(r.note) {
				continue // an invalid row may be rejected by the parser
			}
			failed++
			t.Errorf("%s: %q: %v\n%s", name, r.instr, errs.Err(), src)
			continue
		}
		if _, rerrs := resolve.Module(m); rerrs.HasErrors() {
			failed++
			t.Errorf("%s: %q: resolution: %v\n%s", name, r.instr, rerrs.Err(), src)
		}
		in := findInstruction(m)
		if in == nil {
			t.Errorf("%s: no instruction parsed from %q", name, r.instr)
			continue
		}
		if op := opcodeOf(r.instr); in.FullOpcode() != op {
			failed++
			t.Errorf("%s: opcode parsed as %q, written %q", name, in.FullOpcode(), op)
		}
		if n := topLevelOperands(r.instr); len(in.Operands) != n {
			failed++
			t.Errorf("%s: %d operands parsed, %d written in %q", name, len(in.Operands), n, r.instr)
		}
		out := printer.String(m)
		m2, errs2 := parser.ParseString(name+" (printed)", out)
		if errs2.HasErrors() || !ast.Equal(m, m2) {
			failed++
			t.Errorf("%s: round trip failed for %q: %v\n%s", name, r.instr, errs2.Err(), out)
		}
	}
	t.Logf("%d corpus rows, %d failed", len(rows), failed)
}

// opcodeOf returns the opcode with qualifiers of an instruction line.
func opcodeOf(instr string) string {
	f := strings.Fields(instr)
	if strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	return strings.TrimSuffix(f[0], ";")
}

// topLevelOperands counts the operands of an instruction line: the commas
// outside brackets, braces and parentheses, plus one.
func topLevelOperands(instr string) int {
	f := strings.Fields(instr)
	if strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	rest := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.Join(f[1:], " ")), ";"))
	if rest == "" {
		return 0
	}
	n, depth := 1, 0
	for _, c := range rest {
		switch c {
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

func findInstruction(m *ast.Module) *ast.Instruction {
	var in *ast.Instruction
	ast.Inspect(m, func(n ast.Node) bool {
		if x, ok := n.(*ast.Instruction); ok && in == nil {
			in = x
		}
		return in == nil
	})
	return in
}

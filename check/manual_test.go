package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
)

// The PTX ISA manual's own instruction sections, as test data: for each
// section its Syntax block and its Examples (testdata/manual, described in
// its README). TestManualExamples checks that every example is accepted
// (or, where ptxas rejects the manual's own example, rejected);
// TestManualSyntax expands every syntax block over its qualifier
// alternatives and lists the combinations the isa tables lack.

// manualSection is one section file of testdata/manual.
type manualSection struct {
	file        string
	section     string // "9.7.1.1"
	title       string // "Integer Arithmetic Instructions: add"
	notes       string
	version     string // the .version the examples are checked under
	target      string // the .target
	addressSize int    // the .address_size
	decls       []string
	params      []string // the kernels' parameters
	unruled     string   // why the prose's rules on the syntax are not transcribed
	rules       []manualRule
	syntax      []string // the syntax block's lines, comments kept
	examples    []manualExample
	context     []string // the declarations and labels of the Examples block so far
}

// manualExample is one statement of a section's Examples block.
type manualExample struct {
	line            int    // the line of the section file
	text            string // the statement, comments removed, one line
	version, target string // overrides of the section's
	context         []string
	ptxasRejects    string // a known discrepancy: "ptxas: " and its message, or "manual: " and why
	missedError     bool   // ptxas rejects it and the checker still accepts it (a known missed error)
	falseError      string // a known false error of the checker, not yet fixed
}

const (
	manualVersion = "8.5"
	manualTarget  = "sm_90a"
)

// loadManual reads every section file of testdata/manual.
func loadManual(t testing.TB) []*manualSection {
	t.Helper()
	files, err := filepath.Glob("testdata/manual/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manual sections: %v", err)
	}
	var secs []*manualSection
	for _, f := range files {
		s, err := readManualSection(f)
		if err != nil {
			t.Fatal(err)
		}
		secs = append(secs, s)
	}
	slices.SortFunc(secs, func(a, b *manualSection) int { return compareSections(a.section, b.section) })
	return secs
}

// compareSections orders section numbers numerically.
func compareSections(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		fmt.Sscan(as[i], &x)
		fmt.Sscan(bs[i], &y)
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// readManualSection parses one section file:
//
//	section N title        the manual's section
//	notes TEXT             its PTX ISA and target notes, summarized
//	wrap V T [A]           the .version, .target (and .address_size) of its examples
//	decl PTX               a declaration the examples need (hand-written)
//	unruled REASON         the prose's rules are not transcribed: the
//	                       syntax's combinations are counted, not judged
//	param PTX              a parameter of the examples' kernels (hand-written)
//	rule A needs B         a rule of the section's prose: a spelling with a
//	rule A excludes B      qualifier of list A has one (has none) of list B;
//	                       "last:.f32" in B is the spelling's last qualifier
//	syntax                 then the Syntax block's lines
//	examples               then the Examples block's lines, where
//	  [V T]                  (a line) checks the next example under V and T
//	  ! ptxas: MESSAGE       (a line) ptxas rejects the next example
//	  ! manual: REASON       (a line) the next example breaks the section's
//	                         own syntax (PTX ISA 8.6 and later, which
//	                         ptxas 12.5 cannot judge)
//	  !~ ptxas: MESSAGE      (a line) as "!", and the checker still accepts it
//	                         (a known missed error)
//	  ? REASON               (a line) a false error the checker still makes
func readManualSection(path string) (*manualSection, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &manualSection{file: filepath.Base(path), version: manualVersion, target: manualTarget, addressSize: 64}
	mode := ""
	var pending manualExample
	var stmt strings.Builder
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case mode == "" && strings.HasPrefix(trim, "section "):
			num, title, _ := strings.Cut(strings.TrimPrefix(trim, "section "), " ")
			s.section, s.title = num, title
		case mode == "" && strings.HasPrefix(trim, "notes "):
			s.notes = strings.TrimPrefix(trim, "notes ")
		case mode == "" && strings.HasPrefix(trim, "wrap "):
			f := strings.Fields(strings.TrimPrefix(trim, "wrap "))
			if len(f) < 2 || len(f) > 3 {
				return nil, fmt.Errorf("%s:%d: want wrap V T [ADDRESS_SIZE]", path, n)
			}
			s.version, s.target = f[0], f[1]
			if len(f) == 3 {
				fmt.Sscan(f[2], &s.addressSize)
			}
		case mode == "" && strings.HasPrefix(trim, "decl "):
			s.decls = append(s.decls, strings.TrimPrefix(trim, "decl "))
		case mode == "" && strings.HasPrefix(trim, "unruled "):
			s.unruled = strings.TrimPrefix(trim, "unruled ")
		case mode == "" && strings.HasPrefix(trim, "param "):
			s.params = append(s.params, strings.TrimPrefix(trim, "param "))
		case mode == "" && strings.HasPrefix(trim, "rule "):
			r, err := parseManualRule(strings.TrimPrefix(trim, "rule "))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			s.rules = append(s.rules, r)
		case trim == "syntax" || trim == "examples":
			mode = trim
		case mode == "syntax":
			s.syntax = append(s.syntax, line)
		case mode == "examples":
			if err := s.exampleLine(path, n, trim, &pending, &stmt); err != nil {
				return nil, err
			}
		case trim != "" && !strings.HasPrefix(trim, "#"):
			return nil, fmt.Errorf("%s:%d: unexpected %q", path, n, trim)
		}
	}
	if stmt.Len() > 0 {
		return nil, fmt.Errorf("%s: an example without ';': %q", path, stmt.String())
	}
	if s.section == "" || len(s.syntax) == 0 {
		return nil, fmt.Errorf("%s: no section line or no syntax block", path)
	}
	return s, sc.Err()
}

// exampleLine takes one line of the Examples block.
func (s *manualSection) exampleLine(path string, n int, trim string, pending *manualExample, stmt *strings.Builder) error {
	switch {
	case strings.HasPrefix(trim, "["):
		if _, err := fmt.Sscanf(strings.Trim(trim, "[]"), "%s %s", &pending.version, &pending.target); err != nil {
			return fmt.Errorf("%s:%d: [V T]: %v", path, n, err)
		}
		return nil
	case strings.HasPrefix(trim, "!~ "):
		pending.ptxasRejects, pending.missedError = strings.TrimPrefix(trim, "!~ "), true
		return nil
	case strings.HasPrefix(trim, "! "):
		pending.ptxasRejects = strings.TrimPrefix(trim, "! ")
		return nil
	case strings.HasPrefix(trim, "? "):
		pending.falseError = strings.TrimPrefix(trim, "? ")
		return nil
	}
	code, _, _ := strings.Cut(trim, "//")
	code = strings.TrimSpace(code)
	if code == "" {
		return nil
	}
	if stmt.Len() == 0 {
		pending.line = n
	} else {
		stmt.WriteByte(' ')
	}
	stmt.WriteString(code)
	text := stmt.String()
	if label, rest, ok := cutLabel(text); ok && strings.HasPrefix(rest, ".") && strings.HasSuffix(rest, ";") {
		// "ts: .branchtargets L1, L2;": a labelled directive stays one line
		stmt.Reset()
		s.context = append(s.context, text)
		return nil
	} else if ok {
		s.context = append(s.context, label+":")
		stmt.Reset()
		if rest == "" {
			return nil
		}
		stmt.WriteString(rest)
		text = rest
	}
	if !strings.HasSuffix(text, ";") && !strings.HasSuffix(text, "}") {
		return nil
	}
	stmt.Reset()
	if strings.HasPrefix(text, ".") || text == "{" || text == "}" {
		s.context = append(redeclared(s.context, text), text)
		return nil
	}
	pending.text = text
	pending.context = slices.Clone(s.context)
	s.examples = append(s.examples, *pending)
	*pending = manualExample{}
	return nil
}

// redeclared drops from the context the declarations of names that decl
// declares again: a section whose examples are separate snippets, each
// with its own declarations (ldmatrix), means the later one.
func redeclared(context []string, decl string) []string {
	names := declaredNames(decl)
	return slices.DeleteFunc(context, func(d string) bool {
		for _, n := range declaredNames(d) {
			if slices.Contains(names, n) {
				return true
			}
		}
		return false
	})
}

// cutLabel splits "L1: rest" into the label and the rest.
func cutLabel(s string) (string, string, bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i+1 < len(s) && s[i+1] == ':' {
		return "", "", false
	}
	name := s[:i]
	for _, r := range name {
		if !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(s[i+1:]), true
}

// TestManualExamples checks every example of the manual's instruction
// sections: the checker accepts it, unless ptxas rejects the manual's own
// example (a recorded discrepancy). Where ptxas 12.5 is installed and the
// example's PTX version is at most 8.5, ptxas's verdict is checked against
// the recording too.
func TestManualExamples(t *testing.T) {
	secs := loadManual(t)
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	var total, accepted, discrepancies, missed, falseErrors, ptxasChecked int
	for _, s := range secs {
		for _, m := range manualModules(s) {
			ours, diags := checkCommandErrorLines(m.src)
			var theirs map[int]bool
			if ptxas != "" && m.version <= "8.5" && len(m.version) == 3 {
				theirs = ptxasErrorLines(t, ptxas, dir, ptxasArch(m.target), m.src)
			}
			for l := range ours {
				if _, ok := m.lines[l]; !ok {
					t.Errorf("%s: the harness's module has an error on line %d: %v\n%s", s.file, l, diags, m.src)
				}
			}
			for l, i := range m.lines {
				e := &s.examples[i]
				total++
				where := fmt.Sprintf("%s:%d: %q (PTX %s %s)", s.file, e.line, e.text, m.version, m.target)
				if theirs != nil {
					ptxasChecked++
					switch {
					case theirs[l] && e.ptxasRejects == "":
						t.Errorf("%s: ptxas 12.5 rejects the manual's example: record it (! ptxas: ...)", where)
					case !theirs[l] && strings.HasPrefix(e.ptxasRejects, "ptxas"):
						t.Errorf("%s: recorded as rejected by ptxas, but ptxas 12.5 accepts it", where)
					}
				}
				switch {
				case e.missedError:
					discrepancies++
					missed++
					if ours[l] {
						t.Errorf("%s: the checker rejects it now: write ! instead of !~", where)
					}
				case e.ptxasRejects != "":
					discrepancies++
					if !ours[l] {
						t.Errorf("%s: ptxas rejects it (%s), the checker accepts it", where, e.ptxasRejects)
					}
				case e.falseError != "":
					falseErrors++
					if !ours[l] {
						t.Errorf("%s: the checker accepts it now: drop the ? line", where)
					}
				case ours[l]:
					t.Errorf("%s: false error: %v\n%s", where, lineDiags(diags, l), m.src)
				default:
					accepted++
				}
			}
		}
	}
	t.Logf("%d sections, %d examples: %d accepted, %d rejected by ptxas too (manual discrepancies; %d of them known missed errors of the checker), %d known false errors; %d compared with ptxas 12.5",
		len(secs), total, accepted, discrepancies, missed, falseErrors, ptxasChecked)
}

// lineDiags returns the messages of the errors on line l.
func lineDiags(diags diag.List, l int) string {
	var out []string
	for _, d := range diags {
		if int(d.Pos.Line) == l && d.Severity == diag.Error {
			out = append(out, d.Message)
		}
	}
	return strings.Join(out, "; ")
}

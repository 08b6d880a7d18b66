package check

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

var updateManual = flag.Bool("update-manual", false, "rewrite testdata/manual/missing.tsv from the tables")

// manualMissingFile lists the qualifier combinations of the manual's syntax
// blocks that the isa tables lack, one a line: section, combination, and
// "unknown" (a qualifier the tables do not know at all) or "missing" (known
// qualifiers in a combination no form takes), then, after "\t# ", why
// (kept by -update-manual).
const manualMissingFile = "testdata/manual/missing.tsv"

// maxExpansions bounds the combinations of one syntax line.
const maxExpansions = 20000

// syntaxGroup is a run of syntax lines and the qualifier lists that follow
// them ("\.type = { .u32, .s32 };").
type syntaxGroup struct {
	templates []string
	sets      map[string][]string
}

var setDef = regexp.MustCompile(`^((?:\.[A-Za-z_][\w:]*\s*=\s*)+)\{(.*)\}\s*;?$`)

// operandValues is a list of an operand's values ("cp-size = { 4, 8, 16 }"),
// not a qualifier list: it names no qualifier of a spelling.
var operandValues = regexp.MustCompile(`^[A-Za-z][\w-]*\s*=\s*\{`)

// syntaxGroups splits a syntax block into its statements and groups them.
func syntaxGroups(lines []string) []*syntaxGroup {
	var groups []*syntaxGroup
	cur := &syntaxGroup{sets: map[string][]string{}}
	for _, st := range syntaxStatements(lines) {
		if m := setDef.FindStringSubmatch(st); m != nil {
			var vals []string
			for _, v := range splitTop(m[2], ',') {
				if v = strings.TrimSpace(v); v != "" {
					vals = append(vals, v)
				}
			}
			for _, k := range strings.Split(m[1], "=") {
				if k = strings.TrimSpace(k); k != "" {
					cur.sets[k] = vals
				}
			}
			continue
		}
		if strings.HasPrefix(st, "@") { // a guard: "@p   bra{.uni}  tgt;"
			_, st, _ = strings.Cut(st, " ")
			st = strings.TrimSpace(st)
		}
		if st == "" || !(st[0] >= 'a' && st[0] <= 'z') || operandValues.MatchString(st) || strings.Contains(st, "=") && !strings.Contains(st, ",") && !strings.Contains(st, "[") {
			continue
		}
		if len(cur.sets) > 0 && len(cur.templates) > 0 {
			groups = append(groups, cur)
			cur = &syntaxGroup{sets: map[string][]string{}}
		}
		cur.templates = append(cur.templates, st)
	}
	if len(cur.templates) > 0 || len(cur.sets) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// syntaxStatements joins a syntax block's lines into statements: each ends
// with ';' outside braces, or is a brace-closed list definition.
func syntaxStatements(lines []string) []string {
	var out []string
	var b strings.Builder
	depth := 0
	flush := func() {
		if s := strings.Join(strings.Fields(b.String()), " "); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	for _, line := range lines {
		line, _, _ = strings.Cut(line, "//")
		for _, r := range line {
			switch r {
			case '{':
				depth++
			case '}':
				depth--
			}
			b.WriteRune(r)
			if r == ';' && depth == 0 {
				flush()
			}
		}
		s := strings.TrimSpace(b.String())
		if depth == 0 && strings.HasPrefix(s, ".") && strings.HasSuffix(s, "}") {
			flush()
		}
		b.WriteByte(' ')
	}
	flush()
	return out
}

// splitTop splits s at sep outside braces.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '{':
			depth++
		case r == '}':
			depth--
		case r == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// head returns a syntax line's instruction part: up to the first blank
// outside braces.
func head(template string) string {
	depth := 0
	for i, r := range template {
		switch {
		case r == '{':
			depth++
		case r == '}':
			depth--
		case (r == ' ' || r == '\t') && depth == 0:
			return template[:i]
		}
	}
	return strings.TrimSuffix(template, ";")
}

// expand returns every instruction spelling of a syntax head: {x} is x or
// nothing, {a|b} one of them, and a qualifier the group lists (.type) each
// of its values.
func expand(s string, sets func(string) []string, limit *int) []string {
	if *limit <= 0 {
		return nil
	}
	if i := strings.IndexByte(s, '{'); i >= 0 {
		j := matching(s, i)
		if j < 0 {
			return nil
		}
		prefix, inner, rest := s[:i], s[i+1:j], s[j+1:]
		out := expand(prefix+rest, sets, limit)
		for _, alts := range splitTop(inner, '|') {
			for _, alt := range splitTop(alts, ',') { // ".shared{::cta, ::cluster}"
				out = append(out, expand(prefix+strings.TrimSpace(alt)+rest, sets, limit)...)
			}
		}
		return out
	}
	parts := dotted(s)
	out := []string{""}
	for _, p := range parts {
		alts := []string{p}
		if vals := sets(p); vals != nil {
			alts = nil
			for _, v := range vals {
				switch {
				case v == "none": // ".vec = { none, .v2, .v4 }"
					v = ""
				case !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, ":"):
					v = "." + v // ".CmpOp = { eq, ne, ... }"
				}
				if v == p { // ".clamp = { .trap, .clamp, .zero }": the value itself
					alts = append(alts, v)
					continue
				}
				alts = append(alts, expand(v, sets, limit)...)
			}
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		out = next
	}
	*limit -= len(out)
	return out
}

// matching returns the index of the '}' closing s[i].
func matching(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// dotted splits "add.sat.s32" into "add", ".sat", ".s32".
func dotted(s string) []string {
	var parts []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == '.' {
			parts = append(parts, s[start:i])
			start = i
		}
	}
	return append(parts, s[start:])
}

// manualCombination is one expanded qualifier combination and its verdict.
type manualCombination struct {
	section, spelling, verdict string // verdict: "", "missing", "unknown", "excluded" (by a rule) or "unruled"
}

// manualCombinations expands every syntax line of the sections.
func manualCombinations(secs []*manualSection) (combos []manualCombination, templates int) {
	for _, s := range secs {
		seen := map[string]bool{}
		groups := syntaxGroups(s.syntax)
		for gi, g := range groups {
			sets := func(name string) []string {
				// the group's own list, else an earlier group's, else a later one's
				order := []int{gi}
				for k := gi - 1; k >= 0; k-- {
					order = append(order, k)
				}
				for k := gi + 1; k < len(groups); k++ {
					order = append(order, k)
				}
				for _, k := range order {
					if v, ok := groups[k].sets[name]; ok {
						return v
					}
				}
				return nil
			}
			for _, tpl := range g.templates {
				templates++
				limit := maxExpansions
				for _, sp := range expand(head(tpl), sets, &limit) {
					if seen[sp] {
						continue
					}
					seen[sp] = true
					verdict := "excluded"
					switch {
					case !s.allows(sp):
					case s.unruled != "":
						verdict = "unruled" // not judged: the prose's rules are not transcribed
					default:
						verdict = combinationVerdict(sp)
					}
					combos = append(combos, manualCombination{s.section, sp, verdict})
				}
			}
		}
	}
	return combos, templates
}

// combinationVerdict says whether the isa tables take a spelling's
// qualifiers: "" when some form or store table takes them.
func combinationVerdict(sp string) string {
	parts := dotted(sp)
	opcode, names := parts[0], parts[1:]
	for _, n := range names {
		if isa.LookupQual(n) == isa.QNone {
			return "unknown"
		}
	}
	quals := isa.LookupQuals(names, nil)
	if desc, _ := isa.SelectInstr(opcode, names, quals); desc != nil {
		var f isa.Form
		if hasError(isa.DecodeQuals(&f, desc, names, quals, nil)) {
			return "missing"
		}
		return ""
	}
	var d isa.OpDecode
	if hasError(isa.DecodeOp(opcode, names, quals, -1, &d, nil)) {
		return "missing"
	}
	return ""
}

// TestManualSyntax expands every syntax block of the manual's sections and
// checks that the qualifier combinations the isa tables lack are exactly
// the recorded ones (go test -run TestManualSyntax -update-manual rewrites
// the record).
func TestManualSyntax(t *testing.T) {
	secs := loadManual(t)
	combos, templates := manualCombinations(secs)
	var lines []string
	counts := map[string]int{}
	for _, c := range combos {
		counts[c.verdict]++
		if c.verdict == "missing" || c.verdict == "unknown" {
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s", c.section, c.spelling, c.verdict))
		}
	}
	t.Logf("%d sections, %d syntax lines, %d qualifier combinations: %d excluded by the sections' rules; %d known, %d missing, %d with a qualifier the tables do not know; %d not judged (sections whose rules are not transcribed)",
		len(secs), templates, len(combos), counts["excluded"], counts[""], counts["missing"], counts["unknown"], counts["unruled"])
	got := strings.Join(lines, "\n") + "\n"
	data, err := os.ReadFile(manualMissingFile)
	if *updateManual {
		why := map[string]string{} // the recorded reasons, kept
		for _, l := range strings.Split(string(data), "\n") {
			if k, reason, ok := strings.Cut(l, "\t# "); ok {
				why[k] = reason
			}
		}
		for i, l := range lines {
			if r := why[l]; r != "" {
				lines[i] += "\t# " + r
			}
		}
		if err := os.WriteFile(manualMissingFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v (go test -run TestManualSyntax -update-manual writes it)", err)
	}
	want := lineSet(string(data))
	have := lineSet(got)
	for l := range have {
		if !want[l] {
			t.Errorf("the tables lack a combination of the manual not recorded in %s: %s", manualMissingFile, l)
		}
	}
	for l := range want {
		if !have[l] {
			t.Errorf("recorded as lacking, but the tables have it now (rerun with -update-manual): %s", l)
		}
	}
}

// lineSet returns the non-empty lines of s.
func lineSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l, _, _ = strings.Cut(l, "\t# ") // a recorded reason
		if l != "" {
			m[l] = true
		}
	}
	return m
}

// manualRule is a restriction the section's prose puts on its syntax:
// a spelling with one of if must have one of (excludes: none of) then.
type manualRule struct {
	ifs, then []string
	excludes  bool
}

// parseManualRule parses "A needs B" or "A excludes B" (comma lists).
func parseManualRule(s string) (manualRule, error) {
	f := strings.Fields(s)
	if len(f) != 3 || f[1] != "needs" && f[1] != "excludes" {
		return manualRule{}, fmt.Errorf("rule %q: want A needs B or A excludes B", s)
	}
	return manualRule{strings.Split(f[0], ","), strings.Split(f[2], ","), f[1] == "excludes"}, nil
}

// allows reports whether a spelling's qualifiers keep the rule.
func (r manualRule) allows(names []string) bool {
	has := func(q string) bool {
		if last, ok := strings.CutPrefix(q, "last:"); ok {
			return len(names) > 0 && names[len(names)-1] == last
		}
		return slices.Contains(names, q)
	}
	if !slices.ContainsFunc(r.ifs, has) {
		return true
	}
	return slices.ContainsFunc(r.then, has) != r.excludes
}

// allows reports whether a spelling keeps every rule of the section.
func (s *manualSection) allows(sp string) bool {
	names := dotted(sp)[1:]
	for _, r := range s.rules {
		if !r.allows(names) {
			return false
		}
	}
	return true
}

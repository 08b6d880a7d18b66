package lsp

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// tmRule is a TextMate grammar rule: a match, a begin/end region, or an
// include.
type tmRule struct {
	Name     string   `json:"name"`
	Match    string   `json:"match"`
	Begin    string   `json:"begin"`
	End      string   `json:"end"`
	Include  string   `json:"include"`
	Patterns []tmRule `json:"patterns"`
}

type tmGrammar struct {
	ScopeName         string            `json:"scopeName"`
	InjectionSelector string            `json:"injectionSelector"`
	Patterns          []tmRule          `json:"patterns"`
	Repository        map[string]tmRule `json:"repository"`
}

func loadGrammar(t *testing.T, path string) *tmGrammar {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g tmGrammar
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &g
}

// tmScanner tokenizes lines the way a TextMate engine does for the
// grammars here: at each point the earliest match of the region's end or
// of its patterns wins (the end first on a tie), regions nest across
// lines, includes name the repository or another grammar. Its regular
// expressions are Go's, which the grammars keep to (no look-behind).
type tmScanner struct {
	grammars map[string]*tmGrammar // by scope name
	cur      *tmGrammar
	stack    []tmFrame
	tokens   map[string][]string // scope -> texts
}

type tmFrame struct {
	rule *tmRule
	g    *tmGrammar
	end  *regexp.Regexp
}

// rules expands the includes of ps into match and begin rules.
func (s *tmScanner) rules(g *tmGrammar, ps []tmRule, out []tmRuleIn) []tmRuleIn {
	for i := range ps {
		p := &ps[i]
		switch {
		case strings.HasPrefix(p.Include, "#"):
			r := g.Repository[p.Include[1:]]
			if r.Match != "" || r.Begin != "" {
				out = append(out, tmRuleIn{&r, g})
			} else {
				out = s.rules(g, r.Patterns, out)
			}
		case p.Include != "":
			if other := s.grammars[p.Include]; other != nil {
				out = s.rules(other, other.Patterns, out)
			}
		default:
			out = append(out, tmRuleIn{p, g})
		}
	}
	return out
}

type tmRuleIn struct {
	r *tmRule
	g *tmGrammar
}

func (s *tmScanner) line(t *testing.T, text string) {
	for pos := 0; pos <= len(text); {
		var ps []tmRuleIn
		var end *regexp.Regexp
		scope := ""
		if n := len(s.stack); n > 0 {
			f := s.stack[n-1]
			ps, end, scope = s.rules(f.g, f.rule.Patterns, nil), f.end, f.rule.Name
		} else {
			ps = s.rules(s.cur, s.cur.Patterns, nil)
		}
		best, bestAt, bestLen := -2, len(text)+1, 0
		if end != nil {
			if m := end.FindStringIndex(text[pos:]); m != nil {
				best, bestAt, bestLen = -1, pos+m[0], m[1]-m[0]
			}
		}
		for i, p := range ps {
			re := p.r.Match
			if re == "" {
				re = p.r.Begin
			}
			m := goRegexp(re).FindStringIndex(text[pos:])
			if m != nil && pos+m[0] < bestAt {
				best, bestAt, bestLen = i, pos+m[0], m[1]-m[0]
			}
		}
		if best == -2 {
			return
		}
		if scope != "" && bestAt > pos {
			s.tokens[scope] = append(s.tokens[scope], text[pos:bestAt])
		}
		switch {
		case best == -1:
			s.stack = s.stack[:len(s.stack)-1]
		case ps[best].r.Match != "":
			s.tokens[ps[best].r.Name] = append(s.tokens[ps[best].r.Name], text[bestAt:bestAt+bestLen])
		default:
			p := ps[best]
			s.tokens[p.r.Name] = append(s.tokens[p.r.Name], text[bestAt:bestAt+bestLen])
			s.stack = append(s.stack, tmFrame{p.r, p.g, goRegexp(p.r.End)})
		}
		pos = bestAt + max(bestLen, 1)
	}
}

// lookaround matches a look-ahead or look-behind group (Go's regexp has
// neither).
var lookaround = regexp.MustCompile(`\(\?<?[=!](?:[^()\\]|\\.|\([^()]*\))*\)`)

// goRegexp compiles a grammar's expression; the main PTX grammar's
// look-arounds only narrow a match at its edges, so they are dropped.
func goRegexp(re string) *regexp.Regexp {
	if r, err := regexp.Compile(re); err == nil {
		return r
	}
	return regexp.MustCompile(lookaround.ReplaceAllString(re, ""))
}

// TestInlineAsmInjection checks the grammar that colours PTX inside the
// inline-asm strings of C, C++ and CUDA files: VS Code registers it as an
// injection into their grammars, and on testdata/editors/inline_asm.cu it
// finds the three asm statements, their opcodes and qualifiers as PTX,
// the operand placeholders, %% special registers and escapes, and leaves
// the C++ around them alone.
func TestInlineAsmInjection(t *testing.T) {
	raw, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Grammars []struct {
				ScopeName, Path   string
				InjectTo          []string
				EmbeddedLanguages map[string]string
			}
		}
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	registered := false
	for _, g := range pkg.Contributes.Grammars {
		if g.ScopeName == "ptx.inline-asm.injection" && strings.Join(g.InjectTo, ",") == "source.cpp,source.cuda-cpp,source.c" &&
			g.EmbeddedLanguages["meta.embedded.inline.ptx"] == "ptx" && g.Path == "./syntaxes/ptx-inline.injection.json" {
			registered = true
		}
	}
	if !registered {
		t.Fatalf("package.json does not register the injection grammar: %+v", pkg.Contributes.Grammars)
	}
	inj := loadGrammar(t, "../../editors/vscode/syntaxes/ptx-inline.injection.json")
	ptx := loadGrammar(t, "../../editors/vscode/syntaxes/ptx.tmLanguage.json")
	for name, r := range inj.Repository { // the injection's own expressions need no approximation
		for _, x := range append([]tmRule{r}, r.Patterns...) {
			for _, re := range []string{x.Match, x.Begin, x.End} {
				if _, err := regexp.Compile(re); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
	// Its opcodes are the main grammar's.
	alt := regexp.MustCompile(`\(((?:[a-z0-9_]+\|)+[a-z0-9_]+)\)`)
	var injOps string
	for _, r := range inj.Repository["ptx-string"].Patterns {
		if r.Name == "keyword.operator.opcode.ptx" {
			injOps = alt.FindStringSubmatch(r.Match)[1]
		}
	}
	if mainOps := alt.FindStringSubmatch(ptx.Repository["opcodes"].Patterns[0].Match)[1]; injOps != mainOps {
		t.Errorf("the injection's opcodes differ from the main grammar's:\n%s\n%s", injOps, mainOps)
	}
	for _, sel := range []string{"L:source.cpp", "L:source.cuda-cpp", "L:source.c"} {
		if !strings.Contains(inj.InjectionSelector, sel) {
			t.Errorf("injectionSelector %q lacks %s", inj.InjectionSelector, sel)
		}
	}
	src, err := os.ReadFile("../../testdata/editors/inline_asm.cu")
	if err != nil {
		t.Fatal(err)
	}
	s := &tmScanner{grammars: map[string]*tmGrammar{"source.ptx": ptx}, cur: inj, tokens: map[string][]string{}}
	for _, line := range strings.Split(string(src), "\n") {
		s.line(t, line)
	}
	if len(s.stack) != 0 {
		t.Fatalf("a region is still open at the end of the file: %+v", s.stack[len(s.stack)-1].rule.Name)
	}
	has := func(scope string, want ...string) {
		t.Helper()
		got := strings.Join(s.tokens[scope], " ")
		for _, w := range want {
			if !strings.Contains(" "+got+" ", " "+w+" ") {
				t.Errorf("%s: lacks %q in %q", scope, w, got)
			}
		}
	}
	var starts []string
	for _, x := range s.tokens["meta.asm.inline-ptx"] {
		if strings.Contains(x, "asm") {
			starts = append(starts, x)
		}
	}
	if got := strings.Join(starts, "|"); got != "asm volatile(|asm volatile(|__asm__ __volatile__(" {
		t.Errorf("asm statements found: %q", got)
	}
	has("variable.parameter.asm-operand.cpp", "%0", "%1", "%2", "%[v]", "%[p]")
	has("variable.language.special-register.ptx", "%%laneid")
	has("constant.character.escape.cpp", `\n`, `\t`)
	ops := strings.Join(s.tokens["keyword.operator.opcode.ptx"], " ")
	for _, w := range []string{"mov", "st", "ld"} {
		if !strings.Contains(" "+ops+" ", " "+w+" ") {
			t.Errorf("PTX opcode %s not coloured: %q", w, ops)
		}
	}
	if quals := strings.Join(s.tokens["storage.type.space.ptx"], " "); !strings.Contains(quals, ".global") {
		t.Errorf("state space not coloured: %q", quals)
	}
	// C++ outside asm(...) is not touched: no PTX scope for "unsigned" or "return".
	for scope, texts := range s.tokens {
		for _, x := range texts {
			if strings.HasSuffix(scope, ".ptx") && (strings.Contains(x, "unsigned") || strings.Contains(x, "return")) {
				t.Errorf("C++ text %q coloured as %s", x, scope)
			}
		}
	}
}

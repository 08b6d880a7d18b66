package lsp

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestTextMateGrammar checks that the highlighting grammar shipped in
// editors/vscode knows the opcodes the server completes and the special
// registers it explains.
func TestTextMateGrammar(t *testing.T) {
	raw, err := os.ReadFile("../../editors/vscode/syntaxes/ptx.tmLanguage.json")
	if err != nil {
		t.Fatal(err)
	}
	type pattern struct {
		Name  string `json:"name"`
		Match string `json:"match"`
	}
	var g struct {
		ScopeName  string `json:"scopeName"`
		Repository map[string]struct {
			Patterns []pattern `json:"patterns"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.ScopeName != "source.ptx" {
		t.Errorf("scopeName %q", g.ScopeName)
	}
	op := g.Repository["opcodes"].Patterns[0].Match
	alt := regexp.MustCompile(`\(((?:[a-z0-9_]+\|)+[a-z0-9_]+)\)`).FindStringSubmatch(op)
	if alt == nil {
		t.Fatalf("no opcode alternation in %q", op)
	}
	got := strings.Split(alt[1], "|")
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(opcodes, " ") {
		t.Errorf("grammar opcodes\n%v\nserver opcodes\n%v", got, opcodes)
	}
	var special *regexp.Regexp
	for _, p := range g.Repository["registers"].Patterns {
		if strings.HasPrefix(p.Name, "variable.language.special-register") {
			special = regexp.MustCompile("^(?:" + p.Match + ")$")
		}
	}
	for _, name := range append(specialNames(), "%pm3_64", "%envreg31", "%reserved_smem_offset_begin") {
		if special == nil || !special.MatchString(name) {
			t.Errorf("the grammar does not mark %s as a special register", name)
		}
	}
}

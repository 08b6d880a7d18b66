package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
)

// checkFilter is what ptxkit check does to the diagnostics before it
// writes them: rules disabled by --disable or by a "ptxkit:ignore"
// comment are dropped, --werror makes warnings errors, and text output
// stops after --max-diagnostics.
type checkFilter struct {
	werror    bool
	disabled  map[string]bool
	maxText   int
	stdinName string
}

// defaultMaxDiagnostics is how many diagnostics text output shows unless
// --max-diagnostics says otherwise: a screenful of the first mistakes,
// not a hundred thousand copies of one.
const defaultMaxDiagnostics = 200

func (f *checkFilter) flags(fs *flag.FlagSet) {
	f.disabled = map[string]bool{}
	fs.BoolVar(&f.werror, "werror", false, "treat warnings as errors (they are reported as errors and make the exit status 1)")
	fs.Func("disable", "do not report RULE (a rule id such as st-sem-scope; comma-separated or repeated)", func(s string) error {
		for _, r := range strings.Split(s, ",") {
			if r = strings.TrimSpace(r); r == "" {
				return fmt.Errorf("empty rule id")
			}
			f.disabled[r] = true
		}
		return nil
	})
	fs.IntVar(&f.maxText, "max-diagnostics", defaultMaxDiagnostics, "text output: show at most N diagnostics and count the rest (0: all)")
	fs.StringVar(&f.stdinName, "stdin-name", "", "the path to report diagnostics of standard input (\"-\") under, e.g. for SARIF upload")
}

// checkDisabled warns about --disable rules no table knows, naming the
// nearest known one.
func (f *checkFilter) checkDisabled(stderr io.Writer) {
	ids := make([]string, 0, len(f.disabled))
	for id := range f.disabled {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := ruleInfo(id); ok || extraRules[id] {
			continue
		}
		msg := fmt.Sprintf("ptxkit check: warning: --disable %s: no rule has this id", id)
		if s := nearestRule(id); s != "" {
			msg += "; did you mean " + s + "?"
		}
		fmt.Fprintln(stderr, msg)
	}
}

// extraRules are rule ids reported by the isa decoder rather than a rule
// table; --disable accepts them without a warning.
var extraRules = map[string]bool{
	"unknown-qualifier": true, "unknown-opcode": true, "qualifier-not-allowed": true, "qualifier-order": true,
	"duplicate-qualifier": true, "missing-qualifier": true, "ignored-qualifier": true, "qualifier-conflict": true,
	"target": true, "vector-size": true, "unresolved-function": true, "unknown-instruction": true, "type-not-allowed": true,
	"state-space-order": true, "operand-count": true, "cvt-sat": true, "cmp-type": true,
}

// nearestRule returns the known rule id closest to id by edit distance
// (at most a third of its length away), or "".
func nearestRule(id string) string {
	best, bestD := "", len(id)/3+1
	for _, k := range knownRuleIDs() {
		if d := levenshtein(id, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// knownRuleIDs lists the rule ids ruleInfo describes and extraRules.
func knownRuleIDs() []string {
	ruleInfo("") // fills the catalog
	ids := make([]string, 0, len(ruleCatalog)+len(extraRules))
	for id := range ruleCatalog {
		ids = append(ids, id)
	}
	for id := range extraRules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// levenshtein is the edit distance of a and b.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// displayFile is the name diagnostics of input name are reported under.
func (f *checkFilter) displayFile(name string) string {
	if name == "-" && f.stdinName != "" {
		return f.stdinName
	}
	return name
}

// apply drops the diagnostics of src that are disabled or silenced by a
// comment and promotes warnings under --werror.
func (f *checkFilter) apply(l diag.List, src []byte) diag.List {
	if len(l) == 0 {
		return l // nothing to silence: the source need not be searched
	}
	ignored := diag.IgnoredIn(src)
	out := l[:0]
	for _, d := range l {
		if f.disabled[d.Rule] || ignored.Silences(d) {
			continue
		}
		if f.werror && d.Severity == diag.Warning {
			d.Severity = diag.Error
		}
		out = append(out, d)
	}
	return out
}

// capText returns the diagnostics text output shows and writes, after
// them, how many were left out, by severity.
func (f *checkFilter) capText(l diag.List) (shown, left diag.List) {
	if f.maxText <= 0 || len(l) <= f.maxText {
		return l, nil
	}
	return l[:f.maxText], l[f.maxText:]
}

// writeLeftOut says how many diagnostics text output left out.
func writeLeftOut(w io.Writer, left diag.List, shown int) {
	if len(left) == 0 {
		return
	}
	var n [3]int
	for _, d := range left {
		if d.Severity >= diag.Error && d.Severity <= diag.Note {
			n[d.Severity]++
		}
	}
	var parts []string
	for s, c := range n {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", c, diag.Severity(s), map[bool]string{true: "s"}[c > 1]))
		}
	}
	fmt.Fprintf(w, "ptxkit check: %d more diagnostics not shown (%s); the first %d are; --max-diagnostics 0 shows all\n",
		len(left), strings.Join(parts, ", "), shown)
}

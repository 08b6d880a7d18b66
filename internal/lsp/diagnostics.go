package lsp

import (
	"encoding/json"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// lspDiagnostics converts a document's diagnostics: the rule id is the
// code, and the spec section and the fix are related information at the
// diagnostic's own range, which editors show under the message.
func (s *Server) lspDiagnostics(uri string, a *analysis) []Diagnostic {
	out := make([]Diagnostic, 0, len(a.diags))
	for _, d := range a.diags {
		out = append(out, s.lspDiagnostic(uri, a, d))
	}
	return out
}

func (s *Server) lspDiagnostic(uri string, a *analysis, d diag.Diagnostic) Diagnostic {
	r := s.diagRange(a, d)
	ld := Diagnostic{Range: r, Severity: lspSeverity(d.Severity), Code: d.Rule, Source: "ptxkit", Message: d.Message}
	if d.Spec != "" {
		ld.RelatedInformation = append(ld.RelatedInformation, diagnosticRelatedInformation{
			Location: Location{URI: uri, Range: r}, Message: "spec: " + d.Spec})
	}
	if d.Fix != "" {
		ld.RelatedInformation = append(ld.RelatedInformation, diagnosticRelatedInformation{
			Location: Location{URI: uri, Range: r}, Message: "fix: " + d.Fix})
	}
	return ld
}

// diagRange is the range of d; a diagnostic without an end covers the
// rest of its word.
func (s *Server) diagRange(a *analysis, d diag.Diagnostic) Range {
	from, to := off(d.Pos), off(d.End)
	if !d.End.IsValid() || to < from {
		to = from
		for to < len(a.text.src) && !strings.ContainsRune(" \t\r\n,;", rune(a.text.src[to])) {
			to++
		}
	}
	return a.text.rangeOf(from, to, s.enc)
}

func lspSeverity(sv diag.Severity) int {
	switch sv {
	case diag.Error:
		return severityError
	case diag.Warning:
		return severityWarning
	}
	return severityInformation
}

// codeActions offers, for each diagnostic in the requested range whose fix
// is mechanical, a quick fix that applies it (the fixes are the
// validator's: docs/validator.md).
func (s *Server) codeActions(params json.RawMessage) (any, *rpcError) {
	var p codeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	_, a, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	from, ok1 := a.text.offset(p.Range.Start, s.enc)
	to, ok2 := a.text.offset(p.Range.End, s.enc)
	if !ok1 || !ok2 {
		return nil, errorf(codeInvalidParams, "range %v is outside the document", p.Range)
	}
	actions := []codeAction{}
	for _, d := range a.diags {
		dFrom, dTo := off(d.Pos), max(off(d.End), off(d.Pos))
		if d.Fix == "" || dTo < from || dFrom > to {
			continue
		}
		edits := fixEdits(a, d)
		for _, e := range edits {
			actions = append(actions, codeAction{
				Title:       e.title,
				Kind:        "quickfix",
				IsPreferred: len(edits) == 1, // the fix, not one of several choices
				Diagnostics: []Diagnostic{s.lspDiagnostic(p.TextDocument.URI, a, d)},
				Edit: &workspaceEdit{Changes: map[string][]textEdit{p.TextDocument.URI: {{
					Range: a.text.rangeOf(e.from, e.to, s.enc), NewText: e.text}}}},
			})
		}
	}
	return actions, nil
}

// fixEdit is one way to apply a fix: replace [from, to) with text.
type fixEdit struct {
	title    string
	from, to int
	text     string
}

// fixEdits derives edits from the fixes whose wording names the exact
// change: raising .version, changing .target, adding a scope, replacing
// or removing the qualifier the diagnostic points at. Other fixes need a
// decision (which register, which operand) and get no edit.
func fixEdits(a *analysis, d diag.Diagnostic) []fixEdit {
	fix := d.Fix
	from, to := off(d.Pos), off(d.End)
	at := ""
	if d.End.IsValid() && to > from && to <= len(a.text.src) {
		at = a.text.src[from:to]
	}
	qualifier := strings.HasPrefix(at, ".") && !strings.ContainsAny(at, " \t\n")
	switch {
	case strings.HasPrefix(fix, "raise .version to "):
		return directiveEdit(a, ".version", strings.TrimPrefix(fix, "raise .version to "), fix)
	case strings.HasPrefix(fix, "compile for ") && isWord(strings.TrimPrefix(fix, "compile for ")):
		return directiveEdit(a, ".target", strings.TrimPrefix(fix, "compile for "), fix)
	case strings.HasPrefix(fix, "add a scope: ") && qualifier:
		var edits []fixEdit
		for _, sc := range scopeChoices(strings.TrimPrefix(fix, "add a scope: ")) {
			edits = append(edits, fixEdit{title: "add scope " + sc, from: to, to: to, text: sc})
		}
		return edits
	case strings.HasPrefix(fix, "use .") && qualifier && isWord(strings.TrimPrefix(fix, "use ")):
		q := strings.TrimPrefix(fix, "use ")
		return []fixEdit{{title: "replace " + at + " with " + q, from: from, to: to, text: q}}
	case strings.HasPrefix(fix, "remove the ") && qualifier:
		return []fixEdit{{title: "remove " + at, from: from, to: to}}
	}
	return nil
}

// scopeChoices splits ".cta, .cluster, .gpu or .sys".
func scopeChoices(list string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if strings.HasPrefix(f, ".") {
			out = append(out, f)
		}
	}
	return out
}

// isWord reports whether s is one token such as "sm_90a" or ".shared::cta".
func isWord(s string) bool { return s != "" && !strings.ContainsAny(s, " \t\n,") }

// directiveEdit replaces the first argument of the module's first
// directive named name with value.
func directiveEdit(a *analysis, name, value, title string) []fixEdit {
	for _, st := range a.mod.Stmts {
		if dir, ok := st.(*ast.Directive); ok && dir.Name == name && len(dir.Args) > 0 {
			arg := dir.Args[0]
			return []fixEdit{{title: title, from: off(arg.Pos()), to: off(arg.End()), text: value}}
		}
	}
	return nil
}

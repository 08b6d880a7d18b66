// Package diag holds the diagnostics that every ptxkit phase reports
// (syntax, resolution, validation, sanitizer) and their output formats.
//
// A Diagnostic has a stable Rule id (for example "syntax", "st-relaxed-scope"),
// a severity, the range it covers, a message saying what is wrong, and where
// known the spec section it comes from and a fix.
package diag

import (
	"fmt"
	"sort"

	"github.com/ptxkit/ptxkit/ptx/token"
)

// Severity orders diagnostics by importance.
type Severity int

const (
	Error Severity = iota
	Warning
	Note
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Note:
		return "note"
	}
	return "unknown"
}

// Diagnostic is one reported problem.
type Diagnostic struct {
	File     string
	Pos, End token.Pos
	Severity Severity
	Rule     string // stable rule id
	Message  string // what is wrong
	Spec     string // spec section, e.g. "PTX ISA 9.7.9.11 (st)"; "" when none
	Fix      string // how to fix it; "" when none
}

// Position returns the diagnostic's start with its file name.
func (d Diagnostic) Position() token.Position { return token.Position{File: d.File, Pos: d.Pos} }

// String formats d as "FILE:LINE:COL: SEVERITY: MESSAGE [RULE]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Position(), d.Severity, d.Message, d.Rule)
}

// List collects diagnostics. The zero List is ready to use.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Errorf appends an error with the given rule at [pos, end).
func (l *List) Errorf(file string, pos, end token.Pos, rule, format string, args ...any) {
	l.Add(Diagnostic{File: file, Pos: pos, End: end, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether l holds a diagnostic of severity Error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, then position, keeping the report order
// of diagnostics at the same position.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Pos.Offset < b.Pos.Offset
	})
}

// Err returns l as an error, or nil when l holds no error.
func (l List) Err() error {
	if !l.HasErrors() {
		return nil
	}
	return listError(l)
}

type listError List

func (e listError) Error() string {
	var first Diagnostic
	n := 0
	for _, d := range e {
		if d.Severity == Error {
			if n == 0 {
				first = d
			}
			n++
		}
	}
	if n == 1 {
		return first.String()
	}
	return fmt.Sprintf("%s (and %d more errors)", first, n-1)
}

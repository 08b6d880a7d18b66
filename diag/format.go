package diag

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteText writes each diagnostic as "FILE:LINE:COL: SEVERITY: MESSAGE [RULE]"
// on one line, in the order of l, followed when known by a tab-indented
// "spec: SECTION" line and a tab-indented "fix: HOW" line. Tools that read
// the first form can skip lines that begin with a tab.
func WriteText(w io.Writer, l List) error {
	for _, d := range l {
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
		if d.Spec != "" {
			if _, err := fmt.Fprintf(w, "\tspec: %s\n", d.Spec); err != nil {
				return err
			}
		}
		if d.Fix != "" {
			if _, err := fmt.Fprintf(w, "\tfix: %s\n", d.Fix); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonDiagnostic is the JSON Lines form of a Diagnostic.
type jsonDiagnostic struct {
	File     string `json:"file"`
	Line     int32  `json:"line"`
	Col      int32  `json:"col"`
	EndLine  int32  `json:"end_line"`
	EndCol   int32  `json:"end_col"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Spec     string `json:"spec,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

// WriteJSON writes each diagnostic as one JSON object on its own line
// (JSON Lines) with the fields file, line, col, end_line, end_col,
// severity, rule, message and, when known, spec and fix.
func WriteJSON(w io.Writer, l List) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range l {
		end := d.End
		if !end.IsValid() {
			end = d.Pos
		}
		err := enc.Encode(jsonDiagnostic{
			File: d.File, Line: d.Pos.Line, Col: d.Pos.Col, EndLine: end.Line, EndCol: end.Col,
			Severity: d.Severity.String(), Rule: d.Rule, Message: d.Message, Spec: d.Spec, Fix: d.Fix,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

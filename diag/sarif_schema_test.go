package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ptxkit/ptxkit/internal/sariftest"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// TestSARIFMatchesSchema writes logs that use every feature of the writer
// (code point and byte regions, rule descriptions, failures, the cap, the
// driver's versions) and checks each against the schema's definitions.
func TestSARIFMatchesSchema(t *testing.T) {
	src := []byte("// é\nst.global.u32 [x], é;\n")
	withSource := List{{File: "u.ptx", Pos: token.Pos{Offset: 24, Line: 2, Col: 19}, End: token.Pos{Offset: 26, Line: 2, Col: 21}, Rule: "st-sem-scope", Message: "m", Fix: "f"}}
	info := func(id string) (RuleInfo, bool) {
		return RuleInfo{Summary: "s", Spec: "PTX ISA 9.7.9.11", Help: "h"}, id == "st-sem-scope"
	}
	for name, c := range map[string]struct {
		l   List
		opt SARIFOptions
	}{
		"plain":    {sampleList(), SARIFOptions{}},
		"empty":    {nil, SARIFOptions{}},
		"source":   {withSource, SARIFOptions{Source: func(string) []byte { return src }, Rules: info}},
		"failures": {sampleList(), SARIFOptions{ToolVersion: "v0.1.0", ToolRevision: "0123", MaxResults: 1, Failures: []Failure{{File: "x.ptx", Err: errors.New("e")}, {Err: errors.New("no file")}}}},
	} {
		var buf bytes.Buffer
		if err := WriteSARIFWith(&buf, c.l, c.opt); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		for _, e := range sariftest.CheckValue(v) {
			t.Errorf("%s: %s", name, e)
		}
	}
}

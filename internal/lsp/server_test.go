package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

const kernelURI = "file:///tmp/kernel.ptx"

func TestInitializeNegotiatesEncoding(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{nil, "utf-16"},
		{[]string{"utf-16"}, "utf-16"},
		{[]string{"utf-32", "utf-8", "utf-16"}, "utf-8"},
	} {
		c := startServer(t, Options{})
		var res struct {
			Capabilities struct {
				PositionEncoding string `json:"positionEncoding"`
				TextDocumentSync struct {
					Change int `json:"change"`
				} `json:"textDocumentSync"`
			} `json:"capabilities"`
		}
		c.result("initialize", map[string]any{"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": tc.offered}}}, &res)
		if res.Capabilities.PositionEncoding != tc.want {
			t.Errorf("offered %v: positionEncoding %q, want %q", tc.offered, res.Capabilities.PositionEncoding, tc.want)
		}
		if res.Capabilities.TextDocumentSync.Change != 2 {
			t.Errorf("textDocumentSync.change = %d, want 2 (incremental)", res.Capabilities.TextDocumentSync.Change)
		}
	}
}

func TestDiagnosticsOnOpen(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		c := initialized(t, enc)
		src := readKernel(t)
		c.open(kernelURI, src)
		p := c.diagnostics(kernelURI)
		if p.Version != 1 || len(p.Diagnostics) != 1 {
			t.Fatalf("%s: got %+v, want one diagnostic for version 1", enc, p)
		}
		d := p.Diagnostics[0]
		want := span(t, src, ".relaxed", 0, enc)
		if d.Range != want || d.Code != "st-sem-scope" || d.Severity != severityError || d.Source != "ptxkit" {
			t.Errorf("%s: diagnostic %+v, want st-sem-scope error at %v", enc, d, want)
		}
		var related []string
		for _, r := range d.RelatedInformation {
			related = append(related, r.Message)
			if r.Location.URI != kernelURI || r.Location.Range != want {
				t.Errorf("%s: related information at %+v", enc, r.Location)
			}
		}
		wantRel := "spec: PTX ISA 9.7.9.11 (st)|fix: add a scope: .cta, .cluster, .gpu or .sys"
		if strings.Join(related, "|") != wantRel {
			t.Errorf("%s: related information %q, want %q", enc, related, wantRel)
		}
	}
}

// TestIncrementalChanges edits the document with range changes, one of
// them after a character outside the Basic Multilingual Plane, and checks
// the diagnostics of each version.
func TestIncrementalChanges(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		c := initialized(t, enc)
		src := readKernel(t)
		c.open(kernelURI, src)
		c.diagnostics(kernelURI)

		// Version 2: "%r2, %r1" after the emoji comment becomes "%r2, %r9",
		// outside %r<4>; and .relaxed gets its scope.
		use := at(t, src, "%r2, %r1;", 0, 5, enc) // after "/* 😀 */"
		rel := span(t, src, ".relaxed", 0, enc)
		c.notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": kernelURI, "version": 2},
			"contentChanges": []map[string]any{
				{"range": Range{Start: use, End: Position{use.Line, use.Character + 3}}, "text": "%r9"},
				{"range": Range{Start: rel.End, End: rel.End}, "text": ".gpu"},
			}})
		p := c.diagnostics(kernelURI)
		edited := strings.Replace(src, "*/ mov.u32 %r2, %r1;", "*/ mov.u32 %r2, %r9;", 1)
		edited = strings.Replace(edited, ".relaxed", ".relaxed.gpu", 1)
		if p.Version != 2 || len(p.Diagnostics) != 1 {
			t.Fatalf("%s: version 2: %+v", enc, p)
		}
		d := p.Diagnostics[0]
		if want := span(t, edited, "%r9", 0, enc); d.Code != "register-out-of-range" || d.Range != want {
			t.Errorf("%s: version 2: diagnostic %+v, want register-out-of-range at %v", enc, d, want)
		}

		// Version 3: the whole text replaced by a correct module.
		fixed := strings.Replace(edited, "%r9", "%r1", 1)
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": kernelURI, "version": 3},
			"contentChanges": []map[string]any{{"text": fixed}}})
		if p := c.diagnostics(kernelURI); p.Version != 3 || len(p.Diagnostics) != 0 {
			t.Errorf("%s: version 3: %+v, want no diagnostics", enc, p)
		}
	}
}

// TestChangesCoalesce sends a burst of edits: the server may analyse once
// for all of them, but the last publication must be that of the last
// version.
func TestChangesCoalesce(t *testing.T) {
	c := initialized(t)
	c.open(kernelURI, "")
	c.diagnostics(kernelURI)
	text := ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n"
	for i, ch := range text {
		pos := at(t, text, text[i:i+1], strings.Count(text[:i], text[i:i+1]), 0, "utf-16")
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": kernelURI, "version": i + 2},
			"contentChanges": []map[string]any{{"range": Range{pos, pos}, "text": string(ch)}}})
	}
	last := len(text) + 1
	var p publishDiagnosticsParams
	for p.Version != last {
		p = c.diagnostics(kernelURI)
	}
	if len(p.Diagnostics) != 0 {
		t.Errorf("final version: %+v", p.Diagnostics)
	}
	// The server's text is the text typed: formatting it changes nothing.
	var edits []textEdit
	c.result("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": kernelURI}}, &edits)
	if len(edits) != 0 {
		t.Errorf("typed text differs from %q: edits %+v", text, edits)
	}
}

// TestDiagnosticsBeforeResponse sends a change and a request together:
// the diagnostics of the change are published before the response.
func TestDiagnosticsBeforeResponse(t *testing.T) {
	c := initialized(t)
	src := readKernel(t)
	c.open(kernelURI, src)
	c.call("textDocument/hover", posParams(kernelURI, at(t, src, "%tid", 0, 1, "utf-16")))
	if len(c.queue) != 1 || c.queue[0].Method != "textDocument/publishDiagnostics" {
		t.Fatalf("before the hover response: %+v", c.queue)
	}
}

func TestDidCloseClearsDiagnostics(t *testing.T) {
	c := initialized(t)
	c.open(kernelURI, readKernel(t))
	c.diagnostics(kernelURI)
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": kernelURI}})
	if p := c.diagnostics(kernelURI); len(p.Diagnostics) != 0 {
		t.Errorf("after close: %+v", p)
	}
	m := c.call("textDocument/hover", posParams(kernelURI, Position{0, 0}))
	if m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Errorf("hover on a closed document: %+v", m)
	}
}

func TestShutdownAndExit(t *testing.T) {
	c := initialized(t)
	c.result("shutdown", nil, nil)
	if m := c.call("textDocument/hover", posParams(kernelURI, Position{})); m.Error == nil || m.Error.Code != codeInvalidRequest {
		t.Errorf("request after shutdown: %+v", m)
	}
	c.notify("exit", nil)
	if err := <-c.done; err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}

	c = initialized(t)
	c.notify("exit", nil)
	if err := <-c.done; err != ErrExitWithoutShutdown {
		t.Errorf("Serve after exit without shutdown: %v", err)
	}
}

// decodeParams is json.Unmarshal for test results.
func decodeParams[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// TestInitializationOptions validates for another target than the
// document's, as ptxkit check --target does, and refuses a bad one.
func TestInitializationOptions(t *testing.T) {
	c := startServer(t, Options{})
	c.result("initialize", map[string]any{"capabilities": map[string]any{},
		"initializationOptions": map[string]any{"target": "sm_60"}}, nil)
	src := readKernel(t)
	c.open(kernelURI, src)
	var codes []string
	for _, d := range c.diagnostics(kernelURI).Diagnostics {
		codes = append(codes, d.Code)
	}
	if strings.Join(codes, " ") != "st-sem-scope target" {
		t.Errorf("diagnostics for sm_60: %v", codes)
	}
	var l completionList
	c.result("textDocument/completion", posParams(kernelURI, at(t, src, ".relaxed", 0, 2, "utf-16")), &l)
	if len(l.Items) != 0 {
		t.Errorf("completion of .r for sm_60: %+v", l.Items)
	}

	// An empty table from a Lua client arrives as [].
	c = startServer(t, Options{})
	c.result("initialize", map[string]any{"capabilities": map[string]any{}, "initializationOptions": []any{}}, nil)

	c = startServer(t, Options{})
	m := c.call("initialize", map[string]any{"capabilities": map[string]any{},
		"initializationOptions": map[string]any{"ptx": "eight"}})
	if m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Errorf("initialize with a bad ptx version: %+v", m)
	}
}

package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// TestMalformedMessages sends what a broken or hostile client might: each
// gets a JSON-RPC error (or, for a notification, a message to the user),
// and the server answers the next request normally.
func TestMalformedMessages(t *testing.T) {
	c := initialized(t)
	src := readKernel(t)
	c.open(kernelURI, src)
	c.diagnostics(kernelURI)

	expectError := func(what string, code int) {
		t.Helper()
		m := c.next()
		if m.Error == nil || m.Error.Code != code {
			t.Errorf("%s: got %+v (error %v), want error code %d", what, m, m.Error, code)
		}
	}
	c.writeRaw("Content-Length: abc\r\n\r\n")
	expectError("bad Content-Length", codeParseError)
	c.writeRaw("Content-Length: -5\r\n\r\n")
	expectError("negative Content-Length", codeParseError)
	c.writeRaw("Content-Type: x\r\n\r\n")
	expectError("no Content-Length", codeParseError)
	c.writeRaw("no colon here\r\nContent-Length: 2\r\n\r\n{}")
	expectError("header line without ':'", codeParseError)
	c.writeRaw("X-Long: " + strings.Repeat("a", 10000) + "\r\nContent-Length: 2\r\n\r\n{}")
	expectError("overlong header line", codeParseError)
	c.writeRaw(strings.Repeat("X: y\r\n", 100) + "Content-Length: 2\r\n\r\n{}")
	expectError("too many header lines", codeParseError)
	c.writeRaw("Content-Length: 9\r\n\r\n{not json")
	expectError("bad JSON", codeParseError)
	c.writeRaw("Content-Length: 2\r\n\r\n[]")
	expectError("JSON that is not an object", codeParseError)
	c.send(map[string]any{"jsonrpc": "1.0", "id": 99, "method": "initialize"})
	expectError("wrong jsonrpc version", codeInvalidRequest)
	c.send(map[string]any{"jsonrpc": "2.0", "id": 98})
	expectError("request without method", codeInvalidRequest)

	// A message over the limit is skipped without being kept.
	huge := MaxMessageBytes + 1
	c.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n", huge))
	chunk := strings.Repeat(" ", 1<<20)
	for n := huge; n > 0; n -= len(chunk) {
		c.writeRaw(chunk[:min(n, len(chunk))])
	}
	expectError("message over the limit", codeParseError)

	for _, tc := range []struct {
		method string
		params any
		code   int
	}{
		{"textDocument/unknownThing", map[string]any{}, codeMethodNotFound},
		{"initialize", map[string]any{"capabilities": map[string]any{}}, codeInvalidRequest},
		{"textDocument/hover", nil, codeInvalidParams},
		{"textDocument/hover", "a string", codeInvalidParams},
		{"textDocument/hover", posParams(kernelURI, Position{Line: 1000, Character: 0}), codeInvalidParams},
		{"textDocument/hover", posParams(kernelURI, Position{Line: -1, Character: 0}), codeInvalidParams},
		{"textDocument/definition", posParams("file:///not/open.ptx", Position{}), codeInvalidParams},
		{"textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": kernelURI},
			"range": Range{Position{0, 0}, Position{5000, 0}}}, codeInvalidParams},
	} {
		m := c.call(tc.method, tc.params)
		if m.Error == nil || m.Error.Code != tc.code {
			t.Errorf("%s %v: %+v, want error %d", tc.method, tc.params, m, tc.code)
		}
	}

	// A character past the end of its line means the line's end (LSP
	// 3.17 "Position"): no error.
	if m := c.call("textDocument/hover", posParams(kernelURI, Position{Line: 22, Character: 10000})); m.Error != nil {
		t.Errorf("hover past the end of a line: %v", m.Error)
	}

	// A change outside the document is refused as a whole and reported.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": kernelURI, "version": 2},
		"contentChanges": []map[string]any{
			{"range": Range{Position{0, 0}, Position{0, 0}}, "text": "garbage "},
			{"range": Range{Position{900, 0}, Position{901, 0}}, "text": "x"},
		}})
	msg := c.notification("window/showMessage")
	if p := decodeParams[showMessageParams](t, msg.Params); p.Type != 1 || !strings.Contains(p.Message, "outside the document") {
		t.Errorf("showMessage %+v", p)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": kernelURI}, "contentChanges": "x"})
	c.notification("window/showMessage")

	// The document is unchanged and the server still works.
	var h hover
	c.result("textDocument/hover", posParams(kernelURI, at(t, src, "%tid", 0, 1, "utf-16")), &h)
	if !strings.Contains(h.Contents.Value, "special register") {
		t.Errorf("hover after the errors: %q", h.Contents.Value)
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	c := startServer(t, Options{})
	m := c.call("textDocument/hover", posParams(kernelURI, Position{}))
	if m.Error == nil || m.Error.Code != codeServerNotInitialized {
		t.Errorf("hover before initialize: %+v", m)
	}
	// Notifications before initialize are dropped: no diagnostics come.
	c.open(kernelURI, "garbage")
	c.result("initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	if m := c.call("textDocument/hover", posParams(kernelURI, Position{})); m.Error == nil {
		t.Errorf("document opened before initialize is known: %+v", m)
	}
}

// TestHostileDocuments opens documents that stress the front end; each
// gets its diagnostics, and every position in them answers hover,
// definition and completion without an error.
func TestHostileDocuments(t *testing.T) {
	c := initialized(t)
	docs := []string{
		"",
		"\xff\xfe\x00garbage",
		".entry k( { ret;",
		strings.Repeat("{", 5000),
		".version 8.5\n.target sm_90\n.address_size 64\n.entry k() { .reg .b32 %r<2>; @%r1 bra L; L: st.global.u32 [%r9+0x], %r1 ; }",
		".func f(.param .b32 a) ; .entry k() { call f, (1); call g; bra.uni nowhere; }",
		"\r\n\r\n.version 8.5\r\n.target sm_90\r\n// 😀😀\r\n.entry k()\r\n{\r\n\tret;\r\n}\r\n",
	}
	for i, doc := range docs {
		uri := fmt.Sprintf("file:///tmp/h%d.ptx", i)
		c.open(uri, doc)
		c.diagnostics(uri)
		txt := newText(doc)
		for line := range txt.lines {
			for ch := 0; ch <= txt.lineEnd(line)-txt.lines[line] && ch < 200; ch += 3 {
				p := posParams(uri, Position{line, ch})
				for _, method := range []string{"textDocument/hover", "textDocument/definition", "textDocument/completion"} {
					if m := c.call(method, p); m.Error != nil {
						t.Errorf("doc %d %s at %d:%d: %v", i, method, line, ch, m.Error)
					}
				}
			}
		}
		for _, method := range []string{"textDocument/documentSymbol", "textDocument/semanticTokens/full"} {
			if m := c.call(method, map[string]any{"textDocument": map[string]any{"uri": uri}}); m.Error != nil {
				t.Errorf("doc %d %s: %v", i, method, m.Error)
			}
		}
	}
}

// TestManyChangesBounded sends more range changes to a large document
// than the server scans in one notification: it refuses them with a
// message instead of stalling, and keeps the document as it was.
func TestManyChangesBounded(t *testing.T) {
	c := initialized(t)
	big := strings.Repeat("// filler line\n", 1<<16) // 1 MiB
	c.open(kernelURI, big)
	c.diagnostics(kernelURI)
	changes := make([]map[string]any, 300)
	for i := range changes {
		changes[i] = map[string]any{"range": Range{Position{0, 0}, Position{0, 0}}, "text": "x"}
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": kernelURI, "version": 2}, "contentChanges": changes})
	msg := c.notification("window/showMessage")
	if p := decodeParams[showMessageParams](t, msg.Params); !strings.Contains(p.Message, "too many range changes (300)") {
		t.Errorf("showMessage %+v", p)
	}
	var edits []textEdit
	c.result("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": kernelURI}}, &edits)
	if len(edits) != 0 { // the filler is canonical; an "x" would not be
		t.Errorf("the document changed")
	}
}

// TestRequestPanicContained: a request whose handler fails answers with an
// internal error, and the session goes on.
func TestRequestPanicContained(t *testing.T) {
	c := startServer(t, Options{Explain: func(string, string, string) string { panic("explainer broke") }})
	c.result("initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	src := readKernel(t)
	c.open(kernelURI, src)
	m := c.call("textDocument/hover", posParams(kernelURI, at(t, src, "st.global.relaxed", 0, 1, "utf-16")))
	if m.Error == nil || m.Error.Code != codeInternalError || !strings.Contains(m.Error.Message, "explainer broke") {
		t.Errorf("hover with a failing explainer: %+v", m)
	}
	var h hover
	c.result("textDocument/hover", posParams(kernelURI, at(t, src, "%tid", 0, 1, "utf-16")), &h)
	if !strings.Contains(h.Contents.Value, "special register") {
		t.Errorf("hover after the failure: %q", h.Contents.Value)
	}
}

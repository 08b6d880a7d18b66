package lsp

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// FuzzServe runs whole sessions from arbitrary bytes: the server must
// neither panic nor hang, whatever the framing and content.
func FuzzServe(f *testing.F) {
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	session := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8"]}}}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"f","version":1,"text":".version 8.0\n.target sm_90\n.entry k() { .reg .b32 %r<2>; st.global.relaxed.u32 [%r1], %r1; ret; }"}}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"f","version":2},"contentChanges":[{"range":{"start":{"line":2,"character":40},"end":{"line":2,"character":41}},"text":"é"}]}}`)
	f.Add([]byte(session))
	for _, m := range []string{"hover", "definition", "completion", "references"} {
		f.Add([]byte(session + frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/`+m+`","params":{"textDocument":{"uri":"f"},"position":{"line":2,"character":45},"context":{}}}`)))
	}
	for _, m := range []string{"documentSymbol", "semanticTokens/full", "formatting", "codeAction"} {
		f.Add([]byte(session + frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/`+m+`","params":{"textDocument":{"uri":"f"},"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":9}}}}`)))
	}
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}Content-Length: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		done := make(chan struct{})
		go func() {
			Serve(bytes.NewReader(data), &out, Options{Explain: func(in, _, _ string) string { return in }})
			close(done)
		}()
		<-done
		if _, err := io.Copy(io.Discard, &out); err != nil {
			t.Fatal(err)
		}
	})
}

package lsp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// testClient speaks the protocol to a server over pipes, as an editor
// does: framed messages in, framed messages out.
type testClient struct {
	t      testing.TB
	w      io.WriteCloser
	msgs   chan message
	done   chan error
	nextID int
	queue  []message // notifications received while waiting for a response
}

// testTimeout bounds the wait for one message (longer under the race
// detector, which slows the server several times).
const testTimeout = 10 * time.Second * raceSlowdown

// startServer starts a server on pipes and returns its client. The
// session ends with the test.
func startServer(t testing.TB, opts Options) *testClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &testClient{t: t, w: inW, msgs: make(chan message, 1024), done: make(chan error, 1)}
	go func() {
		err := Serve(inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go func() {
		r := newReader(outR)
		for {
			body, err := r.read()
			if err != nil {
				close(c.msgs)
				return
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil {
				panic(fmt.Sprintf("server wrote invalid JSON %q: %v", body, err))
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return c
}

// initialized starts a server and completes the initialize handshake with
// the given position encodings offered.
func initialized(t testing.TB, encodings ...string) *testClient {
	c := startServer(t, Options{Explain: func(in, target, version string) string {
		return fmt.Sprintf("explain(%q, %q, %q)\n", in, target, version)
	}})
	params := map[string]any{"capabilities": map[string]any{}}
	if len(encodings) > 0 {
		params["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": encodings}}
	}
	c.result("initialize", params, nil)
	c.notify("initialized", map[string]any{})
	return c
}

func (c *testClient) writeRaw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *testClient) send(v any) {
	c.t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// next returns the next message from the server.
func (c *testClient) next() message {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("server closed its output")
		}
		return m
	case <-time.After(testTimeout):
		c.t.Fatal("no message from the server")
	}
	return message{}
}

// call sends a request and returns its response, keeping notifications
// that arrive meanwhile.
func (c *testClient) call(method string, params any) message {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		m := c.next()
		if m.Method != "" {
			c.queue = append(c.queue, m)
			continue
		}
		if string(m.ID) != fmt.Sprint(id) {
			c.t.Fatalf("response id %s, want %d", m.ID, id)
		}
		return m
	}
}

// result calls and decodes the successful result into v (when not nil).
func (c *testClient) result(method string, params, v any) {
	c.t.Helper()
	m := c.call(method, params)
	if m.Error != nil {
		c.t.Fatalf("%s: error %v", method, m.Error)
	}
	if v != nil {
		if err := json.Unmarshal(m.Result, v); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

// notification waits for the next notification of method.
func (c *testClient) notification(method string) message {
	c.t.Helper()
	for i, m := range c.queue {
		if m.Method == method {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return m
		}
	}
	for {
		m := c.next()
		if m.Method == method {
			return m
		}
		c.queue = append(c.queue, m)
	}
}

// diagnostics waits for the next publication for uri.
func (c *testClient) diagnostics(uri string) publishDiagnosticsParams {
	c.t.Helper()
	for {
		var p publishDiagnosticsParams
		m := c.notification("textDocument/publishDiagnostics")
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.t.Fatal(err)
		}
		if p.URI == uri {
			return p
		}
	}
}

func (c *testClient) open(uri, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "ptx", "version": 1, "text": text}})
}

// posParams is a TextDocumentPositionParams.
func posParams(uri string, p Position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}
}

// readKernel returns the test document.
func readKernel(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at returns the position of the n-th (0-based) occurrence of needle in
// src, plus delta bytes, counted in UTF-16 code units (or bytes for
// utf-8) independently of the server's conversion: by encoding the line
// prefix with unicode/utf16.
func at(t testing.TB, src, needle string, n, delta int, enc string) Position {
	t.Helper()
	i := -1
	for k := 0; k <= n; k++ {
		j := strings.Index(src[i+1:], needle)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, n+1)
		}
		i += 1 + j
	}
	i += delta
	line := strings.Count(src[:i], "\n")
	prefix := src[strings.LastIndex(src[:i], "\n")+1 : i]
	if enc == "utf-8" {
		return Position{line, len(prefix)}
	}
	return Position{line, len(utf16.Encode([]rune(prefix)))}
}

// span returns the range of the n-th occurrence of needle.
func span(t testing.TB, src, needle string, n int, enc string) Range {
	t.Helper()
	return Range{at(t, src, needle, n, 0, enc), at(t, src, needle, n, len(needle), enc)}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// lspSession frames requests as an editor would and runs "ptxkit lsp" on
// them, returning the messages it wrote and its exit status.
func lspSession(t *testing.T, msgs ...map[string]any) ([]map[string]any, int) {
	t.Helper()
	var in bytes.Buffer
	for _, m := range msgs {
		m["jsonrpc"] = "2.0"
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"lsp"}, &in, &out, &errOut)
	var got []map[string]any
	r := bufio.NewReader(&out)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		if err != nil {
			t.Fatalf("header %q: %v", line, err)
		}
		r.ReadString('\n')
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	return got, code
}

// TestLSPHoverIsExplain checks that hover on an instruction of a document
// shows what "ptxkit explain" prints for it with the document's target and
// version, and that the session ends with status 0 after shutdown and exit.
func TestLSPHoverIsExplain(t *testing.T) {
	src, err := os.ReadFile("../../internal/lsp/testdata/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(src[:bytes.Index(src, []byte("st.global.relaxed"))]), "\n")
	uri := "file:///k.ptx"
	got, code := lspSession(t,
		map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}},
		map[string]any{"method": "initialized", "params": map[string]any{}},
		map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "ptx", "version": 1, "text": string(src)}}},
		map[string]any{"id": 2, "method": "textDocument/hover", "params": map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": 5}}},
		map[string]any{"id": 3, "method": "shutdown"},
		map[string]any{"method": "exit"},
	)
	if code != exitOK {
		t.Errorf("exit status %d", code)
	}
	var hoverText string
	for _, m := range got {
		if m["id"] == 2.0 {
			hoverText = m["result"].(map[string]any)["contents"].(map[string]any)["value"].(string)
		}
	}
	var explain, stderr bytes.Buffer
	run([]string{"explain", "st.global.relaxed.u32 [%rd1], %r1;", "--target", "sm_90", "--ptx", "8.0"}, nil, &explain, &stderr)
	if !strings.Contains(explain.String(), "requires a scope") {
		t.Fatalf("explain output %q", explain.String())
	}
	if !strings.HasPrefix(hoverText, "```text\n"+explain.String()+"```\n") {
		t.Errorf("hover:\n%s\nwant explain's text:\n%s", hoverText, explain.String())
	}
}

func TestLSPUsageAndExit(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"lsp", "--tcp"}, strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Errorf("ptxkit lsp --tcp: status %d", code)
	}
	if _, code := lspSession(t, map[string]any{"method": "exit"}); code != exitFail {
		t.Errorf("exit without shutdown: status %d, want 1", code)
	}
	if code := run([]string{"lsp", "--stdio"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Errorf("end of input: status %d, want 0", code)
	}
}

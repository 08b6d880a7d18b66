package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// openKernel starts a server with the test document open and its first
// diagnostics received.
func openKernel(t *testing.T, enc string) (*testClient, string) {
	c := initialized(t, enc)
	src := readKernel(t)
	c.open(kernelURI, src)
	c.diagnostics(kernelURI)
	return c, src
}

func hoverAt(t *testing.T, c *testClient, p Position) hover {
	t.Helper()
	var h hover
	c.result("textDocument/hover", posParams(kernelURI, p), &h)
	return h
}

func TestHoverInstruction(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		c, src := openKernel(t, enc)
		h := hoverAt(t, c, at(t, src, ".relaxed", 0, 3, enc))
		// The explainer receives the instruction as written and the
		// document's header; the document's diagnostic on it follows.
		want := fmt.Sprintf("explain(%q, %q, %q)", "st.global.relaxed.u32 [%rd1], %r1;", "sm_90", "8.0")
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("%s: hover %q lacks %q", enc, h.Contents.Value, want)
		}
		if !strings.Contains(h.Contents.Value, "error: .relaxed requires a scope `[st-sem-scope]` (fix: add a scope") {
			t.Errorf("%s: hover %q lacks the document's diagnostic", enc, h.Contents.Value)
		}
		// On a qualifier: explain's text, then the qualifier's meaning;
		// the range is the qualifier's.
		if !strings.HasPrefix(h.Contents.Value, "```text\n"+want) || !strings.Contains(h.Contents.Value, "```\n\n**`.relaxed`** on `st`: .sem: ") {
			t.Errorf("%s: hover on .relaxed: %q", enc, h.Contents.Value)
		}
		if wantRange := span(t, src, ".relaxed", 0, enc); h.Range == nil || *h.Range != wantRange {
			t.Errorf("%s: hover range %v, want %v", enc, h.Range, wantRange)
		}
		// On the opcode: the whole instruction name.
		h = hoverAt(t, c, at(t, src, "st.global.relaxed", 0, 1, enc))
		if wantRange := span(t, src, "st.global.relaxed.u32", 0, enc); h.Range == nil || *h.Range != wantRange {
			t.Errorf("%s: hover range %v, want %v", enc, h.Range, wantRange)
		}
		if !strings.Contains(h.Contents.Value, want) || strings.Contains(h.Contents.Value, "**`.relaxed`**") {
			t.Errorf("%s: hover on the opcode %q", enc, h.Contents.Value)
		}
	}
}

func TestHoverWithoutExplainer(t *testing.T) {
	c := startServer(t, Options{})
	c.result("initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	src := readKernel(t)
	c.open(kernelURI, src)
	var h hover
	c.result("textDocument/hover", posParams(kernelURI, at(t, src, "st.global.relaxed", 0, 1, "utf-16")), &h)
	if !strings.Contains(h.Contents.Value, "PTX ISA 9.7.9.11 (st)") {
		t.Errorf("hover %q lacks the st summary and section", h.Contents.Value)
	}
}

func TestHoverNames(t *testing.T) {
	c, src := openKernel(t, "utf-16")
	for _, tc := range []struct {
		needle string
		n      int
		want   []string
	}{
		{"%rd1]", 0, []string{"**register** `%rd1`: .reg .b64", ".reg .b64 %rd<3>;", "declared on line 20 in `kern`"}},
		{"%rd<3>", 0, []string{"**register** `%rd<3>`: .reg .b64", "declared on line 20 in `kern`"}},
		{"%tid", 0, []string{"**special register** `%tid`", ".v4 .u32", "thread identifier within the CTA", "PTX ISA 1.0, sm_10"}},
		{"counter]", 0, []string{"**variable** `counter`: .global .b32", ".visible .global .align 4 .b32 counter;", "declared on line 6\n"}},
		{"twice,", 0, []string{"**function** `twice`", ".func (.param .b32 ret) twice(\n\t.param .b32 x\n)", "declared on line 8"}},
		{"x]", 0, []string{"**parameter** `x`: .param .b32", "in `twice`"}},
		{"$L_end;", 0, []string{"**label** `$L_end`", "declared on line 33 in `kern`"}},
	} {
		h := hoverAt(t, c, at(t, src, tc.needle, tc.n, 1, "utf-16"))
		for _, w := range tc.want {
			if !strings.Contains(h.Contents.Value, w) {
				t.Errorf("hover on %q: %q lacks %q", tc.needle, h.Contents.Value, w)
			}
		}
	}
	// Nothing to say between statements.
	if m := c.call("textDocument/hover", posParams(kernelURI, Position{2, 0})); string(m.Result) != "null" {
		t.Errorf("hover on .address_size: %s", m.Result)
	}
}

func TestDefinition(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		c, src := openKernel(t, enc)
		for _, tc := range []struct {
			use     string
			n       int
			decl    string // the declared name
			declN   int
			declOff int
		}{
			{"%r1;", 0, "%r<4>", 0, 0},      // after the emoji comment
			{"%rd1]", 0, "%rd<3>", 0, 0},    //
			{"$L_end;", 0, "$L_end:", 0, 0}, // a label
			{"twice,", 0, "twice(", 0, 0},   // a function
			{"x]", 0, "x)", 0, 0},           // a parameter
			{"counter]", 0, "counter;", 0, 0},
			{"arg]", 0, "arg;", 0, 0}, // a call argument slot
		} {
			var locs []Location
			c.result("textDocument/definition", posParams(kernelURI, at(t, src, tc.use, tc.n, 1, enc)), &locs)
			name := strings.TrimRight(tc.decl, ":;(),<>0123456789")
			if strings.HasPrefix(tc.decl, "%") {
				name = tc.decl[:strings.IndexByte(tc.decl, '<')]
			}
			want := Range{at(t, src, tc.decl, tc.declN, 0, enc), at(t, src, tc.decl, tc.declN, len(name), enc)}
			if len(locs) != 1 || locs[0].URI != kernelURI || locs[0].Range != want {
				t.Errorf("%s: definition of %q: %+v, want %v", enc, tc.use, locs, want)
			}
		}
		// No declaration for a special register.
		if m := c.call("textDocument/definition", posParams(kernelURI, at(t, src, "%tid", 0, 1, enc))); string(m.Result) != "null" {
			t.Errorf("%s: definition of %%tid: %s", enc, m.Result)
		}
	}
}

func TestReferences(t *testing.T) {
	c, src := openKernel(t, "utf-16")
	refs := func(p Position, withDecl bool) []Range {
		var locs []Location
		c.result("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": kernelURI},
			"position": p, "context": map[string]any{"includeDeclaration": withDecl}}, &locs)
		var out []Range
		for _, l := range locs {
			out = append(out, l.Range)
		}
		return out
	}
	// %r1 is one register of %r<4>: its references are not those of %r2.
	got := refs(at(t, src, "%r1,", 0, 1, "utf-16"), false)
	want := []Range{span(t, src, "%r1", 0, "utf-16"), span(t, src, "%r1", 1, "utf-16"), span(t, src, "%r1", 2, "utf-16")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("references of %%r1: %v, want %v", got, want)
	}
	// From the declaration of twice: the declaration and the call.
	got = refs(at(t, src, "twice(", 0, 0, "utf-16"), true)
	want = []Range{span(t, src, "twice", 0, "utf-16"), span(t, src, "twice", 1, "utf-16")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("references of twice: %v, want %v", got, want)
	}
	// %t: the declaration and five uses.
	if got := refs(at(t, src, "%t;", 0, 0, "utf-16"), true); len(got) != 6 {
		t.Errorf("references of %%t: %v, want 6", got)
	}
	var hl []struct {
		Range Range `json:"range"`
		Kind  int   `json:"kind"`
	}
	c.result("textDocument/documentHighlight", posParams(kernelURI, at(t, src, "$L_end", 0, 0, "utf-16")), &hl)
	if len(hl) != 2 || hl[0].Kind != 3 || hl[0].Range != span(t, src, "$L_end", 1, "utf-16") || hl[1].Kind != 2 {
		t.Errorf("highlights of $L_end: %+v", hl)
	}
}

func TestDocumentSymbols(t *testing.T) {
	c, src := openKernel(t, "utf-16")
	var syms []documentSymbol
	c.result("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": kernelURI}}, &syms)
	var got []string
	var walk func(prefix string, l []documentSymbol)
	walk = func(prefix string, l []documentSymbol) {
		for _, s := range l {
			got = append(got, fmt.Sprintf("%s%s(%d %s)", prefix, s.Name, s.Kind, s.Detail))
			walk(prefix+s.Name+"/", s.Children)
		}
	}
	walk("", syms)
	want := "counter(13 .global .b32) twice(12 .func) twice/ret(13 .param .b32) twice/x(13 .param .b32) " +
		"kern(12 .visible .entry) kern/out(13 .param .u64)"
	if strings.Join(got, " ") != want {
		t.Errorf("symbols:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if len(syms) == 3 && syms[2].SelectionRange != span(t, src, "kern", 0, "utf-16") {
		t.Errorf("kern selection range %v", syms[2].SelectionRange)
	}
}

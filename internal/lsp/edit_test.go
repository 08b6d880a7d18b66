package lsp

import (
	"fmt"
	"github.com/ptxkit/ptxkit/check"
	"sort"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// labels returns the labels of a completion list.
func completeAt(t *testing.T, c *testClient, uri string, p Position) []string {
	t.Helper()
	var l completionList
	c.result("textDocument/completion", posParams(uri, p), &l)
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Label)
	}
	return out
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestCompletionQualifiers completes st's qualifiers for three headers:
// sm_90 at PTX 8.5; sm_90 at PTX 8.0, before st.async (PTX ISA 8.1);
// sm_60 at PTX 5.0, where .relaxed, .release and the scopes do not exist
// yet (PTX ISA 6.0, sm_70).
func TestCompletionQualifiers(t *testing.T) {
	c := initialized(t)
	doc := func(version, target string) string {
		return ".version " + version + "\n.target " + target + "\n.address_size 64\n.entry k()\n{\n\tst.\n\tst.global.\n\tst.global.rel\n\tst.global.relaxed.\n\tmba\n\tmov.u32 %r1, %cl\n}\n"
	}
	for _, tc := range []struct {
		version, target string
		modern          bool // PTX 6.0 and sm_70: strong stores and scopes
		async           bool // PTX 8.1 and sm_90: st.async
	}{{"8.5", "sm_90", true, true}, {"8.0", "sm_90", true, false}, {"5.0", "sm_60", false, false}} {
		uri := "file:///tmp/c" + tc.target + "-" + tc.version + ".ptx"
		src := doc(tc.version, tc.target)
		c.open(uri, src)
		afterSpace := completeAt(t, c, uri, at(t, src, "st.global.\n", 0, len("st.global."), "utf-16"))
		if has(afterSpace, ".global") || has(afterSpace, ".shared") {
			t.Errorf("%s: a second state space is offered: %v", tc.target, afterSpace)
		}
		for _, q := range []string{".u32", ".v4", ".wb"} {
			if !has(afterSpace, q) {
				t.Errorf("%s: st.global. lacks %s: %v", tc.target, q, afterSpace)
			}
		}
		// st.async stores to .shared::cluster; its .global form needs PTX
		// 8.7 and sm_100.
		afterSt := completeAt(t, c, uri, at(t, src, "st.\n", 0, 3, "utf-16"))
		if has(afterSt, ".async") != tc.async || has(afterSpace, ".async") {
			t.Errorf("PTX %s %s: st. offers .async: %v; st.global. offers .async: %v", tc.version, tc.target,
				has(afterSt, ".async"), has(afterSpace, ".async"))
		}
		rel := completeAt(t, c, uri, at(t, src, "st.global.rel\n", 0, len("st.global.rel"), "utf-16"))
		if got := fmt.Sprint(rel); tc.modern && got != "[.relaxed .release]" || !tc.modern && got != "[]" {
			t.Errorf("%s: st.global.rel completes to %s", tc.target, got)
		}
		scopes := completeAt(t, c, uri, at(t, src, "relaxed.\n", 0, len("relaxed."), "utf-16"))
		if tc.modern && (!has(scopes, ".gpu") || !has(scopes, ".cluster") || has(scopes, ".release")) {
			t.Errorf("%s: st.global.relaxed. completes to %v", tc.target, scopes)
		}
		if ops := completeAt(t, c, uri, at(t, src, "mba", 0, 3, "utf-16")); fmt.Sprint(ops) != "[mbarrier]" {
			t.Errorf("opcodes for mba: %v", ops)
		}
		regs := completeAt(t, c, uri, at(t, src, "%cl", 0, 3, "utf-16"))
		sort.Strings(regs)
		if fmt.Sprint(regs) != "[%clock %clock64 %clock_hi %cluster_ctaid %cluster_ctarank %cluster_nctaid %cluster_nctarank %clusterid]" {
			t.Errorf("registers for %%cl: %v", regs)
		}
	}
	// Directives at the start of a line and after a declaration keyword.
	dsrc := ".ver\n.visible .en\n"
	c.open("file:///tmp/d.ptx", dsrc)
	if got := completeAt(t, c, "file:///tmp/d.ptx", at(t, dsrc, ".ver", 0, 4, "utf-16")); fmt.Sprint(got) != "[.version]" {
		t.Errorf("directives for .ver: %v", got)
	}
	if got := completeAt(t, c, "file:///tmp/d.ptx", at(t, dsrc, ".en", 0, 3, "utf-16")); fmt.Sprint(got) != "[.entry]" {
		t.Errorf("directives for .en: %v", got)
	}
	// Operands are not opcodes.
	src := doc("8.5", "sm_90")
	if ops := completeAt(t, c, "file:///tmp/csm_90-8.5.ptx", at(t, src, "%r1, ", 0, 5, "utf-16")); len(ops) != 0 {
		t.Errorf("completion at an operand: %v", ops)
	}
}

// TestCompletionSubOpcode completes "tcgen05." with the store table's
// .st and the forms' sub-opcodes where the target and version have
// tcgen05 (PTX 8.6, sm_100a) and with nothing before.
func TestCompletionSubOpcode(t *testing.T) {
	c := initialized(t)
	for _, tc := range []struct {
		header string
		want   []string
	}{
		{".version 8.6\n.target sm_100a\n", []string{".st", ".alloc", ".dealloc", ".ld", ".commit", ".mma", ".wait::ld"}},
		{".version 8.0\n.target sm_90a\n", nil},
	} {
		src := tc.header + ".entry k()\n{\n\ttcgen05.\n}\n"
		c.open(kernelURI, src)
		got := completeAt(t, c, kernelURI, at(t, src, "tcgen05.", 0, 8, "utf-16"))
		if len(got) < len(tc.want) || len(tc.want) == 0 && len(got) != 0 || len(got) > 0 && got[0] != ".st" {
			t.Errorf("%q: tcgen05. completes to %v, want %v", tc.header, got, tc.want)
		}
		for _, q := range tc.want {
			if !has(got, q) {
				t.Errorf("%q: tcgen05. lacks %s: %v", tc.header, q, got)
			}
		}
		for _, q := range []string{".x2", ".b32", ".16x64b"} { // these follow a sub-opcode
			if has(got, q) {
				t.Errorf("%q: tcgen05. offers %s", tc.header, q)
			}
		}
	}
}

// TestCompletionEdit checks the edit a qualifier completion makes.
func TestCompletionEdit(t *testing.T) {
	c := initialized(t)
	src := ".version 8.0\n.target sm_90\n.entry k()\n{\n\t// é😀\n\tst.global.relaxed.g\n}\n"
	c.open(kernelURI, src)
	var l completionList
	p := at(t, src, ".g\n", 0, 2, "utf-16")
	c.result("textDocument/completion", posParams(kernelURI, p), &l)
	if len(l.Items) != 1 || l.Items[0].Label != ".gpu" || l.Items[0].TextEdit == nil ||
		l.Items[0].TextEdit.Range != span(t, src, ".g\n", 0, "utf-16") && l.Items[0].TextEdit.Range.End != p {
		t.Fatalf("completion of .g: %+v", l.Items)
	}
}

func TestFormatting(t *testing.T) {
	c := initialized(t)
	src := ".version 8.0\n.target   sm_90\n// é😀 kept\n.entry k()   {\n  ret ;}\n"
	c.open(kernelURI, src)
	var edits []textEdit
	c.result("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": kernelURI},
		"options": map[string]any{"tabSize": 8, "insertSpaces": false}}, &edits)
	m, errs := parser.ParseStringMode("x", src, parser.ParseComments)
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	want := string(printer.Bytes(m))
	if len(edits) != 1 || edits[0].NewText != want || edits[0].Range != (Range{Position{0, 0}, Position{5, 0}}) {
		t.Fatalf("edits %+v, want the whole text replaced by\n%s", edits, want)
	}
	if !strings.Contains(want, "// é😀 kept") {
		t.Errorf("comment lost: %q", want)
	}
	c.open("file:///tmp/bad.ptx", ".entry k( {")
	if m := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/bad.ptx"}}); m.Error == nil || m.Error.Code != codeRequestFailed {
		t.Errorf("formatting a document with syntax errors: %+v", m)
	}
}

// applyEdits applies non-overlapping edits given in UTF-16 positions.
func applyEdits(t *testing.T, src string, edits []textEdit) string {
	t.Helper()
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i].Range.Start, edits[j].Range.Start
		return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
	})
	for _, e := range edits {
		out, ok := newText(src).edit(e.Range, e.NewText, utf16Enc)
		if !ok {
			t.Fatalf("edit %+v outside the text", e)
		}
		src = out
	}
	return src
}

// TestCodeActions applies each quick fix offered for the kernel's missing
// scope and for a version too low, and checks the result with the server.
func TestCodeActions(t *testing.T) {
	c, src := openKernel(t, "utf-16")
	var actions []codeAction
	r := span(t, src, ".relaxed", 0, "utf-16")
	c.result("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": kernelURI},
		"range": r, "context": map[string]any{"diagnostics": []any{}}}, &actions)
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
		if a.Kind != "quickfix" || a.IsPreferred || len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != "st-sem-scope" {
			t.Errorf("action %+v", a)
		}
		fixed := applyEdits(t, src, a.Edit.Changes[kernelURI])
		if d := analyze("x", fixed, check.Config{}).diags; len(d) != 0 {
			t.Errorf("%s leaves %v", a.Title, d)
		}
	}
	if fmt.Sprint(titles) != "[add scope .cta add scope .cluster add scope .gpu add scope .sys]" {
		t.Errorf("titles %v", titles)
	}

	// sm_100 needs PTX 8.6 and .v8 with 32-bit types PTX 8.8: both fixes
	// raise .version, and the higher one leaves nothing to report.
	v8 := strings.Replace(readKernel(t), "st.global.relaxed.u32 [%rd1], %r1;",
		"st.global.v8.u32 [%rd1], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1};", 1)
	v8 = strings.Replace(v8, "sm_90", "sm_100", 1)
	c.open("file:///tmp/v8.ptx", v8)
	var all []codeAction
	c.result("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/v8.ptx"},
		"range": Range{Position{0, 0}, Position{strings.Count(v8, "\n"), 0}}}, &all)
	if len(all) != 2 || all[0].Title != "raise .version to 8.6" || all[1].Title != "raise .version to 8.8" {
		t.Fatalf("actions for .v8: %+v (diagnostics %v)", all, analyze("x", v8, check.Config{}).diags)
	}
	if !all[0].IsPreferred || !all[1].IsPreferred {
		t.Errorf("a single fix for a diagnostic is not preferred: %+v", all)
	}
	fixed := applyEdits(t, v8, all[1].Edit.Changes["file:///tmp/v8.ptx"])
	if !strings.HasPrefix(fixed, ".version 8.8\n") || len(analyze("x", fixed, check.Config{}).diags) != 0 {
		t.Errorf("after raising the version: %v", analyze("x", fixed, check.Config{}).diags)
	}
}

// TestSemanticTokens decodes the token stream and checks the classes of
// chosen names, with positions after characters outside the BMP.
func TestSemanticTokens(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		c, src := openKernel(t, enc)
		var res semanticTokens
		c.result("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": kernelURI}}, &res)
		if len(res.Data)%5 != 0 {
			t.Fatalf("%d integers", len(res.Data))
		}
		got := map[Range]string{}
		line, char := 0, 0
		for i := 0; i < len(res.Data); i += 5 {
			d := res.Data[i : i+5]
			if d[0] > 0 {
				char = 0
			}
			line += int(d[0])
			char += int(d[1])
			r := Range{Position{line, char}, Position{line, char + int(d[2])}}
			name := semanticTokenTypes[d[3]]
			for b, m := range semanticTokenModifiers {
				if d[4]&(1<<b) != 0 {
					name += "+" + m
				}
			}
			got[r] = name
		}
		for _, tc := range []struct {
			needle string
			n      int
			want   string
		}{
			{".version", 0, "macro"},
			{"st", 2, "keyword"}, // "st" of the first store, after ".visible" and "st.param"
			{".relaxed", 0, "modifier"},
			{"%tid", 0, "variable+readonly+defaultLibrary"},
			{"%r2", 1, "variable"}, // after the emoji comment
			{"/* 😀 */", 0, "comment"},
			{"// mémoire partagée 😀: comments may hold any UTF-8", 0, "comment"},
			{"twice", 0, "function+declaration"},
			{"twice", 1, "function"},
			{"$L_end", 1, "label+declaration"},
			{".b64", 0, "type"},
			{"counter", 1, "variable"},
		} {
			r := span(t, src, tc.needle, tc.n, enc)
			if got[r] != tc.want {
				t.Errorf("%s: %q (#%d) at %v is %q, want %q", enc, tc.needle, tc.n, r, got[r], tc.want)
			}
		}
		if r := (Range{at(t, src, "[x]", 0, 1, enc), at(t, src, "[x]", 0, 2, enc)}); got[r] != "parameter" {
			t.Errorf("%s: x in [x] is %q", enc, got[r])
		}
	}
}

// TestSemanticTokensRange asks for the tokens of the line after the emoji
// comment: they are those of the full response on that line, with the
// first one's position absolute.
func TestSemanticTokensRange(t *testing.T) {
	c, src := openKernel(t, "utf-16")
	decode := func(data []uint32) []Range {
		var out []Range
		line, char := 0, 0
		for i := 0; i+5 <= len(data); i += 5 {
			if data[i] > 0 {
				char = 0
			}
			line += int(data[i])
			char += int(data[i+1])
			out = append(out, Range{Position{line, char}, Position{line, char + int(data[i+2])}})
		}
		return out
	}
	doc := map[string]any{"uri": kernelURI}
	var full, part semanticTokens
	c.result("textDocument/semanticTokens/full", map[string]any{"textDocument": doc}, &full)
	l := at(t, src, "/* 😀 */", 0, 0, "utf-16").Line
	c.result("textDocument/semanticTokens/range", map[string]any{"textDocument": doc,
		"range": Range{Position{l, 0}, Position{l + 1, 0}}}, &part)
	var want []Range
	for _, r := range decode(full.Data) {
		if r.Start.Line == l {
			want = append(want, r)
		}
	}
	if got := decode(part.Data); len(want) < 8 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("range tokens %v, want %v", got, want)
	}
}

// TestSemanticTokensVideoSelector checks that a video operand selector
// (PTX ISA 9.7.19) is a modifier token after its register's variable
// token.
func TestSemanticTokensVideoSelector(t *testing.T) {
	src := ".version 8.5\n.target sm_90\n.entry k()\n{\n\t.reg .b32 %r<4>;\n\tvadd.u32.u32.u32 %r1.h1, %r2.b3, %r3, %r0;\n\tret;\n}\n"
	a := analyze("v.ptx", src, check.Config{})
	toks := map[string]int{}
	for _, tk := range a.semanticTokens() {
		toks[src[tk.from:tk.to]] = tk.typ
	}
	for text, want := range map[string]int{"%r1": tokVariable, ".h1": tokModifier, "%r2": tokVariable, ".b3": tokModifier} {
		if got, ok := toks[text]; !ok || got != want {
			t.Errorf("%q: token type %d (present %v), want %d", text, got, ok, want)
		}
	}
}

package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/isa"
)

// completeItems returns the completion items at the end of the first
// needle in src, opened at uri.
func completeItems(t *testing.T, c *testClient, uri, src, needle string) []completionItem {
	t.Helper()
	c.open(uri, src)
	var l completionList
	c.result("textDocument/completion", posParams(uri, at(t, src, needle, 0, len(needle), "utf-16")), &l)
	return l.Items
}

// formsDoc is a kernel of one statement per line, for header h.
func formsDoc(h string, lines ...string) string {
	return h + ".address_size 64\n.entry k()\n{\n\t" + strings.Join(lines, "\n\t") + "\n}\n"
}

func labelsOf(items []completionItem) []string {
	l := make([]string, len(items))
	for i, it := range items {
		l[i] = it.Label
	}
	return l
}

func itemNamed(items []completionItem, label string) *completionItem {
	for i := range items {
		if items[i].Label == label {
			return &items[i]
		}
	}
	return nil
}

const header90 = ".version 8.5\n.target sm_90\n"

// TestCompletionAdd completes add's rounding, saturation, flush and type
// slots (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1), then after .rn only what
// the float forms still take.
func TestCompletionAdd(t *testing.T) {
	c := initialized(t)
	src := formsDoc(header90, "add.", "add.rn.", "add.r", "add.sat.")
	items := completeItems(t, c, kernelURI, src, "add.")
	for _, q := range []string{".rn", ".rz", ".rm", ".rp", ".sat", ".ftz", ".cc", ".s32", ".u64", ".f32", ".f64", ".f16", ".bf16x2"} {
		if itemNamed(items, q) == nil {
			t.Errorf("add. lacks %s: %v", q, labelsOf(items))
		}
	}
	if it := itemNamed(items, ".rn"); it == nil || !strings.HasPrefix(it.Detail, "round to nearest even (optional, one of 4, the default)") ||
		!strings.Contains(it.Documentation, "add{.rn,.rz,.rm,.rp}") {
		t.Errorf("add.rn item: %+v", it)
	}
	if it := itemNamed(items, ".bf16"); it == nil || !strings.HasSuffix(it.Detail, "; needs PTX 7.8, sm_90") {
		t.Errorf("add.bf16 item: %+v", it)
	}
	if it := itemNamed(items, ".s32"); it == nil || it.Detail != "32-bit signed integer (type T)" {
		t.Errorf("add.s32 item: %+v", it)
	}
	for i, it := range items {
		if it.SortText != fmt.Sprintf("%04d", i) || it.TextEdit == nil {
			t.Errorf("item %d: %+v", i, it)
		}
	}
	after := labelsOf(completeItems(t, c, kernelURI, src, "add.rn."))
	for _, q := range []string{".rz", ".rn", ".s32", ".u16", ".cc"} {
		if has(after, q) {
			t.Errorf("add.rn. offers %s: %v", q, after)
		}
	}
	for _, q := range []string{".ftz", ".sat", ".f32", ".f64", ".f16", ".bf16"} {
		if !has(after, q) {
			t.Errorf("add.rn. lacks %s: %v", q, after)
		}
	}
	if got := fmt.Sprint(labelsOf(completeItems(t, c, kernelURI, src, "add.r"))); got != "[.rn .rz .rm .rp]" {
		t.Errorf("add.r completes to %s", got)
	}
	// Integer saturation is .s32 only (PTX ISA §9.7.1.1).
	sat := labelsOf(completeItems(t, c, kernelURI, src, "add.sat."))
	if has(sat, ".u32") || has(sat, ".s64") || !has(sat, ".s32") || !has(sat, ".f32") || has(sat, ".sat") {
		t.Errorf("add.sat. completes to %v", sat)
	}
}

// TestCompletionCvt completes the destination types after cvt.rn: every
// item is a type or a modifier of the float conversions, no second
// rounding mode.
func TestCompletionCvt(t *testing.T) {
	c := initialized(t)
	src := formsDoc(header90, "cvt.rn.", "cvt.rn.f16.")
	items := completeItems(t, c, kernelURI, src, "cvt.rn.")
	for _, q := range []string{".f16", ".f32", ".f64", ".bf16", ".tf32"} {
		if itemNamed(items, q) == nil {
			t.Errorf("cvt.rn. lacks %s: %v", q, labelsOf(items))
		}
	}
	if it := itemNamed(items, ".f16"); it == nil || !strings.Contains(it.Detail, "(destination type)") {
		t.Errorf("cvt.rn.f16 item: %+v", it)
	}
	modifiers := map[string]bool{".ftz": true, ".sat": true, ".relu": true, ".satfinite": true}
	for _, it := range items {
		if isa.TypeByName(it.Label) == isa.QNone && !modifiers[it.Label] {
			t.Errorf("cvt.rn. offers %s (%s)", it.Label, it.Detail)
		}
	}
	// After the destination type come the source types (cvt.rn.f16.f32).
	src2 := labelsOf(completeItems(t, c, kernelURI, src, "cvt.rn.f16."))
	if !has(src2, ".f32") || !has(src2, ".f64") || has(src2, ".rz") {
		t.Errorf("cvt.rn.f16. completes to %v", src2)
	}
}

// TestCompletionMbarrier completes mbarrier's sub-opcodes (PTX ISA
// §9.7.13.15): .try_wait, .expect_tx and .complete_tx appear with PTX 7.8
// or 8.0 and sm_90; a state space cannot come first.
func TestCompletionMbarrier(t *testing.T) {
	c := initialized(t)
	for _, tc := range []struct{ header, want string }{
		{".version 7.0\n.target sm_80\n", "[.init .inval .arrive .arrive_drop .test_wait .pending_count]"},
		{".version 7.8\n.target sm_90\n", "[.init .inval .arrive .arrive_drop .test_wait .try_wait .pending_count]"},
		{".version 8.0\n.target sm_90\n", "[.init .inval .arrive .arrive_drop .expect_tx .complete_tx .test_wait .try_wait .pending_count]"},
		{".version 6.5\n.target sm_75\n", "[]"},
	} {
		src := formsDoc(tc.header, "mbarrier.", "mbarrier.shared.", "mbarrier.init.")
		items := completeItems(t, c, kernelURI, src, "mbarrier.")
		if got := fmt.Sprint(labelsOf(items)); got != tc.want {
			t.Errorf("%q: mbarrier. completes to %s, want %s", tc.header, got, tc.want)
		}
		if it := itemNamed(items, ".init"); it != nil && it.Detail != "mbarrier.init: Initialize an mbarrier object with an expected arrival count. (sub-opcode)" {
			t.Errorf("mbarrier.init item: %+v", it)
		}
		if got := labelsOf(completeItems(t, c, kernelURI, src, "mbarrier.shared.")); len(got) != 0 {
			t.Errorf("%q: mbarrier.shared. completes to %v", tc.header, got)
		}
	}
	src := formsDoc(header90, "mbarrier.init.")
	if got := fmt.Sprint(labelsOf(completeItems(t, c, kernelURI, src, "mbarrier.init."))); got != "[.shared .shared::cta .b64]" {
		t.Errorf("mbarrier.init. completes to %s", got)
	}
}

// TestCompletionGated hides a qualifier below the version and target its
// gate names and offers it from there: atom's .cluster scope needs PTX
// 7.8 and sm_90 (PTX ISA §9.7.13.5), add.bf16 PTX 7.8 and sm_90.
func TestCompletionGated(t *testing.T) {
	c := initialized(t)
	for _, tc := range []struct {
		header string
		offer  bool
	}{
		{".version 7.7\n.target sm_90\n", false},
		{".version 7.8\n.target sm_86\n", false},
		{".version 7.8\n.target sm_90\n", true},
		{".version 8.5\n.target sm_90a\n", true},
	} {
		src := formsDoc(tc.header, "atom.relaxed.", "add.")
		items := completeItems(t, c, kernelURI, src, "atom.relaxed.")
		it := itemNamed(items, ".cluster")
		if (it != nil) != tc.offer {
			t.Errorf("%q: atom.relaxed. offers .cluster: %v (%v)", tc.header, it != nil, labelsOf(items))
		}
		if it != nil && it.Detail != "scope: the threads of the cluster (optional, one of 4); needs PTX 7.8, sm_90" {
			t.Errorf("%q: .cluster detail %q", tc.header, it.Detail)
		}
		if itemNamed(items, ".gpu") == nil {
			t.Errorf("%q: atom.relaxed. lacks .gpu: %v", tc.header, labelsOf(items))
		}
		if bf := itemNamed(completeItems(t, c, kernelURI, src, "add."), ".bf16"); (bf != nil) != tc.offer {
			t.Errorf("%q: add. offers .bf16: %v", tc.header, bf != nil)
		}
	}
}

// TestCompletionSetp completes setp's comparisons first (PTX ISA
// §9.7.6.2) and, after an unsigned comparison, only unsigned types and
// the combining operators.
func TestCompletionSetp(t *testing.T) {
	c := initialized(t)
	src := formsDoc(header90, "setp.", "setp.lo.")
	items := completeItems(t, c, kernelURI, src, "setp.")
	labels := labelsOf(items)
	for _, q := range []string{".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs", ".equ", ".nan", ".num"} {
		if !has(labels, q) {
			t.Errorf("setp. lacks %s: %v", q, labels)
		}
	}
	if len(labels) < 6 || fmt.Sprint(labels[:6]) != "[.eq .ne .lt .le .gt .ge]" {
		t.Errorf("setp. does not start with the comparisons: %v", labels)
	}
	if it := itemNamed(items, ".lo"); it == nil || !strings.HasPrefix(it.Detail, "lower (unsigned less than)") {
		t.Errorf("setp.lo item: %+v", it)
	}
	if got := fmt.Sprint(labelsOf(completeItems(t, c, kernelURI, src, "setp.lo."))); got != "[.u16 .u32 .u64 .and .or .xor]" {
		t.Errorf("setp.lo. completes to %s", got)
	}
}

// TestCompletionUnknown offers nothing after an opcode or a qualifier
// the tables do not know.
func TestCompletionUnknown(t *testing.T) {
	c := initialized(t)
	src := formsDoc(header90, "frobnicate.", "add.bogus.", "add.rn.rz.", "mbarrier.init.b64.b64.")
	for _, needle := range []string{"frobnicate.", "add.bogus.", "add.rn.rz.", "mbarrier.init.b64.b64."} {
		if got := labelsOf(completeItems(t, c, kernelURI, src, needle)); len(got) != 0 {
			t.Errorf("%s completes to %v", needle, got)
		}
	}
}

// TestCompletionOpcodeSummary lists opcodes with their summaries.
func TestCompletionOpcodeSummary(t *testing.T) {
	c := initialized(t)
	src := formsDoc(header90, "mba", "ad")
	items := completeItems(t, c, kernelURI, src, "mba")
	if len(items) != 1 || !strings.HasPrefix(items[0].Detail, "mbarrier.init, mbarrier.inval, mbarrier.arrive,") {
		t.Errorf("mba: %+v", items)
	}
	items = completeItems(t, c, kernelURI, src, "\tad")
	if fmt.Sprint(labelsOf(items)) != "[add addc]" || items[0].Detail != "Add two values." {
		t.Errorf("ad: %+v", items)
	}
	for _, op := range isa.Opcodes() {
		if !has(allOpcodes(), op) {
			t.Errorf("opcode %s is not offered", op)
		}
	}
}

// TestHoverQualifier hovers on qualifiers of instructions outside the
// store family: explain's text, then the qualifier's meaning and gate.
func TestHoverQualifier(t *testing.T) {
	c := initialized(t)
	src := formsDoc(".version 8.0\n.target sm_90\n", ".reg .f32 %f<4>;", ".reg .b32 %r<4>;", ".reg .b64 %rd<2>;",
		"add.rn.f32 %f1, %f2, %f3;", "atom.relaxed.cluster.global.add.u32 %r1, [%rd1], %r2;")
	c.open(kernelURI, src)
	h := hoverAt(t, c, at(t, src, ".rn", 0, 1, "utf-16"))
	if want := fmt.Sprintf("explain(%q, %q, %q)", "add.rn.f32 %f1, %f2, %f3;", "sm_90", "8.0"); !strings.HasPrefix(h.Contents.Value, "```text\n"+want) {
		t.Errorf("hover on add.rn: %q", h.Contents.Value)
	}
	if !strings.Contains(h.Contents.Value, "**`.rn`** on `add`: round to nearest even (optional, one of 4, the default)") ||
		!strings.Contains(h.Contents.Value, "no gate of its own: add requires PTX ISA 1.0, sm_10 or higher (PTX ISA 9.7.3.3)") {
		t.Errorf("hover on .rn: %q", h.Contents.Value)
	}
	if r := span(t, src, ".rn", 0, "utf-16"); h.Range == nil || *h.Range != r {
		t.Errorf("hover range %v, want %v", h.Range, r)
	}
	h = hoverAt(t, c, at(t, src, ".cluster", 0, 2, "utf-16"))
	if !strings.Contains(h.Contents.Value, "**`.cluster`** on `atom`: scope: the threads of the cluster (optional, one of 4)\n\nrequires PTX ISA 7.8, sm_90 or higher (PTX ISA 9.7.13.5, PTX ISA Notes)") {
		t.Errorf("hover on .cluster: %q", h.Contents.Value)
	}
	// Without an explainer, the form's summary and syntax.
	c2 := startServer(t, Options{})
	c2.result("initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	c2.open(kernelURI, src)
	var h2 hover
	c2.result("textDocument/hover", posParams(kernelURI, at(t, src, "add.rn", 0, 1, "utf-16")), &h2)
	if !strings.Contains(h2.Contents.Value, "Add two values. (PTX ISA 9.7.3.3)") || !strings.Contains(h2.Contents.Value, "add{.rn,.rz,.rm,.rp}{.ftz}{.sat}.f32 d, a, b") {
		t.Errorf("hover without explainer: %q", h2.Contents.Value)
	}
}

// TestCompletionLongQualifierChain completes after a line of 100,000
// qualifiers: no form has room for them, so nothing is offered, quickly.
func TestCompletionLongQualifierChain(t *testing.T) {
	c := initialized(t)
	line := "add" + strings.Repeat(".rn", 100000) + "."
	src := formsDoc(header90, line)
	start := time.Now()
	if got := completeItems(t, c, kernelURI, src, line); len(got) != 0 {
		t.Errorf("%d items", len(got))
	}
	if d := time.Since(start); d > 5*time.Second*raceSlowdown {
		t.Errorf("took %v", d)
	}
}

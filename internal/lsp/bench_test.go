package lsp

import (
	"github.com/ptxkit/ptxkit/check"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// The requirement: diagnostics within 50 ms of a change to a 1 MB
// document. BenchmarkAnalyze1MB is the analysis alone (parse with
// comments, resolve with uses, validate, index the declarations);
// BenchmarkDidChange1MB is the round trip an editor sees: a one-character
// incremental change sent over a pipe until its publishDiagnostics is read.
const benchDocBytes = 1 << 20

func BenchmarkAnalyze1MB(b *testing.B) {
	src := benchmod.Compiler(benchDocBytes)
	benchmod.Run(b, len(src), func() {
		if a := analyze("bench.ptx", src, check.Config{}); len(a.diags) != 0 {
			b.Fatalf("diagnostics %v", a.diags[:1])
		}
	})
}

func BenchmarkDidChange1MB(b *testing.B) {
	src := benchmod.Compiler(benchDocBytes)
	c := initialized(b)
	c.open(kernelURI, src)
	if p := c.diagnostics(kernelURI); len(p.Diagnostics) != 0 {
		b.Fatalf("diagnostics %v", p.Diagnostics[:1])
	}
	// Toggle the first kernel's name between kernel_0 and kernel_X.
	pos := newText(src).position(strings.Index(src, "kernel_0(")+len("kernel_"), utf16Enc)
	edit := Range{pos, Position{pos.Line, pos.Character + 1}}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	start := benchmod.CPUTime()
	for i := 0; i < b.N; i++ {
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": kernelURI, "version": i + 2},
			"contentChanges": []map[string]any{{"range": edit, "text": "X0"[i%2 : i%2+1]}}})
		if p := c.diagnostics(kernelURI); p.Version != i+2 || len(p.Diagnostics) != 0 {
			b.Fatalf("version %d: %+v", p.Version, p.Diagnostics)
		}
	}
	benchmod.ReportCPU(b, len(src), start)
}

// BenchmarkRequests1MB measures the requests an editor sends while the
// user reads a 1 MB document, on a register use in its last kernel:
// hover, definition, references, completion, and the whole document's
// symbols and semantic tokens.
func BenchmarkRequests1MB(b *testing.B) {
	src := benchmod.Compiler(benchDocBytes)
	c := initialized(b)
	c.open(kernelURI, src)
	c.diagnostics(kernelURI)
	last := strings.LastIndex(src, "mad.lo.s32 %r4, %r3")
	pos := newText(src).position(last+len("mad.lo.s32 %r4, %r"), utf16Enc)
	doc := map[string]any{"textDocument": map[string]any{"uri": kernelURI}}
	for _, r := range []struct {
		name, method string
		params       any
	}{
		{"hover", "textDocument/hover", posParams(kernelURI, pos)},
		{"definition", "textDocument/definition", posParams(kernelURI, pos)},
		{"references", "textDocument/references", map[string]any{"textDocument": map[string]any{"uri": kernelURI},
			"position": pos, "context": map[string]any{"includeDeclaration": true}}},
		{"completion", "textDocument/completion", posParams(kernelURI, pos)},
		{"documentSymbol", "textDocument/documentSymbol", doc},
		{"semanticTokens", "textDocument/semanticTokens/full", doc},
	} {
		b.Run(r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if m := c.call(r.method, r.params); m.Error != nil || string(m.Result) == "null" {
					b.Fatalf("%s: %+v", r.method, m)
				}
			}
		})
	}
}

// BenchmarkCompletion1MB measures qualifier and opcode completion in a
// 1 MB document, each a full round trip over the pipe, at statements
// written into its last kernel: the forms' qualifiers after add., cvt.rn.,
// setp., mbarrier. and tcgen05. (store table and forms), and the opcodes
// for "m", in a PTX 8.6 sm_100a header (where tcgen05 exists). The
// requirement is well under 10 ms. cpu-µs/op is the whole process's
// (server and test client).
func BenchmarkCompletion1MB(b *testing.B) {
	src := benchmod.Compiler(benchDocBytes)
	last := strings.LastIndex(src, "mad.lo.s32 %r4, %r3")
	probes := []string{"add.", "cvt.rn.", "setp.", "mbarrier.", "tcgen05.", "m"}
	src = src[:last] + strings.Join(probes, "\n\t") + "\n\t" + src[last:]
	src = strings.Replace(src, ".version 8.5\n.target sm_90a\n", ".version 8.6\n.target sm_100a\n", 1) // tcgen05
	last += len(".version 8.6\n.target sm_100a\n") - len(".version 8.5\n.target sm_90a\n")
	c := initialized(b)
	c.open(kernelURI, src)
	c.diagnostics(kernelURI)
	text := newText(src)
	for i, p := range probes {
		at := last + len(strings.Join(probes[:i+1], "\n\t"))
		params := posParams(kernelURI, text.position(at, utf16Enc))
		b.Run(strings.TrimSuffix(p, "."), func(b *testing.B) {
			var l completionList
			c.result("textDocument/completion", params, &l)
			if len(l.Items) == 0 {
				b.Fatalf("%s: no items", p)
			}
			start := benchmod.CPUTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if m := c.call("textDocument/completion", params); m.Error != nil {
					b.Fatalf("%s: %+v", p, m.Error)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(benchmod.CPUTime()-start)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

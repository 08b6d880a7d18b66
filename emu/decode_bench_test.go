package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// decodeBenchSource is a kernel of n blocks of arithmetic, comparison,
// conversion, load and store instructions.
func decodeBenchSource(n int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n")
	b.WriteString("\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p<2>;\n")
	b.WriteString("\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n")
	for i := range n {
		fmt.Fprintf(&b, "\tadd.s32 %%r1, %%r2, %d;\n", i)
		b.WriteString("\tmad.lo.s32 %r3, %r1, %r2, %r3;\n")
		b.WriteString("\tsetp.lt.u32 %p1, %r3, %r1;\n")
		b.WriteString("\tcvt.rn.f32.s32 %f1, %r3;\n")
		b.WriteString("\tfma.rn.ftz.f32 %f2, %f1, %f1, %f2;\n")
		b.WriteString("\tld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd2+16];\n")
		b.WriteString("\t@%p1 st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};\n")
		b.WriteString("\tst.shared.u32 [%r1], %r3;\n")
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// BenchmarkDecode measures lowering a parsed module into a Program, the
// isa decoding of every instruction and the resolution of its names
// included.
func BenchmarkDecode(b *testing.B) {
	const blocks = 2000
	m, errs := parser.ParseString("bench.ptx", decodeBenchSource(blocks))
	if errs.HasErrors() {
		b.Fatal(errs.Err())
	}
	var insts int
	for b.Loop() {
		p, errs := Decode(m, "")
		if errs.HasErrors() {
			b.Fatal(errs.Err())
		}
		insts = len(p.Insts)
	}
	b.ReportMetric(float64(insts)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minst/s")
}

// BenchmarkDecodeResolved measures lowering with the names already
// resolved, as ptxkit run does after checking the module.
func BenchmarkDecodeResolved(b *testing.B) {
	const blocks = 2000
	m, errs := parser.ParseString("bench.ptx", decodeBenchSource(blocks))
	if errs.HasErrors() {
		b.Fatal(errs.Err())
	}
	info, errs := resolve.Module(m)
	if errs.HasErrors() {
		b.Fatal(errs.Err())
	}
	var insts int
	for b.Loop() {
		p, errs := DecodeResolved(m, info, "")
		if errs.HasErrors() {
			b.Fatal(errs.Err())
		}
		insts = len(p.Insts)
	}
	b.ReportMetric(float64(insts)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minst/s")
}

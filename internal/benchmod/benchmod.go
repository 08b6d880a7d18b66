// Package benchmod generates the large many-kernel PTX modules that the
// benchmarks of the front end, the validator and the ptxkit command
// measure, and that scripts/bench-check.sh gives to ptxas.
package benchmod

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// benchKernel is one kernel of the benchmark module: index arithmetic,
// loads and the store forms kernels use (vector, strong, shared, local,
// cache-hinted, predicated). %d is replaced by the kernel number.
const benchKernel = `.visible .entry store_kernel_%d(
	.param .u64 out,
	.param .u64 in,
	.param .u32 n
)
{
	.reg .pred %%p<4>;
	.reg .b32 %%r<24>;
	.reg .f32 %%f<12>;
	.reg .b64 %%rd<16>;
	.shared .align 16 .b32 tile[256];
	.local .align 16 .b32 spill[4];

	ld.param.u64 %%rd1, [out];
	ld.param.u64 %%rd2, [in];
	ld.param.u32 %%r1, [n];
	cvta.to.global.u64 %%rd3, %%rd1;
	cvta.to.global.u64 %%rd4, %%rd2;
	mov.u32 %%r2, %%tid.x;
	mov.u32 %%r3, %%ctaid.x;
	mov.u32 %%r4, %%ntid.x;
	mad.lo.s32 %%r5, %%r3, %%r4, %%r2;
	setp.ge.s32 %%p1, %%r5, %%r1;
	@%%p1 bra $L_done_%d;
	mul.wide.s32 %%rd5, %%r5, 16;
	add.s64 %%rd6, %%rd4, %%rd5;
	ld.global.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd6];
	add.f32 %%f5, %%f1, %%f2;
	mul.f32 %%f6, %%f3, %%f4;
	fma.rn.f32 %%f7, %%f5, %%f6, %%f1;
	add.s64 %%rd7, %%rd3, %%rd5;
	st.global.v4.f32 [%%rd7], {%%f5, %%f6, %%f7, %%f1};
	st.global.cs.f32 [%%rd7+4], %%f7;
	st.global.L1::no_allocate.v2.f32 [%%rd7+8], {%%f1, %%f2};
	shl.b32 %%r6, %%r2, 2;
	mov.u32 %%r7, tile;
	add.s32 %%r8, %%r7, %%r6;
	st.shared.f32 [%%r8], %%f7;
	st.shared.u32 [tile+4], %%r5;
	bar.sync 0;
	ld.shared.f32 %%f8, [%%r8];
	st.local.f32 [spill], %%f8;
	st.local.v2.u32 [spill+8], {%%r5, %%r6};
	ld.local.f32 %%f9, [spill];
	st.relaxed.gpu.global.u32 [%%rd7+12], %%r5;
	st.release.sys.global.f32 [%%rd7], %%f9;
	st.volatile.global.u32 [%%rd7+4], %%r6;
	cvt.rn.f16.f32 %%r9, %%f9;
	st.global.b16 [%%rd7+2], %%r9;
	st.global.u8 [%%rd7+1], %%r5;
	setp.eq.s32 %%p2, %%r2, 0;
	@%%p2 st.global.b64 [%%rd7+8], %%rd5;
	@!%%p2 st.global.wt.u32 [%%rd7+8], %%r5;
	st.global.L2::cache_hint.u32 [%%rd7], %%r5, %%rd5;
	st.shared.v4.b32 [%%r8], {%%r5, %%r6, %%r7, %%r8};
	st.u32 [%%rd1], %%r5;
$L_done_%d:
	ret;
}

`

// Check returns a module of about size bytes made of benchKernel
// copies.
func Check(size int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, benchKernel, i, i, i)
	}
	return b.String()
}

// CheckLong is Check with each kernel's instructions repeated n times, so
// that a module of the same size has n times fewer, longer kernels: it
// shows what the per-kernel costs are.
func CheckLong(size, n int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n\n")
	for i := 0; b.Len() < size; i++ {
		k := fmt.Sprintf(benchKernel, i, i, i)
		start := strings.Index(k, "\n\n") + 2 // after the declarations
		end := strings.Index(k, "$L_done_")
		end = strings.Index(k[end+1:], "$L_done_") + end + 1 // the label, not the branch to it
		b.WriteString(k[:start])
		for range n {
			b.WriteString(k[start:end])
		}
		b.WriteString(k[end:])
	}
	return b.String()
}

// Compiler returns a generated module of many kernels in the style of
// compiler output (declarations, parameter loads, address arithmetic,
// scalar and vector stores, guarded branches, calls), about size bytes:
// the module of the parser's and the resolver's benchmarks.
func Compiler(size int) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90a\n.address_size 64\n\n")
	b.WriteString(".func (.param .b32 func_retval0) helper(.param .b32 p0)\n{\n\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [p0];\n\tadd.s32 %r2, %r1, 1;\n\tst.param.b32 [func_retval0], %r2;\n\tret;\n}\n\n")
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(&b, ".visible .entry kernel_%d(\n\t.param .u64 kernel_%d_param_0,\n\t.param .u32 kernel_%d_param_1\n)\n.maxntid 256, 1, 1\n{\n", k, k, k)
		b.WriteString("\t.reg .pred %p<4>;\n\t.reg .b32 %r<64>;\n\t.reg .f32 %f<16>;\n\t.reg .b64 %rd<32>;\n\t.shared .align 16 .b8 smem[4096];\n\n")
		fmt.Fprintf(&b, "\tld.param.u64 %%rd1, [kernel_%d_param_0];\n\tld.param.u32 %%r1, [kernel_%d_param_1];\n", k, k)
		b.WriteString("\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, %tid.x;\n\tmov.u32 %r3, %ctaid.x;\n\tmad.lo.s32 %r4, %r3, 256, %r2;\n")
		b.WriteString("\tsetp.ge.s32 %p1, %r4, %r1;\n\t@%p1 bra $L__BB0_2;\n")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&b, "\tmul.wide.s32 %%rd%d, %%r4, %d;\n", 3+i%20, 4*(i+1))
			fmt.Fprintf(&b, "\tadd.s64 %%rd%d, %%rd2, %%rd%d;\n", 3+i%20, 3+i%20)
			fmt.Fprintf(&b, "\tld.global.nc.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd%d+%d];\n", 3+i%20, 16*i)
			fmt.Fprintf(&b, "\tfma.rn.f32 %%f5, %%f1, 0f3F800000, %%f2;\n")
			fmt.Fprintf(&b, "\tst.global.v4.f32 [%%rd%d+-%d], {%%f5, %%f2, %%f3, %%f4};\n", 3+i%20, 16*i)
			fmt.Fprintf(&b, "\tst.shared.u32 [smem+%d], %%r%d;\n", 4*i, 5+i)
			fmt.Fprintf(&b, "\tst.global.L1::no_allocate.relaxed.gpu.u32 [%%rd%d], %%r%d; // store %d\n", 3+i%20, 5+i, i)
		}
		b.WriteString("\t{ // callseq\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n\t.param .b32 retval0;\n\tcall.uni (retval0), helper, (param0);\n\tld.param.b32 %r30, [retval0+0];\n\t}\n")
		b.WriteString("$L__BB0_2:\n\tret;\n}\n\n")
	}
	return b.String()
}

// Replicate returns a module of about size bytes made of copies of the
// functions of the module src (real compiler output, such as
// testdata/ptx/nvcc/ops_sm_90a.ptx): its header and module-scope
// declarations once, then its functions over and over, each copy with
// the functions that src defines renamed (name_cN), so that every copy
// declares and calls its own. The text of each function is src's, with
// its comments, spacing and line structure.
func Replicate(src string, size int) (string, error) {
	m, errs := parser.ParseString("src.ptx", src)
	if errs.HasErrors() {
		return "", fmt.Errorf("the source module has errors: %v", errs[0])
	}
	defined := map[string]bool{}
	for _, s := range m.Stmts {
		if f, ok := s.(*ast.Function); ok && f.Body != nil {
			defined[f.Name.Name] = true
		}
	}
	if len(defined) == 0 {
		return "", fmt.Errorf("the source module defines no function")
	}
	var head, funcs strings.Builder
	prev := 0
	for _, s := range m.Stmts {
		text := src[prev:s.End().Offset]
		prev = int(s.End().Offset)
		if f, ok := s.(*ast.Function); ok && defined[f.Name.Name] {
			funcs.WriteString(text)
			continue
		}
		head.WriteString(text)
	}
	var b strings.Builder
	b.WriteString(head.String())
	b.WriteString("\n")
	body := funcs.String()
	for c := 0; b.Len() < size; c++ {
		renameFunctions(&b, body, defined, fmt.Sprintf("_c%d", c))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// renameFunctions writes text to b with every identifier in names
// (not a qualifier: ".warp" is not the function warp) followed by suffix.
func renameFunctions(b *strings.Builder, text string, names map[string]bool, suffix string) {
	isIdent := func(c byte) bool {
		return c == '_' || c == '$' || c == '%' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; i < len(text); {
		if !isIdent(text[i]) {
			j := i
			for j < len(text) && !isIdent(text[j]) {
				j++
			}
			b.WriteString(text[i:j])
			i = j
			continue
		}
		j := i
		for j < len(text) && isIdent(text[j]) {
			j++
		}
		b.WriteString(text[i:j])
		if names[text[i:j]] && (i == 0 || text[i-1] != '.') { // not a qualifier
			b.WriteString(suffix)
		}
		i = j
	}
}

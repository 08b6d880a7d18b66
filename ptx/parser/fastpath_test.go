package parser_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// identical reports whether a and b are the same value, positions
// included, following pointers; floats compare by their bits (so that a
// NaN literal equals itself, which reflect.DeepEqual denies).
func identical(a, b any) bool { return identicalValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func identicalValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return identicalValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !identicalValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !identicalValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return a.Interface() == b.Interface()
}

// parseBothWays parses src with and without the operand fast paths and
// reports whether trees (positions included) and errors agree.
func parseBothWays(src string) bool {
	fast, ferrs := parser.ParseString("f.ptx", src)
	parser.SetFastPaths(false)
	slow, serrs := parser.ParseString("f.ptx", src)
	parser.SetFastPaths(true)
	return identical(fast, slow) && identical(ferrs, serrs)
}

// TestFastPathsMatchGeneralParse checks that reading addresses and
// vectors straight from the source builds exactly the trees that the
// general operand parser builds.
func TestFastPathsMatchGeneralParse(t *testing.T) {
	srcs := streamSources(t)
	srcs["edge"] = ".entry k() {\n\tst.global.v4.u32 [%rd1 + 16], { %r1 ,%r2,_, x };\n\tst.u32 [a+-0], %r1;\n" +
		"\tst.u32 [a+00], %r1;\n\tst.u32 [ %rd1+1 ] , %r1;\n\tst.v2.u32 [%rd1+-9223372036854775807], {%r1,\n%r2};\n" +
		"\tst.u32 [%rd1+0x10], %r1;\n\tmov.b64 {%r1, %r2}, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r1, v.w, %tid.xy, _.x, %tid.x::y, %tid.x.y;\n\tst.u32 [_], %r1;\n\tst.u32 [%rd1+1]\n}\n"
	srcs["edge decls"] = ".global .u32 g = 5;\n.shared .v4 .align 16 .f32 t[ ][4];\n.entry k(.param .u64 a, .param .u64 .ptr .align 8 b, .param .u32 c = 1)\n{\n" +
		"\t.reg .b32 %r < 24 > ;\n\t.reg .b32 x, y;\n\t.reg .pred %p<99999999999999999999>;\n\t.local .align 0x10 .b8 s[4];\n" +
		"\t.reg .b32 %q<2>\n\t.reg .b64 %rd<4>; // tail\n\t.reg .b32 q[2][];\n}\n"
	srcs["video selectors"] = ".entry k() {\n\tvadd.u32.u32.s32.sat %r1, %r2.b1, r3.h0;\n\tvadd4.u32.u32.u32 %r1.b20, %r2.b7654, %r3.b0123, %r4;\n" +
		"\tvmad.u32.u32.u32 %r1, -%r2.b0, %r3.h1, %r4;\n\tvadd.u32.u32.u32 %r1.b, %r2.b12345, %r3.h, %r4.bx, %r5.x.b0, %r6.b0.x, %r7.b0::h1;\n}\n"
	srcs["literals"] = ".entry k() {\n\tfma.rn.f32 %f1, %f2, 0f3F800000, 0F3f80000A;\n\tadd.f64 %fd1, %fd1, 0d3FF0000000000000, 0DBFF000000000000f;\n" +
		"\tmov.f32 %f1, 0fFFFFFFFF;\n\tmov.f32 %f1, 0f7F800001;\n\tmov.f32 %f1, 0f3F80000;\n\tmov.f32 %f1, 0f3F8000000;\n\tmov.f32 %f1, 0f3F800000x;\n" +
		"\tmov.f32 %f1, 0f3F800000.5;\n\tmov.f64 %fd1, 0d3FF00000;\n\tmov.f32 %f1, 0f;\n\tmov.f32 %f1, 0f3F800000 ;\n" +
		"\tadd.s32 %r1, %r2, -1;\n\tadd.s32 %r1, %r2, - 1;\n\tadd.s32 %r1, -0, -01;\n\tadd.s32 %r1, --1, -1+2;\n\tadd.s32 %r1, -%r1, -0x10;\n" +
		"\tadd.s64 %rd1, -999999999999999999, -9223372036854775808;\n\tadd.s32 %r1, -1U, -1.5;\n\tadd.s32 %r1, -\n1, -;\n}\n"
	for name, src := range srcs {
		if !parseBothWays(src) {
			t.Errorf("%s: the fast paths build a different tree or errors", name)
		}
	}
}

// TestFastPathsVideoSelectorsRandom builds random operand suffixes around
// the video selectors (".b0", ".h10", ".b12345", ".x.b0", ".b0::h", ...)
// and checks that both operand paths build the same tree and errors, and
// that an error-free module survives printing and parsing again.
func TestFastPathsVideoSelectorsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	parts := []string{".b", ".h", ".x", ".b0", ".h1", ".h10", ".b3210", ".b12345", ".b0x", "::h1", ".", "0", ".w"}
	operand := func() string {
		s := []string{"%r1", "r2", "_", "%tid", "5", "-%r3"}[r.IntN(6)]
		for n := r.IntN(3); n > 0; n-- {
			s += parts[r.IntN(len(parts))]
		}
		return s
	}
	clean := 0
	for i := 0; i < 2000; i++ {
		ops := []string{operand(), operand(), operand()}
		if r.IntN(2) == 0 {
			ops = append(ops, operand())
		}
		src := ".entry k() {\n\tvadd4.u32.u32.u32 " + strings.Join(ops, ", ") + ";\n}\n"
		if !parseBothWays(src) {
			t.Fatalf("the fast paths build a different tree or errors for %q", src)
		}
		m, errs := parser.ParseString("v.ptx", src)
		if errs.HasErrors() {
			continue
		}
		clean++
		m2, errs2 := parser.ParseString("p.ptx", string(printer.Bytes(m)))
		if errs2.HasErrors() || !ast.Equal(m, m2) {
			t.Fatalf("round trip of %q: %v\n%s", src, errs2, printer.Bytes(m))
		}
	}
	if clean < 100 {
		t.Errorf("only %d of the random lines parse without errors", clean)
	}
	t.Logf("%d of 2000 lines parse without errors", clean)
}

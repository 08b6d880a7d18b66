package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// partsCase is a module for TestCheckParallelMatchesSerial and whether
// checking it in parts must succeed (not fall back to a whole check).
type partsCase struct {
	src   string
	parts bool // checkParallel must not fall back
}

// parallelModules returns the modules TestCheckParallelMatchesSerial
// checks in parts: every module under testdata, and many-kernel modules with
// validator errors, resolution errors, syntax errors, module-scope
// declarations between the functions, calls to functions declared or
// defined in other parts, and cut lines that are not the end of a
// function.
func parallelModules(t *testing.T) map[string]partsCase {
	mods := map[string]partsCase{}
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".ptx") {
			return err
		}
		b, err := os.ReadFile(path)
		mods[path] = partsCase{src: string(b)}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	nvcc, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ptx", "nvcc", "ops_sm_90a.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	copies, err := benchmod.Replicate(string(nvcc), 300<<10)
	if err != nil {
		t.Fatal(err)
	}
	mods["nvcc copies"] = partsCase{src: copies, parts: true}
	mod := benchmod.Compiler(300 << 10)
	kernels := strings.SplitAfter(mod, "\n}\n")
	edit := func(f func(k int, s string) string) string {
		var b strings.Builder
		for k, s := range kernels {
			b.WriteString(f(k, s))
		}
		return b.String()
	}
	mods["compiler"] = partsCase{src: mod, parts: true}
	mods["validator errors"] = partsCase{parts: true, src: edit(func(k int, s string) string {
		if k%7 == 5 {
			s = strings.Replace(s, "st.global.v4.f32", "st.global.v4.f16", 1)
		}
		if k%11 == 7 {
			s = strings.Replace(s, "fma.rn.f32", "fma.f32", 1)
		}
		if k%13 == 1 {
			s = strings.Replace(s, ".maxntid 256, 1, 1", ".maxntid 0, 1, 1", 1)
		}
		return s
	})}
	mods["resolution errors"] = partsCase{src: edit(func(k int, s string) string {
		if k == len(kernels)-3 {
			s = strings.Replace(s, "%r4, %r1", "%r4, %q1", 1)
		}
		return s
	})}
	mods["undeclared label"] = partsCase{src: edit(func(k int, s string) string {
		if k == len(kernels)/2 {
			s = strings.Replace(s, "bra $L__BB0_2", "bra $L__nowhere", 1)
		}
		return s
	})}
	mods["syntax error"] = partsCase{src: edit(func(k int, s string) string {
		if k == len(kernels)*2/3 {
			s = strings.Replace(s, "%r2, %tid.x;", "%r2 %tid.x;", 1)
		}
		return s
	})}
	// Module scope written between functions: a variable, a function
	// declared (never defined, .extern and called: reported at its
	// first call), one declared and defined in a later part, calls of
	// both from every part.
	mods["module scope between functions"] = partsCase{parts: true, src: edit(func(k int, s string) string {
		switch {
		case k == 1:
			return strings.Replace(s, ".visible .entry", ".extern .func (.param .b32 r) ext_f(.param .b32 a);\n.func (.param .b32 r) late_f(.param .b32 a);\n.visible .entry", 1)
		case k == len(kernels)-2:
			s += ".func (.param .b32 r) late_f(.param .b32 a)\n{\n\tret;\n}\n"
		case k%17 == 3:
			s = fmt.Sprintf(".global .align 4 .b32 g_%d[4];\n", k) + s
		case k%17 == 4:
			s = strings.Replace(s, "call.uni (retval0), helper,", fmt.Sprintf("st.global.u32 [g_%d], %%r2;\n\tcall.uni (retval0), ext_f,", k-1), 1)
		case k%17 == 9:
			s = strings.Replace(s, "call.uni (retval0), helper,", "call.uni (retval0), late_f,", 1)
		}
		return s
	})}
	mods["no target"] = partsCase{parts: true, src: strings.Replace(mod, ".target sm_90a\n", "", 1)}
	mods["old version"] = partsCase{parts: true, src: strings.Replace(mod, ".version 8.5", ".version 7.0", 1)}
	mods["crlf"] = partsCase{parts: true, src: strings.ReplaceAll(mod, "\n", "\r\n")}
	mods["lone cr"] = partsCase{src: strings.ReplaceAll(mod, "\n", "\r")}
	mods["no final newline"] = partsCase{parts: true, src: strings.TrimRight(mod, "\n")}
	// Lines holding only "}" that end no function: a nested block, a
	// block comment, a .section.
	mods["brace in a body"] = partsCase{src: edit(func(k int, s string) string {
		return strings.Replace(s, "\tld.param.b32 %r30, [retval0+0];\n\t}\n", "\tld.param.b32 %r30, [retval0+0];\n}\n", 1)
	})}
	mods["brace in a comment"] = partsCase{src: edit(func(k int, s string) string {
		return s + "/*\n.visible .entry old()\n{\n\tret;\n}\n*/\n"
	})}
	mods["brace in a section"] = partsCase{src: edit(func(k int, s string) string {
		if k%5 == 0 {
			s += ".section .debug_str\n{\n.b8 65,0\n}\n"
		}
		return s
	})}
	return mods
}

// TestCheckParallelMatchesSerial checks that a module checked in parts
// (checkParallel) gets exactly the diagnostics, in the same order, of the
// serial check, with 2, 3 and 5 parts, and that it is checked in parts
// where it should be (not always whole).
func TestCheckParallelMatchesSerial(t *testing.T) {
	defer func(n int) { partMinBytes = n }(partMinBytes)
	partMinBytes = 1 << 10
	for name, m := range parallelModules(t) {
		src := []byte(m.src)
		serial := checkFileHow(name, src, check.Config{}, checkWhole)
		if strings.Contains(name, "error") && len(serial) == 0 {
			t.Errorf("%s: no diagnostics; the test module lost its faults", name)
		}
		for _, n := range []int{2, 3, 5} {
			l, ok := checkParallel(name, m.src, check.Config{}, n)
			if m.parts && !ok {
				t.Errorf("%s, %d parts: checked whole, want in parts", name, n)
			}
			if !ok {
				continue
			}
			for i := range l {
				l[i].File = name
			}
			l.Sort()
			if !sameDiagnostics(l, serial) {
				t.Errorf("%s, %d parts: %d diagnostics, serial %d:\n%v\n%v", name, n, len(l), len(serial), l, serial)
			}
		}
		whole := checkFileHow(name, src, check.Config{}, checkInParts)
		if !sameDiagnostics(whole, serial) {
			t.Errorf("%s: checkFile in parts gives %d diagnostics, serial %d", name, len(whole), len(serial))
		}
		t.Logf("%s: %d diagnostics", name, len(serial))
	}
}

// sameDiagnostics reports whether a and b are equal (both empty counts).
func sameDiagnostics(a, b diag.List) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// TestCutParts checks where a module is cut: after lines holding only
// "}", into parts of about equal size that cover it.
func TestCutParts(t *testing.T) {
	defer func(n int) { partMinBytes = n }(partMinBytes)
	partMinBytes = 1 << 10
	src := benchmod.Compiler(64 << 10)
	for _, n := range []int{2, 3, 7} {
		parts := cutParts(src, n)
		if len(parts) != n {
			t.Fatalf("%d parts wanted, %d made", n, len(parts))
		}
		at := 0
		for i, p := range parts {
			if int(p.from.Offset) != at || p.from.Line != int32(1+strings.Count(src[:at], "\n")) || p.from.Col != 1 {
				t.Fatalf("part %d begins at %+v, want offset %d", i, p.from, at)
			}
			if p.last >= 0 && (src[p.last] != '}' || src[p.last-1] != '\n' || p.to != p.last+2) {
				t.Fatalf("part %d ends at %d, its '}' at %d: not a line of its own", i, p.to, p.last)
			}
			if size := p.to - at; size < len(src)/n/2 {
				t.Fatalf("part %d holds %d bytes of %d", i, size, len(src))
			}
			at = p.to
		}
		if at != len(src) {
			t.Fatalf("the parts end at %d of %d", at, len(src))
		}
	}
	if parts := cutParts(src[:3<<10], 4); len(parts) > 3 {
		t.Fatalf("3 KiB cut into %d parts of at least 1 KiB", len(parts))
	}
}

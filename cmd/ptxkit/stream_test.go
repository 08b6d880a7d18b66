package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// wholeTreeCheck is checkFile done the simple way: parse the whole
// module, then resolve and validate the tree (check.Module).
func wholeTreeCheck(name string, src []byte, cfg check.Config) diag.List {
	m, errs := parser.ParseFile(name, src)
	if !errs.HasErrors() {
		errs = append(errs, check.Module(m, cfg)...)
	}
	errs.Sort()
	return errs
}

// TestCheckFileMatchesWholeTree checks that the streaming pipeline of
// `ptxkit check` (recycled bodies, incremental resolver and checker) gives
// exactly the diagnostics of the whole-tree pipeline, on every PTX file in
// testdata, with and without target overrides, and on the benchmark module.
func TestCheckFileMatchesWholeTree(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 20 {
		t.Fatalf("found only %d testdata PTX files", len(files))
	}
	srcs := map[string][]byte{"bench.ptx": []byte(benchmod.Check(512 << 10))}
	for name, body := range labelCases {
		srcs[name] = []byte(labelHeader + body)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = b
	}
	cfgs := []check.Config{{}, {Target: "sm_70"}, {Target: "sm_100a", PTX: "8.7"}, {PTX: "6.0"}}
	for name, src := range srcs {
		for _, cfg := range cfgs {
			got, want := checkFile(name, src, cfg), wholeTreeCheck(name, src, cfg)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %+v: streaming check gives\n%v\nwhole-tree check gives\n%v", name, cfg, got, want)
			}
		}
	}
}

const labelHeader = ".version 8.5\n.target sm_90\n.address_size 64\n.func g() {\nret;\n}\n"

// labelCases are bodies whose names resolve to labels written after them,
// in the same block, an enclosing one, a sibling or a nested one, or to
// nothing: the statement-by-statement resolution decides them at the end
// of the function.
var labelCases = map[string]string{
	"forward.ptx":    ".entry k() {\n.reg .pred %p;\n@%p bra L;\n{\n@%p bra L;\n@%p bra M;\nM:\n}\nL:\nret;\n}\n",
	"sibling.ptx":    ".entry k() {\n.reg .pred %p;\n{\n@%p bra A;\n}\n{\nA:\nret;\n}\n@%p bra B;\n{\nB:\n}\nret;\n}\n",
	"duplicate.ptx":  ".entry k() {\nbra L;\nL:\n{\nL:\nbra L;\n}\nL:\nret;\n}\n",
	"special.ptx":    ".entry k() {\n.reg .b32 %r<3>;\nmov.u32 %r1, %tid.w;\nmov.u32 %r2, %laneid.x;\n{\n%tid:\n}\n%laneid:\nret;\n}\n",
	"special2.ptx":   ".entry k() {\n.reg .b32 %r<3>;\nmov.u32 %r1, %tid.w;\n{\nmov.u32 %r2, %laneid.x;\n}\nret;\n}\n",
	"registers.ptx":  ".entry j() {\n.reg .b32 %a;\nret;\n}\n.entry k() {\nmov.u32 %b, %a;\n.reg .b32 %b;\nbra %b;\nbra nowhere;\ncall g;\ncall h;\nbra g;\ng:\nret;\n}\n",
	"proto.ptx":      ".entry k() {\n.reg .b64 %rd;\ncall %rd, P;\nbra.uni Q;\nP: .callprototype _ ();\nQ:\n.branchtargets R, S;\nR:\nret;\n}\n",
	"nested.ptx":     ".entry k() {\n.reg .pred %p;\n{\n{\n{\n@%p bra Deep;\n@%p bra Out;\n}\nDeep:\n}\n}\nOut:\n{\nbra Deep;\n}\nret;\n}\n",
	"shadow.ptx":     ".entry k() {\n.reg .b32 %r;\nmov.u32 %r, 1;\n{\n.reg .b64 %r;\nmov.u64 %r, 2;\n{\n.reg .f32 %r;\nmov.f32 %r, 0f3F800000;\n}\nmov.u32 %r, 3;\n}\nmov.u64 %r, 4;\nret;\n}\n",
	"undeclared.ptx": ".entry k() {\nmov.u32 %r1, %r2;\nld.global.u32 %r3, [x];\nbra.uni %r1;\nret;\n}\n.entry m() {\nbra L;\n}\n",
}

// FuzzCheckFile checks that no input makes the streaming check panic and
// that it always agrees with the whole-tree pipeline.
func FuzzCheckFile(f *testing.F) {
	filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			if b, err := os.ReadFile(path); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	for _, body := range labelCases {
		f.Add([]byte(labelHeader + body))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, want := checkFile("f.ptx", src, check.Config{}), wholeTreeCheck("f.ptx", src, check.Config{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streaming check gives\n%v\nwhole-tree check gives\n%v", got, want)
		}
	})
}

// TestFmtMatchesWholeTree checks that `ptxkit fmt`, which prints as it
// parses, writes byte for byte the whole tree's printed form (what it
// wrote before it streamed), answers -l accordingly and reports the
// syntax errors of a whole parse, on every PTX file in testdata.
func TestFmtMatchesWholeTree(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".ptx") || strings.HasSuffix(path, ".input")) {
			files = append(files, path)
		}
		return nil
	})
	formatted := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, errs := parser.ParseFileMode(f, src, parser.ParseComments)
		code, out, errOut := runCmd(t, "", "fmt", f)
		if errs.HasErrors() {
			var want strings.Builder
			diag.WriteText(&want, errs)
			if code != exitFail || out != "" || errOut != want.String() {
				t.Errorf("%s: fmt exits %d, writes %q and reports\n%s\nwant the parse errors\n%s", f, code, out, errOut, want.String())
			}
			continue
		}
		formatted++
		want := printer.Bytes(m)
		if code != exitOK || out != string(want) {
			t.Errorf("%s: fmt exits %d (%s) and writes\n%s\nwant\n%s", f, code, errOut, out, want)
		}
		_, listed, _ := runCmd(t, "", "fmt", "-l", f)
		if wantListed := !bytes.Equal(src, want); (listed != "") != wantListed {
			t.Errorf("%s: fmt -l lists %q; form differs: %v", f, listed, wantListed)
		}
	}
	if formatted < 40 {
		t.Errorf("only %d files formatted", formatted)
	}
}

// TestHeaderDiagnosticSurvivesFunction checks that a header diagnostic
// (the target too new for the version) stays when the function after it
// has a resolution error, whose other diagnostics are withdrawn, in the
// streaming check as in the whole-tree one.
func TestHeaderDiagnosticSurvivesFunction(t *testing.T) {
	src := []byte(`.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, %r9;
	ret;
}
`)
	cfg := check.Config{PTX: "6.0"}
	got := checkFile("h.ptx", src, cfg)
	rules := map[string]bool{}
	for _, d := range got {
		rules[d.Rule] = true
	}
	if !rules["target-version"] || !rules["register-out-of-range"] {
		t.Errorf("streaming check: %v, want target-version and register-out-of-range", got)
	}
	if want := wholeTreeCheck("h.ptx", src, cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("streaming check:\n%v\nwhole tree:\n%v", got, want)
	}
}

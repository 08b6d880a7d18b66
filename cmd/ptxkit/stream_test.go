package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// wholeTreeCheck is checkFile done the simple way: parse the whole
// module, resolve it, validate the top-level statements without
// resolution errors.
func wholeTreeCheck(name string, src []byte, cfg check.Config) diag.List {
	m, errs := parser.ParseFile(name, src)
	if !errs.HasErrors() {
		_, rerrs := resolve.Module(m)
		errs = append(errs, rerrs...)
		clean := *m
		clean.Stmts = nil
		for _, s := range m.Stmts {
			bad := false
			for _, d := range rerrs {
				bad = bad || d.Severity == diag.Error && d.Pos.Offset >= s.Pos().Offset && d.Pos.Offset < s.End().Offset
			}
			if !bad {
				clean.Stmts = append(clean.Stmts, s)
			}
		}
		errs = append(errs, check.Module(&clean, cfg)...)
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
	f.Fuzz(func(t *testing.T, src []byte) {
		got, want := checkFile("f.ptx", src, check.Config{}), wholeTreeCheck("f.ptx", src, check.Config{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streaming check gives\n%v\nwhole-tree check gives\n%v", got, want)
		}
	})
}

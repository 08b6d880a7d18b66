package printer_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// streamPrint prints src with FprintStream.
func streamPrint(t testing.TB, name string, src []byte) ([]byte, *parser.Stream) {
	var out bytes.Buffer
	st := parser.NewStream(name, string(src), parser.StreamStatements|parser.ParseComments)
	if err := printer.FprintStream(&out, st); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), st
}

// testdataSources returns every PTX file under testdata (the printer's
// inputs and goldens included) and a generated module of about 200 KB
// with comments everywhere and nested blocks, so that output is written
// in several pieces.
func testdataSources(t *testing.T) map[string][]byte {
	srcs := map[string][]byte{"generated.ptx": commentedModule(200 << 10)}
	filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if ext := filepath.Ext(path); ext == ".ptx" || ext == ".input" || ext == ".golden" {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			srcs[path] = b
		}
		return nil
	})
	if len(srcs) < 50 {
		t.Fatalf("only %d testdata files", len(srcs))
	}
	return srcs
}

// TestFprintStreamMatchesBytes checks that printing statement by
// statement gives byte for byte the output of printing the whole tree,
// and the same syntax errors, on every testdata file.
func TestFprintStreamMatchesBytes(t *testing.T) {
	printed := 0
	for name, src := range testdataSources(t) {
		m, errs := parser.ParseFileMode(name, src, parser.ParseComments)
		got, st := streamPrint(t, name, src)
		if fmt.Sprint(st.Errors()) != fmt.Sprint(errs) {
			t.Errorf("%s: streaming errors\n%v\nwhole parse\n%v", name, st.Errors(), errs)
		}
		if len(errs) > 0 {
			continue
		}
		printed++
		if want := printer.Bytes(m); !bytes.Equal(got, want) {
			t.Errorf("%s: streamed output differs from the whole tree's:\n%s\nwant:\n%s", name, got, want)
		}
	}
	if printed < 40 {
		t.Errorf("only %d files printed", printed)
	}
}

// commentedModule returns a module of about n bytes: kernels whose
// statements carry comments before, inside and after them, with nested
// blocks and blank lines.
func commentedModule(n int) []byte {
	b := []byte("// head\n.version 8.5 // v\n.target sm_90\n.address_size 64\n")
	for k := 0; len(b) < n; k++ {
		b = fmt.Appendf(b, "\n/* kernel %d */\n.visible .entry k%d(.param .u64 p) // hdr\n{ // open\n"+
			"\t.reg .b32 %%r<4>; /* a */ /* b */\n\t.reg .b64 %%rd<2>;\n", k, k)
		for i := 0; i < 40; i++ {
			b = fmt.Appendf(b, "L%d: // label\n\tadd.u32 %%r1, /* in */ %%r2, %d; // c1\n// own line\n"+
				"\t{ // nested\n\t\tmov.u32 %%r3, // x\n /* y */ %%r1; // c2\n\t\t{ }\n\n\t} // after\n\n", i, i)
		}
		b = append(b, "\tret; // r\n\t// last\n}\n// between\n"...)
	}
	return append(b, "// tail\n"...)
}

// FuzzFprintStream checks that streamed printing matches whole-tree
// printing on any input that parses.
func FuzzFprintStream(f *testing.F) {
	for _, dir := range []string{"hand", "llc", "printer"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", dir, "*"))
		for _, s := range m {
			if b, err := os.ReadFile(s); err == nil && !strings.HasSuffix(s, ".golden") {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, errs := parser.ParseFileMode("f.ptx", src, parser.ParseComments)
		got, st := streamPrint(t, "f.ptx", src)
		if fmt.Sprint(st.Errors()) != fmt.Sprint(errs) {
			t.Fatalf("streaming errors\n%v\nwhole parse\n%v", st.Errors(), errs)
		}
		if len(errs) == 0 && !bytes.Equal(got, printer.Bytes(m)) {
			t.Fatalf("streamed output\n%s\nwhole tree\n%s", got, printer.Bytes(m))
		}
	})
}

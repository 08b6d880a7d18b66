package parser_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// streamSources returns the test modules, the error files and a
// generated module of many kernels.
func streamSources(t *testing.T) map[string]string {
	files := testdataPTX(t)
	errFiles, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "errors", "*.ptx"))
	srcs := map[string]string{"bench": string(benchModule(256 << 10))}
	for _, f := range append(files, errFiles...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(b)
	}
	return srcs
}

// TestStreamMatchesParse checks that a Stream, with and without recycled
// bodies, yields exactly the statements (positions included) and errors
// of a whole-module parse, each statement checked as soon as it comes.
func TestStreamMatchesParse(t *testing.T) {
	for name, src := range streamSources(t) {
		for _, mode := range []parser.Mode{0, parser.ReuseBodies, parser.ReuseBodies | parser.ParseComments} {
			whole, werrs := parser.ParseStringMode(name, src, mode&parser.ParseComments)
			st := parser.NewStream(name, src, mode)
			var got []ast.TopStmt
			for s := st.Next(); s != nil; s = st.Next() {
				i := len(got)
				if i >= len(whole.Stmts) {
					t.Fatalf("%s mode %d: stream has more than %d statements", name, mode, len(whole.Stmts))
				}
				if !identical(s, whole.Stmts[i]) {
					t.Fatalf("%s mode %d: statement %d at %s differs from the whole-module parse", name, mode, i, s.Pos())
				}
				got = append(got, s)
			}
			if len(got) != len(whole.Stmts) {
				t.Fatalf("%s mode %d: stream gave %d statements, parse %d", name, mode, len(got), len(whole.Stmts))
			}
			if !identical(st.Errors(), werrs) {
				t.Errorf("%s mode %d: errors differ:\n%v\n%v", name, mode, st.Errors(), werrs)
			}
			if st.End() != whole.End() {
				t.Errorf("%s mode %d: end %v, parse %v", name, mode, st.End(), whole.End())
			}
			if !identical(st.Comments(), whole.Comments) {
				t.Errorf("%s mode %d: comments differ", name, mode)
			}
			// Module-scope statements and function headers stay valid
			// after the bodies have been recycled.
			for i, s := range got {
				w := whole.Stmts[i]
				if f, ok := s.(*ast.Function); ok {
					wf := w.(*ast.Function)
					if !identical(f.Name, wf.Name) || !identical(f.Params, wf.Params) ||
						!identical(f.Returns, wf.Returns) || !identical(f.Perf, wf.Perf) {
						t.Errorf("%s mode %d: header of function %d changed after later statements", name, mode, i)
					}
					continue
				}
				if !identical(s, w) {
					t.Errorf("%s mode %d: module statement %d at %s changed after later statements", name, mode, i, s.Pos())
				}
			}
		}
	}
}

// TestStreamRecyclesBodies checks that ReuseBodies does recycle: a
// module of many kernels streams allocating a small fraction of the
// bytes that the whole tree takes.
func TestStreamRecyclesBodies(t *testing.T) {
	src := string(benchModule(1 << 20))
	stream := allocatedBytes(func() {
		st := parser.NewStream("bench.ptx", src, parser.ReuseBodies)
		for s := st.Next(); s != nil; s = st.Next() {
		}
	})
	whole := allocatedBytes(func() { parser.ParseString("bench.ptx", src) })
	if stream*5 > whole {
		t.Errorf("streaming with ReuseBodies allocated %d bytes, whole parse %d: bodies not recycled?", stream, whole)
	}
}

// allocatedBytes returns the bytes that f allocates.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

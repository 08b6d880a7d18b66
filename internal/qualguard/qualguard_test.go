package qualguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder collects what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

const src = `package p

var docs = map[string]string{".rn": "round"}

var keyed = map[string]int{".rz": 1}

func f(in struct{ Quals []int }, s string) bool {
	switch s {
	case ".version", ".alias", ".reg":
	case ".cg":
	}
	_ = in.Quals
	_ = isa.LookupQual(".shared")
	return s == ".global" || s != ".param" || s == ".not-a-qualifier"
}
`

func TestCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, []string{file}, Options{
		ReadsQuals: func(string) bool { return false },
		Allowed:    map[string][]string{file: {".param"}},
		DocTables:  []string{"docs"},
		MinFiles:   1,
	})
	got := strings.Join(r.msgs, "\n")
	for _, want := range []string{"qualifier .rz", "qualifier .cg", "qualifier .global", "(Quals)", `qualifier ".shared" up`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing report %q in:\n%s", want, got)
		}
	}
	for _, not := range []string{".rn", ".version", ".alias", ".reg", ".param", ".not-a-qualifier"} {
		if strings.Contains(got, not+";") {
			t.Errorf("unexpected report of %s in:\n%s", not, got)
		}
	}
	if len(r.msgs) != 5 {
		t.Errorf("got %d reports, want 5:\n%s", len(r.msgs), got)
	}

	r = &recorder{TB: t}
	Check(r, []string{file}, Options{MinFiles: 2})
	if last := r.msgs[len(r.msgs)-1]; !strings.Contains(last, "only 1 source files checked") {
		t.Errorf("MinFiles not enforced: %q", last)
	}
}

package testref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathOrder(t *testing.T) {
	env := t.TempDir()
	if err := os.MkdirAll(filepath.Join(env, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env, "corpus", "only-here.tsv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PTXKIT_SHARED", env)
	if got, want := Path("corpus", "only-here.tsv"), filepath.Join(env, "corpus", "only-here.tsv"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	// The copy in the repository holds the stores corpus.
	t.Setenv("PTXKIT_SHARED", "")
	p := Path("corpus", "stores.tsv")
	if _, err := os.Stat(p); err != nil {
		t.Errorf("Path(corpus, stores.tsv) = %q: %v", p, err)
	}
	missing := Path("no", "such", "file")
	if !strings.HasSuffix(missing, filepath.Join("testdata", "shared", "no", "such", "file")) {
		t.Errorf("missing file: %q, want the copy's path", missing)
	}
}

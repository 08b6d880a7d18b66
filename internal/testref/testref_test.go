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

// TestLaunches reads a manifest's rows and names a row with the wrong
// number of columns.
func TestLaunches(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tsv")
	os.WriteFile(good, []byte("# header\n\nk\tp.ptx\tk\t8\t32\t1\t0\texact\tbuf:4 7\n"), 0o644)
	rows, err := Launches(good)
	if err != nil || len(rows) != 1 || rows[0].Grid != "8" || len(rows[0].Args) != 2 || rows[0].Args[1] != "7" {
		t.Fatalf("rows %+v, err %v", rows, err)
	}
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte("k\tp.ptx\n"), 0o644)
	if _, err := Launches(bad); err == nil || !strings.Contains(err.Error(), "bad.tsv:1: 2 columns") {
		t.Fatalf("err = %v", err)
	}
}

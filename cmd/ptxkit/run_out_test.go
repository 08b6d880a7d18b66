package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunOutRefusesLinks plants a symbolic link at DIR/arg0.bin pointing
// at a file outside DIR: run --out must refuse it with exit 2 and leave the
// link's target untouched.
func TestRunOutRefusesLinks(t *testing.T) {
	k := writeFile(t, "k.ptx", hostileKernel)
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "arg0.bin")
	if err := os.Symlink(victim, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	code, _, errs := runCmd(t, "", "run", k, "--arg", "buf:16", "--arg", "3", "--out", dir)
	if code != exitUsage || !strings.Contains(errs, "arg0.bin is a symbolic link") {
		t.Errorf("exit %d, stderr %q; want %d and the link named", code, errs, exitUsage)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link itself was changed: %v %v", fi, err)
	}
}

// TestWriteOutFile: a regular file is replaced whole (mode 0644, no temporary
// file left), a directory in the way is refused, and a dangling link too.
func TestWriteOutFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "arg0.bin")
	if err := os.WriteFile(p, []byte("old contents, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeOutFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("contents %q, want %q", b, "new")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only arg0.bin", len(ents))
	}
	sub := filepath.Join(dir, "arg1.bin")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeOutFile(sub, []byte("x")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory at the path: err %v", err)
	}
	dangling := filepath.Join(dir, "arg2.bin")
	target := filepath.Join(dir, "created-through-link")
	if err := os.Symlink(target, dangling); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	if err := writeOutFile(dangling, []byte("x")); err == nil {
		t.Error("a dangling link was written through")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the dangling link's target was created")
	}
}

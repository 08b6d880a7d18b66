package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSourceMapsFiles checks that readSource gives a file's bytes
// (mapped) and stdin's (read), and that a file truncated after mapping
// makes guardFaults return an error instead of crashing.
func TestReadSourceMapsFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.ptx")
	want := bytes.Repeat([]byte(".version 8.5\n"), 4000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readSource(path, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("readSource(file) = %d bytes, %v; want the file's %d bytes", len(got), err, len(want))
	}
	if in, err := readSource("-", strings.NewReader("abc")); err != nil || string(in) != "abc" {
		t.Fatalf("readSource(-) = %q, %v", in, err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	sum := 0
	err = guardFaults(path, func() {
		for i := 0; i < len(got); i += 4096 {
			sum += int(got[i])
		}
	})
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("reading a truncated mapping: err = %v, want a changed-file error", err)
	}
}

// TestGuardFaultsPassesOtherPanics checks that guardFaults recovers only
// memory faults.
func TestGuardFaultsPassesOtherPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the original panic", r)
		}
	}()
	guardFaults("x", func() { panic("boom") })
	t.Fatal("guardFaults swallowed a panic")
}

// TestReadSourceReadsSmallFiles checks that a file of up to
// smallSourceBytes is read (a copy that truncating the file leaves
// intact), and that a missing file is reported with its name.
func TestReadSourceReadsSmallFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.ptx")
	want := []byte(".version 8.0\n.target sm_90\n.address_size 64\n")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readSource(path, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("readSource(small file) = %q, %v; want %q", got, err, want)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the bytes of a small file changed with the file: %q", got)
	}
	_, err = readSource(filepath.Join(t.TempDir(), "missing.ptx"), nil)
	if err == nil || !strings.Contains(err.Error(), "open ") || !strings.Contains(err.Error(), "missing.ptx") {
		t.Fatalf("readSource(missing file) = %v, want an open error naming the file", err)
	}
}

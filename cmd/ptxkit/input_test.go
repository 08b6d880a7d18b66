package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// zeros is an endless standard input.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestEndlessStdinBounded feeds check, fmt and run an endless standard
// input: each stops just past its limit with a clear error, having
// allocated no more than the limit and a chunk.
func TestEndlessStdinBounded(t *testing.T) {
	for _, c := range []struct {
		args  []string
		limit int64
	}{
		{[]string{"check", "-"}, maxSourceBytes},
		{[]string{"fmt", "-"}, maxSourceBytes},
		{[]string{"run", "-"}, maxPTXBytes},
		{[]string{"sass", "asm", "--arch", "sm_90"}, maxSASSInput},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		in := new(zeros)
		var out, errb bytes.Buffer
		code := run(c.args, in, &out, &errb)
		runtime.ReadMemStats(&after)
		if code != exitUsage || !strings.Contains(errb.String(), "-: larger than the limit") {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
		if in.n > c.limit+readChunk {
			t.Errorf("%v: read %d bytes for a limit of %d", c.args, in.n, c.limit)
		}
		if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > c.limit+2*readChunk {
			t.Errorf("%v: allocated %d bytes for a limit of %d", c.args, alloc, c.limit)
		}
	}
}

// TestReadBoundedSizes reads inputs just under, at and over a limit from
// a regular file, a pipe (through /dev/fd) and standard input.
func TestReadBoundedSizes(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd on this system")
	}
	const limit = 3*readChunk + 5
	for _, n := range []int64{0, 1, readChunk, limit - 1, limit, limit + 1} {
		data := bytes.Repeat([]byte{'x'}, int(n))
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readBounded(p, nil, limit)
		checkRead(t, "file", n, limit, data, got, err)
		got, err = readBounded("-", bytes.NewReader(data), limit)
		checkRead(t, "stdin", n, limit, data, got, err)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(data); w.Close() }()
		got, err = readBounded("/dev/fd/"+strconv.Itoa(int(r.Fd())), nil, limit)
		r.Close()
		checkRead(t, "pipe", n, limit, data, got, err)
	}
}

func checkRead(t *testing.T, what string, n, limit int64, data, got []byte, err error) {
	t.Helper()
	if n > limit {
		if err == nil || !strings.Contains(err.Error(), "larger than the limit") {
			t.Errorf("%s of %d bytes: err %v, want over the limit", what, n, err)
		}
		return
	}
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("%s of %d bytes: %d bytes read, err %v", what, n, len(got), err)
	}
}

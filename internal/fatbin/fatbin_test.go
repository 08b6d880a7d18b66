package fatbin

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// The fixtures are nvcc 12.5 output for cmd/ptxkit/testdata/exec/vectoradd.cu (built with
// -arch=sm_90 -gencode arch=compute_90,code=compute_90): the .nv_fatbin
// section of the static-runtime program and the whole -cudart shared
// program; vectoradd.sm_90.ptx is cuobjdump -xptx's text of its PTX entry.

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSectionEntries(t *testing.T) {
	fbs, err := ParseAll(readFixture(t, "vectoradd.nv_fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fbs) != 2 {
		t.Fatalf("%d fatbinaries, want 2", len(fbs))
	}
	if got := fbs[1].Describe(); got != "cubin sm_90, PTX compute_90" {
		t.Errorf("second fatbinary holds %s", got)
	}
	e := fbs[1].PTXFor(90)
	if e == nil || e.Compression() != "lz4" || e.Flags != 0x2011 || e.PTXVersion != [2]int{8, 5} {
		t.Fatalf("PTX entry %+v", e)
	}
	if fbs[1].PTXFor(80) != nil {
		t.Error("a compute_90 entry serves sm_80")
	}
}

func TestLZ4PTXMatchesCuobjdump(t *testing.T) {
	fbs, err := FromELF(readFixture(t, "vectoradd_shared.elf"))
	if err != nil {
		t.Fatal(err)
	}
	var ptx []byte
	for _, f := range fbs {
		if e := f.PTXFor(90); e != nil {
			if ptx, err = e.Payload(); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := bytes.TrimRight(readFixture(t, "vectoradd.sm_90.ptx"), "\x00")
	if !bytes.Equal(ptx, want) {
		t.Fatalf("decompressed PTX (%d bytes) differs from cuobjdump's (%d bytes):\n%s", len(ptx), len(want), ptx)
	}
	if !bytes.Contains(ptx, []byte(".visible .entry _Z9vectorAddPKfS0_Pfi(")) {
		t.Error("the kernel's entry is missing")
	}
}

func TestNoFatbinInELF(t *testing.T) {
	exe, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Skip("no /proc/self/exe")
	}
	if _, err := FromELF(exe); err != ErrNoFatbin {
		t.Errorf("got %v, want ErrNoFatbin", err)
	}
}

func TestLZ4Block(t *testing.T) {
	// "abcabcabcabcX": literals abc, a match of 9 at offset 3 (overlapping), last literal X.
	src := []byte{0x35, 'a', 'b', 'c', 3, 0, 0x10, 'X'}
	got, err := decodeLZ4Block(src, 13)
	if err != nil || string(got) != "abcabcabcabcX" {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, bad := range []struct {
		src  []byte
		size int
	}{
		{[]byte{0x35, 'a', 'b', 'c', 4, 0, 0x10, 'X'}, 13}, // offset before the start
		{[]byte{0x35, 'a', 'b', 'c', 0, 0, 0x10, 'X'}, 13}, // offset 0
		{[]byte{0x35, 'a', 'b', 'c', 3, 0, 0x10, 'X'}, 12}, // longer than declared
		{[]byte{0x35, 'a', 'b', 'c', 3, 0, 0x10, 'X'}, 14}, // shorter than declared
		{[]byte{0xF0, 255, 255}, 1000},                     // length runs off the end
		{[]byte{0x50, 'a'}, 5},                             // literals past the end
		{[]byte{0x10, 'a', 1}, 10},                         // offset cut short
	} {
		if _, err := decodeLZ4Block(bad.src, bad.size); err == nil {
			t.Errorf("decodeLZ4Block(%x, %d) accepted corrupt input", bad.src, bad.size)
		}
	}
}

func TestCorruptFatbins(t *testing.T) {
	good := readFixture(t, "vectoradd.nv_fatbin")
	f, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	hdr := func(mut func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		mut(b)
		return b
	}
	cases := map[string][]byte{
		"short":          good[:10],
		"magic":          hdr(func(b []byte) { b[0] ^= 1 }),
		"files size":     hdr(func(b []byte) { binary.LittleEndian.PutUint64(b[8:], 1<<40) }),
		"entry header":   hdr(func(b []byte) { binary.LittleEndian.PutUint32(b[16+4:], 1<<30) }),
		"entry payload":  hdr(func(b []byte) { binary.LittleEndian.PutUint64(b[16+8:], 1<<50) }),
		"cut in entries": good[:f.Len-8],
	}
	for name, b := range cases {
		if _, err := ParseAll(b); err == nil {
			t.Errorf("%s: corrupt fatbinary accepted", name)
		}
	}
}

// FuzzParse: no input makes the parser or the decompressors panic.
func FuzzParse(f *testing.F) {
	f.Add(readFixtureF(f, "vectoradd.nv_fatbin"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fbs, err := ParseAll(b)
		if err != nil {
			return
		}
		for _, fb := range fbs {
			for i := range fb.Entries {
				fb.Entries[i].Payload()
			}
		}
	})
}

func readFixtureF(f *testing.F, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

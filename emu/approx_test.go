package emu

import (
	"encoding/binary"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/sfu"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestApproxAgainstH100 runs the reference's apply.ptx through the
// emulator on the first records the H100 wrote for rcp.approx.ftz.f32 and
// div.full.f32 (../shared/gpu-reference/approx): every result must be the
// one internal/sfu computes, and the share equal to the H100's is reported.
func TestApproxAgainstH100(t *testing.T) {
	dir := testref.Path("gpu-reference", "approx") // 30 MB: not copied into testdata/shared
	src, err := os.ReadFile(filepath.Join(dir, "apply.ptx"))
	if err != nil {
		t.Skipf("skipping: the H100 reference results are absent (%v)", err)
	}
	m, errs := parser.ParseString("apply.ptx", string(src))
	if errs.HasErrors() {
		t.Fatal(errs.Err())
	}
	for _, c := range []struct {
		name string
		rec  int // words per record
		want func(w []uint32) uint32
	}{
		{"rcp.approx.ftz.f32", 2, func(w []uint32) uint32 { return sfu.Rcp(w[0], true) }},
		{"div.full.f32", 3, func(w []uint32) uint32 { return sfu.DivFull(w[0], w[1], false) }},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		const n = 4096
		data = data[:n*4*c.rec]
		h100 := u32s(data)
		kernel := "apply_" + strings.ReplaceAll(c.name, ".", "_")
		p, errs := Decode(m, kernel)
		if errs.HasErrors() {
			t.Fatal(errs.Err())
		}
		in := append([]byte(nil), data...)
		res, err := execute(p, Config{Grid: dims(n/256, 1, 1), Block: dims(256, 1, 1)},
			[]Arg{{IsBuffer: true, Buffer: in}, scalar(n)})
		if err != nil || res.Report != nil {
			t.Fatal(err, res.Report)
		}
		out := res.Buffers[0].Data
		same := 0
		for i := 0; i < n; i++ {
			rec := h100[i*c.rec : (i+1)*c.rec]
			got := binary.LittleEndian.Uint32(out[4*(i*c.rec+c.rec-1):])
			if want := c.want(rec); got != want {
				t.Fatalf("%s record %d: emulator %08x, internal/sfu %08x", c.name, i, got, want)
			}
			if got == rec[c.rec-1] {
				same++
			}
		}
		t.Logf("%s: %d of %d results equal the H100's", c.name, same, n)
		if same < n {
			t.Errorf("%s: only %d of %d results equal the H100's", c.name, same, n)
		}
	}
}

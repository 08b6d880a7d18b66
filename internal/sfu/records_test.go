package sfu

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// approxOps maps each recorded instruction to its implementation.
var approxOps = []struct {
	file  string
	floor float64 // the share bit-exact today, in percent; the test fails below it
	unary func(uint32) uint32
	div   func(x, y uint32) uint32
}{
	{file: "rcp.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Rcp(x, false) }},
	{file: "rcp.approx.ftz.f32", floor: 100, unary: func(x uint32) uint32 { return Rcp(x, true) }},
	{file: "rsqrt.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Rsqrt(x, false) }},
	{file: "sqrt.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Sqrt(x, false) }},
	{file: "ex2.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Ex2(x, false) }},
	{file: "ex2.approx.ftz.f32", floor: 100, unary: func(x uint32) uint32 { return Ex2(x, true) }},
	{file: "lg2.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Lg2(x, false) }},
	{file: "div.approx.f32", floor: 100, div: func(x, y uint32) uint32 { return DivApprox(x, y, false) }},
	{file: "div.full.f32", floor: 100, div: func(x, y uint32) uint32 { return DivFull(x, y, false) }},
	{file: "sin.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Sin(x, false) }},
	{file: "cos.approx.f32", floor: 100, unary: func(x uint32) uint32 { return Cos(x, false) }},
	{file: "tanh.approx.f32", floor: 100, unary: Tanh},
}

// sweepOps maps each sweep's instruction (sweep.cu) to its implementation.
var sweepOps = map[string]func(uint32) uint32{
	"rcp.approx.ftz.f32":   func(x uint32) uint32 { return Rcp(x, true) },
	"rsqrt.approx.ftz.f32": func(x uint32) uint32 { return Rsqrt(x, true) },
	"sqrt.approx.ftz.f32":  func(x uint32) uint32 { return Sqrt(x, true) },
	"lg2.approx.ftz.f32":   func(x uint32) uint32 { return Lg2(x, true) },
	"ex2.approx.ftz.f32":   func(x uint32) uint32 { return Ex2(x, true) },
	"sin.approx.ftz.f32":   func(x uint32) uint32 { return Sin(x, true) },
	"cos.approx.ftz.f32":   func(x uint32) uint32 { return Cos(x, true) },
	"tanh.approx.f32":      Tanh,
}

// TestSweepInstructions runs every sweep through the instructions, covering
// the binades no table was fitted to (lg2 e126, ex2 e126 and e130).
func TestSweepInstructions(t *testing.T) {
	needData(t)
	files, err := filepath.Glob(filepath.Join(approxDir, "sweeps", "*.bin"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sweeps (%v)", err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		dot := strings.LastIndex(strings.TrimSuffix(base, ".bin"), ".e")
		op := sweepOps[base[:dot]]
		e, err := strconv.Atoi(strings.TrimSuffix(base[dot+2:], ".bin"))
		if op == nil || err != nil {
			t.Fatalf("unknown sweep %s", base)
		}
		res := readWords(t, "sweeps/"+base)
		ok := 0
		for i, r := range res {
			if op(sweepInput(uint32(e), uint32(i))) == r {
				ok++
			}
		}
		t.Logf("%-36s %.4f%% bit-exact", base, pct(ok, len(res)))
		if ok != len(res) {
			t.Errorf("%s: %d of %d results differ from the H100's", base, len(res)-ok, len(res))
		}
	}
}

// TestRecords compares every recorded H100 result (approx/NAME.bin; only the
// even half of tanh's was used to derive the tables, TestTanhHoldOut checks
// the odd half on its own) with the package's.
func TestRecords(t *testing.T) {
	needData(t)
	for _, op := range approxOps {
		w := readWords(t, op.file+".bin")
		stride := 2
		if op.div != nil {
			stride = 3
		}
		ok, n, shown := 0, 0, 0
		for i := 0; i+stride <= len(w); i += stride {
			var got uint32
			if op.div != nil {
				got = op.div(w[i], w[i+1])
			} else {
				got = op.unary(w[i])
			}
			want := w[i+stride-1]
			n++
			if got == want {
				ok++
			} else if shown < 3 && testing.Verbose() {
				shown++
				t.Logf("  %s(%08x ...) = %08x, H100 %08x", op.file, w[i], got, want)
			}
		}
		t.Logf("%-20s %.4f%% of %d records bit-exact", op.file, pct(ok, n), n)
		if pct(ok, n) < op.floor {
			t.Errorf("%s: %.4f%% bit-exact, below %.2f%%", op.file, pct(ok, n), op.floor)
		}
	}
}

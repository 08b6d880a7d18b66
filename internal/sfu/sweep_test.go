package sfu

import (
	"encoding/binary"
	"github.com/ptxkit/ptxkit/internal/testref"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// approxDir holds the H100's results of the approximate instructions
// (../shared/gpu-reference/approx, see its README).
var approxDir = testref.Path("gpu-reference", "approx") // 30 MB: not copied into testdata/shared

func needData(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(approxDir); err != nil {
		t.Skipf("skipping: the H100 reference results are absent (%v)", err)
	}
}

func readWords(t testing.TB, name string) []uint32 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(approxDir, name))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// sweepInput is input i of a sweep of binade e (sweep.cu).
func sweepInput(e, i uint32) uint32 { return e<<23 | i<<5 }

// sample is one sweep point as a table sees it: the fraction u (n bits)
// and the interval [lo, hi) its interpolated integer must fall in to give
// the recorded result.
type sample struct {
	u      uint32
	n      uint
	lo, hi float64
}

// tableSweep ties a table to the sweep it is derived from.
type tableSweep struct {
	name    string   // Go variable in tables_gen.go
	files   []string // its sweeps, NAME.eE.bin
	table   *quadTable
	bits    uint // segment index bits
	sqShift uint // quadTable.sqShift
	shift   uint // quadTable.shift
	// sample maps a sweep file's input and recorded result to a sample.
	sample func(file string, x, r uint32) (sample, bool)
}

// exactSample is a sample whose result is v * 2^-scale exactly.
func exactSample(u uint32, r uint32, scale int) sample {
	v := math.Ldexp(float64(f32(r)), scale)
	return sample{u: u, n: 23, lo: v, hi: v + 1}
}

// truncSample is a sample whose result is truncated from the fixed-point
// number with scale fraction bits.
func truncSample(u uint32, r uint32, scale int) sample {
	v := math.Ldexp(float64(f32(r)), scale)
	ulp := math.Ldexp(float64(math.Nextafter32(f32(r), float32(math.Inf(1)))-f32(r)), scale)
	return sample{u: u, n: 23, lo: v, hi: v + math.Max(ulp, 1)}
}

var tableSweeps = []tableSweep{
	{"rcpTable", []string{"rcp.approx.ftz.f32.e127.bin"}, &rcpTable, 7, 1, 15, func(file string, x, r uint32) (sample, bool) {
		return exactSample(x&fracMask, r, 24), true
	}},
	{"rsqrtTables[0]", []string{"rsqrt.approx.ftz.f32.e127.bin"}, &rsqrtTables[0], 6, 0, 16, func(file string, x, r uint32) (sample, bool) {
		return exactSample(x&fracMask, r, 24), x&fracMask != 0 // powers of 4 are exact
	}},
	{"rsqrtTables[1]", []string{"rsqrt.approx.ftz.f32.e128.bin"}, &rsqrtTables[1], 6, 0, 16, func(file string, x, r uint32) (sample, bool) {
		return exactSample(x&fracMask, r, 24), true
	}},
	{"sqrtTables[0]", []string{"sqrt.approx.ftz.f32.e127.bin"}, &sqrtTables[0], 6, 0, 17, func(file string, x, r uint32) (sample, bool) {
		return exactSample(x&fracMask, r, 23), true
	}},
	{"sqrtTables[1]", []string{"sqrt.approx.ftz.f32.e128.bin"}, &sqrtTables[1], 6, 0, 17, func(file string, x, r uint32) (sample, bool) {
		return exactSample(x&fracMask, r, 23), true
	}},
	{"ex2Table", []string{"ex2.approx.ftz.f32.e127.bin"}, &ex2Table, 6, 0, 15, func(file string, x, r uint32) (sample, bool) {
		s := exactSample(x&fracMask, r, 22)
		s.u <<= ex2Frac - 23
		s.n = ex2Frac
		return s, true
	}},
	{"lg2Table", []string{"lg2.approx.ftz.f32.e127.bin", "lg2.approx.ftz.f32.e126.bin"}, &lg2Table, 6, 0, 2, lg2Sample},
	{"sinTable", []string{"sin.approx.ftz.f32.e127.bin", "sin.approx.ftz.f32.e128.bin", "cos.approx.ftz.f32.e127.bin", "cos.approx.ftz.f32.e128.bin"},
		&sinTable, 6, 0, 0, sinSample},
	{"tanhTable", []string{"tanh.approx.f32.e126.bin", "tanh.approx.f32.e127.bin", "tanh.approx.f32.bin"},
		&tanhTable, 7, 0, 14, tanhSample},
}

// tanhSample is a sample of the tanh table: every input from 2^-8 to 8.
func tanhSample(_ string, x, r uint32) (sample, bool) {
	e := x >> 23 & 0xff
	if e < bias-8 || e >= bias+3 {
		return sample{}, false
	}
	u, scale := tanhArg(x)
	s := truncSample(u, r&^signBit, scale)
	s.n = 24
	return s, true
}

// lg2Sample is a sample of the table of log2 of the mantissa. Below 1 the
// sum -1 + table value is negative and the hardware truncates its one's
// complement, 2^lg2Frac - 1 - table value.
func lg2Sample(_ string, x, r uint32) (sample, bool) {
	f := x & fracMask
	s := truncSample(f, r&^signBit, lg2Frac)
	if x>>23 == bias-1 {
		one := math.Ldexp(1, lg2Frac)
		s.lo, s.hi = one-s.hi, one-s.lo
	}
	return s, x>>23 != bias || f != 0 // lg2(1) is exactly 0
}

// sinSample is a sample of the table of sin(π/2 f) on the quarter turn
// MUFU.SIN or MUFU.COS reduces the sweep's x/(2π) to.
func sinSample(file string, x, r uint32) (sample, bool) {
	_, f, _ := quarterTurn(fmulRZ(x, invTwoPi), strings.HasPrefix(file, "cos"))
	return truncSample(f, r&^signBit, sinFrac), true
}

// sweepName matches the name of a sweep file.
var sweepName = regexp.MustCompile(`\.e[0-9]+\.bin$`)

// sweepExp returns the binade E of the sweep file NAME.eE.bin.
func sweepExp(file string) uint32 {
	e, _ := strconv.Atoi(file[strings.LastIndex(file, ".e")+2 : len(file)-len(".bin")])
	return uint32(e)
}

// TestSweeps checks every table against every point of its sweep and
// reports the points the fit did not use (odd i) separately.
func TestSweeps(t *testing.T) {
	needData(t)
	for _, ts := range tableSweeps {
		for _, file := range ts.files {
			testSweep(t, ts, file)
		}
	}
}

// points returns the (input, result) pairs of a sweep (NAME.eE.bin) or of
// a file of records (NAME.bin).
func points(t testing.TB, file string) [][2]uint32 {
	if sweepName.MatchString(file) {
		res := readWords(t, "sweeps/"+file)
		ps := make([][2]uint32, len(res))
		for i, r := range res {
			ps[i] = [2]uint32{sweepInput(sweepExp(file), uint32(i)), r}
		}
		return ps
	}
	w := readWords(t, file)
	ps := make([][2]uint32, len(w)/2)
	for i := range ps {
		ps[i] = [2]uint32{w[2*i], w[2*i+1]}
	}
	return ps
}

func testSweep(t *testing.T, ts tableSweep, file string) {
	var ok, n, okHeld, nHeld int
	for i, p := range points(t, file) {
		s, use := ts.sample(file, p[0], p[1])
		if !use {
			continue
		}
		v := float64(ts.table.eval(s.u, s.n))
		hit := v >= s.lo && v < s.hi
		n++
		if hit {
			ok++
		}
		if i%2 == 1 {
			nHeld++
			if hit {
				okHeld++
			}
		}
	}
	t.Logf("%-16s %s: %.4f%% exact, held-out %.4f%%", ts.name, file, pct(ok, n), pct(okHeld, nHeld))
	if okHeld != nHeld {
		t.Errorf("%s on %s: %d of %d held-out points differ", ts.name, file, nHeld-okHeld, nHeld)
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

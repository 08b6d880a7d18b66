package emu

import (
	"bytes"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/internal/benchmod"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// The matrix products of the GPU reference set (../shared/gpu-reference):
// mm_tiled (basics.ptx) computes C = A B for 128x128 matrices with plain
// loads into shared tiles; mm_pipe2 and mm_pipe4 (async.ptx, nvcc's output
// for cuda::pipeline with 2 and 4 stages of cp.async) compute the same
// product. A real H100's output for mm_tiled and mm_pipe2 is in expected/.

var gpuRef = testref.Path("gpu-reference")

// gpuRefDir returns the reference folder, or skips the test without it.
func gpuRefDir(t testing.TB) string {
	t.Helper()
	dir := gpuRef
	if _, err := os.Stat(filepath.Join(dir, "launches.tsv")); err != nil {
		t.Skipf("GPU reference set not present (%v)", err)
	}
	return dir
}

// gpuRefProgram decodes kernel of the reference PTX file name.
func gpuRefProgram(t testing.TB, dir, name, kernel string) *Program {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "ptx", name))
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseString(name, string(src))
	if errs.HasErrors() {
		t.Fatalf("parse: %v", errs.Err())
	}
	p, errs := Decode(m, kernel)
	if errs.HasErrors() {
		t.Fatalf("decode %s: %v", kernel, errs.Err())
	}
	return p
}

// matmulArgs returns the arguments of the reference matrix products: C
// (zeroed), A, B and n = 128.
func matmulArgs(t testing.TB, dir string) []Arg {
	t.Helper()
	args := []Arg{buf(128 * 128 * 4)}
	for _, f := range []string{"m128a.bin", "m128b.bin"} {
		b, err := os.ReadFile(filepath.Join(dir, "inputs", f))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, Arg{IsBuffer: true, Buffer: b})
	}
	return append(args, scalar(128))
}

// runMatmul launches kernel of file on a 4x4 grid of 32x32 CTAs and
// returns C.
func runMatmul(t testing.TB, p *Program, args []Arg, cfg Config) []byte {
	t.Helper()
	cfg.Grid, cfg.Block = dims(4, 4, 1), dims(32, 32, 1)
	res, err := execute(p, cfg, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatal(res.Report)
	}
	return res.Buffers[0].Data
}

// TestPipelinedMatmul checks that the 2- and 4-stage cp.async pipelines
// compute the H100's mm_tiled product byte for byte under every landing
// policy. Each launch takes about 0.1 s of CPU time (44 s for mm_pipe2
// when every shared load scanned the outstanding copies); more than 2 s
// fails.
func TestPipelinedMatmul(t *testing.T) {
	dir := gpuRefDir(t)
	want, err := os.ReadFile(filepath.Join(dir, "expected", "mm_tiled", "arg0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	args := matmulArgs(t, dir)
	for _, c := range []struct{ file, kernel string }{{"basics.ptx", "mm_tiled"}, {"async.ptx", "mm_pipe2"}, {"async.ptx", "mm_pipe4"}} {
		p := gpuRefProgram(t, dir, c.file, c.kernel)
		policies := asyncPolicies
		if testing.Short() {
			policies = policies[:1]
		}
		for _, pol := range policies {
			start := benchmod.CPUTime()
			got := runMatmul(t, p, args, Config{Async: pol, Seed: 7})
			if el := benchmod.CPUTime() - start; el > 2*time.Second*raceSlowdown {
				t.Errorf("%s under %v took %v of CPU time", c.kernel, pol, el)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Errorf("%s under %v: byte %d is %#x, the H100 wrote %#x", c.kernel, pol, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkMatmul compares the plain tiled product with the cp.async
// pipelines (one launch of 16 CTAs x 1024 threads per iteration).
func BenchmarkMatmul(b *testing.B) {
	dir := gpuRefDir(b)
	args := matmulArgs(b, dir)
	for _, c := range []struct{ file, kernel string }{{"basics.ptx", "mm_tiled"}, {"async.ptx", "mm_pipe2"}, {"async.ptx", "mm_pipe4"}} {
		b.Run(c.kernel, func(b *testing.B) {
			p := gpuRefProgram(b, dir, c.file, c.kernel)
			b.ReportAllocs()
			cpu := benchmod.CPUTime()
			for b.Loop() {
				runMatmul(b, p, args, Config{Async: AsyncEager})
			}
			if d := benchmod.CPUTime() - cpu; cpu != 0 && d > 0 {
				b.ReportMetric(d.Seconds()*1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

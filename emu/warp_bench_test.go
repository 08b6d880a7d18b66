package emu

import (
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// BenchmarkWarpKernels runs the compute and control kernels that the
// converged-warp path targets (docs/emu-warp.md): a shuffle reduction, a
// block scan and a tiled matrix product of the GPU reference set, and the
// store-heavy kernel, each on a grid large enough to dominate setup.
func BenchmarkWarpKernels(b *testing.B) {
	dir := gpuRefDir(b)
	cases := []struct {
		name, kernel string
		grid, block  [3]int
		args         func() []Arg
	}{
		{"reduce_shfl", "reduce_shfl", dims(256, 1, 1), dims(256, 1, 1),
			func() []Arg { return []Arg{buf(4 << 20), buf(1024), scalar(1 << 20)} }},
		{"scan_block", "scan_block", dims(512, 1, 1), dims(256, 1, 1),
			func() []Arg { return []Arg{buf(4 * 512 * 256), buf(4 * 512)} }},
		{"mm_tiled", "mm_tiled", dims(4, 4, 1), dims(32, 32, 1),
			func() []Arg { return []Arg{buf(4 << 14), buf(4 << 14), buf(4 << 14), scalar(128)} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := gpuRefProgram(b, dir, "basics.ptx", c.kernel)
			cpu := benchmod.CPUTime()
			var insts uint64
			for b.Loop() {
				res, err := execute(p, Config{Grid: c.grid, Block: c.block}, c.args())
				if err != nil || res.Report != nil {
					b.Fatal(err, res.Report)
				}
				insts = res.Stats.ThreadInsts
			}
			if d := benchmod.CPUTime() - cpu; d > 0 {
				b.ReportMetric(float64(insts)*float64(b.N)/d.Seconds()/1e6, "Mthread-inst/cpu-s")
			}
		})
	}
}

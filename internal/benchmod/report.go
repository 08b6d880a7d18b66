package benchmod

import (
	"testing"
	"time"
)

// ReportCPU adds the metric "MB/cpu-s" to b: n input bytes per iteration,
// in megabytes per second of CPU time of the whole process since start
// (a CPUTime reading). Unlike wall-clock MB/s it hardly depends on what
// else the machine's cores are doing; it includes the garbage collector.
func ReportCPU(b *testing.B, n int, start time.Duration) {
	if start == 0 || b.N == 0 {
		return
	}
	if d := CPUTime() - start; d > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// Run runs body b.N times, reporting allocations, n bytes per iteration
// and the MB/cpu-s metric.
func Run(b *testing.B, n int, body func()) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	start := CPUTime()
	for i := 0; i < b.N; i++ {
		body()
	}
	ReportCPU(b, n, start)
}

package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// BenchmarkCheckFile measures what `ptxkit check FILE` does with a file
// once it is read: parse, resolve and validate, one top-level statement at
// a time, on the 8 MB many-kernel module of the check benchmarks.
func BenchmarkCheckFile(b *testing.B) {
	src := []byte(benchmod.Check(8 << 20))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if l := checkFile("bench.ptx", src, check.Config{}); len(l) != 0 {
			b.Fatal(l)
		}
	}
	if d := cpuTime() - cpu0; d > 0 {
		b.ReportMetric(float64(len(src))*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

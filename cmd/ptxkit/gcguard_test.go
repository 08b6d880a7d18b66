package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// regsOneByOne writes a kernel declaring n registers one by one on one
// line (".reg .b32 %a0, %a1, ...").
func regsOneByOne(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %a0")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ", %%a%d", i)
	}
	b.WriteString(";\n\tadd.s32 %a1, %a0, 1;\n\tret;\n}\n")
	p := filepath.Join(t.TempDir(), fmt.Sprintf("regs%d.ptx", n))
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gcCost runs ptxkit with args and returns the collections it caused, the
// bytes it allocated and its wall time.
func gcCost(t *testing.T, args ...string) (gcs uint32, alloc uint64, gcCPU float64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	c0 := gcCPUSeconds()
	if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
		t.Fatalf("ptxkit %v: exit %d", args, code)
	}
	runtime.GC()
	gcCPU = gcCPUSeconds() - c0
	runtime.ReadMemStats(&m1)
	return m1.NumGC - m0.NumGC, m1.TotalAlloc - m0.TotalAlloc, gcCPU
}

// gcCPUSeconds is the runtime's estimate of the CPU time spent collecting.
func gcCPUSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}

// TestRegistersOneByOneScaleLinearly checks and formats a declaration of
// 20,000 and of 80,000 register names under a memory limit far below what
// the larger one keeps live (as 10^7 names, 110 MB, do under the real
// limits). The guard must restore GOGC's pacing for the larger input (the
// collector would otherwise run back to back: 43 to 68 collections and
// 1.1 to 2 s collecting against 15 to 26 and 0.1 to 0.4 s with it, on an
// unloaded machine), and the bytes allocated must grow linearly. The
// collections and collecting time are logged, not asserted: they depend
// on the machine's load.
func TestRegistersOneByOneScaleLinearly(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: check and fmt leave the collector as the user tuned it")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer func(l int64) { checkMemoryLimit = l }(checkMemoryLimit)
	defer func(m int) { fmtHeapMargin = m }(fmtHeapMargin)
	checkMemoryLimit, fmtHeapMargin = 8<<20, 4<<20
	small, large := regsOneByOne(t, 20_000), regsOneByOne(t, 80_000)
	for _, cmd := range []string{"check", "fmt"} {
		g1, a1, w1 := gcCost(t, cmd, small)
		fired := gcGuardFired.Load()
		g2, a2, w2 := gcCost(t, cmd, large)
		t.Logf("%s: 20,000 names: %d collections, %d bytes, %.3fs collecting; 80,000: %d, %d, %.3fs", cmd, g1, a1, w1, g2, a2, w2)
		// The guard runs in a finalizer, after the collection that found
		// the live heap high: give the finalizer goroutine a moment.
		for i := 0; i < 50 && gcGuardFired.Load() == fired; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if gcGuardFired.Load() == fired {
			t.Errorf("%s of 80,000 names: the live heap passed the limit and GOGC's pacing was not restored", cmd)
		}
		if r := float64(a2) / float64(a1); r > 6 {
			t.Errorf("%s: 4 times the names allocate %.1f times the bytes", cmd, r)
		}
	}
}

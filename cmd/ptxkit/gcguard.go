package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// check and fmt run with a soft memory limit and little or no pacing by
// GOGC (tuneGC, limitFmtHeap), which suits inputs whose live data is far
// below the limit. An input whose live data outgrows the limit (one
// declaration of ten million register names keeps every name's symbol
// live) would make the collector run back to back, each cycle marking the
// whole heap: time super-linear in the input. guardGC watches the live
// heap after every collection and, once it passes a threshold, lifts the
// limit and restores GOGC's pacing, so that such inputs are collected at
// the usual proportional pace.

// gcGuardGen is the generation of the armed guard; disarming or arming
// anew makes the sentinels of older ones lapse.
var gcGuardGen atomic.Uint64

// gcGuardFired counts the times a guard restored GOGC's pacing.
var gcGuardFired atomic.Int64

// guardGC arms the guard: after each collection, when the live heap is
// above threshold bytes, the soft memory limit is lifted and GOGC is set
// to 100 (the runtime's default), once. The returned function disarms it.
func guardGC(threshold int64) (disarm func()) {
	gen := gcGuardGen.Add(1)
	armGCSentinel(gen, threshold)
	return func() { gcGuardGen.CompareAndSwap(gen, gen+1) }
}

// gcSentinel is garbage as soon as it is made; its finalizer runs after
// the collection that found it and makes the next one.
type gcSentinel struct{ _ [16]byte } // not zero-sized: those share one address and are never finalized

func armGCSentinel(gen uint64, threshold int64) {
	s := new(gcSentinel)
	runtime.SetFinalizer(s, func(*gcSentinel) {
		if gcGuardGen.Load() != gen {
			return
		}
		if liveHeap() > threshold {
			debug.SetMemoryLimit(math.MaxInt64)
			debug.SetGCPercent(100)
			gcGuardGen.CompareAndSwap(gen, gen+1)
			gcGuardFired.Add(1)
			return
		}
		armGCSentinel(gen, threshold)
	})
}

// liveHeap returns the bytes of heap objects the last collection marked.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}

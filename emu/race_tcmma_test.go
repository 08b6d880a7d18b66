package emu

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// TestRaceTcgen05MMA: a tcgen05.mma writes its D in Tensor Memory when it
// lands, as an asynchronous operation of the issuing warp that only its
// tcgen05.commit orders. The kernel that waits on the commit's mbarrier
// before tcgen05.ld of D is clean under --race in every async mode; the
// same kernel without the wait is reported, whatever the schedule (the
// race does not depend on whether the MMA landed before the load). Its
// A and B in shared memory are read by the async proxy: generic stores to
// them need fence.proxy.async before the MMA.
func TestRaceTcgen05MMA(t *testing.T) {
	const m, n = 128, 64
	img := make([]byte, 32768)
	one := uint16(fbits("f16", 1))
	for i := 0; i < len(img); i += 2 {
		binary.LittleEndian.PutUint16(img[i:], one)
	}
	hi := uint64(8)<<16 | uint64(32)<<32 | 1<<46
	src := fmt.Sprintf(tcMMAKernel, "kind::f16", "kind::f16")
	noWait := strings.Replace(src, "\tmbarrier.try_wait.parity.shared::cta.b64 %p6, [%r10], 0;\n\t@!%p6 bra WAIT;\n", "", 1)
	if noWait == src {
		t.Fatal("kernel text changed: the wait was not removed")
	}
	// A and B are stored to shared memory by every thread through the
	// generic proxy; without fence.proxy.async the MMA's async-proxy
	// reads of them race with those stores.
	noFence := strings.Replace(src, "\tfence.proxy.async.shared::cta;\n", "", 1)
	if noFence == src {
		t.Fatal("kernel text changed: the proxy fence was not removed")
	}
	for _, cfg := range []Config{{}, {Async: AsyncDelayed}, {Async: AsyncRandom, Seed: 5}} {
		cfg.Block, cfg.Race = dims(128, 1, 1), true
		args := []Arg{{IsBuffer: true, Buffer: img}, buf(4 * m * n), scalar(hi), scalar(2 * 8), scalar(uint64(tcIdescOf(1, 0, 0, m, n))), scalar(16384)}
		launch(t, src, cfg, args...)
		res := launchReport(t, noWait, cfg, args...)
		if res.Report == nil || res.Report.Rule != ruleDataRace || !strings.Contains(res.Report.Message, "Tensor Memory") ||
			!strings.Contains(fmt.Sprint(res.Report), "tcgen05.mma") || !strings.Contains(fmt.Sprint(res.Report), "tcgen05.ld") {
			t.Fatalf("async %v: no wait on the commit: %v", cfg.Async, res.Report)
		}
		// Thread 0 issued the MMA (its agent is lane 31's): the report
		// names thread 0, as the earlier access or as the one reported.
		mmaFirst := strings.Contains(res.Report.Message, "overwrites an asynchronous load")
		if mmaFirst && res.Report.Thread.Lane != 0 || !mmaFirst && !strings.Contains(res.Report.Message, "the operation issued by thread (0,0,0) ") {
			t.Fatalf("async %v: the MMA's issuer is not named: %v", cfg.Async, res.Report)
		}
		res = launchReport(t, noFence, cfg, args...)
		if res.Report == nil || res.Report.Rule != ruleDataRace || !strings.Contains(res.Report.Message, "async proxy") ||
			!strings.Contains(res.Report.Message, "st.shared.u32") {
			t.Fatalf("async %v: no fence.proxy.async before the MMA: %v", cfg.Async, res.Report)
		}
	}
}

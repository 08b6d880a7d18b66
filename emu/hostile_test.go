package emu

import (
	"testing"
)

// tcgenStoreLoop allocates Tensor Memory and then issues tcgen05.st forever
// without a tcgen05.wait::st.
const tcgenStoreLoop = `.version 8.6
.target sm_100a
.address_size 64
.entry k()
{
	.reg .b32 %r<40>;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, slot;
	mov.u32 %r6, 64;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r6;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %r3, [%r1];
L:
	tcgen05.st.sync.aligned.32x32b.x8.b32 [%r3], {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17};
	bra.uni L;
}
`

// TestHostileUnwaitedAsyncQueueBounded checks that a kernel issuing
// asynchronous operations it never waits for keeps a bounded queue under
// --async delayed and random, and stops at the step budget.
func TestHostileUnwaitedAsyncQueueBounded(t *testing.T) {
	for _, pol := range []AsyncPolicy{AsyncDelayed, AsyncRandom} {
		p := compile(t, tcgenStoreLoop)
		mem := p.NewMemory()
		mem.setParams(nil)
		cfg := Config{Grid: dims(1, 1, 1), Block: dims(32, 1, 1), Async: pol, MaxSteps: 20000}
		if err := cfg.normalize(p); err != nil {
			t.Fatal(err)
		}
		wk := newWorker(p, &cfg, mem, nil)
		r := wk.runCluster(0, [3]int{})
		if r == nil || r.Rule != RuleMaxSteps {
			t.Fatalf("%v: report %v, want %s", pol, r, RuleMaxSteps)
		}
		if n := len(wk.cl.async); n > MaxQueuedAsync {
			t.Errorf("%v: %d operations queued, want at most %d", pol, n, MaxQueuedAsync)
		}
	}
}


package mbarrier

import "testing"

// BenchmarkPhase measures one phase of a 32-arrival barrier with 128
// tx-bytes: an arrive.expect_tx, 31 arrivals, 32 complete-tx of 4 bytes and
// a parity wait, all through the Table on a memory word.
func BenchmarkPhase(b *testing.B) {
	tb := NewTable()
	const a = 0x40
	r, _ := tb.Init(a, 32)
	w := r.Word
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _ = tb.ExpectArrive(a, w, 128, false, false)
		w = r.Word
		for j := 0; j < 31; j++ {
			r, _ = tb.Arrive(a, w, 1, false)
			w = r.Word
		}
		for j := 0; j < 32; j++ {
			r, _ = tb.CompleteTx("st.async", a, w, 4)
			w = r.Word
		}
		if ok, _ := tb.TestWaitParity("try_wait", a, w, uint32(i&1)); !ok {
			b.Fatal("phase did not complete")
		}
	}
	b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "ops/s")
}

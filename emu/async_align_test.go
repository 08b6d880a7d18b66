package emu

import (
	"strings"
	"testing"
)

// Alignment of the asynchronous copies, per instruction: cp.async.bulk
// needs 16-byte aligned addresses and a size that is a multiple of 16
// (PTX ISA §9.7.9.25.4.1), not addresses aligned to the size; cp.async
// aligns both addresses to cp-size (§9.7.9.25.3.1).

// TestBulkCopyAlignedTo16NotToSize copies 256 bytes from in+16*rank: CTA
// rank 1's source is 16-byte aligned but not a multiple of 256, which the
// manual allows.
func TestBulkCopyAlignedTo16NotToSize(t *testing.T) {
	src := rewrite(t, readAsyncKernel(t, "bulk_copy.ptx"), "mul.wide.u32 %rd3, %r2, 256;", "mul.wide.u32 %rd3, %r2, 16;")
	for _, pol := range asyncPolicies {
		cfg := Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1), Async: pol, Seed: 5}
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(128)}, buf(512))
		if res.Report != nil {
			t.Fatalf("%v: %v", pol, res.Report)
		}
		// CTA r's inbox holds the tile its peer loaded from word 4*(r^1).
		for i, got := range u32s(res.Buffers[1].Data) {
			rank, tid := i/64, i%64
			if want := uint32(4*(rank^1) + tid); got != want {
				t.Fatalf("%v: out[%d] = %d, want %d", pol, i, got, want)
			}
		}
	}
}

// TestBulkCopyMisaligned: a source 8 bytes past a 16-byte boundary is
// misaligned for a bulk copy.
func TestBulkCopyMisaligned(t *testing.T) {
	src := rewrite(t, readAsyncKernel(t, "bulk_copy.ptx"), "mul.wide.u32 %rd3, %r2, 256;", "mul.wide.u32 %rd3, %r2, 8;")
	cfg := Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1)}
	res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(128)}, buf(512))
	wantReport(t, res, ruleMisaligned, "16-byte aligned")
	if res.Report.Thread.Rank != 1 {
		t.Errorf("reported for CTA rank %d; only rank 1's source is misaligned", res.Report.Thread.Rank)
	}
}

// TestCpAsyncAlignment: a 16-byte cp.async needs 16-byte aligned
// addresses, a 4-byte one 4-byte aligned addresses.
func TestCpAsyncAlignment(t *testing.T) {
	kernel := readAsyncKernel(t, "cp_async_pipeline.ptx")
	cfg := Config{Block: dims(32, 1, 1)}
	args := func() []Arg { return []Arg{{IsBuffer: true, Buffer: words(256)}, buf(128)} }

	res := launchReport(t, rewrite(t, kernel, "add.u64 %rd4, %rd1, %rd3;", "add.u64 %rd4, %rd1, %rd3;\n\tadd.u64 %rd4, %rd4, 8;"), cfg, args()...)
	wantReport(t, res, ruleMisaligned, "cp.async of 16 bytes", "multiples of 16")

	// Four 4-byte copies at 4-byte aligned addresses are fine.
	four := strings.Replace(kernel, "cp.async.cg.shared.global [%r3], [%rd4], 16;",
		"cp.async.ca.shared.global [%r3], [%rd4], 4;\n\tcp.async.ca.shared.global [%r3+4], [%rd4+4], 4;\n\tcp.async.ca.shared.global [%r3+8], [%rd4+8], 4;\n\tcp.async.ca.shared.global [%r3+12], [%rd4+12], 4;", 1)
	res = launchReport(t, four, cfg, args()...)
	if res.Report != nil {
		t.Fatal(res.Report)
	}
}

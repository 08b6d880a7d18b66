package emu

import (
	"strconv"
	"strings"
	"testing"
)

// TestBulkCopyNeedsOnly16ByteAlignment: a 256-byte cp.async.bulk from a
// global address that is a multiple of 16 but not of 256 is valid
// (§9.7.9.25.4.1) and copies the right bytes; an address that is not a
// multiple of 16 is reported.
func TestBulkCopyNeedsOnly16ByteAlignment(t *testing.T) {
	base := readAsyncKernel(t, "bulk_copy.ptx")
	for _, off := range []int{16, 48, 8} {
		src := strings.Replace(base, "add.u64 %rd4, %rd1, %rd3;", "add.u64 %rd4, %rd1, %rd3;\n\tadd.u64 %rd4, %rd4, "+strconv.Itoa(off)+";", 1)
		cfg := Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1)}
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(160)}, buf(512))
		if off%16 != 0 {
			wantReport(t, res, ruleMisaligned, "16-byte aligned")
			continue
		}
		if res.Report != nil {
			t.Fatalf("offset %d: %v", off, res.Report)
		}
		for i, got := range u32s(res.Buffers[1].Data) {
			rank, tid := i/64, i%64
			if want := uint32((rank^1)*64 + tid + off/4); got != want {
				t.Fatalf("offset %d: out[%d] = %d, want %d", off, i, got, want)
			}
		}
	}
}

// TestBulkCopySourceDisplacement: a bulk copy whose global source address
// carries a displacement ([%rd4+48]) copies from the displaced address, as
// the same copy with the displacement added to the register does; a
// displacement that breaks the 16-byte alignment is reported.
func TestBulkCopySourceDisplacement(t *testing.T) {
	base := readAsyncKernel(t, "bulk_copy.ptx")
	for _, off := range []int{48, 8} {
		src := strings.Replace(base, "[%rd4], 256", "[%rd4+"+strconv.Itoa(off)+"], 256", 1)
		cfg := Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1)}
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(160)}, buf(512))
		if off%16 != 0 {
			wantReport(t, res, ruleMisaligned, "16-byte aligned")
			continue
		}
		if res.Report != nil {
			t.Fatalf("displacement %d: %v", off, res.Report)
		}
		for i, got := range u32s(res.Buffers[1].Data) {
			rank, tid := i/64, i%64
			if want := uint32((rank^1)*64 + tid + off/4); got != want {
				t.Fatalf("displacement %d: out[%d] = %d, want %d", off, i, got, want)
			}
		}
	}
}

package emu

import (
	"strings"
	"testing"
)

// The wgmma instructions of wgmmaKernel, as written there.
const (
	wgmmaMMALine    = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd8, %rd12, 1, 1, 1, 0, 0;"
	wgmmaCommitLine = "wgmma.commit_group.sync.aligned;"
	wgmmaWaitLine   = "wgmma.wait_group.sync.aligned 0;"
	wgmmaFirstStore = "st.global.v2.f32 [%rd14], {%f0, %f1};"
	wgmmaRegsALine  = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r16, %r17, %r18, %r19}, %rd12, 1, 1, 1, 0;"
)

// wgmmaEdit applies replacements (old, new pairs, each found exactly once)
// to wgmmaKernel.
func wgmmaEdit(t *testing.T, pairs ...string) string {
	t.Helper()
	src := wgmmaKernel
	for i := 0; i < len(pairs); i += 2 {
		if strings.Count(src, pairs[i]) != 1 {
			t.Fatalf("%q is not in the kernel exactly once", pairs[i])
		}
		src = strings.Replace(src, pairs[i], pairs[i+1], 1)
	}
	return src
}

// runWgmmaFlight launches a kernel built on wgmmaKernel (zeroed shared
// memory: D = C) and returns the result.
func runWgmmaFlight(t *testing.T, src string) *Result {
	t.Helper()
	return launchReport(t, src, Config{Block: dims(128, 1, 1)}, buf(16384), buf(4*64*16), scalar(0), scalar(0), scalar(8192))
}

// TestWgmmaInFlight: registers of a wgmma.mma_async touched before the
// wgmma.wait_group that retires it, or touched after the last wgmma.fence
// before it, are reported; the fixed kernels run.
func TestWgmmaInFlight(t *testing.T) {
	bad := []struct {
		name  string
		edits []string
		frags []string
	}{
		{"read accumulator before wait", []string{
			wgmmaWaitLine, "",
			wgmmaFirstStore, wgmmaFirstStore + "\n\t" + wgmmaWaitLine,
		}, []string{"%f0 is the accumulator", "st.global.v2.f32", "still in flight"}},
		{"write accumulator before wait", []string{
			wgmmaCommitLine, wgmmaCommitLine + "\n\tmov.f32 %f5, 0f00000000;",
		}, []string{"%f5 is the accumulator", "mov.f32"}},
		{"wait_group 1 leaves the only group pending", []string{
			wgmmaWaitLine, "wgmma.wait_group.sync.aligned 1;",
		}, []string{"%f0 is the accumulator"}},
		{"wait without commit", []string{
			wgmmaCommitLine, "",
		}, []string{"still in flight"}},
		{"accumulator of another shape", []string{
			wgmmaCommitLine, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd8, %rd12, 1, 1, 1, 0, 0;\n\t" + wgmmaCommitLine,
		}, []string{"%f0 is the accumulator", "m64n8k16"}},
		{"write A in registers before wait", []string{
			wgmmaMMALine, wgmmaRegsALine,
			wgmmaCommitLine, wgmmaCommitLine + "\n\tmov.b32 %r17, 0;",
		}, []string{"%r17 is the A fragment"}},
		{"A in registers as the accumulator of the next", []string{
			wgmmaMMALine, wgmmaRegsALine + "\n\twgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r16, %r17}, %rd8, %rd12, 1, 1, 1, 0, 0;",
		}, []string{"%r16 is the A fragment"}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			res := runWgmmaFlight(t, wgmmaEdit(t, c.edits...))
			wantReport(t, res, ruleWgmmaInFlight, c.frags...)
		})
	}
	// wgmma.fence (§9.7.15.7.1): an access after the last fence to a
	// register the next wgmma.mma_async uses.
	unfenced := []struct {
		name  string
		edits []string
		frags []string
	}{
		{"accumulator written after the fence", []string{
			wgmmaMMALine, "mov.f32 %f6, 0f40000000;\n\t" + wgmmaMMALine,
		}, []string{"%f6, the accumulator", "was accessed at", "after the last wgmma.fence"}},
		{"A fragment loaded after the fence", []string{
			wgmmaMMALine, "mov.b32 %r18, 0;\n\t" + wgmmaRegsALine,
		}, []string{"%r18, the A fragment"}},
		{"no fence at all", []string{
			"wgmma.fence.sync.aligned;", "",
		}, []string{"%f0, the accumulator"}},
	}
	for _, c := range unfenced {
		t.Run(c.name, func(t *testing.T) {
			res := runWgmmaFlight(t, wgmmaEdit(t, c.edits...))
			wantReport(t, res, ruleWgmmaFence, c.frags...)
		})
	}
	good := []struct {
		name  string
		edits []string
	}{
		{"waited", nil},
		{"chain of the same shape", []string{
			wgmmaMMALine, wgmmaMMALine + "\n\t" + wgmmaMMALine,
		}},
		{"two groups, wait_group 1 then 0", []string{
			wgmmaCommitLine, wgmmaCommitLine + "\n\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f8, %f9, %f10, %f11}, %rd8, %rd12, 1, 1, 1, 0, 0;\n\t" +
				wgmmaCommitLine + "\n\twgmma.wait_group.sync.aligned 1;\n\tmov.f32 %f2, %f3;",
			".reg .f32 %f<8>;", ".reg .f32 %f<12>;",
		}},
		{"fenced again after a late write", []string{
			wgmmaMMALine, "mov.f32 %f6, 0f40000000;\n\twgmma.fence.sync.aligned;\n\t" + wgmmaMMALine,
		}},
		{"wait, write, fence, reuse the accumulator", []string{
			wgmmaWaitLine, wgmmaWaitLine + "\n\tmov.f32 %f1, 0f00000000;\n\twgmma.fence.sync.aligned;\n\t" + wgmmaMMALine + "\n\t" + wgmmaCommitLine + "\n\t" + wgmmaWaitLine,
		}},
		{"A in registers read twice, then rewritten after the wait", []string{
			wgmmaMMALine, wgmmaRegsALine + "\n\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f8, %f9, %f10, %f11}, {%r16, %r17, %r18, %r19}, %rd12, 1, 1, 1, 0;",
			".reg .f32 %f<8>;", ".reg .f32 %f<12>;",
			wgmmaWaitLine, wgmmaWaitLine + "\n\tmov.b32 %r17, 0;",
		}},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			if res := runWgmmaFlight(t, wgmmaEdit(t, c.edits...)); res.Report != nil {
				t.Fatalf("unexpected report: %v", res.Report)
			}
		})
	}
}

package emu

import (
	"fmt"
	"strings"
	"testing"
)

// Tests of the global-memory watch (asyncglobal.go): each hazard of
// §9.7.9.25.1 on a global range has a failing kernel, reported under every
// policy and seed, and the same kernel with the proper wait, which passes
// with exact results.

// rewrite replaces old by new once in src, failing when old is absent so
// that a changed test kernel cannot make a test vacuous.
func rewrite(t *testing.T, src, old, new string) string {
	t.Helper()
	if !strings.Contains(src, old) {
		t.Fatalf("test kernel lacks %q", old)
	}
	return strings.Replace(src, old, new, 1)
}

// bulkStoreWant is out[] of bulk_store.ptx: thread t's 16 bytes hold
// 3t, 3t+1, 3t+2, 3t+7.
func bulkStoreWant(i int) uint32 {
	t := uint32(i / 4)
	return 3*t + [4]uint32{0, 1, 2, 7}[i%4]
}

func TestBulkStoreGlobalDestinationReadEarly(t *testing.T) {
	src := readAsyncKernel(t, "bulk_store.ptx")
	early := "@%p1 cp.async.bulk.commit_group;\n\t@%p1 ld.global.u32 %r9, [%rd1+64];\n"
	cases := map[string]string{
		// Read back before any wait.
		"before the wait": rewrite(t, src, "@%p1 cp.async.bulk.commit_group;\n", early),
		// wait_group.read only frees the source (§9.7.9.25.3.2): the
		// destination is still being written.
		"after wait_group.read": rewrite(t, src, "@%p1 cp.async.bulk.wait_group.read 0;\n",
			"@%p1 cp.async.bulk.wait_group.read 0;\n\t@%p1 ld.global.u32 %r9, [%rd1+64];\n"),
		// Generic addressing takes the same path.
		"generic": rewrite(t, src, "@%p1 cp.async.bulk.commit_group;\n",
			"@%p1 cp.async.bulk.commit_group;\n\tcvta.global.u64 %rd2, %rd1;\n\t@%p1 ld.u32 %r9, [%rd2+508];\n"),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			forEachSchedule(t, func(t *testing.T, cfg Config) {
				cfg.Block = dims(32, 1, 1)
				res := launchReport(t, src, cfg, buf(512))
				wantReport(t, res, "async-read-destination", "read of 4 bytes at global address", "(arg0 (parameter out))",
					"the destination of cp.async.bulk.global.shared::cta.bulk_group", "before a wait observed its completion", "§9.7.9.25.1")
			})
		})
	}
}

func TestBulkStoreGlobalDestinationWrittenEarly(t *testing.T) {
	src := rewrite(t, readAsyncKernel(t, "bulk_store.ptx"), "@%p1 cp.async.bulk.commit_group;\n",
		"@%p1 cp.async.bulk.commit_group;\n\tst.global.u32 [%rd1+128], %r1;\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, buf(512))
		wantReport(t, res, "async-write-destination", "write to 4 bytes at global address", "the destination of cp.async.bulk")
	})
}

func TestBulkStoreGlobalDestinationReadAfterWait(t *testing.T) {
	// The full wait observes the writes: thread 0 may read out[0] and
	// copy it to out[127].
	src := rewrite(t, readAsyncKernel(t, "bulk_store.ptx"), "@%p1 cp.async.bulk.wait_group.read 0;\n",
		"@%p1 cp.async.bulk.wait_group 0;\n\t@%p1 ld.global.u32 %r9, [%rd1+4];\n\t@%p1 st.global.u32 [%rd1+508], %r9;\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, buf(512))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		got := u32s(res.Buffers[0].Data)
		for i := 0; i < 127; i++ {
			if got[i] != bulkStoreWant(i) {
				t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, i, got[i], bulkStoreWant(i))
			}
		}
		if got[127] != 1 {
			t.Fatalf("%v seed %d: out[127] = %d, want out[1] = 1", cfg.Async, cfg.Seed, got[127])
		}
	})
}

func pipelineArgs() []Arg { return []Arg{{IsBuffer: true, Buffer: words(256)}, buf(128)} }

// pipelineWant is out[t] of cp_async_pipeline.ptx on words(256): the sum
// of in[4t..4t+3] and in[128+4t..128+4t+3].
func pipelineWant(t int) uint32 { return uint32(4*4*t+6) + uint32(4*(128+4*t)+6) }

func TestCpAsyncGlobalSourceModified(t *testing.T) {
	// The thread overwrites its stage-0 source before waiting: reported
	// at the store, whatever the policy (the copy may have landed).
	src := rewrite(t, readAsyncKernel(t, "cp_async_pipeline.ptx"), "\tcp.async.wait_group 1;\n",
		"\tst.global.u32 [%rd4], %r1;\n\tcp.async.wait_group 1;\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, pipelineArgs()...)
		wantReport(t, res, "async-write-source", "write to 4 bytes at global address", "the source of cp.async at test.ptx:29:2",
			"before a wait observed its completion", "in st.global.u32")
	})
	// Stage 1's source is still guarded after wait_group 1 (which
	// observes only stage 0).
	src = rewrite(t, readAsyncKernel(t, "cp_async_pipeline.ptx"), "\tcp.async.wait_group 0;\n",
		"\tst.global.u32 [%rd5+12], %r1;\n\tcp.async.wait_group 0;\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, pipelineArgs()...)
		wantReport(t, res, "async-write-source", "the source of cp.async at test.ptx:31:2")
	})
}

func TestCpAsyncGlobalSourceModifiedAfterWait(t *testing.T) {
	// Stage 0's source may change once wait_group 1 observed it; the copy
	// saw the old data.
	src := rewrite(t, readAsyncKernel(t, "cp_async_pipeline.ptx"), "\tcp.async.wait_group 0;\n",
		"\tst.global.u32 [%rd4], %r1;\n\tcp.async.wait_group 0;\n\tst.global.u32 [%rd5], %r1;\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, pipelineArgs()...)
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		got := u32s(res.Buffers[1].Data)
		for i := range 32 {
			if got[i] != pipelineWant(i) {
				t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, i, got[i], pipelineWant(i))
			}
		}
		if in := u32s(res.Buffers[0].Data); in[4*5] != 5 || in[128+4*5] != 5 {
			t.Fatalf("the stores to in[] were lost: %d %d", in[4*5], in[128+4*5])
		}
	})
}

func TestBulkCopyGlobalSourceModified(t *testing.T) {
	// CTA rank r overwrites the global half it is loading before its
	// mbarrier phase completes.
	src := readAsyncKernel(t, "bulk_copy.ptx")
	early := rewrite(t, src, "\tmov.u32 %r7, 0;\nW1:\n", "\t@%p1 st.global.u32 [%rd4+252], %r1;\n\tmov.u32 %r7, 0;\nW1:\n")
	late := rewrite(t, src, "\txor.b32 %r8, %r2, 1;\n", "\t@%p1 st.global.u32 [%rd4+252], %r1;\n\txor.b32 %r8, %r2, 1;\n")
	cfg0 := Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1)}
	args := func() []Arg {
		in := make([]byte, 512)
		for i := range in {
			in[i] = 7
		}
		return []Arg{{IsBuffer: true, Buffer: in}, buf(512)}
	}
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		// One warp per CTA: with two, the other warp's try_wait may observe
		// the phase before thread 0 stores, which makes the store legal in
		// this model (any wait that returns true observes the completion).
		cfg.Grid, cfg.Block, cfg.Cluster = cfg0.Grid, dims(32, 1, 1), cfg0.Cluster
		res := launchReport(t, early, cfg, args()...)
		wantReport(t, res, "async-write-source", "write to 4 bytes at global address", "the source of cp.async.bulk.shared::cluster.global")

		cfg.Block = cfg0.Block
		res = launchReport(t, late, cfg, args()...)
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for i, v := range u32s(res.Buffers[1].Data) {
			if v != 0x07070707 {
				t.Fatalf("%v seed %d: out[%d] = %#x", cfg.Async, cfg.Seed, i, v)
			}
		}
	})
}

func TestGlobalWatchDeterministicAcrossJobs(t *testing.T) {
	// Four clusters each read their bulk store's destination early; each
	// cluster is watched alone, so --jobs 2 gives the same report as 1.
	src := rewrite(t, readAsyncKernel(t, "bulk_store.ptx"), "@%p1 cp.async.bulk.commit_group;\n",
		"@%p1 cp.async.bulk.commit_group;\n\t@%p1 ld.global.u32 %r9, [%rd1+64];\n")
	src = rewrite(t, src, "cvta.to.global.u64 %rd1, %rd1;\n",
		"cvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r15, %ctaid.x;\n\tmul.wide.u32 %rd3, %r15, 512;\n\tadd.u64 %rd1, %rd1, %rd3;\n")
	var want string
	for _, jobs := range []int{1, 2, 1, 2} {
		res := launchReport(t, src, Config{Grid: dims(4, 1, 1), Block: dims(32, 1, 1), Jobs: jobs, Async: AsyncDelayed, Seed: 3}, buf(4*512))
		wantReport(t, res, "async-read-destination", "CTA (0,0,0)")
		if got := res.Report.Error(); want == "" {
			want = got
		} else if got != want {
			t.Fatalf("jobs %d: %s\nwant %s", jobs, got, want)
		}
	}
}

func TestReleaseStoreDestinationNotGuarded(t *testing.T) {
	// st.async.release has no completion mechanism (§9.7.9.12): it is a
	// strong release store, so loading its destination is not an async
	// hazard. The issuing thread reads its own flag back at once.
	src := rewrite(t, readAsyncKernel(t, "flag_release.ptx"), "\tst.async.release.gpu.global.u32 [%rd2], %r7;\n",
		"\tst.async.release.gpu.global.u32 [%rd2], %r7;\n\tld.relaxed.gpu.global.u32 %r9, [%rd2];\n")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(32, 1, 1), dims(2, 1, 1)
		res := launchReport(t, src, cfg, buf(16), buf(4), buf(16))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		if got := u32s(res.Buffers[2].Data); got[0] != 11 || got[3] != 44 {
			t.Fatalf("%v seed %d: out = %v", cfg.Async, cfg.Seed, got)
		}
	})
}

// globalWatchBench copies 16 bytes per thread and round with cp.async and
// stores 16 words to out[]; STORES runs before the wait (while the copy's
// global source is guarded, so each store takes the checked path) or
// after it (nothing guarded, the cached path).
const globalWatchBench = `.version 7.0
.target sm_80
.address_size 64
.visible .entry watch(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p1;
	.shared .align 16 .b8 stage[4096];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, stage;
	add.u32 %r3, %r3, %r2;
	mul.wide.u32 %rd3, %r1, 16;
	add.u64 %rd4, %rd1, %rd3;
	mul.wide.u32 %rd5, %r1, 64;
	add.u64 %rd6, %rd2, %rd5;
	mov.u32 %r4, 0;
LOOP:
	cp.async.cg.shared.global [%r3], [%rd4], 16;
	cp.async.commit_group;
	BEFORE
	cp.async.wait_group 0;
	AFTER
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 64;
	@%p1 bra.uni LOOP;
	ret;
}
`

func BenchmarkGlobalWatch(b *testing.B) {
	var stores strings.Builder
	for i := range 16 {
		fmt.Fprintf(&stores, "st.global.u32 [%%rd6+%d], %%r4;\n\t", 4*i)
	}
	for _, c := range []struct{ name, before, after string }{
		{"unguarded", "", stores.String()},
		{"guarded", stores.String(), ""},
	} {
		p := compile(b, strings.NewReplacer("BEFORE", c.before, "AFTER", c.after).Replace(globalWatchBench))
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{Grid: dims(16, 1, 1), Block: dims(256, 1, 1)}
			args := []Arg{buf(4096), buf(16384)}
			for b.Loop() {
				res, err := execute(p, cfg, args)
				if err != nil || res.Report != nil {
					b.Fatal(err, res.Report)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(16*256*64*16), "ns/store")
		})
	}
}

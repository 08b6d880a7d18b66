package emu

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/parser"
)

// exchangeKernel is cluster_exchange.ptx with replaceable steps, for
// sanitizer tests: ARM arms the barrier, SEND sends a word to the peer,
// EARLY runs between sending and waiting.
const exchangeKernel = `.version 8.1
.target sm_90
.address_size 64
.visible .entry exchange(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.reg .pred %p<3>;
	.shared .align 8 .b64 bar;
	.shared .align 16 .b32 box[32];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, bar;
	mov.u32 %r4, box;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ARM
	xor.b32 %r5, %r2, 1;
	shl.b32 %r6, %r1, 2;
	add.u32 %r7, %r4, %r6;
	mapa.shared::cluster.u32 %r8, %r7, %r5;
	mapa.shared::cluster.u32 %r9, %r3, %r5;
	mad.lo.u32 %r10, %r2, 1000, %r1;
	SEND
	EARLY
	mov.u32 %r11, 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], %r11;
	@!%p2 bra.uni WAIT;
	ld.shared.u32 %r12, [%r7];
	mad.lo.u32 %r13, %r2, 32, %r1;
	mul.wide.u32 %rd2, %r13, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r12;
	ret;
}
`

const (
	armOK  = "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 128;"
	sendOK = "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r10, [%r9];"
)

func exchange(arm, send, early string) string {
	return strings.NewReplacer("ARM", arm, "SEND", send, "EARLY", early).Replace(exchangeKernel)
}

// runExchange runs an exchange variant on a grid of 2 CTAs in clusters of
// cluster CTAs.
func runExchange(t *testing.T, src string, cluster int, cfg Config) *Result {
	t.Helper()
	cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(32, 1, 1), dims(cluster, 1, 1)
	return launchReport(t, src, cfg, buf(256))
}

func TestExchangeVariantsPass(t *testing.T) {
	cases := map[string]string{
		"shared::cluster": exchange(armOK, sendOK, ""),
		// Generic addressing: the mapa'd addresses converted to generic.
		"generic": exchange(armOK, `cvta.shared::cluster.u64 %rd4, %r8;
	cvta.shared::cluster.u64 %rd5, %r9;
	st.async.mbarrier::complete_tx::bytes.u32 [%rd4], %r10, [%rd5];`, ""),
		// Sending to the executing CTA is accepted (DIGEST §10.3).
		"two halves": exchange("@%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 64;\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;", sendOK, ""),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			forEachSchedule(t, func(t *testing.T, cfg Config) {
				res := runExchange(t, src, 2, cfg)
				if res.Report != nil {
					t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
				}
				got := u32s(res.Buffers[0].Data)
				if got[0] != 1000 || got[63] != 31 {
					t.Fatalf("%v seed %d: out = %v", cfg.Async, cfg.Seed, got)
				}
			})
		})
	}
}

// forEachReport runs src under every schedule and checks each report.
func forEachReport(t *testing.T, src string, cluster int, check func(t *testing.T, cfg Config, res *Result)) {
	t.Helper()
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		check(t, cfg, runExchange(t, src, cluster, cfg))
	})
}

func TestStAsyncSingleCTACluster(t *testing.T) {
	// In a cluster of one CTA the store can only target the executing CTA.
	own := "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r7], %r10, [%r3];"
	src := strings.Replace(exchange(armOK, own, ""), "xor.b32 %r5, %r2, 1;", "mov.u32 %r5, %r2;", 1)
	forEachReport(t, src, 1, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleStAsyncCluster, "cluster of 1 CTA", "%cluster_nctarank", "§9.7.9.12")
	})
}

func TestStAsyncBarrierInOtherCTA(t *testing.T) {
	// The mbarrier operand names the sender's own barrier, the data goes to the peer.
	src := exchange(armOK, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r10, [%r3];", "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleAsyncSameCTA, "destination is in the shared memory of CTA rank", "same CTA")
	})
}

func TestStAsyncGenericOutsideShared(t *testing.T) {
	src := exchange(armOK, "st.async.mbarrier::complete_tx::bytes.u32 [%rd1], %r10, [%r9];", "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleWrongWindow, "outside the .shared::cluster window", "destination")
	})
}

func TestReadBeforeWait(t *testing.T) {
	// Both CTAs issue their stores before the cluster barrier, then read
	// the mailbox without waiting on the mbarrier.
	src := exchange(armOK, sendOK, `barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ld.shared.u32 %r14, [%r7];`)
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, "async-read-destination", "read of 4 bytes at shared offset", "the destination of st.async", "before a wait observed its completion")
	})
}

func TestWrongByteCount(t *testing.T) {
	src := exchange("@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;", sendOK, "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleDeadlock, "mbarrier.try_wait.parity", "tx-count 128", "128 expected bytes never arrived")
	})
}

func TestMissingExpectTx(t *testing.T) {
	// Thread 0 arrives without announcing the 128 bytes: either the phase
	// completes before the data lands and the mailbox is read too early,
	// or the bytes drive the tx-count negative and the phase never ends.
	// A final cluster barrier keeps both CTAs alive until both are done.
	src := strings.Replace(exchange("@%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];", sendOK, ""), "\tret;",
		"\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\tret;", 1)
	seen := map[string]bool{}
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		if res.Report == nil {
			t.Fatalf("%v seed %d: missing expect_tx not reported", cfg.Async, cfg.Seed)
		}
		switch r := res.Report; r.Rule {
		case "async-read-destination":
			// The phase completed on the bare arrival: the mailbox was
			// read before the data was observed.
		case ruleDeadlock:
			if !strings.Contains(r.Error(), "more bytes arrived than were expected: is an expect_tx missing") {
				t.Fatalf("deadlock report lacks the hint: %v", r)
			}
		default:
			t.Fatalf("%v seed %d: unexpected report %v", cfg.Async, cfg.Seed, r)
		}
		seen[res.Report.Rule] = true
	})
	if !seen["async-read-destination"] {
		t.Errorf("no schedule read the mailbox early: %v", seen)
	}
}

func TestDeadlockNamesBarrier(t *testing.T) {
	src := exchange("", "", "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleDeadlock, "mbarrier.try_wait.parity.shared::cta.b64 on the mbarrier at offset", "phase 0 (parity 0), 1 of 1 arrivals pending, tx-count 0",
			"waiting for the phase of parity 0")
	})
}

func TestRedAsyncOwnCTA(t *testing.T) {
	src := exchange(armOK, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r7], %r10, [%r3];", "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleRedAsyncOwnCTA, "executing CTA", "§9.7.13.7")
	})
}

// mbarrierKernel runs BODY in one warp with a shared mbarrier at %r3 and
// a second shared word at %r4.
const mbarrierKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.reg .pred %p<3>;
	.shared .align 8 .b64 bar[2];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, bar;
	add.u32 %r4, %r3, 8;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra.uni DONE;
	BODY
DONE:
	ret;
}
`

func TestMbarrierMisuse(t *testing.T) {
	cases := []struct {
		name, body, rule string
		frags            []string
	}{
		{"arrive before init", "mbarrier.arrive.shared.b64 %rd1, [%r3];", "mbarrier-uninit", []string{"not initialized", "§9.7.13.15.9"}},
		{"init live", "mbarrier.init.shared.b64 [%r3], 2;\n\tmbarrier.init.shared.b64 [%r3], 2;", "mbarrier-init-live", []string{"init of a live object", "phase 0 (parity 0), 2 of 2 arrivals pending"}},
		{"count zero", "mbarrier.init.shared.b64 [%r3], 0;", "mbarrier-count-range", []string{"init count 0"}},
		{"count too large", "mbarrier.init.shared.b64 [%r3], 1048576;", "mbarrier-count-range", []string{"init count 1048576"}},
		{"arrive beyond pending", "mbarrier.init.shared.b64 [%r3], 2;\n\tmbarrier.arrive.shared::cta.b64 %rd1, [%r3], 3;", "mbarrier-count-range", []string{"exceeds the 2 pending"}},
		{"noComplete completes", "mbarrier.init.shared.b64 [%r3], 1;\n\tmbarrier.arrive.noComplete.shared.b64 %rd1, [%r3], 1;", "mbarrier-nocomplete", []string{".noComplete arrival completes the phase"}},
		{"misaligned", "add.u32 %r5, %r3, 4;\n\tmbarrier.init.shared.b64 [%r5], 1;", "mbarrier-align", []string{"not 8-byte aligned"}},
		{"stale phase", `mbarrier.init.shared.b64 [%r3], 1;
	mbarrier.arrive.shared.b64 %rd1, [%r3];
	mbarrier.arrive.shared.b64 %rd2, [%r3];
	mbarrier.arrive.shared.b64 %rd3, [%r3];
	mbarrier.test_wait.shared.b64 %p2, [%r3], %rd1;`, "mbarrier-stale-phase", []string{"token of phase 0, object is in phase 3"}},
		{"token of another barrier", `mbarrier.init.shared.b64 [%r3], 2;
	mbarrier.init.shared.b64 [%r4], 2;
	mbarrier.arrive.shared.b64 %rd1, [%r4];
	mbarrier.test_wait.shared.b64 %p2, [%r3], %rd1;`, "mbarrier-token", []string{"does not belong to this object"}},
		{"tx overflow", "mbarrier.init.shared.b64 [%r3], 1;\n\tmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 1048575;\n\tmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 1;", "mbarrier-tx-range", []string{"exceeds 1048575"}},
		{"pending_count of plain token", "mbarrier.init.shared.b64 [%r3], 2;\n\tmbarrier.arrive.shared.b64 %rd1, [%r3];\n\tmbarrier.pending_count.b64 %r6, %rd1;", "mbarrier-pending-count", []string{".noComplete"}},
		{"plain store over live object", "mbarrier.init.shared.b64 [%r3], 1;\n\tst.shared.u32 [%r3], %r1;", ruleMbarrierStore, []string{"overwrites the live mbarrier object", "mbarrier.inval"}},
		{"use after inval", "mbarrier.init.shared.b64 [%r3], 1;\n\tmbarrier.inval.shared.b64 [%r3];\n\tmbarrier.arrive.shared.b64 %rd1, [%r3];", "mbarrier-uninit", nil},
		{"generic address outside shared", "mov.u64 %rd4, 4096;\n\tmbarrier.init.b64 [%rd4], 1;", ruleWrongWindow, []string{"outside the shared window"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(mbarrierKernel, "BODY", tc.body, 1)
			res := launchReport(t, src, Config{Block: dims(32, 1, 1)}, buf(16))
			wantReport(t, res, tc.rule, tc.frags...)
		})
	}
}

func TestMbarrierCorrectUse(t *testing.T) {
	// Every operation in a legal order: the passing side of TestMbarrierMisuse.
	body := `mbarrier.init.shared.b64 [%r3], 2;
	mbarrier.arrive.noComplete.shared.b64 %rd1, [%r3], 1;
	mbarrier.pending_count.b64 %r6, %rd1;
	mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 16;
	mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r3];
	mbarrier.test_wait.shared.b64 %p2, [%r3], %rd2;
	selp.u32 %r7, 1, 0, %p2;
	mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r3], 16;
	mbarrier.test_wait.acquire.cta.shared::cta.b64 %p2, [%r3], %rd2;
	selp.u32 %r8, 1, 0, %p2;
	mbarrier.test_wait.parity.shared.b64 %p2, [%r3], 0;
	selp.u32 %r9, 1, 0, %p2;
	mbarrier.arrive_drop.shared.b64 %rd3, [%r3];
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r3], 0;
	mbarrier.test_wait.parity.shared.b64 %p2, [%r3], 1;
	selp.u32 %r10, 1, 0, %p2;
	ld.shared.u64 %rd5, [%r3];
	mbarrier.inval.shared.b64 [%r3];
	st.shared.u64 [%r3], %rd5;
	ld.param.u64 %rd6, [out];
	st.global.v4.u32 [%rd6], {%r6, %r7, %r8, %r9};
	st.global.u32 [%rd6+16], %r10;`
	src := strings.Replace(mbarrierKernel, "BODY", body, 1)
	for _, pol := range asyncPolicies {
		res := launchReport(t, src, Config{Block: dims(32, 1, 1), Async: pol}, buf(32))
		if res.Report != nil {
			t.Fatal(res.Report)
		}
		got := u32s(res.Buffers[0].Data)
		// pending count 2 before the .noComplete arrival; not ready before
		// complete_tx; ready after; phase 0 (parity 0) complete; phase 1
		// (parity 1) completes with the single remaining expected arrival.
		if got[0] != 2 || got[1] != 0 || got[2] != 1 || got[3] != 1 || got[4] != 1 {
			t.Fatalf("%v: results %v", pol, got[:5])
		}
	}
}

func TestBulkSourceWriteBeforeWait(t *testing.T) {
	src := strings.Replace(readAsyncKernel(t, "bulk_store.ptx"), "@%p1 cp.async.bulk.wait_group.read 0;\n\tbar.sync 0;\n", "", 1)
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, buf(512))
		wantReport(t, res, "async-write-source", "write to", "the source of cp.async.bulk.global.shared::cta.bulk_group", "before a wait observed its completion")
	})
}

func TestExitWithUnwaitedGroups(t *testing.T) {
	pipeline := readAsyncKernel(t, "cp_async_pipeline.ptx")
	cases := map[string]string{
		// No wait at all; the shared tile is never read.
		"cp.async": strings.NewReplacer("\tcp.async.wait_group 1;\n", "", "\tcp.async.wait_group 0;\n", "",
			"\tld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r3];\n", "", "\tld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r4];\n", "").Replace(pipeline),
		"cp.async.bulk": strings.NewReplacer("@%p1 cp.async.bulk.wait_group.read 0;\n\tbar.sync 0;\n", "",
			"\tst.shared.v4.b32 [%r4], {%r1, %r1, %r1, %r1};\n", "").Replace(readAsyncKernel(t, "bulk_store.ptx")),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(src, "commit_group;") || strings.Contains(src, "wait_group 0;") || strings.Contains(src, "wait_group.read 0;") {
				t.Fatal("test kernel not rewritten")
			}
			forEachSchedule(t, func(t *testing.T, cfg Config) {
				cfg.Block = dims(32, 1, 1)
				args := []Arg{buf(512)}
				if name == "cp.async" {
					args = []Arg{{IsBuffer: true, Buffer: words(256)}, buf(128)}
				}
				res := launchReport(t, src, cfg, args...)
				wantReport(t, res, ruleAsyncGroupExit, "thread exits with", "group(s) not waited for", "§9.7.9.25.1.1")
			})
		})
	}
}

func TestCpAsyncReadBeforeWait(t *testing.T) {
	// Reading stage 1 after waiting only for stage 0.
	src := strings.Replace(readAsyncKernel(t, "cp_async_pipeline.ptx"), "\tcp.async.wait_group 0;\n", "", 1)
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(256)}, buf(128))
		wantReport(t, res, "async-read-destination", "the destination of cp.async")
	})
}

func TestRemoteArriveWithState(t *testing.T) {
	// A remote arrive must discard its state with "_" (§9.7.13.15.13).
	src := exchange(armOK, "@%p1 mbarrier.arrive.shared::cluster.b64 %rd6, [%r9];\n\t"+sendOK, "")
	forEachReport(t, src, 2, func(t *testing.T, cfg Config, res *Result) {
		wantReport(t, res, ruleMbarrierRemote, "of CTA rank", "without a state result")
	})
}

func TestProducerPostsByteCount(t *testing.T) {
	// IDIOMS.md §1 variant: the producer arrives with expect_tx on the
	// mapped (remote) barrier instead of the consumer arming its own.
	src := exchange("", "@%p1 mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r9], 128;\n\t"+sendOK, "")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		res := runExchange(t, src, 2, cfg)
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		if got := u32s(res.Buffers[0].Data); got[5] != 1005 || got[32+7] != 7 {
			t.Fatalf("out = %v", got)
		}
	})
}

func TestBulkCopyBarrierElsewhere(t *testing.T) {
	// The bulk copy into the peer signals the local barrier instead.
	src := strings.Replace(readAsyncKernel(t, "bulk_copy.ptx"), "[%r9], [%r5], 256, [%r10];", "[%r9], [%r5], 256, [%r4];", 1)
	res := launchReport(t, src, Config{Grid: dims(2, 1, 1), Block: dims(64, 1, 1), Cluster: dims(2, 1, 1)},
		Arg{IsBuffer: true, Buffer: words(128)}, buf(512))
	wantReport(t, res, ruleAsyncSameCTA, "signals the mbarrier of CTA rank")
}

func TestBulkSizeAndAlignment(t *testing.T) {
	src := readAsyncKernel(t, "bulk_store.ptx")
	cfg := Config{Block: dims(32, 1, 1)}
	res := launchReport(t, strings.Replace(src, "[%rd1], [%r2], 512;", "[%rd1], [%r2], 500;", 1), cfg, buf(512))
	wantReport(t, res, ruleBulkSize, "500 bytes", "multiple of 16")
	res = launchReport(t, strings.Replace(src, "[%rd1], [%r2], 512;", "[%rd1+8], [%r2], 496;", 1), cfg, buf(512))
	wantReport(t, res, ruleMisaligned, "16-byte aligned")
}

func TestAsyncDecodeErrors(t *testing.T) {
	cases := map[string]string{
		"mbarrier.test_wait.shared.b64 _, [%r3], %rd1;":     "needs a destination predicate",
		"mbarrier.pending_count.b64 _, %rd1;":               "needs a destination register",
		"mbarrier.init.shared.b64 [%r3];":                   "takes 2 to 2 operands",
		"mbarrier.frobnicate.shared.b64 [%r3];":             "unknown mbarrier operation",
		"mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r3];": "needs a tx-count operand",
		"cp.async.ca.shared.global [%r3], [%rd1], 3;":       "must be the constant 4, 8 or 16",
		"cp.async.wait_group %r1;":                          "must be a constant",
		"cp.async.bulk.tensor.1d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1}], [%r4];": "the im2col mode needs .3d, .4d or .5d",
		"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r3], %r1;":                                           "takes 3 operands",
		"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r3], %r1, [%r4];":                   "needs an operation",
	}
	for body, want := range cases {
		src := strings.Replace(mbarrierKernel, "BODY", body, 1)
		m, errs := parser.ParseString("t.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: %v", body, errs)
		}
		_, derrs := Decode(m, "")
		if !derrs.HasErrors() || !strings.Contains(derrs[0].Message, want) {
			t.Errorf("%s: got %v, want an error containing %q", body, derrs, want)
		}
	}
}

// TestLandingReportPosition checks that a report raised when an operation
// lands (here: its mbarrier was never initialized) leads with the source
// position of the instruction that issued it, with or without tracing.
func TestLandingReportPosition(t *testing.T) {
	src := exchange(armOK, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r10, [%r8];", "")
	res := runExchange(t, src, 2, Config{Async: AsyncEager})
	r := res.Report
	if r == nil || r.Rule != "mbarrier-uninit" || !strings.HasPrefix(r.Error(), "test.ptx:28:2: sanitizer: complete-tx of 4 bytes") {
		t.Fatalf("report %v", r)
	}
}

package emu

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// shortcutCase is a launch the async fast paths must run exactly as the
// plain paths do.
type shortcutCase struct {
	name    string
	src     string
	cfg     Config
	args    func() []Arg
	cluster int
}

func shortcutCases(t *testing.T) []shortcutCase {
	stream := readAsyncKernel(t, "stream.ptx")
	exchangeArgs := func() []Arg { return []Arg{buf(256)} }
	withExit := func(src string) string {
		return strings.Replace(src, "\tret;", "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\tret;", 1)
	}
	ex := func(name, src string, keep bool) shortcutCase {
		return shortcutCase{name: name, src: src, args: exchangeArgs, cfg: Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1), KeepGoing: keep}}
	}
	return []shortcutCase{
		{name: "stream", src: stream, args: func() []Arg { return []Arg{buf(512), scalar(9)} },
			cfg: Config{Grid: dims(4, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1)}},
		ex("exchange", exchange(armOK, sendOK, ""), false),
		ex("two halves", exchange("@%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 64;\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;", sendOK, ""), false),
		ex("read before wait", exchange(armOK, sendOK, "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\tld.shared.u32 %r14, [%r7];"), false),
		ex("read before wait, keep going", exchange(armOK, sendOK, "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\tld.shared.u32 %r14, [%r7];"), true),
		ex("missing expect_tx", withExit(exchange("@%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];", sendOK, "")), false),
		ex("missing expect_tx, keep going", withExit(exchange("@%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];", sendOK, "")), true),
		ex("wrong byte count", exchange("@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;", sendOK, ""), false),
		// the phase completes at lane 15: the warp's stores cannot be one complete-tx
		ex("phase completes mid-warp", withExit(exchange("@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;", sendOK, "")), false),
		ex("barrier in other CTA", exchange(armOK, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r10, [%r3];", ""), false),
		ex("half the lanes", exchange(armOK, "setp.lt.u32 %p2, %r1, 16;\n\t@%p2 "+sendOK+"\n\t@!%p2 "+sendOK, ""), false),
		ex("red.async", exchange(armOK, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r8], %r10, [%r9];", ""), false),
		// lane 0 alone queues a single operation, lanes 1-31 a batch: the
		// queue mixes both (random landing positions count members)
		ex("one lane, then a batch", exchange(armOK, "setp.eq.u32 %p2, %r1, 0;\n\t@%p2 "+sendOK+"\n\t@!%p2 "+sendOK, ""), false),
		ex("odd lanes, then even", exchange(armOK, "and.b32 %r14, %r1, 1;\n\tsetp.eq.u32 %p2, %r14, 1;\n\t@%p2 "+sendOK+"\n\t@!%p2 "+sendOK, ""), false),
		// test_wait under the delayed policy lands what its barrier waits
		// for: members of a batch picked out of the queue
		ex("test_wait poll", strings.Replace(exchange(armOK, sendOK, ""), "mbarrier.try_wait.parity", "mbarrier.test_wait.parity", 1), false),
		// the stores write the peer's mbarrier itself: a landing clobbers
		// the word a waiting warp looks at
		ex("stores over the mbarrier", exchange(armOK, "add.u32 %r14, %r3, %r6;\n\tmapa.shared::cluster.u32 %r15, %r14, %r5;\n\tst.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r15], %r10, [%r9];", ""), false),
		// both CTAs exit before the delayed policy lands anything
		ex("peer exits first", exchange(armOK, sendOK, "ret;"), false),
		ex("peer exits first, keep going", exchange(armOK, sendOK, "ret;"), true),
		{name: "cp.async mbarrier", src: readAsyncKernel(t, "cp_async_mbarrier.ptx"), cfg: Config{Block: dims(32, 1, 1)},
			args: func() []Arg { return []Arg{{IsBuffer: true, Buffer: words(128)}, buf(128)} }},
	}
}

// fingerprint renders everything a launch produced.
func fingerprint(res *Result) string {
	var b strings.Builder
	if res.Report != nil {
		fmt.Fprintf(&b, "report %+v\n", *res.Report)
	}
	for _, k := range res.Reports {
		fmt.Fprintf(&b, "kept %v x%d\n", k.Report, k.Count)
	}
	s := res.Stats
	fmt.Fprintf(&b, "stats %d %d %d %v %v left out %d\n", s.WarpInsts, s.ThreadInsts, s.ClusterSteps, s.Stored, s.Loaded, res.LeftOut)
	for _, r := range res.Buffers {
		if r != nil {
			fmt.Fprintf(&b, "%x\n", r.Data)
		}
	}
	return b.String()
}

// TestAsyncShortcutsMatchPlainPaths runs launches whose st.async, waits
// and landings take the fast paths, correct and faulty ones, under every
// policy and several seeds, with the fast paths on and off: the reports,
// statistics and memory must be the same.
func TestAsyncShortcutsMatchPlainPaths(t *testing.T) {
	defer func() { asyncShortcuts = true }()
	for _, c := range shortcutCases(t) {
		p := compile(t, c.src)
		for _, pol := range asyncPolicies {
			for seed := uint64(0); seed < 4; seed++ {
				cfg := c.cfg
				cfg.Async, cfg.Seed = pol, seed
				var got [2]string
				for i, on := range []bool{true, false} {
					asyncShortcuts = on
					res, err := execute(p, cfg, c.args())
					if err != nil {
						t.Fatal(err)
					}
					got[i] = fingerprint(res)
				}
				if got[0] != got[1] {
					t.Fatalf("%s, %v seed %d: the fast paths give\n%s\nthe plain paths\n%s", c.name, pol, seed, got[0], got[1])
				}
			}
		}
	}
}

// TestEagerStAsyncMatchesQueuedPath compares the eager st.async path,
// which lands each store without a queue entry, with the queued path that
// a trace selects: same reports, statistics and memory.
func TestEagerStAsyncMatchesQueuedPath(t *testing.T) {
	for _, c := range shortcutCases(t) {
		p := compile(t, c.src)
		for seed := uint64(0); seed < 4; seed++ {
			cfg := c.cfg
			cfg.Async, cfg.Seed = AsyncEager, seed
			plain, err := execute(p, cfg, c.args())
			if err != nil {
				t.Fatal(err)
			}
			l := Launch{Kernel: p, Config: cfg, Args: c.args(), Trace: func(AsyncEvent) {}}
			traced, err := l.Run()
			if err != nil {
				t.Fatal(err)
			}
			if a, b := fingerprint(plain), fingerprint(traced); a != b {
				t.Fatalf("%s seed %d: the eager path gives\n%s\nthe queued path\n%s", c.name, seed, a, b)
			}
		}
	}
}

// TestShortcutCasesDiffer keeps the shortcut cases meaningful: the faulty
// ones report, the correct ones write their output.
func TestShortcutCasesDiffer(t *testing.T) {
	for _, c := range shortcutCases(t) {
		cfg := c.cfg
		cfg.Async = AsyncDelayed
		res := launchReport(t, c.src, cfg, c.args()...)
		faulty := strings.Contains(c.name, "read before") || strings.Contains(c.name, "missing") ||
			strings.Contains(c.name, "wrong") || strings.Contains(c.name, "other CTA") || strings.Contains(c.name, "mid-warp") ||
			strings.Contains(c.name, "over the mbarrier") || strings.Contains(c.name, "exits")
		if faulty != (res.Report != nil || len(res.Reports) > 0) {
			t.Errorf("%s: report %v", c.name, res.Report)
		}
		var out []byte
		for _, r := range res.Buffers {
			if r != nil {
				out = r.Data // the last buffer is the output
			}
		}
		if !faulty && bytes.Count(out, []byte{0}) == len(out) {
			t.Errorf("%s: wrote nothing", c.name)
		}
	}
}

// TestAsyncShortcutsKeepSchedule records every scheduling choice of the
// shortcut cases with the fast paths on and off: the same choices in the
// same order (the delayed policy's idle rounds, which landIdle does not
// run, draw what running them draws). The stream case runs long enough
// for idle rounds to be skipped many times.
func TestAsyncShortcutsKeepSchedule(t *testing.T) {
	defer func() { asyncShortcuts = true }()
	for _, c := range shortcutCases(t) {
		p := compile(t, c.src)
		for _, pol := range asyncPolicies {
			for seed := uint64(0); seed < 3; seed++ {
				var got [2]string
				for i, on := range []bool{true, false} {
					asyncShortcuts = on
					cfg := c.cfg
					cfg.Async, cfg.Seed, cfg.Schedule = pol, seed, &Schedule{}
					res, err := execute(p, cfg, c.args())
					if err != nil {
						t.Fatal(err)
					}
					var b strings.Builder
					b.WriteString(fingerprint(res))
					for _, cl := range cfg.Schedule.Clusters() {
						fmt.Fprintf(&b, "cluster %d: %v\n", cl, cfg.Schedule.Choices(cl))
					}
					got[i] = b.String()
				}
				if got[0] != got[1] {
					t.Fatalf("%s, %v seed %d: the fast paths give\n%.3000s\nthe plain paths\n%.3000s", c.name, pol, seed, got[0], got[1])
				}
			}
		}
	}
}

// TestDrawIdleRoundsMatchChoose checks the draws of skipped idle rounds
// without a Schedule (the generator used directly) against the same
// rounds drawn through choose with a recording Schedule: the generator
// ends in the same state and the run queue in the same order.
func TestDrawIdleRoundsMatchChoose(t *testing.T) {
	for nw := 1; nw <= 5; nw++ {
		for _, n := range []int{1, 2, 31} {
			var fast, slow Cluster
			for i := range nw {
				w := &Warp{Index: i}
				fast.runq = append(fast.runq, w)
				slow.runq = append(slow.runq, w)
			}
			slow.runq = append([]*Warp(nil), fast.runq...)
			fast.cfg, slow.cfg = &Config{Seed: 7}, &Config{Seed: 7, Schedule: &Schedule{}}
			fast.rng.s, slow.rng.s = 99, 99
			fast.drawIdleRounds(n)
			slow.drawIdleRounds(n)
			if fast.rng != slow.rng {
				t.Fatalf("%d warps, %d rounds: generator %#x, through choose %#x", nw, n, fast.rng.s, slow.rng.s)
			}
			for i := range fast.runq {
				if fast.runq[i] != slow.runq[i] {
					t.Fatalf("%d warps, %d rounds: warp %d is %d, through choose %d", nw, n, i, fast.runq[i].Index, slow.runq[i].Index)
				}
			}
			if fast.running != slow.running {
				t.Fatalf("%d warps, %d rounds: running differs", nw, n)
			}
		}
	}
}

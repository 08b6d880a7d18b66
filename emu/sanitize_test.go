package emu

import (
	"strings"
	"testing"
)

// kernel1 wraps a body in a kernel with one buffer parameter, out, loaded
// into %rd1. Registers %r0-%r9, %rd0-%rd9, %p0-%p3 are declared.
func kernel1(body string, extra string) string {
	return header + extra + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<10>;
	.reg .b64 %rd<10>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [out];
` + body + `
	ret;
}`
}

// sanitizerCase pairs a kernel that breaks a rule with one that does not.
type sanitizerCase struct {
	name       string
	rule       string
	bad, good  string
	extra      string
	cfg        Config
	bufBytes   int
	wantInRept []string
}

var sanitizerCases = []sanitizerCase{
	{
		name: "misaligned", rule: ruleMisaligned, bufBytes: 64,
		bad:        "\tmov.u32 %r1, 5;\n\tst.global.u32 [%rd1+2], %r1;",
		good:       "\tmov.u32 %r1, 5;\n\tst.global.u32 [%rd1+4], %r1;",
		wantInRept: []string{"test.ptx:11:", "misaligned 4-byte store", "thread (0,0,0) of CTA (0,0,0)"},
	},
	{
		name: "misaligned-vector", rule: ruleMisaligned, bufBytes: 64,
		bad:        "\tmov.u32 %r1, 5;\n\tst.global.v4.u32 [%rd1+8], {%r1, %r1, %r1, %r1};",
		good:       "\tmov.u32 %r1, 5;\n\tst.global.v4.u32 [%rd1+16], {%r1, %r1, %r1, %r1};",
		wantInRept: []string{"misaligned 16-byte store", "not a multiple of 16"},
	},
	{
		name: "out-of-bounds-global", rule: ruleOutOfBounds, bufBytes: 64,
		bad:        "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;",
		good:       "\tmov.u32 %r1, %tid.x;\n\tand.b32 %r1, %r1, 15;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;",
		cfg:        Config{Block: dims(32, 1, 1)},
		wantInRept: []string{"does not lie inside any global allocation", "thread (16,0,0)", "arg0"},
	},
	{
		name: "out-of-bounds-shared", rule: ruleOutOfBounds, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		bad:  "\tmov.u32 %r1, sm;\n\tst.shared.u32 [%r1+32], %r1;",
		good: "\tmov.u32 %r1, sm;\n\tst.shared.u32 [%r1+28], %r1;",
	},
	{
		name: "out-of-bounds-local", rule: ruleOutOfBounds, bufBytes: 4,
		bad:  "\t.local .align 4 .b32 lv[2];\n\tmov.u64 %rd2, lv;\n\tst.local.u32 [%rd2+8], %r1;",
		good: "\t.local .align 4 .b32 lv[2];\n\tmov.u64 %rd2, lv;\n\tst.local.u32 [%rd2+4], %r1;",
	},
	{
		name: "null-generic", rule: ruleOutOfBounds, bufBytes: 4,
		bad:  "\tmov.u64 %rd2, 0;\n\tst.u32 [%rd2], %r1;",
		good: "\tst.u32 [%rd1], %r1;",
	},
	{
		name: "shared-cta-of-peer", rule: ruleWrongWindow, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		cfg:        Config{Grid: dims(2, 1, 1), Cluster: dims(2, 1, 1)},
		bad:        "\tmov.u32 %r1, sm;\n\tmov.u32 %r2, %cluster_ctarank;\n\txor.b32 %r2, %r2, 1;\n\tmapa.shared::cluster.u32 %r3, %r1, %r2;\n\tst.shared::cta.u32 [%r3], %r1;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		good:       "\tmov.u32 %r1, sm;\n\tmov.u32 %r2, %cluster_ctarank;\n\txor.b32 %r2, %r2, 1;\n\tmapa.shared::cluster.u32 %r3, %r1, %r2;\n\tst.shared::cluster.u32 [%r3], %r1;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		wantInRept: []string{".shared::cta address", "use .shared::cluster"},
	},
	{
		name: "mapa-generic-not-shared", rule: ruleWrongWindow, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		bad:        "\tmov.u32 %r2, 0;\n\tmapa.u64 %rd2, %rd1, %r2;",
		good:       "\tmov.u32 %r2, 0;\n\tmov.u64 %rd3, sm;\n\tcvta.shared.u64 %rd3, %rd3;\n\tmapa.u64 %rd2, %rd3, %r2;\n\tst.u32 [%rd2], %r2;",
		wantInRept: []string{"not in the .shared::cluster window"},
	},
	{
		name: "generic-as-shared", rule: ruleWrongWindow, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		bad:        "\tmov.u64 %rd2, sm;\n\tcvta.shared.u64 %rd3, %rd2;\n\tst.shared.u32 [%rd3], %r1;",
		good:       "\tmov.u64 %rd2, sm;\n\tcvta.shared.u64 %rd3, %rd2;\n\tcvta.to.shared.u64 %rd3, %rd3;\n\tst.shared.u32 [%rd3], %r1;",
		wantInRept: []string{"is a generic address", "cvta.to.shared"},
	},
	{
		name: "shared-as-global", rule: ruleWrongWindow, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		bad:        "\tmov.u64 %rd2, sm;\n\tcvta.shared.u64 %rd3, %rd2;\n\tst.global.u32 [%rd3], %r1;",
		good:       "\tmov.u64 %rd2, sm;\n\tcvta.shared.u64 %rd3, %rd2;\n\tst.u32 [%rd3], %r1;",
		wantInRept: []string{"lies in the generic .shared::cluster window"},
	},
	{
		name: "generic-as-local", rule: ruleWrongWindow, bufBytes: 4,
		bad:  "\t.local .align 4 .b32 lv[2];\n\tmov.u64 %rd2, lv;\n\tcvta.local.u64 %rd2, %rd2;\n\tst.local.u32 [%rd2], %r1;",
		good: "\t.local .align 4 .b32 lv[2];\n\tmov.u64 %rd2, lv;\n\tcvta.local.u64 %rd2, %rd2;\n\tst.u32 [%rd2], %r1;",
	},
	{
		name: "store-to-const", rule: ruleStoreConst, bufBytes: 4, extra: ".const .align 4 .u32 c0 = 1;\n",
		bad:  "\tmov.u64 %rd2, c0;\n\tcvta.const.u64 %rd2, %rd2;\n\tst.u32 [%rd2], %r1;",
		good: "\tmov.u64 %rd2, c0;\n\tcvta.const.u64 %rd2, %rd2;\n\tld.u32 %r1, [%rd2];\n\tst.u32 [%rd1], %r1;",
	},
	{
		name: "store-to-param-space", rule: ruleStoreParam, bufBytes: 8,
		bad:  "\tst.param.u64 [out], %rd1;",
		good: "\tld.param.u64 %rd2, [out];\n\tst.u64 [%rd1], %rd2;",
	},
	{
		name: "store-to-param-generic", rule: ruleStoreParam, bufBytes: 8,
		bad:  "\tmov.u64 %rd2, out;\n\tcvta.param.u64 %rd2, %rd2;\n\tst.u64 [%rd2], %rd1;",
		good: "\tmov.u64 %rd2, out;\n\tcvta.param.u64 %rd2, %rd2;\n\tld.u64 %rd3, [%rd2];\n\tst.u64 [%rd1], %rd3;",
	},
	{
		name: "deadlock", rule: ruleDeadlock, bufBytes: 4, cfg: Config{Block: dims(64, 1, 1)},
		bad:        "\tmov.u32 %r1, %warpid;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bar.sync 0;\n\t@!%p1 bar.sync 1;",
		good:       "\tmov.u32 %r1, %warpid;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bar.sync 0;\n\t@!%p1 bar.sync 0;",
		wantInRept: []string{"deadlock", "warp 0 (32 live threads) waits at line 12: bar.sync 0 (32 of 64 threads arrived)", "warp 1 (32 live threads) waits at line 13: bar.sync 1 (32 of 64 threads arrived)"},
	},
	{
		name: "deadlock-count", rule: ruleDeadlock, bufBytes: 4, cfg: Config{Block: dims(32, 1, 1)},
		bad:  "\tbar.sync 0, 64;",
		good: "\tbar.sync 0, 32;",
	},
	{
		name: "deadlock-cluster", rule: ruleDeadlock, bufBytes: 4, cfg: Config{Grid: dims(2, 1, 1), Cluster: dims(2, 1, 1)},
		bad:        "\tmov.u32 %r1, %cluster_ctarank;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 barrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		good:       "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		wantInRept: []string{"barrier.cluster.wait"},
	},
	{
		name: "max-steps", rule: RuleMaxSteps, bufBytes: 4, cfg: Config{MaxSteps: 1000},
		bad:        "L:\n\tadd.u32 %r1, %r1, 1;\n\tbra L;",
		good:       "\tmov.u32 %r1, 0;\nL:\n\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, 100;\n\t@%p1 bra L;",
		wantInRept: []string{"exceeded 1000 warp-instructions"},
	},
	{
		name: "remote-cta-exited", rule: ruleRemoteExited, bufBytes: 4, extra: ".shared .align 4 .b32 sm[8];\n",
		cfg:        Config{Grid: dims(2, 1, 1), Cluster: dims(2, 1, 1)},
		bad:        "\tmov.u32 %r1, %cluster_ctarank;\n\tsetp.eq.u32 %p1, %r1, 1;\n\tbarrier.cluster.arrive;\n\t@%p1 exit;\n\tbarrier.cluster.wait;\n\tmov.u32 %r2, sm;\n\tmapa.shared::cluster.u32 %r3, %r2, 1;\n\tst.shared::cluster.u32 [%r3], %r1;",
		good:       "\tmov.u32 %r1, %cluster_ctarank;\n\tsetp.eq.u32 %p1, %r1, 1;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tmov.u32 %r2, sm;\n\tmapa.shared::cluster.u32 %r3, %r2, 1;\n\tst.shared::cluster.u32 [%r3], %r1;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		wantInRept: []string{"after it exited"},
	},
	{
		name: "barrier-count", rule: ruleBadBarrier, bufBytes: 4,
		bad:  "\tbar.sync 0, 48;",
		good: "\tbar.sync 0, 32;",
	},
}

func TestSanitizer(t *testing.T) {
	for _, c := range sanitizerCases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			if cfg.Block == [3]int{} {
				cfg.Block = dims(1, 1, 1)
			}
			res := launchReport(t, kernel1(c.bad, c.extra), cfg, buf(c.bufBytes))
			wantReport(t, res, c.rule, c.wantInRept...)
			if !strings.Contains(res.Report.Error(), "["+c.rule+"]") {
				t.Errorf("report text lacks the rule: %v", res.Report)
			}
			launch(t, kernel1(c.good, c.extra), cfg, buf(c.bufBytes))
		})
	}
}

// TestSanitizerDeterministicAcrossJobs: the reported thread does not
// depend on how many clusters run in parallel.
func TestSanitizerDeterministicAcrossJobs(t *testing.T) {
	src := kernel1("\tmov.u32 %r1, %ctaid.x;\n\tsetp.ge.u32 %p1, %r1, 5;\n\t@%p1 st.global.u32 [%rd1+1], %r1;", "")
	var first string
	for _, jobs := range []int{1, 2, 4} {
		res := launchReport(t, src, Config{Grid: dims(16, 1, 1), Block: dims(32, 1, 1), Jobs: jobs}, buf(8))
		wantReport(t, res, ruleMisaligned, "CTA (5,0,0)")
		if first == "" {
			first = res.Report.Error()
		} else if res.Report.Error() != first {
			t.Fatalf("jobs %d reported %q, jobs 1 %q", jobs, res.Report.Error(), first)
		}
	}
}

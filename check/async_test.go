package check

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// asyncDiags runs asyncRules over every instruction of body inside a
// kernel for version and target.
func asyncDiags(t *testing.T, version, target, body string) diag.List {
	t.Helper()
	src := fmt.Sprintf(`.version %s
.target %s
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %%rd<4>;
	.reg .b32 %%r<4>;
	.reg .pred %%p<2>;
	.shared .align 8 .b64 bar;
	%s
	ret;
}
`, version, target, body)
	m, errs := parser.ParseString("t.ptx", src)
	if errs.HasErrors() {
		t.Fatalf("syntax errors in %q: %v", body, errs)
	}
	res := resolve.NewResolver(m.Filename)
	c := &checker{file: m.Filename, res: res}
	c.header(m, Config{})
	for _, s := range m.Stmts {
		fn, ok := s.(*ast.Function)
		if !ok || fn.Body == nil {
			res.Add(s)
			continue
		}
		res.BeginFunction(fn)
		for _, st := range fn.Body.Stmts {
			res.AddStmt(st)
			if in, ok := st.(*ast.Instruction); ok {
				c.asyncRules(in)
			}
		}
		res.EndFunction()
	}
	return c.diags
}

// TestAsyncRules has one failing instruction per rule, checked against
// the message of NVIDIA ptxas 12.5 where ptxas rejects it (quoted).
var asyncRuleCases = []struct {
	version, target, body, rule, frag string
	sev                               diag.Severity
}{
	// "Feature 'mbarrier.arrive with count argument and without '.noComplete' modifier' requires .target sm_90 or higher"
	{"7.8", "sm_80", "mbarrier.arrive.shared.b64 %rd1, [%r1], 2;", "target", "without .noComplete requires sm_90", diag.Error},
	{"7.0", "sm_80", "mbarrier.arrive.shared.b64 %rd1, [%r1], 2;", "ptx-version", "requires PTX ISA 7.8", diag.Error},
	// "Result discard mode is not allowed for instruction 'mbarrier.arrive'"
	{"7.0", "sm_80", "mbarrier.arrive.shared.b64 _, [%r1];", "ptx-version", "sink _ as mbarrier state requires PTX ISA 7.1", diag.Error},
	// "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive' with '.shared::cluster'"
	{"8.0", "sm_90", "mbarrier.arrive.shared::cluster.b64 %rd1, [%r1];", "mbarrier-remote-state", "must be the sink _", diag.Error},
	// "Modifier '.release' requires scope with 'mbarrier.arrive' instruction"
	{"8.0", "sm_90", "mbarrier.arrive.release.shared.b64 %rd1, [%r1];", "mbarrier-sem-scope", "together", diag.Error},
	// "Illegal modifier '.release' for instruction 'mbarrier.test_wait'"
	{"8.0", "sm_90", "mbarrier.test_wait.release.cta.shared.b64 %p1, [%r1], %rd1;", "mbarrier-sem", "does not accept .release", diag.Error},
	// "Illegal modifier '.release' for instruction 'mbarrier.expect_tx'"
	{"8.0", "sm_90", "mbarrier.expect_tx.release.cta.shared.b64 [%r1], 16;", "mbarrier-sem", "allowed: .relaxed", diag.Error},
	// "Illegal modifier '.gpu' for instruction 'mbarrier.arrive'"
	{"8.0", "sm_90", "mbarrier.arrive.release.gpu.shared.b64 %rd1, [%r1];", "mbarrier-scope", "not .gpu", diag.Error},
	// "Illegal modifier '.relaxed' for instruction 'mbarrier.arrive'" (PTX 8.5)
	{"8.5", "sm_90", "mbarrier.arrive.relaxed.cta.shared.b64 %rd1, [%r1];", "ptx-version", "requires PTX ISA 8.6", diag.Error},
	// "Illegal modifier '::cluster' for instruction 'mbarrier.init'"
	{"8.0", "sm_90", "mbarrier.init.shared::cluster.b64 [%r1], 1;", "mbarrier-space", "executing CTA", diag.Error},
	// "Illegal modifier '.noComplete' for instruction 'mbarrier.arrive without count argument'"
	{"8.0", "sm_90", "mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1];", "operand-count", "needs an arrival count", diag.Error},
	// "Arguments mismatch for instruction 'mbarrier.arrive.expect_tx'"
	{"8.0", "sm_90", "mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r1];", "operand-count", "needs a tx-count", diag.Error},
	{"8.0", "sm_90", "mbarrier.init.shared.b64 [%r1];", "operand-count", "takes 2 to 2 operands", diag.Error},
	{"8.0", "sm_90", "mbarrier.init.shared.b32 [%r1], 1;", "mbarrier-type", ".b64", diag.Error},
	{"8.0", "sm_90", "mbarrier.wait.shared.b64 [%r1];", "unknown-qualifier", "unknown mbarrier operation .wait", diag.Error},
	{"7.0", "sm_80", "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;", "ptx-version", ".parity on mbarrier.test_wait requires PTX ISA 7.1", diag.Error},
	{"7.8", "sm_90", "mbarrier.arrive.expect_tx.shared.b64 _, [%r1], 16;", "ptx-version", ".expect_tx on mbarrier.arrive requires PTX ISA 8.0", diag.Error},
	{"7.0", "sm_80", "mbarrier.init.shared::cta.b64 [%r1], 1;", "ptx-version", ".shared::cta on mbarrier.init requires PTX ISA 7.8", diag.Error},
	// ptxas 12.5 accepts out-of-range counts: undefined behaviour, a warning.
	{"8.0", "sm_90", "mbarrier.init.shared.b64 [%r1], 0;", "mbarrier-count", "init count 0 is outside [1, 1048575]", diag.Warning},
	{"8.0", "sm_90", "mbarrier.arrive.shared.b64 %rd1, [%r1], 1048576;", "mbarrier-count", "arrival count 1048576", diag.Warning},
	{"8.0", "sm_90", "mbarrier.expect_tx.relaxed.cta.shared.b64 [%r1], 2000000;", "mbarrier-count", "tx-count 2000000", diag.Warning},
	// "Argument 2 of instruction 'cp.async': unexpected value '2', expected to be 4 or 8 or 16"
	{"8.0", "sm_90", "cp.async.ca.shared.global [%r1], [%rd1], 2;", "cp-async-size", "must be 4, 8 or 16", diag.Error},
	// "Argument 2 of instruction 'cp.async': unexpected value '8', expected to be 16"
	{"8.0", "sm_90", "cp.async.cg.shared.global [%r1], [%rd1], 8;", "cp-async-size", "copies 16 bytes", diag.Error},
	// "Arguments mismatch for instruction 'cp.async.wait_group'"
	{"8.0", "sm_90", "cp.async.wait_group %r1;", "cp-async-wait-group", "integer constant", diag.Error},
	// "Argument 2 of instruction 'cp.async.bulk': unexpected value '24', expected to be multiple of 16"
	{"8.0", "sm_90", "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 24;", "cp-async-bulk-size", "multiple of 16", diag.Error},
	{"8.0", "sm_90", "cp.async.mbarrier.arrive.shared::cluster.b64 [%r1];", "mbarrier-space", "executing CTA", diag.Error},
	// "Feature 'igonre-src on cp.async' requires PTX ISA .version 7.5 or later"
	{"7.0", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 8, %p1;", "ptx-version", "ignore-src predicate of cp.async requires PTX ISA 7.5", diag.Error},
	{"8.1", "sm_90", "red.async.release.gpu.global.add.u32 [%rd1], %r1;", "ptx-version", "requires PTX ISA 8.7", diag.Error},
	{"8.7", "sm_90", "red.async.release.gpu.global.add.u32 [%rd1], %r1;", "target", "requires sm_100", diag.Error},
}

func TestAsyncRules(t *testing.T) {
	for _, tc := range asyncRuleCases {
		t.Run(tc.body, func(t *testing.T) {
			ds := asyncDiags(t, tc.version, tc.target, tc.body)
			for _, d := range ds {
				if d.Rule == tc.rule && d.Severity == tc.sev && strings.Contains(d.Message, tc.frag) && d.Spec != "" && d.Pos.IsValid() {
					return
				}
			}
			t.Errorf("no %v %s diagnostic containing %q; got %v", tc.sev, tc.rule, tc.frag, ds)
		})
	}
}

// TestAsyncRulesAccept lists valid forms (ptxas 12.5 accepts each) that
// must produce no diagnostic.
var asyncAcceptCases = []struct{ version, target, body string }{
	{"7.8", "sm_90", "mbarrier.arrive.shared.b64 %rd1, [%r1], 2;"},
	{"7.0", "sm_80", "mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], 2;"},
	{"7.0", "sm_80", "mbarrier.init.shared.b64 [%r1], 32;"},
	{"7.1", "sm_80", "mbarrier.arrive.shared.b64 _, [%r1];"},
	{"8.0", "sm_90", "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];"},
	{"8.0", "sm_90", "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [%r1], 16;"},
	{"8.0", "sm_90", "mbarrier.arrive_drop.expect_tx.shared::cta.b64 _, [%r1], 16;"},
	{"8.0", "sm_90", "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r1], 16;"},
	{"8.0", "sm_90", "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r2, 1000;"},
	{"8.6", "sm_90", "mbarrier.try_wait.relaxed.cluster.shared::cta.b64 %p1, [%r1], %rd1;"},
	{"7.0", "sm_80", "mbarrier.pending_count.b64 %r1, %rd1;"},
	{"7.5", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 8, %p1;"},
	{"7.0", "sm_80", "cp.async.cg.shared.global [%r1], [%rd1], 16, 8;"},
	{"7.0", "sm_80", "cp.async.wait_group 1;"},
	{"7.0", "sm_80", "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];"},
	{"8.0", "sm_90", "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 512;"},
	{"8.0", "sm_90", "cp.async.bulk.wait_group.read 0;"},
	{"8.1", "sm_90", "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];"},
}

func TestAsyncRulesAccept(t *testing.T) {
	for _, tc := range asyncAcceptCases {
		if ds := asyncDiags(t, tc.version, tc.target, tc.body); len(ds) > 0 {
			t.Errorf("%s (PTX %s, %s): unexpected %v", tc.body, tc.version, tc.target, ds)
		}
	}
}

// TestAsyncRulesWired checks that Module applies the rules.
func TestAsyncRulesWired(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, bar;
	mbarrier.arrive.shared::cluster.b64 %rd1, [%r1];
	cp.async.ca.shared.global [%r1], [%rd2], 2;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	got := map[string]bool{}
	for _, d := range Module(m, Config{}) {
		got[d.Rule] = true
	}
	if !got["mbarrier-remote-state"] || !got["cp-async-size"] {
		t.Errorf("Module did not apply the async rules: %v", got)
	}
}

// TestAsyncRulesPtxas runs every case through NVIDIA ptxas 12.5: errors
// must be rejected by ptxas, warnings and accepted forms assembled.
func TestAsyncRulesPtxas(t *testing.T) {
	ptxas := ptxasPath("12.5")
	if ptxas == "" {
		t.Skip("ptxas 12.5: " + oracle.SkipMessage)
	}
	assemble := func(version, target, body string) (bool, string) {
		src := fmt.Sprintf(".version %s\n.target %s\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"+
			"\t.reg .b64 %%rd<4>;\n\t.reg .b32 %%r<4>;\n\t.reg .pred %%p<2>;\n\t.shared .align 8 .b64 bar;\n\t%s\n\tret;\n}\n", version, target, body)
		dir := t.TempDir()
		f := filepath.Join(dir, "t.ptx")
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ptxas, "-arch="+target, f, "-o", filepath.Join(dir, "t.cubin")).CombinedOutput()
		return err == nil, string(out)
	}
	newer := func(version, target string) bool { return version > "8.5" || strings.HasPrefix(target, "sm_1") }
	for _, tc := range asyncRuleCases {
		if newer(tc.version, tc.target) {
			continue
		}
		ok, out := assemble(tc.version, tc.target, tc.body)
		if tc.sev == diag.Error && ok {
			t.Errorf("%s (PTX %s, %s): ptxkit reports %s, ptxas accepts it", tc.body, tc.version, tc.target, tc.rule)
		}
		if tc.sev != diag.Error && !ok {
			t.Errorf("%s (PTX %s, %s): ptxkit only warns, ptxas rejects it:\n%s", tc.body, tc.version, tc.target, out)
		}
	}
	for _, tc := range asyncAcceptCases {
		if newer(tc.version, tc.target) {
			continue
		}
		if ok, out := assemble(tc.version, tc.target, tc.body); !ok {
			t.Errorf("%s (PTX %s, %s): ptxkit accepts it, ptxas rejects it:\n%s", tc.body, tc.version, tc.target, out)
		}
	}
}

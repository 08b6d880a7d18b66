package mm

import (
	"errors"
	"fmt"
	"github.com/ptxkit/ptxkit/internal/benchmod"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParseLitmus checks that any input parses or fails with an error, and
// that what parses is decided, within bounds, without a panic.
func FuzzParseLitmus(f *testing.F) {
	for _, p := range []string{"ptx/Manual/MP-relaxed.litmus", "ptx/Barrier/quorum3-fail.litmus", "ptx/Manual/proxy/Proxy-Const-MP-cause1.litmus", "ptx/Manual/Ticketlock-same-gpu.litmus"} {
		if src, err := os.ReadFile(filepath.Join(suiteRoot, p)); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)"))
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := ParseLitmus(src)
		if err != nil {
			return
		}
		start := time.Now()
		Check(prog, PTXv75)
		CheckTermination(prog, PTXv60)
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("deciding took %v", d)
		}
	})
}

// TestParseErrors checks that malformed tests are rejected with a line.
func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"":                  "empty input",
		"PTX t\n":           "missing the initial-state block",
		"PTX t\n{ x=0;\n":   "unterminated initial-state block",
		"PTX t\n{ x=0; }\n": "missing the thread header row",
		"PTX t\n{ x=zero; }\n P0@cta 0,gpu 0 ;\n":                                          "bad initial value",
		"PTX t\n{ }\n P1@cta 0,gpu 0 ;\nexists (x == 1)":                                   "want P0",
		"PTX t\n{ }\n P0@cta 0,gpu 0 ;\n goto L1 ;\nexists (x == 1)":                       "undefined label L1",
		"PTX t\n{ }\n P0@cta 0,gpu 0 ;\n ld.weak.cta r0, x ;\nexists (x == 1)":             ".weak takes no scope",
		"PTX t\n{ }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n":                                 "missing the final condition",
		"PTX t\n{ }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (P3:r0 == 1)":              "unknown thread",
		"PTX t\n{ }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1":                   "missing )",
		"PTX t\n{ }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)": "1 columns, want 2",
	}
	for src, want := range cases {
		_, err := ParseLitmus([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", src, err, want)
		}
	}
}

// TestLargeProgramsBounded checks that programs beyond the enumeration
// bounds are refused quickly rather than decided slowly.
func TestLargeProgramsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("PTX big\n{ x=0; }\n")
	const threads = 8
	for k := range threads {
		if k > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "P%d@cta %d,gpu 0", k, k)
	}
	b.WriteString(" ;\n")
	for i := range 6 {
		for k := range threads {
			if k > 0 {
				b.WriteString(" | ")
			}
			if k == 0 && i < 3 {
				fmt.Fprintf(&b, "st.relaxed.gpu x, %d", i+1)
			} else {
				fmt.Fprintf(&b, "ld.relaxed.gpu r%d, x", i)
			}
		}
		b.WriteString(" ;\n")
	}
	b.WriteString("exists (x == 1)\n")
	prog, err := ParseLitmus([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := benchmod.CPUTime() // CPU, not wall time: a loaded machine must not fail the test
	_, err = Check(prog, PTXv75)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if d := benchmod.CPUTime() - start; d > 5*time.Second {
		t.Errorf("refusing took %v of CPU time", d)
	}
}

// TestVolatileIsRelaxedSys: a .volatile store and load behave as
// .relaxed.sys (§8.4.2), so in message passing without release/acquire the
// stale read stays reachable, and coherence between the volatile accesses
// holds (CoRR).
func TestVolatileIsRelaxedSys(t *testing.T) {
	const corr = `PTX CoRR-volatile
{ x=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;
 st.volatile x, 1    | ld.volatile r0, x     ;
                     | ld.volatile r1, x     ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
`
	prog, err := ParseLitmus([]byte(corr))
	if err != nil {
		t.Fatal(err)
	}
	ev := prog.Threads[0].Code[0]
	if ev.Sem != Relaxed || ev.Scope != ScopeSys {
		t.Errorf("st.volatile parsed as %v.%v", ev.Sem, ev.Scope)
	}
	res, err := Check(prog, PTXv60)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reachable {
		t.Error("CoRR violated between volatile (relaxed.sys) accesses")
	}
	if _, err := parseInstr(&Program{}, "st.mmio.relaxed.gpu x, 1"); err == nil || !strings.Contains(err.Error(), ".mmio requires .relaxed.sys") {
		t.Errorf("st.mmio.relaxed.gpu: %v", err)
	}
}

// FuzzParseMixedProxy checks the mixedproxy reader the same way.
func FuzzParseMixedProxy(f *testing.F) {
	for _, p := range []string{"mixedproxy/tests/MP_gpu_synonym.test", "mixedproxy/tests/ISA2.test", "mixedproxy/tests/SB_rmw.test"} {
		if src, err := os.ReadFile(filepath.Join(suiteRoot, p)); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(".global x;\nd0.b0.t0 {\n  st [x], 1;\n  ld r0, [x] == 1;\n}\npermit (r0 == 1) as t;\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		insts, err := ParseMixedProxy(src)
		if err != nil || len(insts) > 8 {
			return
		}
		for _, in := range insts {
			Check(in.Prog, PTXv75)
		}
	})
}

// FuzzParsePTXKernel checks the kernel reader the same way.
func FuzzParsePTXKernel(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("..", "testdata", "litmus", "mp-release-acquire.ptx")); err == nil {
		f.Add(src)
	}
	if src, err := os.ReadFile(filepath.Join("..", "testdata", "litmus", "st-async-mp.ptx")); err == nil {
		f.Add(src)
	}
	specs := []ThreadSpec{{CTA: 0, Cluster: 0}, {CTA: 1, Cluster: 0}}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := ParsePTXKernel("k.ptx", src, specs)
		if err != nil {
			return
		}
		Check(prog, PTXv75)
		CheckTermination(prog, PTXv75)
	})
}

// TestSharedExpressionsEvaluateOnce: 60 doublings of a loaded value build
// an expression DAG that a naive evaluation would walk 2^60 times.
func TestSharedExpressionsEvaluateOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("PTX double\n{ x=1; }\n P0@cta 0,gpu 0 ;\n ld.weak r1, x ;\n")
	for range 60 {
		b.WriteString(" add r1, r1, r1 ;\n")
	}
	b.WriteString("exists (P0:r1 == 1152921504606846976)\n")
	prog, err := ParseLitmus([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := Check(prog, PTXv60)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reachable {
		t.Error("2^60 not computed")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestFilter: a filter keeps only the executions whose final state
// satisfies it (herd's filter); locations [...] is accepted and ignored.
func TestFilter(t *testing.T) {
	const src = `PTX MP-filter
{ x=0; y=0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0          ;
 st.weak x, 1           | ld.relaxed.gpu r0, y    ;
 st.relaxed.gpu y, 1    | ld.weak r1, x           ;
locations [x; y; P1:r0;]
filter (P1:r0 == 1)
forall (P1:r1 == 1)
`
	prog, err := ParseLitmus([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(prog, PTXv75)
	if err != nil {
		t.Fatal(err)
	}
	// With r0 == 1 kept, r1 is 0 or 1 (nothing orders the relaxed accesses):
	// two executions, and the forall fails.
	if res.Executions != 2 || !res.Reachable || res.Pass {
		t.Errorf("executions %d reachable %v pass %v", res.Executions, res.Reachable, res.Pass)
	}
}

package mm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPTXKernelLitmus runs the message-passing kernels of testdata/litmus:
// with release/acquire the stale read is unreachable (§8.8, §8.9.4), with
// relaxed operations it is reachable.
func TestPTXKernelLitmus(t *testing.T) {
	specs, err := ParseThreadSpecs("0,1")
	if err != nil {
		t.Fatal(err)
	}
	for file, reachable := range map[string]bool{"mp-release-acquire.ptx": false, "mp-relaxed.ptx": true} {
		src, err := os.ReadFile(filepath.Join("..", "testdata", "litmus", file))
		if err != nil {
			t.Fatal(err)
		}
		prog, err := ParsePTXKernel(file, src, specs)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(prog.Threads) != 2 || prog.Threads[1].CTA != 1 {
			t.Fatalf("%s: threads %+v", file, prog.Threads)
		}
		for _, m := range []Model{PTXv60, PTXv75} {
			res, err := Check(prog, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reachable != reachable || !res.Pass {
				t.Errorf("%s %s: reachable %v pass %v, want reachable %v", file, m, res.Reachable, res.Pass, reachable)
			}
		}
	}
}

func TestPTXKernelErrors(t *testing.T) {
	specs := []ThreadSpec{{CTA: 0, Cluster: -1}}
	const head = ".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 x;\n"
	cases := map[string]string{
		head + ".visible .entry k(.param .u64 p)\n{\n.reg .u64 %rd<2>;\nld.param.u64 %rd1, [p];\nst.global.u32 [%rd1], 1;\n}\n//@ exists (x == 1)\n": "only [variable]",
		head + ".visible .entry k()\n{\nst.global.u32 [x], 1;\n}\n":                                                                                  "missing the condition comment",
		head + ".visible .entry k()\n{\n.reg .u32 %r<2>;\nmov.u32 %r1, %ntid.x;\n}\n//@ exists (x == 1)\n":                                           "unsupported special register",
		head + ".visible .entry k()\n{\n.reg .u32 %r<2>;\nmov.u32 %r1, %laneid;\n}\n//@ exists (x == 1)\n":                                           "unsupported special register",
		head + ".visible .entry k()\n{\ntex.1d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [t, {%r1}];\n}\n//@ exists (x == 1)\n":                                  "tex is not supported",
		head + "\n//@ exists (x == 1)\n": "no .entry kernel",
		// The kernel's own x hides the location x (PTX ISA §5.4 scopes).
		head + ".visible .entry k()\n{\n.shared .u32 x;\nst.shared.u32 [x], 1;\n}\n//@ exists (x == 1)\n": "only [variable]",
	}
	for src, want := range cases {
		_, err := ParsePTXKernel("k.ptx", []byte(src), specs)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q for\n%s", err, want, src)
		}
	}
	for _, bad := range []string{"", "a", "0/x", "0@-1", strings.Repeat("0,", 20) + "0"} {
		if _, err := ParseThreadSpecs(bad); err == nil {
			t.Errorf("ParseThreadSpecs(%q) accepted", bad)
		}
	}
	if s, err := ParseThreadSpecs("0, 1/32@0"); err != nil || s[1] != (ThreadSpec{CTA: 1, Tid: 32, Cluster: 0}) {
		t.Errorf("ParseThreadSpecs: %v %v", s, err)
	}
}

// TestPTXKernelStAsync: st.async message passing written as a kernel. With
// an .acquire.cluster wait the data is seen (§9.7.9.12: the complete-tx is a
// release at .cluster scope); with the default .acquire.cta wait the remote
// sender is outside the wait's scope (§8.7) and the stale read is reachable.
func TestPTXKernelStAsync(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "litmus", "st-async-mp.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := ParseThreadSpecs("0@0,1@0")
	if err != nil {
		t.Fatal(err)
	}
	ctaWait := strings.Replace(strings.Replace(string(src), "try_wait.acquire.cluster.shared::cta", "try_wait.shared::cta", 1), "//@ ~exists", "//@ exists", 1)
	for text, reachable := range map[string]bool{string(src): false, ctaWait: true} {
		prog, err := ParsePTXKernel("st-async-mp.ptx", []byte(text), specs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(prog, PTXv75)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reachable != reachable || !res.Pass {
			t.Errorf("reachable %v pass %v, want reachable %v, for\n%s", res.Reachable, res.Pass, reachable, text)
		}
	}
}

func TestPTXKernelSyntaxErrorPosition(t *testing.T) {
	src := ".version 8.0\n.target sm_90\n.entry k() {\n st.global.u32 [x] 1\n}\n"
	_, err := ParsePTXKernel("bad.ptx", []byte(src), []ThreadSpec{{Cluster: -1}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || pe.Col == 0 || !strings.Contains(pe.Msg, "[syntax]") {
		t.Errorf("error %v, want a syntax error at line 4 with a column", err)
	}
}

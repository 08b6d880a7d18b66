package isa

import (
	"strings"
	"testing"
)

func decode(t *testing.T, s string) (Form, []Problem) {
	t.Helper()
	f, p := DecodeString(s)
	if f.Instr == nil {
		t.Fatalf("%s: not described: %v", s, p)
	}
	return f, p
}

func TestDecodeForm(t *testing.T) {
	f, p := decode(t, "st.global.relaxed.gpu.L1::evict_last.L2::cache_hint.v4.u32")
	if len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
	if f.Instr != Lookup("st") || f.Space != QGlobal || f.Sem != QRelaxed || f.Scope != QGpu || f.Vec != 4 ||
		f.Type != QU32 || f.L1Evict != QL1EvictLast || !f.CacheHint || f.Bytes() != 16 {
		t.Errorf("form = %+v", f)
	}
	if ops := f.Operands(); len(ops) != 3 || ops[2].Kind != OpPolicy {
		t.Errorf("operands = %v", ops)
	}
}

func TestDefaults(t *testing.T) {
	f, _ := decode(t, "st.shared.u32")
	if f.Sem != QWeak || f.Space != QSharedCta || f.Written(GSpace) != QShared || f.At[GSem] != -1 {
		t.Errorf(".shared defaults: %+v", f)
	}
	f, _ = decode(t, "st.param.b64")
	if f.Space != QParamFunc {
		t.Errorf(".param = %v, want .param::func", f.Space)
	}
	f, _ = decode(t, "st.b8")
	if f.Space != QNone || f.Vec != 1 {
		t.Errorf("generic scalar: %+v", f)
	}
	f, _ = decode(t, "st.async.mbarrier::complete_tx::bytes.v2.b64")
	if f.Instr.Name != "st.async" || f.Sem != QWeak || f.Complete != QCompleteTx || f.Bytes() != 16 {
		t.Errorf("st.async: %+v", f)
	}
	f, _ = decode(t, "tcgen05.st.sync.aligned.16x256b.x8.unpack::16b.b32")
	if f.Shape != Q16x256b || f.Num != 8 || !f.Unpack || f.Bytes() != 128 {
		t.Errorf("tcgen05.st: %+v", f)
	}
}

func TestQualifierOrderIsFree(t *testing.T) {
	a, pa := decode(t, "st.L1::no_allocate.relaxed.sys.global.u64")
	b, pb := decode(t, "st.relaxed.sys.global.L1::no_allocate.u64")
	if len(pa)+len(pb) != 0 || a.Space != b.Space || a.Sem != b.Sem || a.Scope != b.Scope || a.L1Evict != b.L1Evict {
		t.Errorf("orders differ: %+v %v / %+v %v", a, pa, b, pb)
	}
}

func rules(p []Problem) string {
	var l []string
	for _, x := range p {
		l = append(l, x.Rule)
	}
	return strings.Join(l, ",")
}

func TestDecodeProblems(t *testing.T) {
	cases := map[string]string{
		"st.global.relaxed.u32":         "st-sem-scope",
		"st.volatile.relaxed.sys.u32":   "qualifier-conflict",
		"st.global":                     "missing-qualifier",
		"st.global.f16":                 "qualifier-not-allowed",
		"st.global.bogus.u32":           "unknown-qualifier",
		"st.mmio.relaxed.sys.local.u32": "st-mmio-space",
		"st.async.release.gpu.global.mbarrier::complete_tx::bytes.u32": "st-async-completion",
		"tcgen05.st.sync.aligned.16x256b.x64.b32":                      "tcgen05-shape-num",
		"tcgen05.st.sync.aligned.32x32b.x1":                            "missing-qualifier",
	}
	for s, want := range cases {
		_, p := decode(t, s)
		if !strings.Contains(rules(p), want) {
			t.Errorf("%s: problems %q, want %s", s, rules(p), want)
		}
	}
}

func TestTable50(t *testing.T) {
	want := map[Qual][]int{ // .x1 ... .x128
		Q16x32bx2: {1, 2, 4, 8, 16, 32, 64, 128},
		Q16x64b:   {1, 2, 4, 8, 16, 32, 64, 128},
		Q32x32b:   {1, 2, 4, 8, 16, 32, 64, 128},
		Q16x128b:  {2, 4, 8, 16, 32, 64, 128, 0},
		Q16x256b:  {4, 8, 16, 32, 64, 128, 0, 0},
	}
	for shape, regs := range want {
		for i, n := range regs {
			if got := TMemRegs(shape, 1<<i); got != n {
				t.Errorf("%s.x%d: %d registers, want %d", shape, 1<<i, got, n)
			}
		}
	}
}

func TestGate(t *testing.T) {
	cases := []struct {
		instr, ptx, target string
		want               string // rules, comma separated
	}{
		{"st.global.relaxed.cluster.u32", "7.8", "sm_90", ""},
		{"st.global.relaxed.cluster.u32", "7.7", "sm_90", "ptx-version"},
		{"st.global.relaxed.cluster.u32", "7.8", "sm_89", "target"},
		{"st.param::func.b32", "8.2", "sm_90", "ptx-version"},
		{"st.relaxed.sys.global.b128", "8.3", "sm_70", "ptx-version"},
		{"st.relaxed.gpu.global.b128", "8.3", "sm_70", ""},
		{"st.weak.global.u32", "8.5", "sm_61", "target"},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.6", "sm_100a", ""},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.6", "sm_100", "target"},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.8", "sm_103a", ""},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.6", "sm_103a", "target"},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.8", "sm_100f", ""},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "8.8", "sm_120f", "target"},
		{"tcgen05.st.sync.aligned.32x32b.x1.b32", "9.0", "sm_110f", ""},
		{"st.async.release.sys.global.b32", "8.7", "sm_100", ""},
		{"st.async.release.sys.global.b32", "8.6", "sm_90", "ptx-version,target"},
	}
	for _, c := range cases {
		f, p := decode(t, c.instr)
		if len(p) != 0 {
			t.Fatalf("%s: %v", c.instr, p)
		}
		v, _ := ParseVersion(c.ptx)
		tg, _ := ParseTarget(c.target)
		if got := rules(Gate(&f, v, tg, nil)); got != c.want {
			t.Errorf("%s on PTX %s %s: %q, want %q", c.instr, c.ptx, c.target, got, c.want)
		}
	}
}

func TestTargetsAndVersions(t *testing.T) {
	for _, c := range []struct {
		target, ptx string
		ok          bool
	}{
		{"sm_90a", "8.0", true}, {"sm_90a", "7.8", false}, {"sm_100a", "8.6", true},
		{"sm_101a", "8.8", true}, {"sm_101a", "9.0", false}, {"sm_110a", "9.0", true},
		{"compute_80", "7.0", true}, {"sm_100f", "8.6", false}, {"sm_42", "8.0", false},
	} {
		tg, err := ParseTarget(c.target)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := ParseVersion(c.ptx)
		if err := TargetValid(tg, v); (err == nil) != c.ok {
			t.Errorf("%s with PTX %s: %v", c.target, c.ptx, err)
		}
	}
	for _, bad := range []string{"sm", "sm_", "sm_9x", "gfx90a", "sm_-90", "sm_1"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"8", "8.", ".5", "8.x", "8.+5", "100.0"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if v, _ := ParseVersion("8.5"); v != V(8, 5) || v.String() != "8.5" {
		t.Errorf("8.5 = %v", v)
	}
}

func TestFamilies(t *testing.T) {
	g, n := FamilyOf("mbarrier", []string{".try_wait", ".parity", ".b64"})
	if g == nil || g.Prefix != "mbarrier.try_wait" || n != 2 {
		t.Fatalf("FamilyOf = %v, %d", g, n)
	}
	if g := LookupFamily("cp.async.bulk.tensor.1d"); g == nil || g.Prefix != "cp.async.bulk" {
		t.Errorf("LookupFamily = %v", g)
	}
	if g := LookupFamily("cp.asyncx"); g != nil {
		t.Errorf("prefix matched inside a word: %v", g)
	}
	v, _ := ParseVersion("8.0")
	tg, _ := ParseTarget("sm_90")
	if p := g.Check(v, tg, nil); len(p) != 0 {
		t.Errorf("mbarrier.try_wait on 8.0 sm_90: %v", p)
	}
	tg, _ = ParseTarget("sm_80")
	if p := g.Check(v, tg, nil); rules(p) != "target" {
		t.Errorf("mbarrier.try_wait on sm_80: %v", p)
	}
}

func TestRequirements(t *testing.T) {
	f, _ := decode(t, "st.global.L2::cache_hint.relaxed.cluster.b128")
	r := Requirements(&f)
	if r.PTX != V(8, 3) || r.MinSM != 90 {
		t.Errorf("requirements = %+v", r)
	}
}

func BenchmarkDecode(b *testing.B) {
	in := Lookup("st")
	names := []string{".global", ".relaxed", ".gpu", ".v4", ".u32"}
	buf := make([]Qual, 0, 8)
	var probs []Problem
	var f Form
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p := DecodeInto(&f, in, names, buf, probs[:0])
		probs = Gate(&f, V(8, 5), Target{SM: 90}, p)
	}
}

// TestWidenTypeHint: a wrong type lists every type its place takes over
// all forms (set.f16 results come from integer and from float sources,
// two forms each), and only those.
func TestWidenTypeHint(t *testing.T) {
	cases := []struct {
		names []string
		want  string
	}{
		{[]string{".eq", ".f16", ".bf16"}, ".bf16 is not a type of set (.b16, .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f16, .f32, .f64 here)"},
		{[]string{".eq", ".u16", ".f16x2"}, ".f16x2 is not a type of set (.f16, .bf16 here)"},
		{[]string{".eq", ".ftz", ".f16", ".f64"}, ".f64 is not a type of set (.f16, .f32 here)"},
	}
	for _, c := range cases {
		var d OpDecode
		probs := DecodeOp("set", c.names, LookupQuals(c.names, nil), 3, &d, nil)
		if len(probs) != 1 || probs[0].Msg != c.want {
			t.Errorf("set%s: got %+v, want one problem %q", strings.Join(c.names, ""), probs, c.want)
		}
	}
}

package isa

import (
	"strings"
	"testing"
)

func nextNames(opcode string, written []Qual, v Version, t Target) []string {
	var l []string
	for _, n := range NextQuals(opcode, written, v, t) {
		l = append(l, n.Qual.String())
	}
	return l
}

func hasName(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestNextQualsDecode checks every offered qualifier against the checker:
// appending it to the written ones must leave a form of the opcode whose
// only problems (if any) are missing qualifiers; and a qualifier of the
// opcode's forms that is not offered must draw another problem from every
// form, or come before the form's leading qualifiers (add.s32.sat is not
// offered: .sat begins add.sat.s32).
func TestNextQualsDecode(t *testing.T) {
	for _, tc := range []struct {
		opcode  string
		written []Qual
	}{
		{"add", nil}, {"add", []Qual{QRn}}, {"add", []Qual{QSat}}, {"cvt", []Qual{QRn}},
		{"setp", []Qual{QLo}}, {"mbarrier", []Qual{QArrive}}, {"ld", []Qual{QGlobal}}, {"atom", []Qual{QRelaxed}},
	} {
		offered := NextQuals(tc.opcode, tc.written, 0, Target{})
		if len(offered) == 0 {
			t.Errorf("%s%v: nothing offered", tc.opcode, tc.written)
		}
		for _, n := range offered {
			quals := append(append([]Qual(nil), tc.written...), n.Qual)
			names := make([]string, len(quals))
			for i, q := range quals {
				names[i] = q.String()
			}
			var d OpDecode
			probs := decodeForm(n.Form, names, quals, &d, nil)
			for _, p := range probs {
				if p.Qual == len(quals)-1 || !missing(p) && !p.Warning {
					t.Errorf("%s%v + %s: %s %s", tc.opcode, tc.written, n.Qual, p.Rule, p.Msg)
				}
			}
		}
		for _, f := range Forms(tc.opcode) {
			for _, q := range formQuals(f, 1<<10, nil) {
				if indexNext(offered, q) >= 0 || indexQual(tc.written, q) >= 0 {
					continue
				}
				quals := append(append([]Qual(nil), tc.written...), q)
				if fitsOnlyMissing(f, quals) && startsWith(quals, leading(f)) && formChecksPass(f, quals) {
					t.Errorf("%s%v: %s not offered, but %s (line %d) accepts it", tc.opcode, tc.written, q, f.Name, f.Line)
				}
			}
		}
	}
}

func TestNextQuals(t *testing.T) {
	got := nextNames("add", nil, 0, Target{})
	for _, q := range []string{".rn", ".rz", ".sat", ".ftz", ".s32", ".f32", ".f64", ".bf16"} {
		if !hasName(got, q) {
			t.Errorf("add. lacks %s: %v", q, got)
		}
	}
	// After .rn: no second rounding mode, no integer type.
	got = nextNames("add", []Qual{QRn}, 0, Target{})
	for _, q := range []string{".rz", ".rn", ".s32", ".u64", ".cc"} {
		if hasName(got, q) {
			t.Errorf("add.rn. offers %s: %v", q, got)
		}
	}
	// .sat on integers is .s32 only.
	if got := nextNames("add", []Qual{QSat}, 0, Target{}); hasName(got, ".u32") || !hasName(got, ".s32") {
		t.Errorf("add.sat. offers %v", got)
	}
	// mbarrier's sub-opcodes come first; .try_wait needs PTX 7.8 and sm_90.
	got = nextNames("mbarrier", nil, V(7, 0), Target{SM: 80})
	if strings.Join(got, " ") != ".init .inval .arrive .arrive_drop .test_wait .pending_count" {
		t.Errorf("mbarrier. at PTX 7.0 sm_80: %v", got)
	}
	if got := nextNames("mbarrier", nil, V(7, 8), Target{SM: 90}); !hasName(got, ".try_wait") {
		t.Errorf("mbarrier. at PTX 7.8 sm_90 lacks .try_wait: %v", got)
	}
	if got := nextNames("mbarrier", []Qual{QShared}, 0, Target{}); len(got) != 0 {
		t.Errorf("mbarrier.shared. offers %v", got)
	}
	// Unsigned comparisons take unsigned types only.
	got = nextNames("setp", []Qual{QLo}, 0, Target{})
	if hasName(got, ".s32") || hasName(got, ".b32") || !hasName(got, ".u32") || hasName(got, ".eq") {
		t.Errorf("setp.lo. offers %v", got)
	}
	// A qualifier gate: atom .cluster needs PTX 7.8 and sm_90.
	for _, tc := range []struct {
		v    Version
		sm   int
		want bool
	}{{V(7, 7), 90, false}, {V(7, 8), 80, false}, {V(7, 8), 90, true}} {
		got := NextQuals("atom", []Qual{QRelaxed}, tc.v, Target{SM: tc.sm})
		i := indexNext(got, QCluster)
		if (i >= 0) != tc.want {
			t.Errorf("atom.relaxed. at PTX %s sm_%d offers .cluster: %v", tc.v, tc.sm, i >= 0)
		}
		if i >= 0 && (got[i].PTX != V(7, 8) || !got[i].Gated()) {
			t.Errorf("atom .cluster: PTX %s, gated %v", got[i].PTX, got[i].Gated())
		}
	}
	if got := nextNames("nosuchop", nil, 0, Target{}); len(got) != 0 {
		t.Errorf("unknown opcode: %v", got)
	}
}

func fitsOnlyMissing(f *OpForm, quals []Qual) bool {
	names := make([]string, len(quals))
	for i, q := range quals {
		names[i] = q.String()
	}
	var d OpDecode
	for _, p := range decodeForm(f, names, quals, &d, nil) {
		if p.Qual == len(quals)-1 || !missing(p) && !p.Warning {
			return false
		}
	}
	return true
}

// formChecksPass reports whether the rule lines and type checks leave
// quals possible on f.
func formChecksPass(f *OpForm, quals []Qual) bool {
	names := make([]string, len(quals))
	for i, q := range quals {
		names[i] = q.String()
	}
	var d OpDecode
	decodeForm(f, names, quals, &d, nil)
	for _, p := range formChecks(&d, names, nil) {
		if !missing(p) && !(p.Rule == "cmp-type" && d.Types[0] == QNone) {
			return false
		}
	}
	return true
}

func startsWith(quals, lead []Qual) bool {
	for i := range min(len(quals), len(lead)) {
		if quals[i] != lead[i] {
			return false
		}
	}
	return true
}

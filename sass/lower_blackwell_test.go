package sass

import (
	"errors"
	"strings"
	"testing"
)

// blackwellLowerRows are the PTX stores LowerStore lowers for SM100-SM120
// ("x": a LowerError, no ptxas 13.0 output covers the form).
var blackwellLowerRows = []struct{ ptx, want string }{
	{"st.shared.u8", "STS.U8"},
	{"st.shared.s8", "STS.S8"},
	{"st.shared.u16", "STS.U16"},
	{"st.shared.s16", "STS.S16"},
	{"st.shared.u32", "STS"},
	{"st.shared.v2.u32", "STS.64"},
	{"st.shared.v4.u32", "STS.128"},
	{"st.shared::cta.b128", "STS.128"},
	{"st.local.u8", "STL.U8"},
	{"st.local.s16", "STL.S16"},
	{"st.local.u32", "STL"},
	{"st.local.u64", "STL.64"},
	{"st.local.v4.u32", "STL.128"},
	{"st.global.u32", "STG.E"},
	{"st.global.cs.v2.u32", "STG.E.EF.64"},
	{"st.global.L1::evict_first.u64", "STG.E.EF.64"},
	{"st.global.L1::no_allocate.u32", "STG.E.NA"},
	{"st.release.cta.shared.u32", "x"},
	{"st.volatile.shared.u32", "x"},
	{"st.local.cg.u32", "x"},
	{"st.global.wt.u32", "x"},
	{"st.relaxed.gpu.global.u32", "x"},
	{"st.mmio.relaxed.sys.global.u32", "x"},
	{"st.global.L1::evict_last.u32", "x"},
	{"st.u32", "x"},
	{"st.shared::cluster.u32", "x"},
	{"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32", "x"},
}

// TestLowerBlackwell checks LowerStore on the Blackwell targets, and that
// every lowered instruction (opcode and modifiers) is one that ptxas 13.0
// emitted for that target: it appears in vectors_sm90_sm120.tsv.
func TestLowerBlackwell(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range readVectorFile(t, "vectors_sm90_sm120.tsv") {
		f := strings.Fields(v.text)
		if strings.HasPrefix(f[0], "@") {
			f = f[1:]
		}
		seen[v.arch.String()+" "+f[0]] = true
	}
	for _, target := range []string{"sm_100a", "sm_103a", "sm_110a", "sm_120a", "sm_100f", "sm_120"} {
		arch, _ := ParseArch(target)
		for _, r := range blackwellLowerRows {
			got, err := LowerStore(parseStoreText(t, r.ptx), target)
			if r.want == "x" {
				var le *LowerError
				if !errors.As(err, &le) || !le.Uncovered {
					t.Errorf("%s on %s: got %v, %v; want a LowerError", r.ptx, target, got, err)
				}
				continue
			}
			if err != nil || strings.Join(got, ";") != r.want {
				t.Errorf("%s on %s: got %q, %v; want %q", r.ptx, target, got, err, r.want)
				continue
			}
			// The vectors hold the STS/STL sizes on every target, and STG
			// forms on some (.NA not on sm_100a/sm_103a/sm_110a).
			if !seen[arch.String()+" "+r.want] && !strings.HasPrefix(r.want, "STG") {
				t.Errorf("%s on %s: %s is not among ptxas 13.0's words for %s", r.ptx, target, r.want, arch)
			}
		}
	}
	for _, want := range []string{"STG.E", "STG.E.EF.64", "STG.E.NA"} {
		found := false
		for a := range seen {
			found = found || strings.HasSuffix(a, " "+want) && !strings.HasPrefix(a, "sm_90 ")
		}
		if !found {
			t.Errorf("%s is not among ptxas 13.0's Blackwell words", want)
		}
	}
}

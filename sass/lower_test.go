package sass

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/ast"
	ptxparser "github.com/ptxkit/ptxkit/ptx/parser"
)

// lowerRow is one row of ENCODING.md table T4: a PTX store and the SASS per
// target (sm_50, sm_70, sm_80, sm_90); "x" marks a ptxas error.
type lowerRow struct {
	quals string // between "st" and the type: ".shared", ".global.cg", ...
	vec   string // "", ".v2", ".v4"
	typ   string // ".u32", ".s8", ...
	want  [4]string
}

var lowerTargets = [4]string{"sm_50", "sm_70", "sm_80", "sm_90"}

var lowerRows = []lowerRow{
	{".shared", "", ".u8", [4]string{"STS.U8", "STS.U8", "STS.U8", "STS.U8"}},
	{".shared", "", ".s8", [4]string{"STS.S8", "STS.S8", "STS.S8", "STS.S8"}},
	{".shared", "", ".u16", [4]string{"STS.U16", "STS.U16", "STS.U16", "STS.U16"}},
	{".shared", "", ".s16", [4]string{"STS.S16", "STS.S16", "STS.S16", "STS.S16"}},
	{".shared", "", ".u32", [4]string{"STS", "STS", "STS", "STS"}},
	{".shared", "", ".f32", [4]string{"STS", "STS", "STS", "STS"}},
	{".shared", ".v2", ".u16", [4]string{"STS", "STS", "STS", "STS"}},
	{".shared", ".v4", ".u8", [4]string{"STS", "STS", "STS", "STS"}},
	{".shared", "", ".u64", [4]string{"STS.64", "STS.64", "STS.64", "STS.64"}},
	{".shared", "", ".f64", [4]string{"STS.64", "STS.64", "STS.64", "STS.64"}},
	{".shared", ".v2", ".u32", [4]string{"STS.64", "STS.64", "STS.64", "STS.64"}},
	{".shared", ".v4", ".u16", [4]string{"STS.64", "STS.64", "STS.64", "STS.64"}},
	{".shared", ".v4", ".u32", [4]string{"STS.128", "STS.128", "STS.128", "STS.128"}},
	{".shared", ".v2", ".u64", [4]string{"STS.128", "STS.128", "STS.128", "STS.128"}},
	{".shared", "", ".b128", [4]string{"x", "STS.128", "STS.128", "STS.128"}},
	{".volatile.shared", "", ".u32", [4]string{"STS", "STS", "STS", "STS"}},
	{".relaxed.cta.shared", "", ".u32", [4]string{"x", "STS", "STS", "STS"}},
	{".relaxed.gpu.shared", "", ".u32", [4]string{"x", "STS", "STS", "STS"}},
	{".release.cta.shared", "", ".u32", [4]string{"x", "MEMBAR.ALL.CTA;STS", "MEMBAR.ALL.CTA;STS", "MEMBAR.ALL.CTA;STS"}},
	{".shared::cta", "", ".u32", [4]string{"STS", "STS", "STS", "STS"}},
	{".shared::cluster", "", ".u32", [4]string{"x", "x", "x", "ST.E"}},
	{".async.shared::cluster.mbarrier::complete_tx::bytes", "", ".u32", [4]string{"x", "x", "x", "STAS"}},
	{".async.shared::cluster.mbarrier::complete_tx::bytes", "", ".b64", [4]string{"x", "x", "x", "STAS.64"}},
	{".async.shared::cluster.mbarrier::complete_tx::bytes", ".v4", ".u32", [4]string{"x", "x", "x", "STAS.128"}},
	{".local", "", ".u8", [4]string{"STL.U8", "STL.U8", "STL.U8", "STL.U8"}},
	{".local", "", ".s16", [4]string{"STL.S16", "STL.S16", "STL.S16", "STL.S16"}},
	{".local", "", ".u32", [4]string{"STL", "STL", "STL", "STL"}},
	{".local", "", ".u64", [4]string{"STL.64", "STL.64", "STL.64", "STL.64"}},
	{".local", ".v4", ".u32", [4]string{"STL.128", "STL.128", "STL.128", "STL.128"}},
	{".local", "", ".b128", [4]string{"x", "STL.128", "STL.128", "STL.128"}},
	{".local.wb", "", ".u32", [4]string{"STL", "STL", "STL", "STL"}},
	{".local.cg", "", ".u32", [4]string{"STL", "STL", "STL", "STL"}},
	{".local.cs", "", ".u32", [4]string{"STL", "STL", "STL", "STL"}},
	{".local.wt", "", ".u32", [4]string{"STL", "STL", "STL", "STL"}},
	{".volatile.local", "", ".u32", [4]string{"x", "x", "x", "x"}},
	{".global", "", ".u32", [4]string{"STG.E", "STG.E.SYS", "STG.E", "STG.E"}},
	{".global", "", ".u8", [4]string{"STG.E.U8", "STG.E.U8.SYS", "STG.E.U8", "STG.E.U8"}},
	{".global", "", ".s16", [4]string{"STG.E.S16", "STG.E.S16.SYS", "STG.E.S16", "STG.E.S16"}},
	{".global", ".v2", ".u32", [4]string{"STG.E.64", "STG.E.64.SYS", "STG.E.64", "STG.E.64"}},
	{".global", ".v4", ".u32", [4]string{"STG.E.128", "STG.E.128.SYS", "STG.E.128", "STG.E.128"}},
	{".global", "", ".b128", [4]string{"x", "STG.E.128.SYS", "STG.E.128", "STG.E.128"}},
	{".global.wb", "", ".u32", [4]string{"STG.E", "STG.E.STRONG.CTA", "STG.E.STRONG.SM", "STG.E.STRONG.SM"}},
	{".global.cg", "", ".u32", [4]string{"STG.E.CG", "STG.E.STRONG.GPU", "STG.E.STRONG.GPU", "STG.E.STRONG.GPU"}},
	{".global.cs", "", ".u32", [4]string{"STG.E.CS", "STG.E.EF.SYS", "STG.E.EF", "STG.E.EF"}},
	{".global.wt", "", ".u32", [4]string{"STG.E.WT", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS"}},
	{".volatile.global", "", ".u32", [4]string{"STG.E.WT", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS"}},
	{".relaxed.cta.global", "", ".u32", [4]string{"x", "STG.E.STRONG.CTA", "STG.E.STRONG.SM", "STG.E.STRONG.SM"}},
	{".relaxed.cluster.global", "", ".u32", [4]string{"x", "x", "x", "STG.E.STRONG.GPU"}},
	{".relaxed.gpu.global", "", ".u32", [4]string{"x", "STG.E.STRONG.GPU", "STG.E.STRONG.GPU", "STG.E.STRONG.GPU"}},
	{".relaxed.sys.global", "", ".u32", [4]string{"x", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS", "STG.E.STRONG.SYS"}},
	{".release.gpu.global", "", ".u32", [4]string{"x", "MEMBAR.ALL.GPU;ERRBAR;STG.E.STRONG.GPU", "MEMBAR.ALL.GPU;ERRBAR;STG.E.STRONG.GPU", "MEMBAR.ALL.CTA;MEMBAR.ALL.GPU;ERRBAR;STG.E.STRONG.GPU"}},
	{".release.sys.global", "", ".u32", [4]string{"x", "MEMBAR.ALL.SYS;ERRBAR;STG.E.STRONG.SYS", "MEMBAR.ALL.SYS;ERRBAR;STG.E.STRONG.SYS", "MEMBAR.ALL.CTA;MEMBAR.ALL.SYS;ERRBAR;STG.E.STRONG.SYS"}},
	{".mmio.relaxed.sys.global", "", ".u32", [4]string{"x", "STG.E.MMIO.SYS", "STG.E.MMIO.SYS", "STG.E.MMIO.SYS"}},
	{".global.L1::no_allocate", "", ".u32", [4]string{"x", "STG.E.NA.SYS", "STG.E.NA", "STG.E.NA"}},
	{".global.L1::evict_first", "", ".u32", [4]string{"x", "STG.E.EF.SYS", "STG.E.EF", "STG.E.EF"}},
	{".global.L1::evict_last", "", ".u32", [4]string{"x", "STG.E.EL.SYS", "STG.E.EL", "STG.E.EL"}},
	{".global.L1::evict_unchanged", "", ".u32", [4]string{"x", "STG.E.EU.SYS", "STG.E.EU", "STG.E.EU"}},
	{".global.L1::evict_normal", "", ".u32", [4]string{"x", "STG.E.SYS", "STG.E", "STG.E"}},
	{".global.L2::cache_hint", "", ".u32", [4]string{"x", "x", "STG.E", "STG.E"}},
	{".global.L2::evict_last", "", ".u32", [4]string{"x", "x", "x", "x"}},
	{"", "", ".u32", [4]string{"ST.E", "ST.E.SYS", "ST.E", "ST.E"}},
	{".volatile", "", ".u32", [4]string{"ST.E.WT", "ST.E.STRONG.SYS", "ST.E.STRONG.SYS", "ST.E.STRONG.SYS"}},
	{".cs", "", ".u32", [4]string{"ST.E.CS", "ST.E.EF.SYS", "ST.E.EF", "ST.E.EF"}},
	{"", "", ".b128", [4]string{"x", "ST.E.128.SYS", "ST.E.128", "ST.E.128"}},
	// Beyond table T4, measured with ptxas 12.5 the same way.
	{".release.cta.global", "", ".u32", [4]string{"x", "MEMBAR.ALL.CTA;STG.E.STRONG.CTA", "MEMBAR.ALL.CTA;STG.E.STRONG.SM", "MEMBAR.ALL.CTA;STG.E.STRONG.SM"}},
	{".release.gpu.shared", "", ".u32", [4]string{"x", "MEMBAR.ALL.GPU;ERRBAR;STS", "MEMBAR.ALL.GPU;ERRBAR;STS", "MEMBAR.ALL.CTA;MEMBAR.ALL.GPU;ERRBAR;STS"}},
	{".release.sys.shared", "", ".u32", [4]string{"x", "MEMBAR.ALL.SYS;ERRBAR;STS", "MEMBAR.ALL.SYS;ERRBAR;STS", "MEMBAR.ALL.CTA;MEMBAR.ALL.SYS;ERRBAR;STS"}},
	{".release.cluster.global", "", ".u32", [4]string{"x", "x", "x", "MEMBAR.ALL.CTA;MEMBAR.ALL.GPU;ERRBAR;STG.E.STRONG.GPU"}},
	{".release.cluster.shared", "", ".u32", [4]string{"x", "x", "x", "MEMBAR.ALL.CTA;MEMBAR.ALL.GPU;ERRBAR;STS"}},
	{".relaxed.sys.shared", "", ".u32", [4]string{"x", "STS", "STS", "STS"}},
	{".relaxed.cluster.shared", "", ".u32", [4]string{"x", "x", "x", "STS"}},
	{".weak.global", "", ".u32", [4]string{"x", "STG.E.SYS", "STG.E", "STG.E"}},
	{".global.cs", ".v4", ".u32", [4]string{"STG.E.CS.128", "STG.E.EF.128.SYS", "STG.E.EF.128", "STG.E.EF.128"}},
	{".global.L1::evict_last", ".v2", ".u64", [4]string{"x", "STG.E.EL.128.SYS", "STG.E.EL.128", "STG.E.EL.128"}},
	{".relaxed.gpu.global.L1::evict_first", "", ".u32", [4]string{"x", "STG.E.EF.STRONG.SYS", "STG.E.EF.STRONG.GPU", "STG.E.EF.STRONG.GPU"}},
	{".relaxed.gpu.global.L1::no_allocate", "", ".u16", [4]string{"x", "STG.E.NA.U16.STRONG.SYS", "STG.E.NA.U16.STRONG.GPU", "STG.E.NA.U16.STRONG.GPU"}},
	{".volatile", ".v2", ".f32", [4]string{"ST.E.WT.64", "ST.E.64.STRONG.SYS", "ST.E.64.STRONG.SYS", "ST.E.64.STRONG.SYS"}},
	{".relaxed.cta.local", "", ".u32", [4]string{"x", "x", "x", "x"}},
	{".release.cta", "", ".u32", [4]string{"x", "MEMBAR.ALL.CTA;ST.E.STRONG.CTA", "MEMBAR.ALL.CTA;ST.E.STRONG.SM", "MEMBAR.ALL.CTA;ST.E.STRONG.SM"}},
	{".relaxed.gpu", "", ".u32", [4]string{"x", "ST.E.STRONG.GPU", "ST.E.STRONG.GPU", "ST.E.STRONG.GPU"}},
	{".global.wb", ".v4", ".u32", [4]string{"STG.E.128", "STG.E.128.STRONG.CTA", "STG.E.128.STRONG.SM", "STG.E.128.STRONG.SM"}},
	{".mmio.relaxed.sys.global", "", ".u8", [4]string{"x", "STG.E.U8.MMIO.SYS", "STG.E.U8.MMIO.SYS", "STG.E.U8.MMIO.SYS"}},
	{".global.L1::evict_first.L2::cache_hint", "", ".u32", [4]string{"x", "x", "STG.E.EF", "STG.E.EF"}},
	{".async.shared::cluster.mbarrier::complete_tx::bytes", ".v2", ".f32", [4]string{"x", "x", "x", "STAS.64"}},
	{".async.shared::cluster.mbarrier::complete_tx::bytes", ".v4", ".s32", [4]string{"x", "x", "x", "STAS.128"}},
}

func (r lowerRow) ptx() string { return "st" + r.quals + r.vec + r.typ }

// parseStoreText parses "st..." with the PTX parser, inside a minimal kernel.
func parseStoreText(t testing.TB, text string) *ast.Instruction {
	src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t" + text + " [%rd1], %r1;\n}\n"
	m, errs := ptxparser.ParseFile("t.ptx", []byte(src))
	if errs.HasErrors() {
		t.Fatalf("parse %q: %v", text, errs)
	}
	for _, s := range m.Stmts {
		if fn, ok := s.(*ast.Function); ok && fn.Body != nil {
			for _, st := range fn.Body.Stmts {
				if in, ok := st.(*ast.Instruction); ok {
					return in
				}
			}
		}
	}
	t.Fatalf("no instruction in %q", text)
	return nil
}

func TestLowerStoreTable(t *testing.T) {
	for _, r := range lowerRows {
		in := parseStoreText(t, r.ptx())
		for i, target := range lowerTargets {
			got, err := LowerStore(in, target)
			var le *LowerError
			if r.want[i] == "x" {
				if !errors.As(err, &le) {
					t.Errorf("%s on %s: got %v, %v; want a ptxas-style error", r.ptx(), target, got, err)
				}
				continue
			}
			if err != nil || strings.Join(got, ";") != r.want[i] {
				t.Errorf("%s on %s: got %q, %v; want %q", r.ptx(), target, strings.Join(got, ";"), err, r.want[i])
			}
		}
	}
}

func TestLowerStoreErrors(t *testing.T) {
	in := parseStoreText(t, "st.global.u32")
	if _, err := LowerStore(in, "sm_30"); err == nil {
		t.Error("sm_30 accepted")
	}
	ld := parseStoreText(t, "st.global.u32")
	ld.Opcode = "ld"
	if _, err := LowerStore(ld, "sm_90"); err == nil {
		t.Error("ld lowered as a store")
	}
	if got, err := LowerStore(in, "sm_86"); err != nil || fmt.Sprint(got) != "[STG.E]" {
		t.Errorf("sm_86 = %v, %v; want the sm_80 column", got, err)
	}
}

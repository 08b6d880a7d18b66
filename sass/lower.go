package sass

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// LowerError reports a PTX store that ptxas rejects for the target, or
// that the lowering table does not cover.
type LowerError struct {
	Qual string // the qualifier at fault ("" for the instruction)
	Msg  string
	// Uncovered is set when no ptxas output is known for the form (not a
	// ptxas rejection).
	Uncovered bool
}

func (e *LowerError) Error() string { return e.Msg }

// lowerTarget is the ptxas generation whose output a lowering reproduces:
// the columns of ENCODING.md table T4.
type lowerTarget int

const (
	target50 lowerTarget = 50
	target70 lowerTarget = 70
	target80 lowerTarget = 80
	target90 lowerTarget = 90
	// target100 is SM100-SM120 (Blackwell), as the ptxas 13.0 words of
	// testdata/sass/vectors_sm90_sm120.tsv show it (docs/sass-blackwell.md).
	target100 lowerTarget = 100
)

// parseLowerTarget maps sm_XX to the T4 column that covers it.
// CheckLowerTarget returns the error LowerStore gives for an unsupported
// target, so that callers can reject it before reading any input.
func CheckLowerTarget(arch string) error {
	_, err := parseLowerTarget(arch)
	return err
}

func parseLowerTarget(arch string) (lowerTarget, error) {
	if b, err := ParseArch(arch); err == nil && b.SM >= 100 && strings.HasPrefix(strings.ToLower(arch), "sm_") {
		return target100, nil
	}
	a := strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(arch), "sm_"), "a")
	n, err := strconv.Atoi(a)
	if err != nil || n < 50 || n > 90 || a[0] == '+' || a[0] == '-' {
		return 0, fmt.Errorf("unsupported lowering target %q (want sm_50 to sm_90, or sm_100, sm_103, sm_110, sm_120 with an optional a/f: the lowering follows sm_50, sm_70, sm_80, sm_90 or Blackwell)", clip(arch))
	}
	switch {
	case n < 70:
		return target50, nil
	case n < 80:
		return target70, nil
	case n < 90:
		return target80, nil
	}
	return target90, nil
}

// storeForm is what the lowering needs from a PTX st or st.async: the
// qualifiers as the isa tables decode them, with the access width.
type storeForm struct {
	isa.Form
	bits   int  // total access width in bits
	signed bool // .s8/.s16 scalar
}

// decodeStore decodes the qualifiers of a PTX st instruction with the isa
// tables (PTX ISA "st", "st.async"; DIGEST §7). Qualifiers the tables
// reject, a missing type and state spaces without a SASS store (.param,
// .const) are errors; the tables' other rules are left to the lowering,
// which reports them as ptxas does.
func decodeStore(in *ast.Instruction) (storeForm, error) {
	if in.Opcode != "st" {
		return storeForm{}, &LowerError{Msg: fmt.Sprintf("%s is not a store", in.FullOpcode())}
	}
	names := make([]string, len(in.Quals))
	for i, q := range in.Quals {
		names[i] = q.Name
	}
	var f storeForm
	for _, p := range isa.DecodeInto(&f.Form, isa.SelectFor("st", names), names, nil, nil) {
		switch p.Rule {
		case "unknown-qualifier", "qualifier-not-allowed", "qualifier-conflict", "missing-qualifier":
			e := &LowerError{Msg: p.Msg}
			if p.Qual >= 0 {
				e.Qual = names[p.Qual]
			}
			return f, e
		}
	}
	switch f.Space {
	case isa.QNone, isa.QGlobal, isa.QLocal, isa.QSharedCta, isa.QSharedCluster:
	default:
		q := f.Written(isa.GSpace).String()
		return f, &LowerError{Qual: q, Msg: fmt.Sprintf("qualifier %s is not lowered", q)}
	}
	f.bits = f.Vec * f.Type.Bits()
	f.signed = f.Type.Kind() == 's' && f.Vec == 1
	return f, nil
}

// sizeSuffix is the SASS .sz of an access: U8/S8/U16/S16, none, 64, 128.
func (f storeForm) sizeSuffix() string {
	switch f.bits {
	case 8, 16:
		if f.signed {
			return fmt.Sprintf(".S%d", f.bits)
		}
		return fmt.Sprintf(".U%d", f.bits)
	case 64, 128:
		return fmt.Sprintf(".%d", f.bits)
	}
	return ""
}

// LowerStore returns the SASS instructions (opcode and modifiers, as
// cuobjdump prints them) that ptxas emits for the PTX store in, for arch
// sm_50-sm_90, following ENCODING.md table T4. Stores that ptxas rejects
// give a *LowerError with ptxas's reason.
func LowerStore(in *ast.Instruction, arch string) ([]string, error) {
	t, err := parseLowerTarget(arch)
	if err != nil {
		return nil, err
	}
	f, err := decodeStore(in)
	if err != nil {
		return nil, err
	}
	if f.bits != 8 && f.bits != 16 && f.bits != 32 && f.bits != 64 && f.bits != 128 {
		return nil, &LowerError{Msg: fmt.Sprintf("a %d-bit store has no single SASS store", f.bits)}
	}
	if f.Type == isa.QB128 && t < target70 {
		return nil, &LowerError{Qual: ".b128", Msg: ".b128 needs sm_70 or later"}
	}
	if (strong(f) || f.Has(isa.QWeak) || f.Mmio || f.L1Evict != isa.QNone) && t < target70 {
		q := qualText(f)
		return nil, &LowerError{Qual: q, Msg: q + " needs sm_70 or later"}
	}
	if f.Scope == isa.QCluster && t < target90 {
		return nil, &LowerError{Qual: ".cluster", Msg: "Feature '.cluster scope' requires .target sm_90 or higher"}
	}
	if strong(f) && f.Scope == isa.QNone {
		return nil, &LowerError{Qual: f.Sem.String(), Msg: f.Sem.String() + " needs a scope (.cta, .cluster, .gpu or .sys)"}
	}
	if l2 := f.L2Evict.String(); l2 != "" {
		return nil, &LowerError{Qual: l2, Msg: "'.L1::eviction_priority' syntax expected before " + l2}
	}
	if f.CacheHint && t < target80 {
		return nil, &LowerError{Qual: ".L2::cache_hint", Msg: ".L2::cache_hint needs sm_80 or later"}
	}
	switch {
	case t == target100:
		return lowerBlackwell(f)
	case f.Has(isa.QAsync):
		return lowerAsync(f, t)
	case f.Space == isa.QLocal:
		return lowerLocal(f, t)
	case f.Space == isa.QSharedCta:
		return lowerShared(f, t)
	case f.Space == isa.QSharedCluster:
		if t < target90 {
			return nil, &LowerError{Qual: ".shared::cluster", Msg: ".shared::cluster needs sm_90"}
		}
		return []string{"ST.E" + f.sizeSuffix()}, nil
	}
	return lowerGlobal(f, t)
}

// lowerBlackwell covers the forms whose SASS the ptxas 13.0 words of
// vectors_sm90_sm120.tsv show for SM100-SM120: st.shared and st.local
// without memory-model or cache qualifiers (STS, STL), and st.global plain
// (STG.E), with .cs or .L1::evict_first (STG.E.EF) or .L1::no_allocate
// (STG.E.NA). Other forms are LowerErrors: no ptxas 13.0 output covers them.
func lowerBlackwell(f storeForm) ([]string, error) {
	plain := f.Written(isa.GSem) == isa.QNone && !f.Mmio && !f.CacheHint && f.Scope == isa.QNone && !f.Has(isa.QAsync)
	switch {
	case plain && f.Cop == isa.QNone && f.L1Evict == isa.QNone && f.Space == isa.QLocal:
		return []string{"STL" + f.sizeSuffix()}, nil
	case plain && f.Cop == isa.QNone && f.L1Evict == isa.QNone && f.Space == isa.QSharedCta:
		return []string{"STS" + f.sizeSuffix()}, nil
	case plain && f.Space == isa.QGlobal:
		if policy, ok := blackwellPolicy(f); ok {
			return []string{"STG.E" + policy + f.sizeSuffix()}, nil
		}
	}
	return nil, &LowerError{Uncovered: true, Msg: "no ptxas 13.0 output covers this form on Blackwell (lowered: plain st.shared, st.local, st.global, .cs, .L1::evict_first, .L1::no_allocate)"}
}

// blackwellPolicy returns the L1 policy of a plain st.global on Blackwell
// for the forms the ptxas 13.0 words show.
func blackwellPolicy(f storeForm) (string, bool) {
	switch {
	case f.Cop == isa.QNone && f.L1Evict == isa.QNone:
		return "", true
	case f.Cop == isa.QCs && f.L1Evict == isa.QNone, f.Cop == isa.QNone && f.L1Evict == isa.QL1EvictFirst:
		return ".EF", true
	case f.Cop == isa.QNone && f.L1Evict == isa.QL1NoAllocate:
		return ".NA", true
	}
	return "", false
}

// strong reports a .relaxed or .release store.
func strong(f storeForm) bool { return f.Sem == isa.QRelaxed || f.Sem == isa.QRelease }

// qualText names the qualifier that needs sm_70.
func qualText(f storeForm) string {
	switch {
	case f.Mmio:
		return ".mmio"
	case f.Written(isa.GSem) != isa.QNone:
		return f.Sem.String()
	case f.L1Evict != isa.QNone:
		return f.L1Evict.String()
	}
	return "the qualifier"
}

// lowerLocal: st.local is always STL; ptxas drops .cop (T4, §4).
func lowerLocal(f storeForm, t lowerTarget) ([]string, error) {
	switch {
	case f.Sem == isa.QVolatile || strong(f):
		return nil, &LowerError{Qual: f.Sem.String(), Msg: fmt.Sprintf("Modifier '%s' cannot be applied to '.local' space", f.Sem)}
	case f.Mmio:
		return nil, &LowerError{Qual: ".mmio", Msg: "Modifier '.mmio' cannot be applied to '.local' space"}
	}
	return []string{"STL" + f.sizeSuffix()}, nil
}

// lowerShared: st.shared is STS, whatever its memory-model qualifiers
// (T4, §4); .release adds the fences of releaseFences.
func lowerShared(f storeForm, t lowerTarget) ([]string, error) {
	return append(releaseFences(f, t), "STS"+f.sizeSuffix()), nil
}

// releaseFences returns the fences ptxas 12.5 puts before a st.release:
// MEMBAR.ALL.CTA for .cta; MEMBAR.ALL.GPU or .SYS then ERRBAR for wider
// scopes (.cluster is fenced as .gpu), preceded on sm_90 by MEMBAR.ALL.CTA.
func releaseFences(f storeForm, t lowerTarget) []string {
	if f.Sem != isa.QRelease {
		return nil
	}
	if f.Scope == isa.QCta {
		return []string{"MEMBAR.ALL.CTA"}
	}
	var out []string
	if t >= target90 {
		out = append(out, "MEMBAR.ALL.CTA")
	}
	scope := "GPU"
	if f.Scope == isa.QSys {
		scope = "SYS"
	}
	return append(out, "MEMBAR.ALL."+scope, "ERRBAR")
}

// lowerAsync: st.async is STAS on sm_90 (T4).
func lowerAsync(f storeForm, t lowerTarget) ([]string, error) {
	if t < target90 {
		return nil, &LowerError{Qual: ".async", Msg: "st.async needs sm_90"}
	}
	if f.bits < 32 {
		return nil, &LowerError{Msg: "st.async stores 32, 64 or 128 bits"}
	}
	return []string{"STAS" + f.sizeSuffix()}, nil
}

// lowerGlobal covers st.global (STG.E) and generic st (ST.E): the cache
// operator, L1 eviction priority and memory-model qualifiers become L1
// policies and .STRONG/.MMIO scopes (T4, §4).
func lowerGlobal(f storeForm, t lowerTarget) ([]string, error) {
	op := "STG.E"
	if f.Space == isa.QNone {
		op = "ST.E"
	}
	if t == target50 {
		return []string{op + maxwellCache(f) + f.sizeSuffix()}, nil
	}
	policy, strength, err := turingStrength(f, t)
	if err != nil {
		return nil, err
	}
	return append(releaseFences(f, t), op+policy+f.sizeSuffix()+strength), nil
}

// maxwellCache maps .cg/.cs/.wt and .volatile to SM5x cache suffixes.
func maxwellCache(f storeForm) string {
	switch {
	case f.Sem == isa.QVolatile || f.Cop == isa.QWt:
		return ".WT"
	case f.Cop == isa.QCg:
		return ".CG"
	case f.Cop == isa.QCs:
		return ".CS"
	}
	return ""
}

// l1Policies maps L1 eviction priorities to SASS L1 policies;
// .L1::evict_normal has none.
var l1Policies = map[isa.Qual]string{
	isa.QL1EvictFirst:     ".EF",
	isa.QL1EvictLast:      ".EL",
	isa.QL1EvictUnchanged: ".EU",
	isa.QL1NoAllocate:     ".NA",
}

// turingStrength returns the L1 policy and the strength/scope suffixes.
func turingStrength(f storeForm, t lowerTarget) (policy, strength string, err error) {
	sm := ".STRONG.SM"
	if t == target70 {
		sm = ".STRONG.CTA"
	}
	scope := map[isa.Qual]string{isa.QCta: sm, isa.QGpu: ".STRONG.GPU", isa.QSys: ".STRONG.SYS"}
	if t >= target90 {
		scope[isa.QCluster] = ".STRONG.GPU"
	}
	switch {
	case f.Mmio:
		if f.Sem != isa.QRelaxed || f.Scope != isa.QSys {
			return "", "", &LowerError{Qual: ".mmio", Msg: "st.mmio needs .relaxed.sys"}
		}
		strength = ".MMIO.SYS"
	case strong(f):
		s, ok := scope[f.Scope]
		if !ok {
			return "", "", &LowerError{Qual: f.Scope.String(), Msg: fmt.Sprintf("scope %s is not supported on this target", f.Scope)}
		}
		strength = s
	case f.Sem == isa.QVolatile || f.Cop == isa.QWt:
		strength = ".STRONG.SYS"
	case f.Cop == isa.QWb:
		strength = sm
	case f.Cop == isa.QCg:
		strength = ".STRONG.GPU"
	case f.Cop == isa.QCs:
		policy = ".EF"
	}
	if p, ok := l1Policies[f.L1Evict]; ok {
		policy = p
	}
	if t == target70 && strength == "" {
		strength = ".SYS"
	}
	if t == target70 && policy != "" && strength == ".STRONG.GPU" {
		strength = ".STRONG.SYS" // ptxas 12.5 widens a GPU-scope store with an L1 policy on sm_70
	}
	return policy, strength, nil
}

package sass

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// LowerError reports a PTX store that ptxas rejects for the target, or
// that the lowering table does not cover.
type LowerError struct {
	Qual string // the qualifier at fault ("" for the instruction)
	Msg  string
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
)

// parseLowerTarget maps sm_XX to the T4 column that covers it.
// CheckLowerTarget returns the error LowerStore gives for an unsupported
// target, so that callers can reject it before reading any input.
func CheckLowerTarget(arch string) error {
	_, err := parseLowerTarget(arch)
	return err
}

func parseLowerTarget(arch string) (lowerTarget, error) {
	a := strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(arch), "sm_"), "a")
	n, err := strconv.Atoi(a)
	if err != nil || n < 50 || n > 90 || a[0] == '+' || a[0] == '-' {
		return 0, fmt.Errorf("unsupported lowering target %q (want sm_50 to sm_90: the lowering follows sm_50, sm_70, sm_80 or sm_90)", clip(arch))
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

// storeForm is what the lowering needs from a PTX st instruction.
type storeForm struct {
	space  string // "local", "shared", "cluster", "global", "generic"
	async  bool
	sem    string // "", "weak", "volatile", "relaxed", "release", "mmio"
	scope  string // "", "cta", "cluster", "gpu", "sys"
	cop    string // "", "wb", "cg", "cs", "wt"
	l1     string // "", "evict_normal", "evict_first", "evict_last", "evict_unchanged", "no_allocate"
	l2hint bool   // .L2::cache_hint
	l2only string // an .L2::evict_* qualifier without an L1 one
	mmio   bool
	bits   int  // total access width in bits
	signed bool // .s8/.s16 scalar
	b128   bool
}

// parseStore collects the qualifiers of a PTX st instruction (PTX ISA
// "st", "st.async"; DIGEST §7).
func parseStore(in *ast.Instruction) (storeForm, error) {
	if in.Opcode != "st" {
		return storeForm{}, &LowerError{Msg: fmt.Sprintf("%s is not a store", in.FullOpcode())}
	}
	f := storeForm{space: "generic"}
	vec, width := 1, 0
	for _, q := range in.Quals {
		name := strings.TrimPrefix(q.Name, ".")
		switch {
		case name == "local" || name == "global":
			f.space = name
		case name == "shared" || name == "shared::cta":
			f.space = "shared"
		case name == "shared::cluster":
			f.space = "cluster"
		case name == "async":
			f.async = true
		case name == "weak" || name == "volatile" || name == "relaxed" || name == "release":
			f.sem = name
		case name == "mmio":
			f.mmio = true
		case name == "cta" || name == "cluster" || name == "gpu" || name == "sys":
			f.scope = name
		case name == "wb" || name == "cg" || name == "cs" || name == "wt":
			f.cop = name
		case strings.HasPrefix(name, "L1::"):
			f.l1 = strings.TrimPrefix(name, "L1::")
		case name == "L2::cache_hint":
			f.l2hint = true
		case strings.HasPrefix(name, "L2::"):
			f.l2only = name
		case name == "v2" || name == "v4" || name == "v8":
			vec = int(name[1] - '0')
		case strings.HasPrefix(name, "mbarrier::"):
		default:
			w, signed, ok := typeWidth(name)
			if !ok {
				return f, &LowerError{q.Name, fmt.Sprintf("qualifier %s is not lowered", q.Name)}
			}
			width, f.signed, f.b128 = w, signed, name == "b128"
		}
	}
	if width == 0 {
		return f, &LowerError{Msg: "store without a type"}
	}
	f.bits = vec * width
	f.signed = f.signed && vec == 1
	return f, nil
}

func typeWidth(t string) (int, bool, bool) {
	if len(t) < 2 {
		return 0, false, false
	}
	switch t {
	case "b128":
		return 128, false, true
	case "f16", "bf16":
		return 16, false, true
	case "f16x2", "bf16x2":
		return 32, false, true
	}
	var n int
	if _, err := fmt.Sscanf(t[1:], "%d", &n); err != nil || fmt.Sprint(n) != t[1:] {
		return 0, false, false
	}
	switch t[0] {
	case 'b', 'u', 'f':
		return n, false, n == 8 || n == 16 || n == 32 || n == 64
	case 's':
		return n, true, n == 8 || n == 16 || n == 32 || n == 64
	}
	return 0, false, false
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
	f, err := parseStore(in)
	if err != nil {
		return nil, err
	}
	if f.bits != 8 && f.bits != 16 && f.bits != 32 && f.bits != 64 && f.bits != 128 {
		return nil, &LowerError{Msg: fmt.Sprintf("a %d-bit store has no single SASS store", f.bits)}
	}
	if f.b128 && t < target70 {
		return nil, &LowerError{".b128", ".b128 needs sm_70 or later"}
	}
	if (f.sem == "relaxed" || f.sem == "release" || f.sem == "weak" || f.mmio || f.l1 != "") && t < target70 {
		return nil, &LowerError{"." + f.sem, fmt.Sprintf("%s needs sm_70 or later", qualText(f))}
	}
	if f.scope == "cluster" && t < target90 {
		return nil, &LowerError{".cluster", "Feature '.cluster scope' requires .target sm_90 or higher"}
	}
	if (f.sem == "relaxed" || f.sem == "release") && f.scope == "" {
		return nil, &LowerError{"." + f.sem, "." + f.sem + " needs a scope (.cta, .cluster, .gpu or .sys)"}
	}
	if f.l2only != "" {
		return nil, &LowerError{"." + f.l2only, "'.L1::eviction_priority' syntax expected before ." + f.l2only}
	}
	if f.l2hint && t < target80 {
		return nil, &LowerError{".L2::cache_hint", ".L2::cache_hint needs sm_80 or later"}
	}
	switch {
	case f.async:
		return lowerAsync(f, t)
	case f.space == "local":
		return lowerLocal(f, t)
	case f.space == "shared":
		return lowerShared(f, t)
	case f.space == "cluster":
		if t < target90 {
			return nil, &LowerError{".shared::cluster", ".shared::cluster needs sm_90"}
		}
		return []string{"ST.E" + f.sizeSuffix()}, nil
	}
	return lowerGlobal(f, t)
}

func qualText(f storeForm) string {
	switch {
	case f.mmio:
		return ".mmio"
	case f.sem != "":
		return "." + f.sem
	case f.l1 != "":
		return ".L1::" + f.l1
	}
	return "the qualifier"
}

// lowerLocal: st.local is always STL; ptxas drops .cop (T4, §4).
func lowerLocal(f storeForm, t lowerTarget) ([]string, error) {
	switch {
	case f.sem == "volatile" || f.sem == "relaxed" || f.sem == "release":
		return nil, &LowerError{"." + f.sem, fmt.Sprintf("Modifier '.%s' cannot be applied to '.local' space", f.sem)}
	case f.mmio:
		return nil, &LowerError{".mmio", "Modifier '.mmio' cannot be applied to '.local' space"}
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
	if f.sem != "release" {
		return nil
	}
	if f.scope == "cta" {
		return []string{"MEMBAR.ALL.CTA"}
	}
	var out []string
	if t >= target90 {
		out = append(out, "MEMBAR.ALL.CTA")
	}
	scope := "GPU"
	if f.scope == "sys" {
		scope = "SYS"
	}
	return append(out, "MEMBAR.ALL."+scope, "ERRBAR")
}

// lowerAsync: st.async is STAS on sm_90 (T4).
func lowerAsync(f storeForm, t lowerTarget) ([]string, error) {
	if t < target90 {
		return nil, &LowerError{".async", "st.async needs sm_90"}
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
	if f.space == "generic" {
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
	case f.sem == "volatile" || f.cop == "wt":
		return ".WT"
	case f.cop == "cg":
		return ".CG"
	case f.cop == "cs":
		return ".CS"
	}
	return ""
}

// turingStrength returns the L1 policy and the strength/scope suffixes.
func turingStrength(f storeForm, t lowerTarget) (policy, strength string, err error) {
	sm := ".STRONG.SM"
	if t == target70 {
		sm = ".STRONG.CTA"
	}
	scope := map[string]string{"cta": sm, "gpu": ".STRONG.GPU", "sys": ".STRONG.SYS"}
	if t >= target90 {
		scope["cluster"] = ".STRONG.GPU"
	}
	switch {
	case f.mmio:
		if f.sem != "relaxed" || f.scope != "sys" {
			return "", "", &LowerError{".mmio", "st.mmio needs .relaxed.sys"}
		}
		strength = ".MMIO.SYS"
	case f.sem == "relaxed" || f.sem == "release":
		s, ok := scope[f.scope]
		if !ok {
			return "", "", &LowerError{"." + f.scope, fmt.Sprintf("scope .%s is not supported on this target", f.scope)}
		}
		strength = s
	case f.sem == "volatile" || f.cop == "wt":
		strength = ".STRONG.SYS"
	case f.cop == "wb":
		strength = sm
	case f.cop == "cg":
		strength = ".STRONG.GPU"
	case f.cop == "cs":
		policy = ".EF"
	}
	switch f.l1 {
	case "evict_first":
		policy = ".EF"
	case "evict_last":
		policy = ".EL"
	case "evict_unchanged":
		policy = ".EU"
	case "no_allocate":
		policy = ".NA"
	}
	if t == target70 && strength == "" {
		strength = ".SYS"
	}
	if t == target70 && policy != "" && strength == ".STRONG.GPU" {
		strength = ".STRONG.SYS" // ptxas 12.5 widens a GPU-scope store with an L1 policy on sm_70
	}
	return policy, strength, nil
}

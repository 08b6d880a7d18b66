package check

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// This file generates random store instructions, valid and invalid, for
// the differential test against ptxas. Every instruction refers only to
// names that kernelHeader declares.

var genVersions = []string{"6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5",
	"7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5"}

var genTargets = []string{"sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
	"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}

// regTypes are the register types the header declares, eight of each:
// %Ru32_0 ... %Ru32_7.
var regTypes = []string{"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f16", "f16x2", "f32", "f64", "pred"}

// kernelHeader returns a module prologue and the number of its lines; the
// generated instructions follow it, and kernelFooter closes the kernel.
func kernelHeader(version, target string) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".version %s\n.target %s\n.address_size 64\n", version, target)
	b.WriteString(".global .b32 gb[64];\n.const .b32 cn[64];\n")
	b.WriteString(".visible .entry k(.param .u64 p)\n{\n")
	for _, t := range regTypes {
		if strings.HasPrefix(t, "f16") && !hasF16(target) {
			continue
		}
		fmt.Fprintf(&b, ".reg .%s %%R%s_<8>;\n", t, t)
	}
	if hasB128(version, target) {
		b.WriteString(".reg .b128 %Rb128_<8>;\n")
	}
	b.WriteString(".shared .align 16 .b32 sh[64];\n.local .align 16 .b32 lc[64];\n")
	b.WriteString(".reg .v4 .f32 vf4;\n.reg .v2 .b32 vb2;\n.reg .v4 .b32 vb4;\n.reg .v2 .b64 vd2;\n")
	return b.String()
}

// hasB128 reports whether .b128 registers can be declared (PTX 8.3, sm_70).
func hasB128(version, target string) bool {
	return version >= "8.3" && target >= "sm_70"
}

// hasF16 reports whether target has .f16 registers (sm_53 or higher).
func hasF16(target string) bool { return target != "sm_50" && target != "sm_52" }

const kernelFooter = "ret;\n}\n"

type gen struct {
	r       *rand.Rand
	version string
	b128    bool
	f16     bool
}

func (g *gen) pick(l ...string) string { return l[g.r.IntN(len(l))] }
func (g *gen) chance(p float64) bool   { return g.r.Float64() < p }

// reg returns a register of type t.
func (g *gen) reg(t string) string { return fmt.Sprintf("%%R%s_%d", t, g.r.IntN(8)) }

// anyRegType returns a declared register type.
func (g *gen) anyRegType() string {
	if g.b128 && g.chance(0.05) {
		return "b128"
	}
	for {
		t := regTypes[g.r.IntN(len(regTypes))]
		if g.f16 || !strings.HasPrefix(t, "f16") {
			return t
		}
	}
}

// instruction returns one random store instruction.
func (g *gen) instruction() string {
	switch n := g.r.IntN(100); {
	case n < 70:
		return g.st()
	case n < 92:
		return g.stAsync()
	default:
		return g.tcgen05()
	}
}

func (g *gen) shuffle(q []string) []string {
	if g.chance(0.25) {
		g.r.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	}
	return q
}

var stTypeNames = []string{"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"}

func (g *gen) st() string {
	var q []string
	sem := ""
	switch n := g.r.IntN(100); {
	case n < 12:
		sem = "weak"
	case n < 22:
		sem = "volatile"
	case n < 42:
		sem = "relaxed"
	case n < 57:
		sem = "release"
	}
	mmio := g.chance(0.08)
	if mmio {
		q = append(q, "mmio")
		if g.chance(0.8) {
			sem = "relaxed"
		}
	}
	if sem != "" {
		q = append(q, sem)
	}
	if (sem == "relaxed" || sem == "release") && g.chance(0.85) || g.chance(0.06) {
		if mmio && g.chance(0.8) {
			q = append(q, "sys")
		} else {
			q = append(q, g.pick("cta", "cluster", "gpu", "sys"))
		}
	}
	space := ""
	switch n := g.r.IntN(100); {
	case n < 35:
		space = "global"
	case n < 45:
		space = "shared"
	case n < 50:
		space = "shared::cta"
	case n < 55:
		space = "shared::cluster"
	case n < 65:
		space = "local"
	case n < 70:
		space = g.pick("param", "param::func", "param::entry")
	case n < 72:
		space = "const"
	}
	if space != "" {
		q = append(q, space)
	}
	if g.chance(0.12) {
		q = append(q, g.pick("wb", "cg", "cs", "wt", "ca", "lu"))
	}
	if g.chance(0.12) {
		q = append(q, g.pick("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate"))
	}
	if g.chance(0.03) {
		q = append(q, g.pick("L2::evict_normal", "L2::evict_first", "L2::evict_last"))
	}
	hint := g.chance(0.1)
	if hint {
		q = append(q, "L2::cache_hint")
	}
	vec := 1
	switch n := g.r.IntN(100); {
	case n < 15:
		vec = 2
	case n < 27:
		vec = 4
	case n < 30:
		vec = 8
	}
	if vec > 1 {
		q = append(q, fmt.Sprintf("v%d", vec))
	}
	typ := stTypeNames[g.r.IntN(len(stTypeNames))]
	if g.b128 && g.chance(0.08) {
		typ = "b128"
	}
	if g.chance(0.02) {
		typ = g.pick("f16", "f16x2", "pred")
		if !g.f16 {
			typ = "pred"
		}
	}
	q = append(q, typ)
	if g.chance(0.02) {
		q = append(q, g.pick("u32", "global", "v2", "relaxed", "cta"))
	}
	q = g.shuffle(q)
	ops := []string{g.address(space), g.value(typ, vec, true)}
	if hint && g.chance(0.93) || !hint && g.chance(0.03) {
		ops = append(ops, g.policyOperand())
	}
	guard := ""
	if g.chance(0.05) || strings.HasPrefix(space, "param") && g.chance(0.3) {
		guard = "@" + g.reg("pred") + " "
	}
	line := guard + "st." + strings.Join(q, ".") + " " + strings.Join(ops, ", ") + ";"
	if strings.HasPrefix(space, "param") && g.chance(0.5) {
		// A call-argument block on one line: st.param to a .param declared
		// in the block, which must not be predicated.
		ops[0] = "[carg" + g.pick("", "+4") + "]"
		line = "{ .param .align 8 .b8 carg[16]; " + guard + "st." + strings.Join(q, ".") + " " + strings.Join(ops, ", ") + "; }"
	}
	return line
}

// address returns an address operand, mostly one that suits space.
func (g *gen) address(space string) string {
	off := ""
	if g.chance(0.2) {
		off = g.pick("+4", "+-8", "+16", "+0", "+1024")
	}
	n := g.r.IntN(100)
	switch {
	case n < 55:
		return "[" + g.reg("b64") + off + "]"
	case n < 63:
		return "[" + g.reg(g.pick("u32", "b32", "s64", "u64")) + off + "]"
	case n < 66:
		return "[" + g.reg(g.pick("f32", "pred", "u16")) + "]"
	case n < 88:
		v := map[string]string{"global": "gb", "shared": "sh", "shared::cta": "sh", "shared::cluster": "sh",
			"local": "lc", "const": "cn", "": g.pick("gb", "sh", "lc")}[space]
		if v == "" || g.chance(0.1) {
			v = g.pick("gb", "sh", "lc", "cn", "p")
		}
		if g.chance(0.15) {
			return v + "[1]"
		}
		return "[" + v + off + "]"
	case n < 94:
		return g.pick("[100]", "[0]", "[256]")
	default:
		return g.reg("b64")
	}
}

// value returns a source operand for type typ and vector length vec.
// vectorRegs are the vector registers kernelHeader declares.
var vectorRegs = []string{"vf4", "vb2", "vb4", "vd2"}

func (g *gen) value(typ string, vec int, sinkOK bool) string {
	if g.chance(0.04) {
		// a whole vector register, or one component of it
		v := vectorRegs[g.r.IntN(len(vectorRegs))]
		if vec == 1 || g.chance(0.2) {
			return v + "." + g.pick("x", "y")
		}
		return v
	}
	if vec == 1 {
		if g.chance(0.03) {
			return "{" + g.element(typ) + "}"
		}
		return g.element(typ)
	}
	n := vec
	if g.chance(0.04) {
		n = g.pick2(vec/2, vec*2, 1)
	}
	rt := typ
	if g.chance(0.12) {
		rt = g.anyRegType()
	}
	var els []string
	for i := 0; i < n; i++ {
		switch {
		case sinkOK && g.chance(0.05):
			els = append(els, "_")
		case g.chance(0.04):
			els = append(els, g.pick("0", "7"))
		case g.chance(0.03):
			els = append(els, g.reg(g.anyRegType()))
		default:
			els = append(els, g.reg(regOf(rt)))
		}
	}
	return "{" + strings.Join(els, ", ") + "}"
}

func (g *gen) pick2(a ...int) int { return a[g.r.IntN(len(a))] }

// regOf maps an instruction type to a declared register type.
func regOf(t string) string {
	switch t {
	case "b128":
		return "b128"
	case "f16", "f16x2", "pred":
		return t
	}
	return t
}

func (g *gen) element(typ string) string {
	switch n := g.r.IntN(100); {
	case n < 72:
		return g.reg(regOf(typ))
	case n < 85:
		return g.reg(g.anyRegType())
	case n < 90:
		return g.pick("0", "-1", "255", "0x7fffffff")
	case n < 94:
		return g.pick("1.0", "0f3F800000", "0d3FF0000000000000")
	case n < 96:
		return g.pick("%tid.x", "%laneid")
	case n < 98:
		return g.pick("gb", "sh")
	default:
		return "_"
	}
}

func (g *gen) policyOperand() string {
	switch n := g.r.IntN(100); {
	case n < 75:
		return g.reg("b64")
	case n < 85:
		return g.reg(g.pick("u64", "s64", "b32", "u32", "f64"))
	default:
		return g.pick("0", "5")
	}
}

var asyncTypes = []string{"b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "b16", "u8"}

func (g *gen) stAsync() string {
	q := []string{"async"}
	release := g.chance(0.12)
	if release {
		if g.chance(0.2) {
			q = append(q, "mmio")
		}
		q = append(q, "release", g.pick("gpu", "sys", "cluster"))
		if g.chance(0.8) {
			q = append(q, "global")
		}
	} else {
		if g.chance(0.15) {
			q = append(q, "weak")
		}
		if g.chance(0.1) {
			q = append(q, g.pick("cluster", "cta", "gpu"))
		}
		switch n := g.r.IntN(100); {
		case n < 70:
			q = append(q, "shared::cluster")
		case n < 80:
			q = append(q, g.pick("shared", "shared::cta", "global"))
		}
		if g.chance(0.92) {
			q = append(q, "mbarrier::complete_tx::bytes")
		}
	}
	vec := 1
	if g.chance(0.3) {
		vec = g.pick2(2, 4)
		q = append(q, fmt.Sprintf("v%d", vec))
	}
	typ := asyncTypes[g.r.IntN(len(asyncTypes))]
	q = append(q, typ)
	if !g.chance(0.3) {
		// keep .async first most of the time, like real code
		q = append(q[:1], g.shuffle(q[1:])...)
	}
	addr := func() string {
		switch n := g.r.IntN(100); {
		case n < 60:
			return "[" + g.reg(g.pick("b32", "u32", "b64")) + g.pick("", "", "+8") + "]"
		case n < 75:
			return "[" + g.pick("sh", "gb", "lc") + "]"
		case n < 80:
			return "[64]"
		default:
			return "[" + g.reg("b64") + "]"
		}
	}
	ops := []string{addr(), g.value(typ, vec, false)}
	if !release && g.chance(0.95) || release && g.chance(0.1) {
		mbar := addr()
		if !strings.Contains(strings.Join(q, "."), "shared::cluster") && strings.Contains(mbar, "32") {
			// ptxas 12.5 crashes (SIGSEGV) on a generic st.async whose
			// mbarrier address is a 32-bit register.
			mbar = "[" + g.reg("b64") + "]"
		}
		ops = append(ops, mbar)
	}
	return "st." + strings.Join(q, ".") + " " + strings.Join(ops, ", ") + ";"
}

func (g *gen) tcgen05() string {
	shape := g.pick("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2")
	num := g.pick("x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128")
	q := []string{"st", "sync", "aligned", shape, num}
	if g.chance(0.3) {
		q = append(q, "unpack::16b")
	}
	q = append(q, "b32")
	n := 1
	fmt.Sscanf(num, "x%d", &n)
	var regs []string
	for i := 0; i < min(n, 8); i++ {
		regs = append(regs, g.reg("b32"))
	}
	ops := []string{"[" + g.reg("b32") + "]"}
	if shape == "16x32bx2" {
		ops = append(ops, "2")
	}
	ops = append(ops, "{"+strings.Join(regs, ", ")+"}")
	return "tcgen05." + strings.Join(q, ".") + " " + strings.Join(ops, ", ") + ";"
}

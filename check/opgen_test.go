package check

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
)

// This file generates random instructions of every class outside the
// store family, from the forms of isa/data/instructions.txt, valid and
// mutated (wrong operand count, register class or width, type, missing or
// forbidden qualifier, unknown opcode, immediate where a register is
// required, a predicate pair p|q where one predicate is written; too-new
// features come from the random version and target of each batch), and
// compares the checker's per-line verdict with ptxas.
//
// Forms whose operands are not described (x*) are generated only with
// mutations both sides must reject whatever the operands are: an unknown
// opcode or qualifier, or a form too new for the batch's target.

type opCase struct {
	class, mutation, line string
}

type opGen struct {
	r       *rand.Rand
	version isa.Version
	target  isa.Target
	b128    bool
	f16     bool
	forms   []*isa.OpForm
	quals   []isa.Qual // every qualifier spelling, for forbidden-qualifier mutations
}

func newOpGen(r *rand.Rand, v, tg string, class string) *opGen {
	pv, _ := isa.ParseVersion(v)
	pt, _ := isa.ParseTarget(tg)
	g := &opGen{r: r, version: pv, target: pt, b128: hasB128(v, tg), f16: hasF16(tg), forms: classForms(class)}
	for _, f := range g.forms {
		for _, s := range f.Slots {
			g.quals = append(g.quals, s.Values...)
		}
	}
	return g
}

func (g *opGen) chance(p float64) bool { return g.r.Float64() < p }

// classForms returns the forms of class ("" for every class).
func classForms(class string) []*isa.OpForm {
	all := isa.AllForms()
	if class == "" {
		return all
	}
	var l []*isa.OpForm
	for _, f := range all {
		if f.Class() == class {
			l = append(l, f)
		}
	}
	return l
}

// regFor returns a declared register of type t of width bits (a bit-size
// register when no register of t is declared).
func (g *opGen) regFor(t isa.Qual, bits int) string {
	name := strings.TrimPrefix(t.String(), ".")
	if bits != t.Bits() || !slices.Contains(regTypes, name) || strings.HasPrefix(name, "f16") && !g.f16 {
		name = "b" + strconv.Itoa(bits)
		if bits == 1 {
			name = "pred"
		}
		if bits < 8 || bits > 64 && !(bits == 128 && g.b128) {
			name = "b32"
		}
	}
	if name == "b8" && g.chance(0.5) {
		name = "b16" // b8 registers are rare; ld.u8 into 16 bits is usual
	}
	return fmt.Sprintf("%%R%s_%d", name, g.r.IntN(8))
}

// immFor returns a constant of type t, or "" when t takes none.
func immFor(r *rand.Rand, t isa.Qual, limit int64) string {
	switch {
	case t == isa.QF32:
		return "0f3F800000"
	case t == isa.QF64:
		return "0d3FF0000000000000"
	case t.Kind() == 'f' || t.Kind() == 'x' || t == isa.QU16x2 || t == isa.QS16x2:
		return ""
	}
	if limit > 0 {
		return strconv.FormatInt(r.Int64N(limit), 10)
	}
	return strconv.Itoa(r.IntN(64))
}

// instance builds a valid-looking instruction of form f: its qualifiers
// and operands, or ok false when the form's operands are not described.
func (g *opGen) instance(f *isa.OpForm) (quals []string, ops []string, types []isa.Qual, ok bool) {
	parts := strings.Split(f.Name, ".")
	for _, p := range parts[1:] {
		quals = append(quals, "."+p)
	}
	for _, o := range f.Order {
		if o < 0 {
			quals = append(quals, f.Fixed[-int(o)-1].String())
			continue
		}
		s := &f.Slots[o]
		v := s.Values[g.r.IntN(len(s.Values))]
		switch s.Kind {
		case isa.SlotOpt:
			if g.chance(0.6) {
				continue
			}
		case isa.SlotAny:
			continue
		case isa.SlotType:
			for tries := 0; tries < 8 && v.Kind() == 'f' && v.Bits() == 16 && !g.f16; tries++ {
				v = s.Values[g.r.IntN(len(s.Values))]
			}
			types = append(types, v)
		}
		quals = append(quals, v.String())
	}
	if f.AnyOperands {
		return quals, nil, types, false
	}
	var d isa.OpDecode
	lq := isa.LookupQuals(quals, nil)
	isa.DecodeOp(f.Opcode, quals, lq, -1, &d, nil)
	if d.Form != f {
		return quals, nil, types, false // an earlier form reads the same qualifiers
	}
	vec := vecLen(&d)
	space := ""
	for _, q := range quals {
		switch q {
		case ".param", ".param::entry", ".param::func":
			space = "p"
		case ".const":
			space = "cn"
		case ".local":
			space = "lc"
		case ".shared", ".shared::cta", ".shared::cluster":
			space = "sh"
		}
	}
	for i := range f.Operands {
		s := &f.Operands[i]
		if s.Optional && g.chance(0.5) {
			break
		}
		ops = append(ops, g.operand(f, &d, s, vec, space))
	}
	return quals, ops, types, true
}

func (g *opGen) operand(f *isa.OpForm, d *isa.OpDecode, s *isa.OperandSpec, vec int, space string) string {
	switch s.Kind {
	case isa.OpdLabel:
		return labelFor(f)
	case isa.OpdMem:
		if f.Opcode != "cp" && (space != "" && g.chance(0.5) || space == "p" || space == "cn") {
			return "[" + space + "]"
		}
		return fmt.Sprintf("[%%Ru64_%d]", g.r.IntN(8))
	case isa.OpdPredDst:
		if s.Pair && g.chance(0.3) {
			return fmt.Sprintf("%%Rpred_%d|%%Rpred_%d", g.r.IntN(8), g.r.IntN(8))
		}
		return fmt.Sprintf("%%Rpred_%d", g.r.IntN(8))
	case isa.OpdPredSrc:
		if g.chance(0.3) {
			return fmt.Sprintf("!%%Rpred_%d", g.r.IntN(8))
		}
		return fmt.Sprintf("%%Rpred_%d", g.r.IntN(8))
	case isa.OpdImm:
		lim := s.Limit
		if lim == 0 {
			lim = 4
		}
		switch f.Opcode {
		case "fence":
			return "128"
		case "setmaxnreg":
			return strconv.Itoa(24 + 8*g.r.IntN(30))
		case "alloca":
			return strconv.Itoa(1 << g.r.IntN(5))
		}
		return strconv.FormatInt(g.r.Int64N(lim), 10)
	case isa.OpdAny:
		return "%Ru32_0"
	}
	t, bits := wantType(d, s)
	if (f.Opcode == "bar" || f.Opcode == "barrier") && s.Name == "b" {
		return strconv.Itoa(32 * (1 + g.r.IntN(4)))
	}
	if t == isa.QPred && s.Kind != isa.OpdDst && g.chance(0.3) {
		return "!" + g.regFor(t, bits) // and.pred, mov.pred: a negated source
	}
	if s.Kind == isa.OpdDst && vec > 1 {
		l := make([]string, vec)
		for i := range l {
			l[i] = g.regFor(t, bits)
		}
		return "{" + strings.Join(l, ", ") + "}"
	}
	if (s.Kind == isa.OpdSrc || s.Kind == isa.OpdMovSrc) && g.chance(0.25) {
		if imm := immFor(g.r, t, s.Limit); imm != "" {
			return imm
		}
	}
	if s.Limit > 0 {
		return strconv.FormatInt(g.r.Int64N(s.Limit), 10)
	}
	return g.regFor(t, bits)
}

var opMutations = []string{"valid", "valid", "valid", "count", "regclass", "type", "missing", "forbidden", "opcode", "immdst"}

// instruction returns one random case.
func (g *opGen) instruction() opCase {
	f := g.forms[g.r.IntN(len(g.forms))]
	quals, ops, types, ok := g.instance(f)
	class := f.Class()
	mut := opMutations[g.r.IntN(len(opMutations))]
	opcode := f.Opcode
	if !ok {
		// operands not described: only mutations that fail whatever they are
		mut = g.pickStr("opcode", "unknownqual", "valid-gated")
		if mut == "valid-gated" && f.PTX <= g.version && f.Arch.Allows(g.target, g.version) {
			mut = "opcode"
		}
	}
	if p := predDst(f, ops); mut == "valid" && p >= 0 && g.chance(0.2) {
		// a second predicate: valid only where the form writes p|q
		mut = "predpair"
		ops[p] += fmt.Sprintf("|%%Rpred_%d", g.r.IntN(8))
	}
	switch mut {
	case "count":
		if len(ops) > 0 && g.chance(0.5) {
			ops = ops[:len(ops)-1]
		} else {
			ops = append(ops, fmt.Sprintf("%%Ru32_%d", g.r.IntN(8)))
		}
	case "regclass":
		var regs []int
		for i, o := range ops {
			if strings.HasPrefix(o, "%R") {
				regs = append(regs, i)
			}
		}
		if len(regs) == 0 {
			mut = "valid"
			break
		}
		i := regs[g.r.IntN(len(regs))]
		classes := []string{"b16", "b32", "b64", "f32", "f64", "pred", "u16", "s64"}
		if g.f16 {
			// ptxas reads a .f16x2 register as 32 integer bits in some
			// integer operands and not in others, and as a predicate
			// where a .pred type qualifier types the operand.
			classes = append(classes, "f16", "f16x2", "f16x2")
		}
		ops[i] = fmt.Sprintf("%%R%s_%d", g.pickStr(classes...), g.r.IntN(8))
	case "type":
		var ti []int
		for i, q := range quals {
			if isa.TypeByName(q) != isa.QNone {
				ti = append(ti, i)
			}
		}
		if len(ti) == 0 {
			mut = "valid"
			break
		}
		quals[ti[g.r.IntN(len(ti))]] = g.pickStr(".u8", ".s16", ".u32", ".s32", ".b32", ".u64", ".b64", ".f32", ".f64", ".f16", ".pred", ".b16",
			".f16x2", ".bf16", ".bf16x2")
	case "missing":
		if len(quals) == 0 {
			mut = "valid"
			break
		}
		i := g.r.IntN(len(quals))
		quals = append(quals[:i:i], quals[i+1:]...)
	case "forbidden":
		q := g.quals[g.r.IntN(len(g.quals))]
		i := g.r.IntN(len(quals) + 1)
		quals = slices.Insert(slices.Clone(quals), i, q.String())
	case "unknownqual":
		quals = append(quals, g.pickStr(".foo", ".rnd", ".u33", ".sync2"))
	case "opcode":
		opcode = g.pickStr(opcode+"x", opcode+"d", "x"+opcode)
	case "immdst":
		// ptxas 12.5 crashes on a constant createpolicy destination, and
		// on a constant video destination before sm_70.
		if len(ops) == 0 || !strings.HasPrefix(ops[0], "%R") || opcode == "createpolicy" ||
			isa.VideoFamilyOf(opcode) != isa.NotVideo && g.target.SM < 70 {
			mut = "valid"
			break
		}
		ops[0] = "1"
	}
	_ = types
	if fam := isa.VideoFamilyOf(f.Opcode); ok && fam != isa.NotVideo && mut != "opcode" {
		if g.chance(0.3) && mut == "valid" {
			mut = "selector"
		}
		ops = g.videoSelectors(fam, quals, ops, mut == "selector")
	} else if ok && mut == "valid" && g.chance(0.02) {
		// a selector on an instruction that is not a video instruction
		for i, o := range ops {
			if strings.HasPrefix(o, "%R") && !strings.HasPrefix(o, "%Rpred") {
				ops[i] = o + "." + g.pickStr("b0", "h1", "h10", "b3210")
				mut = "selector"
				break
			}
		}
	}
	if g.target.SM >= 90 && atomCrash(opcode, quals, ops) {
		ops = ops[:3]
	}
	line := opcode + strings.Join(quals, "")
	if len(ops) > 0 {
		line += " " + strings.Join(ops, ", ")
	}
	return opCase{class: class, mutation: mut, line: line + ";"}
}

func (g *opGen) pickStr(l ...string) string { return l[g.r.IntN(len(l))] }

// atomCrash reports an atom that may crash ptxas 12.5 (SIGSEGV) for
// sm_90: .and, .or, .xor or .exch on .b32 with a shared state space and a
// fourth operand (.shared and .shared::cta always, .shared::cluster on a
// shared variable's address). It takes them on .global and generic
// addresses, and for older targets in every state space.
func atomCrash(opcode string, quals, ops []string) bool {
	if opcode != "atom" || len(ops) != 4 || !slices.Contains(quals, ".b32") {
		return false
	}
	shared := slices.ContainsFunc(quals, func(q string) bool { return strings.HasPrefix(q, ".shared") })
	bitwise := slices.ContainsFunc(quals, func(q string) bool { return q == ".and" || q == ".or" || q == ".xor" || q == ".exch" })
	return shared && bitwise
}

// videoSelectors gives register operands of a video instruction of
// family fam random selectors: ones their role takes (PTX ISA 9.7.19,
// 9.7.20), and with bad one selector its role does not take. The byte
// pairs .b01, .b12 and .b23 go only on a scalar destination for sm_70
// and later: elsewhere ptxas 12.5 stops with a fatal error in its own
// built-in code, at a line of that code.
func (g *opGen) videoSelectors(fam isa.VideoFamily, quals, ops []string, bad bool) []string {
	merge := len(ops) == 4
	for _, q := range quals {
		switch isa.LookupQual(q) {
		case isa.QAdd, isa.QMin, isa.QMax:
			merge = merge && fam.SIMD()
		}
	}
	var regs []int
	for i, o := range ops {
		if strings.HasPrefix(strings.TrimPrefix(o, "-"), "%R") {
			regs = append(regs, i)
		}
	}
	for _, i := range regs {
		if role := fam.Role(i); role != isa.VideoNoSel && (role != isa.VideoScalarDst || merge) && g.chance(0.5) {
			ops[i] += "." + g.validSel(role)
		}
	}
	if bad && len(regs) > 0 {
		i := regs[g.r.IntN(len(regs))]
		ops[i] = strings.SplitN(ops[i], ".", 2)[0] + "." + g.invalidSel(fam.Role(i), merge)
	}
	return ops
}

// validSel returns a random selector that role r takes.
func (g *opGen) validSel(r isa.VideoRole) string {
	digits := func(n, lim int) string {
		var b []byte
		for range n {
			b = append(b, byte('0'+g.r.IntN(lim)))
		}
		return string(b)
	}
	switch r {
	case isa.VideoScalarSrc:
		return g.pickStr("b0", "b1", "b2", "b3", "h0", "h1")
	case isa.VideoScalarDst:
		if g.target.SM >= 70 && g.chance(0.1) {
			return g.pickStr("b01", "b12", "b23")
		}
		return g.pickStr("b0", "b1", "b2", "b3", "h0", "h1")
	case isa.VideoSIMD2Src:
		return "h" + digits(2, 4)
	case isa.VideoSIMD4Src:
		if s := "b" + digits(4, 8); s != "b1024" {
			return s
		}
		return "b3210" // b1024 is no selector for ptxas 12.5 (ast.IsSelector)
	case isa.VideoSIMD2Mask:
		return g.pickStr("h0", "h1", "h10")
	}
	var b []byte // a SIMD4 mask: lanes in decreasing order
	for l := 3; l >= 0; l-- {
		if g.chance(0.5) {
			b = append(b, byte('0'+l))
		}
	}
	if len(b) == 0 {
		b = append(b, '0'+byte(g.r.IntN(4)))
	}
	return "b" + string(b)
}

// invalidSel returns a selector that role r does not take (with merge
// false, any selector on a scalar destination). Never ".b", ".h" or more
// than four digits: the first is a vector component and the others no
// selector at all, and the resolution or syntax error each causes stops
// the checks of the rest of the batch's kernel.
func (g *opGen) invalidSel(r isa.VideoRole, merge bool) string {
	if r == isa.VideoScalarDst && !merge || r == isa.VideoNoSel {
		return g.pickStr("b0", "h1", "h10", "b3210")
	}
	wrong := map[isa.VideoRole][]string{
		isa.VideoScalarSrc: {"b4", "h2", "h10", "b3210", "b00", "b10", "h01"},
		isa.VideoScalarDst: {"b4", "h2", "h10", "b3210", "b02", "b10", "h01"},
		isa.VideoSIMD2Src:  {"h0", "h4", "h123", "b3210", "h1", "b10"},
		isa.VideoSIMD4Src:  {"b0", "b210", "b8210", "h10", "b765"},
		isa.VideoSIMD2Mask: {"h01", "h32", "b0", "h11", "h2"},
		isa.VideoSIMD4Mask: {"b01", "b0123", "b4", "b33", "b7654", "h10"},
	}[r]
	return wrong[g.r.IntN(len(wrong))]
}

// predDst returns the index in ops of form f's predicate destination
// when it is a single predicate, or -1.
func predDst(f *isa.OpForm, ops []string) int {
	for i := range f.Operands {
		if i < len(ops) && f.Operands[i].Kind == isa.OpdPredDst && !strings.Contains(ops[i], "|") {
			return i
		}
	}
	return -1
}

// opBatches returns n cases in batches sharing a version and target.
func opBatches(seed uint64, n int, maxPTX, class string) []struct {
	version, target string
	cases           []opCase
} {
	r := rand.New(rand.NewPCG(seed, 0x09ca5e))
	var out []struct {
		version, target string
		cases           []opCase
	}
	for n > 0 {
		var v, tg string
		for {
			v = genVersions[r.IntN(len(genVersions))]
			tg = genTargets[r.IntN(len(genTargets))]
			if v > maxPTX || r.IntN(100) < 60 && (v < "7.8" || tg < "sm_80") {
				continue
			}
			pv, _ := isa.ParseVersion(v)
			pt, _ := isa.ParseTarget(tg)
			if isa.TargetValid(pt, pv) == nil {
				break
			}
		}
		g := newOpGen(r, v, tg, class)
		k := min(n, 300)
		b := make([]opCase, k)
		for i := range b {
			b[i] = g.instruction()
		}
		out = append(out, struct {
			version, target string
			cases           []opCase
		}{v, tg, b})
		n -= k
	}
	return out
}

// laterISAMessage finds the PTX ISA version a diagnostic says a feature
// needs.
var laterISAMessage = regexp.MustCompile(`requires PTX ISA (?:\.version )?([0-9]+\.[0-9]+)`)

// laterISA reports whether ptxkit rejects line ln because its feature
// needs a PTX ISA version newer than maxPTX, the newest the ptxas under
// test knows: that ptxas predates the feature, so its acceptance does not
// rule on it (ptxas 11.8 takes fma's .oob, PTX ISA 8.1, in a PTX 7.6
// file; 12.5 rejects it).
func laterISA(l diag.List, ln int, maxPTX string) bool {
	max, _ := isa.ParseVersion(maxPTX)
	for _, d := range l {
		if int(d.Pos.Line) != ln || d.Severity != diag.Error {
			continue
		}
		if m := laterISAMessage.FindStringSubmatch(d.Message); m != nil {
			if v, err := isa.ParseVersion(m[1]); err == nil && v > max {
				return true
			}
		}
	}
	return false
}

// skipped reports whether line ln has a diagnostic of one of rules.
func skipped(l diag.List, ln int, rules []string) bool {
	for _, d := range l {
		if int(d.Pos.Line) == ln && slices.Contains(rules, d.Rule) {
			return true
		}
	}
	return false
}

// opKernelHeader is kernelHeader with a label for branches.
func opKernelHeader(v, tg string) string {
	return kernelHeader(v, tg) + ".reg .b32 %r<2>;\nGL:\nBT: .branchtargets GL;\n"
}

// acceptedOnly blanks the n case lines of src from line first on that
// ours marks as errors.
func acceptedOnly(src string, first, n int, ours map[int]bool) string {
	l := strings.Split(src, "\n")
	for ln := first; ln < first+n; ln++ {
		if ours[ln] {
			l[ln-1] = ""
		}
	}
	return strings.Join(l, "\n")
}

// labelFor returns the label operand of form f.
func labelFor(f *isa.OpForm) string {
	if f.Opcode == "brx" {
		return "BT"
	}
	return "GL"
}

// TestPtxasAgreementAll compares the checker with ptxas 12.5 on random
// instructions of every class outside the store family.
// PTXKIT_OPDIFF_CASES sets the number of cases (default 3000),
// PTXKIT_OPDIFF_SEED the seed (default 1), PTXKIT_OPDIFF_CLASS one class
// to draw the forms from (a class name of isa/data/instructions.txt, such
// as half-comparison).
func TestPtxasAgreementAll(t *testing.T) {
	testOpAgreement(t, "12.5", "8.5", 3000)
}

// TestPtxas118AgreementAll is the same against ptxas 11.8 (PTX <= 7.8).
// ptxas 11.8 rejects some qualifiers that ptxas 12.5 accepts and ignores
// (neg.pred.f64) and accepts cvta.u32 in a module with .address_size 64,
// which 12.5 rejects; the checker follows 12.5, so lines on which it
// reports ignored-qualifier or address-size are left out of this comparison.
func TestPtxas118AgreementAll(t *testing.T) {
	testOpAgreement(t, "11.8", "7.8", 600, "ignored-qualifier", "address-size")
}

func testOpAgreement(t *testing.T, cuda, maxPTX string, n int, skipRule ...string) {
	ptxas := ptxasPath(cuda)
	if ptxas == "" {
		t.Skipf("ptxas %s: %s", cuda, oracle.SkipMessage)
	}
	seed := uint64(1)
	if s := os.Getenv("PTXKIT_OPDIFF_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("PTXKIT_OPDIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	if testing.Short() {
		n = min(n, 300)
	}
	dir := t.TempDir()
	type tally struct{ agree, total, valid int }
	byClass := map[string]*tally{}
	total, agree := 0, 0
	var bad []string
	class := os.Getenv("PTXKIT_OPDIFF_CLASS")
	if class != "" && len(classForms(class)) == 0 {
		t.Fatalf("PTXKIT_OPDIFF_CLASS=%s: no forms of that class", class)
	}
	for _, b := range opBatches(seed, n, maxPTX, class) {
		header := opKernelHeader(b.version, b.target)
		first := strings.Count(header, "\n") + 1
		var body strings.Builder
		for _, c := range b.cases {
			body.WriteString(c.line + "\n")
		}
		if l := ptxasErrorLines(t, ptxas, dir, b.target, header+kernelFooter); len(l) > 0 {
			t.Fatalf("the test kernel does not assemble for PTX %s %s: lines %v", b.version, b.target, l)
		}
		src := header + body.String() + kernelFooter
		// A batch on which ptxas crashes is decided line by line.
		theirs, batchCrashed := ptxasVerdicts(t, ptxas, dir, b.target, src)
		ours, diags := ourErrorLines(src, "")
		if !batchCrashed && len(theirs) > 0 {
			// ptxas stops before its later checks (32-bit addresses) when a
			// file has errors: the lines ptxkit accepts are assembled again
			// on their own.
			again, crashed := ptxasVerdicts(t, ptxas, dir, b.target, acceptedOnly(src, first, len(b.cases), ours))
			batchCrashed = crashed
			for ln := range again {
				theirs[ln] = true
			}
		}
		for i, c := range b.cases {
			ln := first + i
			if skipped(diags, ln, skipRule) {
				continue
			}
			want := theirs[ln]
			if want != ours[ln] || batchCrashed {
				single := header + c.line + "\n" + kernelFooter
				lines, crashed := ptxasVerdicts(t, ptxas, dir, b.target, single)
				if crashed && !lines[first] {
					t.Errorf("ptxas %s crashed on %s (PTX %s %s); the generator must avoid it", cuda, c.line, b.version, b.target)
					continue
				}
				want = lines[first]
			}
			if !want && ours[ln] && laterISA(diags, ln, maxPTX) {
				continue
			}
			tl := byClass[c.class]
			if tl == nil {
				tl = &tally{}
				byClass[c.class] = tl
			}
			tl.total++
			total++
			if !want {
				tl.valid++
			}
			if want == ours[ln] {
				tl.agree++
				agree++
				continue
			}
			var msgs []string
			for _, d := range diags {
				if int(d.Pos.Line) == ln && d.Severity == diag.Error {
					msgs = append(msgs, d.Message)
				}
			}
			bad = append(bad, fmt.Sprintf("[%s/%s] PTX %s %s: %s\n\tptxas error=%v, ptxkit error=%v %q",
				c.class, c.mutation, b.version, b.target, c.line, want, ours[ln], msgs))
		}
	}
	var classes []string
	for k := range byClass {
		classes = append(classes, k)
	}
	slices.Sort(classes)
	t.Logf("agreement with ptxas %s: %d/%d (%.2f%%), seed %d", cuda, agree, total, 100*float64(agree)/float64(max(total, 1)), seed)
	for _, k := range classes {
		tl := byClass[k]
		t.Logf("  %-20s %5d/%-5d (%d valid)", k, tl.agree, tl.total, tl.valid)
	}
	for i, b := range bad {
		if i == 60 {
			t.Errorf("... and %d more disagreements", len(bad)-60)
			break
		}
		t.Error(b)
	}
}

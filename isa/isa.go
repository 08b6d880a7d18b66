// Package isa describes PTX instructions as data: for each instruction its
// qualifier groups and their values, defaults, the rules that combine them,
// the PTX ISA version and targets each feature needs, and its operands.
//
// The tables are read by the validator (package check), by `ptxkit explain`,
// and by the emulator and the SASS lowering, which use the decoded Form
// rather than qualifier strings:
//
//	in := isa.Lookup("st")
//	f, probs := isa.DecodeString("st.global.relaxed.gpu.v4.u32")
//	// f.Space == isa.QGlobal, f.Sem == isa.QRelaxed, f.Vec == 4, f.Type == isa.QU32
//
// Qualifier order is free, as in NVIDIA's ptxas: real code ships orders the
// grammar does not list (st.L1::no_allocate.relaxed.sys.global.u64), and
// ptxas 12.5 accepts them all. Each qualifier fills one grammar slot
// (Group); two qualifiers of one slot are an error.
package isa

import (
	"sort"
	"strings"
)

// Instr describes one instruction: st, st.async, tcgen05.st.
type Instr struct {
	Name    string // full name: "st.async"
	Opcode  string // text before the first dot: "st"
	SubOp   Qual   // the qualifier that selects this instruction (QAsync), or QNone
	Section string // spec section, e.g. "PTX ISA 9.7.9.11 (st)"
	Summary string

	// Groups lists the qualifier slots the instruction accepts, with their
	// values, in the order of the grammar.
	Groups []GroupSpec

	// Features gate qualifiers and combinations by PTX ISA version and
	// target ("PTX ISA Notes", "Target ISA Notes"). The first feature is
	// usually the instruction itself.
	Features []Feature

	// Rules are the constraints between qualifiers the page states.
	Rules []Rule

	// operands returns the operand list of a decoded form.
	operands func(f *Form) []Operand

	// finish fills in defaults after decoding (.weak, .shared::cta, ...).
	finish func(f *Form)

	// allowed[q] reports that q fills one of Groups (precomputed).
	allowed [numQuals]bool
}

// GroupSpec is one qualifier slot of an instruction's grammar.
type GroupSpec struct {
	Group    Group
	Values   []Qual
	Required bool   // the slot must be filled
	Default  Qual   // value assumed when absent (QNone: none)
	Doc      string // what the slot means

	// Ptxas13Optional: ptxas 13.0 accepts the instruction without this
	// required slot (the page's syntax requires it).
	Ptxas13Optional bool
}

// Feature is a part of an instruction that needs a minimum PTX ISA version
// and target.
type Feature struct {
	Name string           // as ptxas names it: ".cluster scope", "::cta", ".b128 with .sys"
	Qual Qual             // the feature is used when this qualifier is present...
	When func(*Form) bool // ...or when this predicate holds (Qual == QNone)
	At   Group            // the qualifier to point at (GNone: the opcode)
	PTX  Version          // minimum PTX ISA version (0: none)
	Arch Arch             // target requirement
}

// Uses reports whether form f uses the feature.
func (ft *Feature) Uses(f *Form) bool {
	if ft.Qual != QNone {
		return f.Has(ft.Qual)
	}
	return ft.When == nil || ft.When(f)
}

// Rule is a constraint between qualifiers.
type Rule struct {
	ID   string           // stable id, e.g. "st-sem-scope"
	Spec string           // section
	Bad  func(*Form) bool // reports a violation
	At   Group            // the qualifier to point at (GNone: the opcode)
	Msg  func(*Form) string
	Fix  string

	// Ptxas13 reports, for a form the rule rejects, whether ptxas 13.0
	// accepts it although the page forbids it (nil: never). The validator
	// then follows ptxas 13.0 where it decides (PTX ISA 8.6 and later) and
	// warns instead of rejecting; docs/ptxas-differences.md lists each.
	Ptxas13 func(*Form) bool
	// Ptxas13Operands, when not 0, limits that leniency to the
	// instruction written with exactly this many operands (st.async
	// without its mbarrier operand accepts 16-bit types; the
	// three-operand form does not).
	Ptxas13Operands int
}

// OperandKind classifies an operand slot.
type OperandKind uint8

const (
	OpAddress   OperandKind = iota // [a]: a destination address in Form.Space
	OpValue                        // b: a register, vector of registers or immediate of Form.Type
	OpPolicy                       // cache-policy: a 64-bit register or immediate
	OpMbarrier                     // [mbar]: an mbarrier object address
	OpImm                          // an immediate integer (tcgen05 half-split offset)
	OpRegVector                    // {r...}: exactly Count 32-bit registers
)

// Operand is one operand slot of a decoded form.
type Operand struct {
	Name string
	Kind OperandKind
}

// Form is a decoded instruction: every qualifier slot as a small integer,
// with defaults applied. The emulator and the SASS lowering read Forms.
type Form struct {
	Instr *Instr

	Sem       Qual // .weak (default), .volatile, .relaxed, .release
	Mmio      bool
	Scope     Qual // QNone when absent
	Space     Qual // as defaulted: .shared is QSharedCta, .param is QParamFunc; QNone is generic
	Cop       Qual
	L1Evict   Qual
	L2Evict   Qual
	CacheHint bool
	Vec       int  // 1 for a scalar
	Type      Qual // instruction type
	Complete  Qual // completion mechanism (st.async)
	Sync      bool
	Aligned   bool
	Shape     Qual // tcgen05 .shape
	Num       int  // tcgen05 .num repeat factor
	Unpack    bool

	// Quals are the decoded qualifiers in source order (unknown ones are
	// QNone); At[g] is the index in Quals of the qualifier filling group
	// g, or -1.
	Quals []Qual
	At    [NumGroups]int8
}

// Has reports whether q was written.
func (f *Form) Has(q Qual) bool {
	g := q.Group()
	return f.At[g] >= 0 && f.Quals[f.At[g]] == q
}

// Written returns the qualifier written for group g, or QNone.
func (f *Form) Written(g Group) Qual {
	if f.At[g] < 0 {
		return QNone
	}
	return f.Quals[f.At[g]]
}

// Bytes returns the number of bytes one execution moves per thread
// (elements × element size); for tcgen05.st the register bytes.
func (f *Form) Bytes() int {
	if f.Instr != nil && f.Instr.Name == "tcgen05.st" {
		return 4 * TMemRegs(f.Shape, f.Num)
	}
	return f.Vec * f.Type.Bytes()
}

// Operands returns the operand slots of f, in source order.
func (f *Form) Operands() []Operand {
	if f.Instr == nil || f.Instr.operands == nil {
		return nil
	}
	return f.Instr.operands(f)
}

// Problem is a violation found while decoding or checking a form.
// Qual is the index of the qualifier it concerns, or -1 for the opcode.
type Problem struct {
	Rule    string
	Qual    int
	Msg     string
	Spec    string
	Fix     string
	Warning bool
	// Ptxas13 marks a violation of the page that ptxas 13.0 accepts (see
	// Rule.Ptxas13 and GroupSpec.Ptxas13Optional), when the instruction
	// has Ptxas13Operands operands (0: any number); see Ptxas13Accepts.
	Ptxas13         bool
	Ptxas13Operands int
}

// Ptxas13Accepts reports whether ptxas 13.0 accepts the violation p in an
// instruction written with nops operands.
func (p *Problem) Ptxas13Accepts(nops int) bool {
	return p.Ptxas13 && (p.Ptxas13Operands == 0 || p.Ptxas13Operands == nops)
}

var (
	registry = map[string]*Instr{}
	byOpcode = map[string][]*Instr{}
)

// register adds in to the tables. Instructions with a sub-opcode are
// listed before the plain one so that Select prefers them.
func register(in *Instr) {
	for _, gs := range in.Groups {
		for _, q := range gs.Values {
			in.allowed[q] = true
		}
	}
	registry[in.Name] = in
	l := append(byOpcode[in.Opcode], in)
	sort.SliceStable(l, func(i, j int) bool { return l[i].SubOp != QNone && l[j].SubOp == QNone })
	byOpcode[in.Opcode] = l
}

// Lookup returns the description of an instruction by full name ("st",
// "st.async", "tcgen05.st"), or nil.
func Lookup(name string) *Instr { return registry[name] }

// Instrs returns all described instructions, sorted by name.
func Instrs() []*Instr {
	l := make([]*Instr, 0, len(registry))
	for _, in := range registry {
		l = append(l, in)
	}
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l
}

// Select returns the instruction an opcode and its first qualifier name
// ("st" + ".async"), or nil when the tables do not describe it.
func Select(opcode, first string) *Instr {
	l := byOpcode[opcode]
	for _, in := range l {
		if in.SubOp == QNone || (first != "" && LookupQual(first) == in.SubOp) {
			return in
		}
	}
	return nil
}

// SelectFor is Select for a full qualifier list: an instruction is chosen
// by a sub-opcode qualifier anywhere in names (st.global.async is
// st.async), else the plain opcode.
func SelectFor(opcode string, names []string) *Instr {
	l := byOpcode[opcode]
	if len(l) == 0 {
		return nil
	}
	for _, in := range l {
		if in.SubOp == QNone {
			return in
		}
		for _, n := range names {
			if lookupQual(n) == in.SubOp {
				return in
			}
		}
	}
	return nil
}

// LookupQuals maps qualifier spellings to Quals (QNone when unknown) into
// buf, which it returns; callers decode with the result.
func LookupQuals(names []string, buf []Qual) []Qual {
	buf = buf[:0]
	for _, n := range names {
		buf = append(buf, lookupQual(n))
	}
	return buf
}

// SelectQuals is SelectFor with the qualifiers already looked up.
func SelectQuals(opcode string, quals []Qual) *Instr {
	l := byOpcode[opcode]
	for _, in := range l {
		if in.SubOp == QNone {
			return in
		}
		for _, q := range quals {
			if q == in.SubOp {
				return in
			}
		}
	}
	return nil
}

// Decode decodes the qualifiers of an instruction. names are the
// qualifier spellings in source order, including the sub-opcode
// (".async"). It reports unknown and misplaced qualifiers, conflicts
// within a slot and missing required slots, then the instruction's rules.
// Version and target gating is separate (Gate).
func Decode(in *Instr, names []string, buf []Qual, probs []Problem) (Form, []Problem) {
	var f Form
	probs = DecodeInto(&f, in, names, buf, probs)
	return f, probs
}

// DecodeInto is Decode into a caller's Form, which it overwrites. It
// allocates nothing when buf and probs have room: callers that check many
// instructions reuse one Form, one Quals buffer and one problem slice.
func DecodeInto(f *Form, in *Instr, names []string, buf []Qual, probs []Problem) []Problem {
	return DecodeQuals(f, in, names, LookupQuals(names, buf), probs)
}

// DecodeQuals is DecodeInto with the qualifiers already looked up
// (LookupQuals): quals[i] is the Qual of names[i], and becomes f.Quals.
func DecodeQuals(f *Form, in *Instr, names []string, quals []Qual, probs []Problem) []Problem {
	*f = Form{Instr: in, Quals: quals}
	for g := range f.At {
		f.At[g] = -1
	}
	for i, name := range names {
		q := quals[i]
		if i >= 127 {
			continue
		}
		if q == QNone {
			probs = append(probs, unknownQualProblem(i, name, in.Name, in.Section, in.allowedQuals()))
			continue
		}
		g := q.Group()
		if !in.allowed[q] {
			probs = append(probs, Problem{Rule: "qualifier-not-allowed", Qual: i, Spec: in.Section,
				Msg: name + " is not a qualifier of " + in.Name + allowedHint(in.group(g))})
			continue
		}
		if prev := f.At[g]; prev >= 0 {
			msg := "duplicate " + name
			if f.Quals[prev] != q {
				msg = name + " conflicts with " + f.Quals[prev].String() + ": at most one " + g.String() + " qualifier"
			}
			probs = append(probs, Problem{Rule: "qualifier-conflict", Qual: i, Spec: in.Section, Msg: msg})
			continue
		}
		f.At[g] = int8(i)
	}
	for i := range in.Groups {
		gs := &in.Groups[i]
		if gs.Required && f.At[gs.Group] < 0 && !f.hasUndecoded(gs.Group) {
			probs = append(probs, Problem{Rule: "missing-qualifier", Qual: -1, Spec: in.Section,
				Msg: in.Name + " needs a " + gs.Group.String() + " qualifier (one of " + joinQuals(gs.Values) + ")",
				Fix: "add one of " + joinQuals(gs.Values), Ptxas13: gs.Ptxas13Optional})
		}
	}
	f.fill()
	if in.finish != nil {
		in.finish(f)
	}
	for i := range in.Rules {
		r := &in.Rules[i]
		if r.Bad(f) {
			probs = append(probs, Problem{Rule: r.ID, Qual: f.pointAt(r.At), Msg: r.Msg(f), Spec: r.Spec, Fix: r.Fix,
				Ptxas13: r.Ptxas13 != nil && r.Ptxas13(f), Ptxas13Operands: r.Ptxas13Operands})
		}
	}
	return probs
}

// Rejected reports whether a written qualifier of group g was rejected
// (not allowed, or a second one of its slot); checks that depend on the
// slot can then stay quiet instead of repeating the problem.
func (f *Form) Rejected(g Group) bool { return f.hasUndecoded(g) }

// hasUndecoded reports whether a written qualifier of group g was rejected
// (so that "missing" is not reported on top of "not allowed").
func (f *Form) hasUndecoded(g Group) bool {
	for i, q := range f.Quals {
		if q != QNone && q.Group() == g && int8(i) != f.At[g] {
			return true
		}
	}
	return false
}

// pointAt returns the qualifier index for group g, or -1.
func (f *Form) pointAt(g Group) int {
	if g == GNone {
		return -1
	}
	return int(f.At[g])
}

// fill sets the typed fields from the decoded qualifiers.
func (f *Form) fill() {
	f.Sem = f.Written(GSem)
	f.Mmio = f.At[GMmio] >= 0
	f.Scope = f.Written(GScope)
	f.Space = f.Written(GSpace)
	f.Cop = f.Written(GCop)
	f.L1Evict = f.Written(GL1Evict)
	f.L2Evict = f.Written(GL2Evict)
	f.CacheHint = f.At[GCacheHint] >= 0
	f.Vec = 1
	if v := f.Written(GVec); v != QNone {
		f.Vec = v.Bits()
	}
	f.Type = f.Written(GType)
	f.Complete = f.Written(GCompletion)
	f.Sync = f.At[GSync] >= 0
	f.Aligned = f.At[GAligned] >= 0
	f.Shape = f.Written(GShape)
	f.Num = f.Written(GNum).Bits()
	f.Unpack = f.At[GUnpack] >= 0
}

// DecodeString decodes a dotted instruction name without operands:
// "st.global.v4.u32". It returns a nil Form.Instr when the instruction is
// not described.
func DecodeString(s string) (Form, []Problem) {
	op, rest, _ := strings.Cut(s, ".")
	var names []string
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ".")
		names = append(names, "."+part)
	}
	first := ""
	if len(names) > 0 {
		first = names[0]
	}
	in := Select(op, first)
	if in == nil {
		return Form{}, []Problem{{Rule: "unknown-instruction", Qual: -1, Msg: "no description of instruction " + s}}
	}
	return Decode(in, names, nil, nil)
}

// Gate checks the features f uses against a PTX ISA version and target.
// Either may be zero (unknown), which skips that half of the check.
func Gate(f *Form, v Version, t Target, probs []Problem) []Problem {
	in := f.Instr
	for i := range in.Features {
		ft := &in.Features[i]
		if !ft.Uses(f) {
			continue
		}
		at := f.pointAt(ft.At)
		if v != 0 && ft.PTX != 0 && v < ft.PTX {
			probs = append(probs, Problem{Rule: "ptx-version", Qual: at, Spec: in.Section + ", PTX ISA Notes",
				Msg: ft.Name + " requires PTX ISA " + ft.PTX.String() + " (this file declares " + v.String() + ")",
				Fix: "raise .version to " + ft.PTX.String()})
		}
		if t.SM != 0 && !ft.Arch.Allows(t, v) {
			fix := ""
			if m := ft.Arch.Minimal(); m != "" {
				fix = "compile for " + m
			}
			probs = append(probs, Problem{Rule: "target", Qual: at, Spec: in.Section + ", Target ISA Notes",
				Msg: ft.Name + " requires " + ft.Arch.String() + " (target is " + t.String() + ")", Fix: fix})
		}
	}
	return probs
}

// Requirement is the minimum PTX ISA version and target of a form: the
// highest version any used feature needs, and the plain target (sm_XY) or
// the features' own target lists.
type Requirement struct {
	PTX      Version
	MinSM    int      // highest plain minimum among the used features
	Special  []Arch   // requirements with architecture or family targets (tcgen05)
	Features []string // names of the used features, in table order
}

// Requirements returns what form f needs.
func Requirements(f *Form) Requirement {
	var r Requirement
	if f.Instr == nil {
		return r
	}
	for i := range f.Instr.Features {
		ft := &f.Instr.Features[i]
		if !ft.Uses(f) {
			continue
		}
		r.Features = append(r.Features, ft.Name)
		r.PTX = max(r.PTX, ft.PTX)
		r.MinSM = max(r.MinSM, ft.Arch.Min)
		if len(ft.Arch.Arch) > 0 || len(ft.Arch.Family) > 0 {
			r.Special = append(r.Special, ft.Arch)
		}
	}
	return r
}

func (in *Instr) group(g Group) *GroupSpec {
	for i := range in.Groups {
		if in.Groups[i].Group == g {
			return &in.Groups[i]
		}
	}
	return nil
}

// Group returns the spec of slot g, or nil when the instruction has none.
func (in *Instr) Group(g Group) *GroupSpec { return in.group(g) }

func (gs *GroupSpec) allows(q Qual) bool {
	for _, v := range gs.Values {
		if v == q {
			return true
		}
	}
	return false
}

func allowedHint(gs *GroupSpec) string {
	if gs == nil {
		return ""
	}
	return " (" + gs.Group.String() + " is one of " + joinQuals(gs.Values) + ")"
}

func joinQuals(qs []Qual) string {
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q.String())
	}
	return b.String()
}

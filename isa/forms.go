package isa

//go:generate go run ./internal/isagen -in data/instructions.txt -quals qual.go -out zforms.go

import (
	"sort"
	"strings"
)

// The instructions outside the store family are described by forms, one
// per line of data/instructions.txt, which isagen turns into opForms
// (zforms.go), as golang.org/x/arch generates its tables from a data file.
// A form names the qualifier slots of one shape of an instruction (add
// with an integer type; add with .f32 and a rounding mode), its operands
// and the PTX ISA version and target it needs. An instruction is decoded
// against every form of its opcode; the form with no problem, or the one
// with the fewest, decides.

// SlotKind says how a form's qualifier slot is filled.
type SlotKind uint8

const (
	SlotOne  SlotKind = iota // exactly one of Values
	SlotOpt                  // at most one of Values
	SlotAny                  // any of Values, each at most once (types may repeat)
	SlotType                 // a type: type slots are filled in the order types are written
)

// Slot is one qualifier slot of a form.
type Slot struct {
	Kind    SlotKind
	Values  []Qual
	Default Qual   // the value assumed when absent, or QNone
	Name    string // a type slot's name in the data file ("T", "D", "S")
}

// OperandClass is what an operand of a form may be.
type OperandClass uint8

const (
	OpdDst     OperandClass = iota // a destination register
	OpdSrc                         // a source register or immediate
	OpdReg                         // a source register
	OpdImm                         // an integer immediate
	OpdPredDst                     // a destination predicate (p, or p|q where Pair)
	OpdPredSrc                     // a source predicate, ! allowed
	OpdMem                         // an address [..]
	OpdLabel                       // a label or function name
	OpdMovSrc                      // mov's source: register, immediate, address of a variable, {regs}
	OpdVector                      // a braced vector of registers
	OpdAny                         // not checked
)

// OperandSpec is one operand of a form.
type OperandSpec struct {
	Name     string
	Kind     OperandClass
	Slot     int  // the type slot giving the operand's type, or -1
	Fixed    Qual // the operand's type when no slot gives it
	Wide     bool // twice the width of the slot's type (mul.wide)
	Optional bool
	Pair     bool  // a predicate destination may be written p|q (setp)
	PredOK   bool  // a .pred register is accepted too (ptxas 12.5: movmatrix, setp.bf16x2 b)
	NoHalf   bool  // no .f16x2 register stands for this integer operand (ptxas 12.5: nanosleep, redux)
	PredOut  bool  // a destination that may be written d|p with a predicate (elect.sync, match.all.sync, shfl.sync)
	SinkOK   bool  // a destination that may be the sink _ (setp, atom, lop3, match.all.sync, mbarrier.arrive)
	Limit    int64 // an immediate must be below Limit (0: no limit); a vector operand has Limit registers (0: as many as the form's .vN says)
}

// TypeMode selects the operand type-checking rules of PTX ISA §9.4.1.
type TypeMode uint8

const (
	ModeExact   TypeMode = iota // same size; bit-size types match any kind, signed and unsigned match
	ModeRelaxed                 // ld/ldu: a destination may be wider than an integer or bit-size type
	ModeCvt                     // cvt: integer and bit-size registers of any width
)

// CmpKind tells which comparison operators a form's type allows.
type CmpKind uint8

const (
	CmpNone CmpKind = iota
	CmpInt
	CmpFloat
)

// OpForm is one form of an instruction (a line of data/instructions.txt).
type OpForm struct {
	Name        string // "add", "bar.red", "mbarrier.arrive"
	Opcode      string // "add", "bar", "mbarrier"
	Line        int    // the line of data/instructions.txt
	Section     string
	Fixed       []Qual // required qualifiers (the name's parts and literal slots)
	Slots       []Slot
	Order       []int8 // the syntax after the name: slot i, or -k-1 for Fixed[k]
	Operands    []OperandSpec
	AnyOperands bool // the operands are not described (x*)
	PTX         Version
	Arch        Arch
	Mode        TypeMode
	Cmp         CmpKind
	// Head is how many parts of the syntax after Name belong to the
	// instruction's name as ptxas reads it (mul.lo, cp.async.bulk): they
	// are written first, in order (option name=).
	Head int
	// Ignores are qualifiers ptxas 12.5 accepts and ignores (option
	// ignores=): anywhere after the name and any number of times, or,
	// where a slot of the form holds one (bar.sync's .any and .all),
	// once in place of that slot's value (ignoredAnywhere).
	Ignores []Qual
	// Expanded is sm_X..sm_Y on which ptxas 12.5 assembles the form as a
	// routine call unless .aligned is written (option expanded=).
	Expanded [2]int
	// Until and UntilSM say that ptxas 12.5 no longer has the form from
	// PTX ISA Until on targets sm_UntilSM and later (option until=V@sm_X;
	// UntilSM 0: on every target): mad.f32 without a rounding mode (until
	// PTX 3.2 on sm_20 and later), vote without .sync (until PTX 6.4 on
	// sm_70 and later). A module of such a version and target is decoded
	// as if the form did not exist.
	Until   Version
	UntilSM int
	// Addr64 says that a generic or .global address of the form is held
	// in a 64-bit register in a module with .address_size 64 (option
	// addr64): ptxas 12.5 stops on a 32-bit one ("32-Bit ABI ... is not
	// supported"), for ld, ldu, prefetch, atom and red; it takes one for
	// mbarrier, cp.async.bulk and createpolicy.
	Addr64 bool
	// SRegOK says that the form's sources may be special registers
	// (option sreg): ptxas 12.5 takes them in mov and cvt only ("Special
	// register argument not allowed for instruction 'add'").
	SRegOK bool
}

// Removed reports whether a module of version v and target t (zero:
// unknown) no longer has form o (OpForm.Until).
func (o *OpForm) Removed(v Version, t Target) bool {
	return o.Until != 0 && v != 0 && v >= o.Until && (o.UntilSM == 0 || t.SM != 0 && t.SM >= o.UntilSM)
}

// QualGate is a qualifier of an instruction that needs a newer PTX ISA
// version or target than the instruction's form.
type QualGate struct {
	Name string
	Qual Qual
	PTX  Version
	Arch Arch
}

// FormRule is a constraint between qualifiers of the forms named Name:
// one of If requires one of Then, or (Excludes) forbids all of Then.
type FormRule struct {
	Name     string
	If       []Qual
	Excludes bool
	Then     []Qual
}

// MinOperands returns the number of operands the form requires.
func (o *OpForm) MinOperands() int {
	n := 0
	for _, s := range o.Operands {
		if !s.Optional {
			n++
		}
	}
	return n
}

// Class returns the instruction class of the form's section
// ("integer-arithmetic", "data-movement", ...).
func (o *OpForm) Class() string {
	best := ""
	n := 0
	for _, c := range opClasses {
		if strings.HasPrefix(o.Section, c[0]) && (len(o.Section) == len(c[0]) || o.Section[len(c[0])] == '.') && len(c[0]) > n {
			best, n = c[1], len(c[0])
		}
	}
	return best
}

// Title names the instruction of the form as the manual's page does:
// "st.bulk", "bar.sync", "mbarrier.init", "add".
func (o *OpForm) Title() string {
	if _, ok := opDoc(o.Name); !ok && len(o.Fixed) > 0 {
		if _, ok := opDoc(o.Name + o.Fixed[0].String()); ok {
			return o.Name + o.Fixed[0].String()
		}
	}
	return o.Name
}

// Doc returns what the instruction of the form does.
func (o *OpForm) Doc() string {
	if d, ok := opDoc(o.Name); ok {
		return d
	}
	if len(o.Fixed) > 0 {
		if d, ok := opDoc(o.Name + o.Fixed[0].String()); ok {
			return d // "st.bulk", "bar.sync", "mbarrier.init"
		}
	}
	d, _ := opDoc(o.Opcode)
	return d
}

// opDoc returns the doc line of key (an instruction name), and false when
// the data has none.
func opDoc(key string) (string, bool) {
	if i, ok := docIndex.Get(key); ok {
		return opDocText[i], true
	}
	return "", false
}

// OpDecode is an instruction decoded against a form: the form, its type
// slots as written, and the qualifiers in source order. The emulator's
// decoder can read it instead of qualifier strings: Form.Opcode and
// Types are small integers, Has tests a modifier.
type OpDecode struct {
	Form  *OpForm
	Types [4]Qual // the type slots, in slot order (QNone when absent)
	Quals []Qual  // every qualifier in source order (QNone when unknown)
}

// Has reports whether qualifier q was written, or is the default of one
// of the form's slots that was left out.
func (d *OpDecode) Has(q Qual) bool {
	for _, w := range d.Quals {
		if w == q {
			return true
		}
	}
	if d.Form == nil {
		return false
	}
	for i := range d.Form.Slots {
		s := &d.Form.Slots[i]
		if s.Default == q && !d.filled(s) {
			return true
		}
	}
	return false
}

// Expanded reports whether ptxas 12.5 assembles the decoded instruction
// as a call of a routine on target t (vote.sync and barrier.red without
// .aligned on sm_70 to sm_89), whose predicates take no .f16x2 register.
func (d *OpDecode) Expanded(t Target) bool {
	e := d.Form.Expanded
	return e[0] > 0 && t.SM >= e[0] && t.SM <= e[1] && !d.Has(QAligned)
}

func (d *OpDecode) filled(s *Slot) bool {
	for _, w := range d.Quals {
		for _, v := range s.Values {
			if v == w {
				return true
			}
		}
	}
	return false
}

// SlotType returns the type of type slot i, doubled in width when wide.
func (d *OpDecode) SlotType(i int) Qual {
	n := 0
	for j := range d.Form.Slots[:i] {
		if d.Form.Slots[j].Kind == SlotType {
			n++
		}
	}
	if n >= len(d.Types) {
		return QNone
	}
	return d.Types[n]
}

// Forms returns the forms of an opcode (the text before the first dot),
// in data file order. The table is generated (opcodeForms, formIndex).
func Forms(opcode string) []*OpForm {
	if i, ok := formIndex.Get(opcode); ok {
		return opcodeForms[i]
	}
	return nil
}

// AllForms returns every form, in data file order.
func AllForms() []*OpForm {
	l := make([]*OpForm, len(opForms))
	for i := range opForms {
		l[i] = &opForms[i]
	}
	return l
}

// KnownOpcode reports whether opcode has a form, a store table or a family
// gate.
func KnownOpcode(opcode string) bool {
	return len(Forms(opcode)) > 0 || byOpcode[opcode] != nil || HasFamily(opcode)
}

// Opcodes returns every opcode with a form or a table, sorted.
func Opcodes() []string {
	l := append([]string(nil), formOpcodes[:]...)
	for op := range byOpcode {
		if Forms(op) == nil {
			l = append(l, op)
		}
	}
	sort.Strings(l)
	return l
}

// SelectInstr chooses how an instruction is described: by a store table
// (the *Instr), or, when none applies or a family gate names more of the
// instruction than the table does (st.bulk is not st), by the forms of
// its opcode, with the family gate if there is one. The validator and
// explain both choose through it.
func SelectInstr(opcode string, names []string, quals []Qual) (*Instr, *FamilyGate) {
	desc := SelectQuals(opcode, quals)
	fam, parts := FamilyOf(opcode, names)
	if desc != nil && (fam == nil || parts <= strings.Count(desc.Name, ".")+1) {
		return desc, nil
	}
	return nil, fam
}

// Syntax writes the form's grammar: "add{.rn,.rz,.rm,.rp}{.ftz}{.sat}.f32
// d, a, b".
func (o *OpForm) Syntax() string {
	var b strings.Builder
	b.WriteString(o.Name)
	for _, k := range o.Order {
		if k < 0 {
			b.WriteString(o.Fixed[-int(k)-1].String())
			continue
		}
		s := &o.Slots[k]
		l := make([]string, len(s.Values))
		for i, v := range s.Values {
			l[i] = v.String()
		}
		switch {
		case len(l) == 1 && s.Kind != SlotOpt:
			b.WriteString(l[0])
		case s.Kind == SlotOpt:
			b.WriteString("{" + strings.Join(l, ",") + "}")
		case s.Kind == SlotAny:
			b.WriteString("{" + strings.Join(l, ",") + "}*")
		default:
			b.WriteString("<" + strings.Join(l, "|") + ">")
		}
	}
	for i, op := range o.Operands {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		if op.Optional {
			b.WriteString("[" + op.Name + "]")
		} else {
			b.WriteString(op.Name)
		}
	}
	if o.AnyOperands {
		b.WriteString(" operands...")
	}
	return b.String()
}

// decodeForm decodes quals (with their spellings names) against form f
// into d, appending problems.
func decodeForm(f *OpForm, names []string, quals []Qual, d *OpDecode, probs []Problem) []Problem {
	*d = OpDecode{Form: f, Quals: quals}
	var used uint64       // bit i: slot i filled (or, for SlotAny, bit of value)
	var anyUsed [8]uint64 // per SlotAny slot (index < 8), the values written
	var fixedSeen uint32
	typeSlot := 0 // the index among type slots of the next type
	parts := strings.Count(f.Name, ".")
	nameOK := true
	for k := 0; k < parts; k++ {
		if k >= len(quals) || quals[k] != f.Fixed[k] {
			if indexQual(quals, f.Fixed[k]) >= 0 {
				probs = append(probs, Problem{Rule: "qualifier-order", Qual: indexQual(quals, f.Fixed[k]), Spec: f.Section,
					Msg: f.Name + " must be written first", Fix: "write " + f.Name + " first"})
			}
			nameOK = false
			break
		}
	}
	if nameOK && f.Head > 0 {
		probs = headOrder(f, quals, parts, probs)
	}
	for i, q := range quals {
		if q == QNone {
			probs = append(probs, unknownQualProblem(i, names[i], f.Name, f.Section, f.formQuals()))
			continue
		}
		if (q == QSat || q == QApprox || q == QUni || q == QCc || q == QNaN || q == QRelu || q == QSatfinite || q == QSync) && indexQual(quals[:i], q) >= 0 { // ptxas accepts these twice
			probs = append(probs, Problem{Rule: "duplicate-qualifier", Qual: i, Spec: f.Section, Warning: true,
				Msg: "duplicate " + names[i], Fix: "remove the second " + names[i]})
			continue
		}
		if ptxasIgnores(q) && f.Opcode != "testp" && !(f.Opcode == "tensormap" && tensormapField(q)) && !(f.Opcode == "multimem" && (q == QAcc_F32 || q == QAcc_F16)) || q == QPred && ignoresPredOn(f) || f.ignoredAnywhere(q) {
			probs = ignoredProblem(f, names, i, probs)
			continue
		}
		if k := indexQual(f.Fixed, q); k >= 0 && fixedSeen&(1<<k) == 0 {
			fixedSeen |= 1 << k
			continue
		}
		placed, conflict := false, -1
		for si := range f.Slots {
			s := &f.Slots[si]
			if s.Kind == SlotType {
				continue
			}
			k := indexQual(s.Values, q)
			if k < 0 {
				continue
			}
			if s.Kind == SlotAny {
				bit := uint64(1) << (k % 64)
				if anyUsed[si%8]&bit != 0 && q.Group() != GType {
					conflict = si
					continue
				}
				anyUsed[si%8] |= bit
				placed = true
				break
			}
			if used&(1<<si) != 0 {
				conflict = si
				continue
			}
			used |= 1 << si
			placed = true
			break
		}
		if placed && indexQual(f.Ignores, q) >= 0 {
			probs = ignoredProblem(f, names, i, probs)
		}
		if placed {
			continue
		}
		if q.Group() == GType && conflict < 0 {
			if si, ok := nthTypeSlot(f, typeSlot); ok {
				typeSlot++
				s := &f.Slots[si]
				if indexQual(s.Values, q) < 0 {
					probs = append(probs, Problem{Rule: "type-not-allowed", Qual: i, Spec: f.Section,
						Msg: names[i] + " is not a type of " + f.Name + typeHint(f, si),
						Fix: "use one of " + joinQuals(s.Values)})
				} else if typeSlot-1 < len(d.Types) {
					d.Types[typeSlot-1] = q
				}
				used |= 1 << si
				continue
			}
		}
		if conflict >= 0 && (q == QSat || q == QApprox) && indexQual(quals[:i], q) >= 0 { // ptxas accepts these twice
			probs = append(probs, Problem{Rule: "duplicate-qualifier", Qual: i, Spec: f.Section, Warning: true,
				Msg: "duplicate " + names[i], Fix: "remove the second " + names[i]})
			continue
		}
		if conflict >= 0 {
			probs = append(probs, Problem{Rule: "qualifier-conflict", Qual: i, Spec: f.Section,
				Msg: names[i] + " conflicts with another qualifier of the same slot (" + joinQuals(f.Slots[conflict].Values) + ")"})
			continue
		}
		probs = append(probs, Problem{Rule: "qualifier-not-allowed", Qual: i, Spec: f.Section,
			Msg: names[i] + " is not a qualifier of " + f.Name + formHint(f)})
	}
	for k, q := range f.Fixed {
		if fixedSeen&(1<<k) == 0 {
			probs = append(probs, Problem{Rule: "missing-qualifier", Qual: -1, Spec: f.Section,
				Msg: f.Name + " needs " + q.String(), Fix: "add " + q.String()})
		}
	}
	for si := range f.Slots {
		s := &f.Slots[si]
		if (s.Kind == SlotOne || s.Kind == SlotType) && used&(1<<si) == 0 {
			what := "one of " + joinQuals(s.Values)
			if len(s.Values) == 1 {
				what = s.Values[0].String()
			}
			rule := "missing-qualifier"
			if s.Kind == SlotType {
				rule = "missing-type"
			}
			probs = append(probs, Problem{Rule: rule, Qual: -1, Spec: f.Section,
				Msg: f.Name + " needs " + what, Fix: "add " + what})
		}
	}
	return probs
}

// ignoresPred reports the instructions on which ptxas 12.5 accepts and
// ignores a .pred qualifier (measured: add, sub, neg, abs, min, max, fma,
// cvt, set, setp, ex2, atom, red, sqrt, rcp, rsqrt, sin, cos, lg2, tanh
// and floating-point mul accept it; mad, and, mov, shl, div, ld and
// others reject it). It holds for their forms with more to the name
// (cvt.pack), not for the instructions ptxas names by a qualifier
// (OpForm.Head): mul.lo, mul.wide and red.async reject it.
func ignoresPred(opcode string) bool {
	switch opcode {
	case "add", "sub", "neg", "abs", "min", "max", "fma", "cvt", "set", "setp", "ex2", "atom", "red", "sqrt", "rcp",
		"rsqrt", "sin", "cos", "lg2", "tanh", "mul":
		return true
	}
	return false
}

// ignoresPredOn reports whether ptxas 12.5 ignores a .pred qualifier on
// form f: a form of one of ignoresPred, without predicate types and
// without a qualifier in its name (OpForm.Head).
func ignoresPredOn(f *OpForm) bool {
	return f.Head == 0 && ignoresPred(f.Opcode) && !formHasType(f, QPred)
}

// headOrder checks the parts of ptxas's name of the instruction that
// follow f.Name (OpForm.Head): each must be written in its place, right
// after the name parts before it; ptxas 12.5 does not know the
// instruction otherwise ("Unknown modifier", "Unexpected instruction
// types"). A part written elsewhere is reported; a missing one is left to
// the missing-qualifier check.
func headOrder(f *OpForm, quals []Qual, parts int, probs []Problem) []Problem {
	for k := 0; k < f.Head; k++ {
		if i := parts + k; i < len(quals) && f.orderHas(k, quals[i]) {
			continue
		}
		for j := parts; j < len(quals); j++ {
			if f.orderHas(k, quals[j]) {
				name := f.headName(quals, parts)
				return append(probs, Problem{Rule: "qualifier-order", Qual: j, Spec: f.Section,
					Msg: name + " must be written first (ptxas reads it as the instruction's name)", Fix: "write " + name + " first"})
			}
		}
		break
	}
	return probs
}

// orderHas reports whether q fills the k-th part of f's syntax after its
// name.
func (f *OpForm) orderHas(k int, q Qual) bool {
	o := f.Order[k]
	if o < 0 {
		return f.Fixed[-int(o)-1] == q
	}
	return indexQual(f.Slots[o].Values, q) >= 0
}

// headName spells ptxas's name of the instruction: f.Name and the parts
// of f.Head, as written where a part is a choice.
func (f *OpForm) headName(quals []Qual, parts int) string {
	name := f.Name
	for k := 0; k < f.Head; k++ {
		o := f.Order[k]
		if o < 0 {
			name += f.Fixed[-int(o)-1].String()
			continue
		}
		for _, q := range quals[parts:] {
			if f.orderHas(k, q) {
				name += q.String()
				break
			}
		}
	}
	return name
}

// formHasType reports whether a type slot of f allows t.
func formHasType(f *OpForm, t Qual) bool {
	for _, s := range f.Slots {
		if indexQual(s.Values, t) >= 0 {
			return true
		}
	}
	return false
}

// spaceOrder reports a state space written before one that the form
// names ahead of it. Forms with two state spaces name the destination's
// first, then the source's (cp.async.shared.global, cp.async.bulk.
// global.shared::cta); ptxas 12.5 reads them in that order ("State space
// incorrect").
func spaceOrder(d *OpDecode, names []string, probs []Problem) []Problem {
	f := d.Form
	title := f.Title()
	if f.Head > 0 {
		title = f.headName(d.Quals, strings.Count(f.Name, "."))
	}
	last, lastI := -1, -1
	for i, q := range d.Quals {
		if q.Group() != GSpace || i >= len(names) {
			continue
		}
		k := f.spacePart(q)
		if k < 0 {
			continue
		}
		if k < last {
			return append(probs, Problem{Rule: "state-space-order", Qual: i, Spec: f.Section,
				Msg: names[i] + " is written after " + names[lastI] + ": " + title +
					" names the destination's state space first, then the source's",
				Fix: "write " + names[i] + names[lastI]})
		}
		last, lastI = k, i
	}
	return probs
}

// spacePart returns the index in f.Order of the part that state space q
// fills, or -1.
func (f *OpForm) spacePart(q Qual) int {
	for k, o := range f.Order {
		if o >= 0 && f.Slots[o].Kind == SlotAny {
			continue
		}
		if f.orderHas(k, q) {
			return k
		}
	}
	return -1
}

// ignoredAnywhere reports whether q is one of f.Ignores that no slot of f
// holds: ptxas 12.5 accepts it anywhere after the name, any number of
// times (movmatrix's alternate types). One that a slot holds (bar.sync's
// .any and .all) fills the slot like its other values, once, without
// another of the slot (ptxas: "Multiple .any/.all modifiers specified"),
// and is ignored too.
func (f *OpForm) ignoredAnywhere(q Qual) bool {
	if indexQual(f.Ignores, q) < 0 {
		return false
	}
	for i := range f.Slots {
		if f.Slots[i].Kind != SlotType && indexQual(f.Slots[i].Values, q) >= 0 {
			return false
		}
	}
	return true
}

// ignoredProblem adds the warning that ptxas 12.5 ignores the i-th
// qualifier on f.
func ignoredProblem(f *OpForm, names []string, i int, probs []Problem) []Problem {
	return append(probs, Problem{Rule: "ignored-qualifier", Qual: i, Spec: f.Section, Warning: true,
		Msg: names[i] + " means nothing on " + f.Title() + " (ptxas ignores it)", Fix: "remove " + names[i]})
}

// ptxasIgnores reports the testp properties and the tensormap.replace
// fields .box_dim, .global_dim and .element_stride, which ptxas 12.5
// accepts and ignores anywhere after the instruction's name (measured on
// every form ptxas 12.5 knows for the properties; on setp, add, bra and ld
// for the fields), as it does a .pred qualifier on some instructions
// (ignoresPredOn) and the qualifiers of OpForm.Ignores
// (docs/ptxas-differences.md).
func ptxasIgnores(q Qual) bool {
	switch q {
	case QFinite, QInfinite, QNumber, QNotanumber, QNormal, QSubnormal:
		return true
	case QAcc_F32, QAcc_F16: // multimem.ld_reduce's; measured on add, set, setp, ld, mov, bra (.acc::f16: add, fma, ld, mov)
		return true
	}
	return tensormapField(q)
}

// tensormapField reports the tensormap.replace fields ptxas 12.5 ignores
// on the other instructions.
func tensormapField(q Qual) bool {
	return q == QBox_Dim || q == QGlobal_Dim || q == QElement_Stride
}

func nthTypeSlot(f *OpForm, n int) (int, bool) {
	for si := range f.Slots {
		if f.Slots[si].Kind == SlotType {
			if n == 0 {
				return si, true
			}
			n--
		}
	}
	return 0, false
}

func indexQual(l []Qual, q Qual) int {
	for i, v := range l {
		if v == q {
			return i
		}
	}
	return -1
}

func typeHint(f *OpForm, si int) string {
	return " (" + joinQuals(f.Slots[si].Values) + " here)"
}

// formHint lists the qualifiers a form accepts, when they are few.
func formHint(f *OpForm) string {
	var l []Qual
	for _, s := range f.Slots {
		if s.Kind != SlotType {
			l = append(l, s.Values...)
		}
	}
	if len(l) == 0 {
		return ""
	}
	if len(l) > 12 {
		return ""
	}
	return " (its modifiers: " + joinQuals(l) + ")"
}

// DecodeOp decodes an instruction outside the store family: opcode, the
// qualifier spellings in source order (names) and their Quals, and the
// number of operands written (-1: unknown). It chooses the form of the opcode with the
// fewest problems (preferring one whose operand count fits) and returns
// it with those problems; an opcode with no form gives a nil form and
// an "unknown-opcode" problem. Version and target gating is GateOp.
func DecodeOp(opcode string, names []string, quals []Qual, nops int, d *OpDecode, probs []Problem) []Problem {
	return DecodeOpFor(opcode, names, quals, nops, 0, Target{}, d, probs)
}

// DecodeOpFor is DecodeOp for a module of version v and target t: among
// forms that fit equally well it prefers one the version and target have
// (cvt to .e4m3x2 is a PTX 7.8 form on sm_90 and a PTX 8.1 form on
// sm_89).
func DecodeOpFor(opcode string, names []string, quals []Qual, nops int, v Version, t Target, d *OpDecode, probs []Problem) []Problem {
	forms := Forms(opcode)
	if len(forms) == 0 {
		*d = OpDecode{Quals: quals}
		return append(probs, unknownOpcode(opcode))
	}
	start := len(probs)
	bestN, bestFit := -1, false
	var best OpDecode
	var scratch OpDecode
	var bestProbs []Problem
	buf := probs[start:]
	live := false // some form the version and target still have
	for _, f := range forms {
		live = live || !f.Removed(v, t)
	}
	for _, f := range forms {
		if live && f.Removed(v, t) {
			continue
		}
		buf = decodeForm(f, names, quals, &scratch, buf[:0])
		n := score(buf)
		fit := nops < 0 || nops >= f.MinOperands() && (f.AnyOperands || nops <= len(f.Operands))
		if n == 0 && fit && bestN == 0 && bestFit && !gatePasses(f, v, t) {
			continue // keep the first fitting form unless a later one passes the gate
		}
		if n == 0 && fit && bestN == 0 && bestFit && !gatePasses(best.Form, v, t) {
			bestN = -1 // a form the version and target have beats one they lack
		}
		if bestN < 0 || n < bestN || (n == bestN && fit && !bestFit) {
			bestN, bestFit, best = n, fit, scratch
			bestProbs = append(bestProbs[:0], buf...)
			if n == 0 && fit && gatePasses(f, v, t) {
				break
			}
		}
	}
	*d = best
	if bestN == 0 {
		bestProbs = formChecks(&best, names, bestProbs)
	} else {
		widenTypeHint(opcode, best.Form.Name, names, quals, bestProbs)
	}
	if len(bestProbs) == 1 && bestProbs[0].Rule == "missing-qualifier" {
		if l := MissingChoices(opcode, names, quals); len(l) > 1 {
			bestProbs[0].Msg = best.Form.Name + " needs one of " + joinQuals(l)
			bestProbs[0].Fix = "add one of " + joinQuals(l)
		}
	}
	return append(probs[:start], bestProbs...)
}

// score weighs the problems of a form: a missing qualifier is a smaller
// miss than a type or qualifier the form does not have at all, so that
// div.f32 is matched with the float forms (which lack a rounding mode)
// rather than the integer one (which lacks .f32).
func score(probs []Problem) int {
	n := 0
	for i := range probs {
		if probs[i].Warning {
			continue
		}
		switch probs[i].Rule {
		case "missing-qualifier", "missing-type":
			n++
		default:
			n += 3
		}
	}
	return n
}

// formChecks applies, to a form whose qualifiers all fit, the rules
// that relate them: the rule lines, integer comparisons, vector sizes and
// cvt's .sat.
func formChecks(d *OpDecode, names []string, probs []Problem) []Problem {
	f := d.Form
	for k := range formRules {
		r := &formRules[k]
		if r.Name != f.Name {
			continue
		}
		for i, q := range d.Quals {
			if indexQual(r.If, q) < 0 {
				continue
			}
			if r.Excludes {
				for j, w := range d.Quals {
					if indexQual(r.Then, w) >= 0 {
						probs = append(probs, Problem{Rule: "qualifier-conflict", Qual: j, Spec: f.Section,
							Msg: names[j] + " cannot be combined with " + names[i] + " on " + f.Name, Fix: "remove " + names[j]})
					}
				}
				continue
			}
			found := false
			for _, w := range d.Quals {
				found = found || indexQual(r.Then, w) >= 0
			}
			if !found {
				probs = append(probs, Problem{Rule: "missing-qualifier", Qual: i, Spec: f.Section,
					Msg: names[i] + " on " + f.Name + " requires one of " + joinQuals(r.Then), Fix: "add one of " + joinQuals(r.Then)})
			}
		}
	}
	if f.Cmp == CmpInt {
		probs = cmpProblems(d, probs)
	}
	probs = spaceOrder(d, names, probs)
	maxVec := 128
	if f.PTX >= V(8, 8) {
		maxVec = 256 // the 256-bit loads of PTX ISA 8.8 (ld .v8 of 32-bit types)
	}
	for i, q := range d.Quals {
		if n := q.Bits(); q.Group() == GVec && n*d.Types[0].Bits() > maxVec {
			probs = append(probs, Problem{Rule: "vector-size", Qual: i, Spec: f.Section,
				Msg: names[i] + " of " + d.Types[0].String() + " is " + itoa(n*d.Types[0].Bits()) + " bits; vectors are at most " + itoa(maxVec) + " bits",
				Fix: "use a shorter vector"})
		}
		if q == QSat && f.Opcode == "cvt" && !satMeaningful(d.Types[0], d.Types[1]) {
			probs = append(probs, Problem{Rule: "cvt-sat", Qual: i, Spec: f.Section,
				Msg: ".sat cannot change a " + d.Types[1].String() + " value converted to " + d.Types[0].String() + " (ptxas rejects it)", Fix: "remove .sat"})
		}
	}
	return probs
}

// satMeaningful reports whether an integer conversion from s to d may
// overflow, which is when cvt accepts .sat; float conversions always may.
func satMeaningful(d, s Qual) bool {
	dk, sk := d.Kind(), s.Kind()
	if (dk != 'u' && dk != 's') || (sk != 'u' && sk != 's') {
		return true
	}
	switch {
	case sk == 'u' && dk == 'u':
		return d.Bits() < s.Bits()
	case sk == 'u' && dk == 's':
		return d.Bits() <= s.Bits()
	case sk == 's' && dk == 's':
		return d.Bits() < s.Bits()
	}
	return true // signed to unsigned
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// cmpProblems reports an integer comparison the type does not have: only
// .eq and .ne compare bit-size types, and .lo/.ls/.hi/.hs are unsigned
// (PTX ISA 9.7.6.2).
func cmpProblems(d *OpDecode, probs []Problem) []Problem {
	t := d.Types[0] // setp's type; set's is its second (source) type
	if d.Types[1] != QNone {
		t = d.Types[1]
	}
	for i, q := range d.Quals {
		bad := false
		switch q {
		case QLt, QLe, QGt, QGe:
			bad = t.Kind() == 'b'
		case QLo, QLs, QHi, QHs:
			bad = t.Kind() != 'u'
		}
		if bad {
			fix := "use .eq or .ne, or an integer type (.u32, .s32)"
			if t.Kind() == 's' {
				fix = "use .lt, .le, .gt, .ge for signed types"
			}
			probs = append(probs, Problem{Rule: "cmp-type", Qual: i, Spec: d.Form.Section,
				Msg: q.String() + " does not compare " + t.String() + " values", Fix: fix})
		}
	}
	return probs
}

// MissingChoices merges, for the opcode, the "missing" problems of every
// form that fails only for a missing qualifier, so that div.f32 is told
// it needs a rounding mode or .approx/.full instead of one of the two.
func MissingChoices(opcode string, names []string, quals []Qual) []Qual {
	var l []Qual
	var d OpDecode
	for _, f := range Forms(opcode) {
		probs := decodeForm(f, names, quals, &d, nil)
		if len(probs) != 1 || probs[0].Rule != "missing-qualifier" {
			continue
		}
		for _, q := range f.Fixed {
			if indexQual(quals, q) < 0 && indexQual(l, q) < 0 {
				l = append(l, q)
			}
		}
		for _, s := range f.Slots {
			if s.Kind == SlotOne && !d.filled(&s) {
				for _, v := range s.Values {
					if indexQual(l, v) < 0 {
						l = append(l, v)
					}
				}
			}
		}
	}
	return l
}

// gatePasses reports whether version v and target t (zero: unknown) have
// form f itself.
func gatePasses(f *OpForm, v Version, t Target) bool {
	return (v == 0 || f.PTX == 0 || v >= f.PTX) && (t.SM == 0 || f.Arch.Allows(t, v))
}

func unknownOpcode(opcode string) Problem {
	p := Problem{Rule: "unknown-opcode", Qual: -1, Spec: "PTX ISA 9.7 (Instructions)",
		Msg: "unknown instruction " + opcode}
	if s := nearestOpcode(opcode); s != "" {
		p.Msg += "; did you mean " + s + "?"
		p.Fix = "write " + s
	}
	return p
}

// nearestOpcode returns the known opcode closest to op by edit distance,
// when it is at most 2 edits away. It allocates nothing, and opcodes
// longer than any known one by more than two bytes cost one comparison
// of lengths per known opcode.
func nearestOpcode(op string) string {
	best, bestD := "", 3
	for _, k := range formOpcodes {
		if d := editDistance(op, k, bestD+1); d <= 2 && closer(op, k, d, best, bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it
// is at least limit. b is a known opcode (at most 31 bytes).
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) >= limit || len(b) >= 32 {
		return limit
	}
	var pb, cb [32]int
	prev, cur := pb[:len(b)+1], cb[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// GateOp checks the form of d and its qualifiers with a gate line
// against a PTX ISA version and target (zero values skip that half).
func GateOp(d *OpDecode, v Version, t Target, probs []Problem) []Problem {
	f := d.Form
	if f == nil {
		return probs
	}
	probs = gateOne(f.Title(), f.Section, f.PTX, f.Arch, -1, v, t, probs)
	for i, q := range d.Quals {
		for k := range qualGates {
			g := &qualGates[k]
			if g.Qual == q && g.Name == f.Name {
				probs = gateOne(f.Name+" "+q.String(), f.Section, g.PTX, g.Arch, i, v, t, probs)
			}
		}
	}
	return probs
}

func gateOne(name, sec string, need Version, arch Arch, at int, v Version, t Target, probs []Problem) []Problem {
	if v != 0 && need != 0 && v < need {
		probs = append(probs, Problem{Rule: "ptx-version", Qual: at, Spec: sec + ", PTX ISA Notes",
			Msg: name + " requires PTX ISA " + need.String() + " (this file declares " + v.String() + ")",
			Fix: "raise .version to " + need.String()})
	}
	if t.SM != 0 && !arch.Allows(t, v) {
		probs = append(probs, Problem{Rule: "target", Qual: at, Spec: sec + ", Target ISA Notes",
			Msg: name + " requires " + arch.String() + " (target is " + t.String() + ")", Fix: "compile for " + arch.Minimal()})
	}
	return probs
}

// OpRequirement is the PTX ISA version and target a decoded form needs,
// with the features that set them.
func OpRequirements(d *OpDecode) Requirement {
	var r Requirement
	f := d.Form
	if f == nil {
		return r
	}
	add := func(name string, v Version, a Arch) {
		r.Features = append(r.Features, name+" (PTX "+v.String()+", "+a.String()+")")
		r.PTX = max(r.PTX, v)
		r.MinSM = max(r.MinSM, a.Min)
		if len(a.Arch) > 0 || len(a.Family) > 0 {
			r.Special = append(r.Special, a)
		}
	}
	add(f.Title(), f.PTX, f.Arch)
	for _, q := range d.Quals {
		for k := range qualGates {
			if g := &qualGates[k]; g.Qual == q && g.Name == f.Name {
				add(q.String(), g.PTX, g.Arch)
			}
		}
	}
	return r
}

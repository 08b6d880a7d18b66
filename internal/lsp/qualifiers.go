package lsp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// What a qualifier means, for completion details and hovers. The slot a
// qualifier fills comes from the isa forms (isa.NextQuals, isa.SlotOf);
// the words here are the PTX ISA manual's for the common modifiers:
// rounding (§9.7.3 "Rounding modifiers"), comparisons (§9.7.6.1),
// memory ordering and scope (§8.4, §8.5), state spaces (§5.1) and cache
// operators (§9.7.9.1).
var qualMeaning = map[string]string{
	".rn": "round to nearest even", ".rz": "round towards zero", ".rm": "round towards -infinity",
	".rp": "round towards +infinity", ".rna": "round to nearest, ties away from zero",
	".rni": "round to the nearest integer, ties to even", ".rzi": "round to an integer towards zero",
	".rmi": "round to an integer towards -infinity", ".rpi": "round to an integer towards +infinity",
	".rs":        "stochastic rounding with the random bits operand",
	".ftz":       "flush subnormal inputs and results to sign-preserving zero",
	".sat":       "saturate: clamp the result to the type's range ([0.0, 1.0] for floats, NaN to 0)",
	".satfinite": "saturate to the largest finite value (NaN stays NaN where the type has one)",
	".relu":      "clamp negative results to 0", ".approx": "fast approximation (not IEEE-rounded)",
	".full": "full-range approximation (division to 2 ulp)", ".NaN": "propagate NaN inputs to the result",
	".xorsign": "the result's sign is the XOR of the inputs' signs", ".abs": "absolute value of the result",
	".oob": "out-of-bounds accesses of a tensor return zero", ".noftz": "subnormals are kept (no flush to zero)",
	".cc": "write the carry-out to the condition code", ".wide": "the result is twice the width of the inputs",
	".shiftamt": "return the shift amount that normalizes the value", ".clamp": "clamp the shift amount",
	".wrap": "wrap the shift amount modulo 32", ".to": "convert from the named state space to the generic one",
	".uni": "the branch is not divergent (all threads take it)", ".sync": "the warp's threads synchronize",
	".aligned": "all threads of the warp (CTA for barriers) execute the same instruction",

	".eq": "equal", ".ne": "not equal", ".lt": "less than", ".le": "less than or equal",
	".gt": "greater than", ".ge": "greater than or equal",
	".ls": "lower or same (unsigned)", ".hs": "higher or same (unsigned)",
	".equ": "equal or unordered (either is NaN)", ".neu": "not equal or unordered", ".ltu": "less than or unordered",
	".leu": "less than, equal or unordered", ".gtu": "greater than or unordered", ".geu": "greater than, equal or unordered",
	".num": "both are numbers (neither is NaN)", ".nan": "either is NaN",
	".and": "AND", ".or": "OR", ".xor": "XOR",

	".weak": "weak memory operation (no ordering)", ".volatile": "volatile: relaxed with system scope, not cached",
	".relaxed": "relaxed: atomic, without ordering", ".acquire": "acquire: later operations stay after it",
	".release": "release: earlier operations stay before it", ".acq_rel": "acquire and release",
	".mmio": "memory-mapped I/O: exactly once, in order",
	".cta":  "scope: the threads of the CTA", ".cluster": "scope: the threads of the cluster",
	".gpu": "scope: the threads of the GPU", ".sys": "scope: the whole system (host included)",

	".global": "global memory", ".local": "the thread's local memory", ".shared": "shared memory (::cta)",
	".shared::cta": "the executing CTA's shared memory", ".shared::cluster": "the shared memory of any CTA of the cluster",
	".param": "parameter space", ".param::entry": "a kernel parameter", ".param::func": "a function parameter",
	".const": "constant memory", ".tex": "texture memory",

	".ca": "cache at all levels", ".cg": "cache in L2, not L1", ".cs": "streaming: likely accessed once",
	".lu": "last use", ".cv": "volatile: fetch again", ".wb": "write back at all coherent levels",
	".wt": "write through to system memory", ".nc": "through the non-coherent (texture) cache",
	".v2": "a vector of 2 elements", ".v4": "a vector of 4 elements", ".v8": "a vector of 8 elements",
	".v3":             "a vector of 3 elements",
	".L2::cache_hint": "takes a 64-bit cache policy operand",
}

// meaningOf returns what q means on form f ("" when the table has
// nothing): .lo and .hi are comparisons on setp and set and halves
// elsewhere; types are described by their kind and width.
func meaningOf(q isa.Qual, f *isa.OpForm) string {
	name := q.String()
	switch {
	case (q == isa.QLo || q == isa.QHi) && f != nil && f.Cmp != isa.CmpNone:
		if q == isa.QLo {
			return "lower (unsigned less than)"
		}
		return "higher (unsigned greater than)"
	case q == isa.QLo:
		return "the low half of the product"
	case q == isa.QHi:
		return "the high half of the product"
	case q.Group() == isa.GType:
		return typeMeaning(q)
	}
	return qualMeaning[name]
}

func typeMeaning(q isa.Qual) string {
	bits := itoa(q.Bits()) + "-bit"
	switch q.Kind() {
	case 'b':
		return bits + " untyped bits"
	case 'u':
		return bits + " unsigned integer"
	case 's':
		return bits + " signed integer"
	case 'f':
		return bits + " floating point"
	case 'x':
		return bits + " packed floating-point pair"
	case 'p':
		return "predicate"
	}
	return ""
}

// slotRole says which slot of form f qualifier q fills: a sub-opcode or
// required part, a type slot, or a choice with its default.
func slotRole(f *isa.OpForm, q isa.Qual, slot int) string {
	if slot < 0 {
		if strings.Contains(f.Title()+".", q.String()+".") {
			return "sub-opcode" // part of the instruction's name: mbarrier.init, st.bulk
		}
		return "required"
	}
	s := &f.Slots[slot]
	var role string
	switch s.Kind {
	case isa.SlotType:
		role = "type " + s.Name
		switch s.Name {
		case "D":
			role = "destination type"
		case "S":
			role = "source type"
		}
	case isa.SlotOne:
		role = "one of " + itoa(len(s.Values))
	case isa.SlotOpt:
		role = "optional"
		if len(s.Values) > 1 {
			role = "optional, one of " + itoa(len(s.Values))
		}
	default:
		role = "modifier"
	}
	if s.Default == q {
		role += ", the default"
	}
	return role
}

// gateText is "PTX 7.8, sm_90" (or only the half that is set).
func gateText(v isa.Version, a isa.Arch) string {
	var l []string
	if v != 0 {
		l = append(l, "PTX "+v.String())
	}
	if m := a.Minimal(); m != "" {
		l = append(l, m)
	}
	return strings.Join(l, ", ")
}

// formQualItems lists the qualifiers the forms of opcode accept after
// written, starting with partial, in syntax order. Detail: what the
// qualifier means and the slot it fills, then the version and target it
// needs when the opcode's oldest form does not already need them;
// Documentation: the syntax of the form it belongs to.
func formQualItems(opcode string, written []string, partial string, v isa.Version, t isa.Target) []completionItem {
	quals := make([]isa.Qual, len(written))
	for i, w := range written {
		if quals[i] = isa.LookupQual(w); quals[i] == isa.QNone {
			return nil
		}
	}
	next := isa.NextQuals(opcode, quals, v, t)
	var items []completionItem
	for i := range next {
		n := &next[i]
		name := n.Qual.String()
		if !strings.HasPrefix(name, partial) {
			continue
		}
		items = append(items, completionItem{Label: name, Kind: completionKindEnum,
			Detail: nextDetail(n), Documentation: n.Form.Syntax() + " (" + n.Form.Section + ")", pos: n.Pos})
	}
	sortByPos(items)
	return items
}

func nextDetail(n *isa.NextQual) string {
	role := slotRole(n.Form, n.Qual, n.Slot)
	what := meaningOf(n.Qual, n.Form)
	if role == "sub-opcode" {
		what = n.Form.Title() + ": " + n.Form.Doc()
	}
	d := role
	if what != "" {
		d = what + " (" + role + ")"
	}
	if n.Gated() {
		d += "; needs " + gateText(n.PTX, n.Arch)
	}
	return d
}

// sortByPos orders items by their place in the syntax, keeping the
// data file's order among equals (insertion sort: a few dozen items).
func sortByPos(items []completionItem) {
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && items[j].pos < items[j-1].pos; j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

// describeQual is the hover of qualifier i of instruction in: what it
// means there, the slot it fills, and the PTX ISA version and target it
// needs (the qualifier's own gate, or the instruction's).
func (a *analysis) describeQual(in *ast.Instruction, i int) string {
	names := make([]string, len(in.Quals))
	for k, q := range in.Quals {
		names[k] = q.Name
	}
	quals := isa.LookupQuals(names, nil)
	q := quals[i]
	head := fmt.Sprintf("**`%s`** on `%s`", names[i], in.Opcode)
	if q == isa.QNone {
		return head + ": not a PTX qualifier ptxkit knows\n"
	}
	if desc, _ := isa.SelectInstr(in.Opcode, names, quals); desc != nil {
		return head + ": " + storeQualText(desc, q)
	}
	v, _ := isa.ParseVersion(a.version)
	t, _ := isa.ParseTarget(a.target)
	var d isa.OpDecode
	isa.DecodeOpFor(in.Opcode, names, quals, len(in.Operands), v, t, &d, nil)
	f := d.Form
	if f == nil {
		return head + ": " + meaningOf(q, nil) + "\n"
	}
	slot := isa.SlotOf(f, q)
	if slot < 0 && !slices.Contains(f.Fixed, q) {
		return fmt.Sprintf("%s: not a qualifier of %s\n", head, f.Title())
	}
	role := slotRole(f, q, slot)
	what := meaningOf(q, f)
	if role == "sub-opcode" {
		what = f.Title() + ": " + f.Doc()
	}
	var b strings.Builder
	b.WriteString(head + ": ")
	if what != "" {
		b.WriteString(what + " (" + role + ")")
	} else {
		b.WriteString(role)
	}
	if ptx, arch, ok := isa.QualGateOf(f.Name, q); ok {
		fmt.Fprintf(&b, "\n\nrequires PTX ISA %s, %s (%s, PTX ISA Notes)\n", ptx, arch, f.Section)
	} else {
		fmt.Fprintf(&b, "\n\nno gate of its own: %s requires PTX ISA %s, %s (%s)\n", f.Title(), f.PTX, f.Arch, f.Section)
	}
	return b.String()
}

// storeQualText describes q on a store table instruction: its group's
// meaning and the version and target of the features it turns on.
func storeQualText(in *isa.Instr, q isa.Qual) string {
	var b strings.Builder
	if q == in.SubOp {
		b.WriteString(in.Name + ": " + in.Summary)
	}
	for _, g := range in.Groups {
		if slices.Contains(g.Values, q) {
			b.WriteString(g.Group.String() + ": " + g.Doc)
			if g.Default == q {
				b.WriteString(" (the default)")
			}
		}
	}
	if b.Len() == 0 {
		b.WriteString("not a qualifier of " + in.Name)
	}
	b.WriteString("\n")
	for _, ft := range in.Features {
		if ft.Qual == q {
			fmt.Fprintf(&b, "\nrequires PTX ISA %s, %s (%s)\n", ft.PTX, ft.Arch, ft.Name)
		}
	}
	return b.String()
}

package isa

import "strings"

// Completion: which qualifiers may follow those already written. An
// editor asks it after "add." or "cvt.rn."; the answer comes from the
// same forms the checker decodes with (forms.go), so a qualifier is
// offered exactly when some form of the opcode still accepts the
// qualifiers written followed by it.

// NextQual is a qualifier that may follow the written ones, with the
// first form (in data file order) that accepts it.
type NextQual struct {
	Qual Qual
	Form *OpForm
	Slot int     // the index in Form.Slots it fills, or -1 for a required part (a sub-opcode such as mbarrier's .init)
	Pos  int     // its place in the form's syntax (Form.Syntax), counting the name's parts
	PTX  Version // the PTX ISA version it needs: the form's, or the qualifier's gate when later
	Arch Arch    // the targets it needs: the qualifier's gate, or the form's
}

// Gated reports whether the qualifier needs more than the opcode's
// oldest form does (a later PTX ISA version or a newer minimum target).
func (n *NextQual) Gated() bool {
	base, arch := n.PTX, n.Arch.Min
	for _, f := range Forms(n.Form.Opcode) {
		base, arch = min(base, f.PTX), min(arch, f.Arch.Min)
	}
	return n.PTX > base || n.Arch.Min > arch || len(n.Arch.Arch) > 0 || len(n.Arch.Family) > 0
}

// NextQuals returns the qualifiers that may follow opcode and the
// qualifiers written so far (in source order), in the order of the data
// file, each once. A qualifier is offered when a form of the opcode
// accepts the written qualifiers followed by it with nothing wrong but
// qualifiers still missing: its slot is free, it conflicts with no rule
// line, and a form's required parts come first, in order (so "mbarrier."
// offers the sub-opcodes, and "cp." offers .async but not .bulk). A version or target (zero values: unknown)
// leaves out the forms and qualifier gates they do not have. Opcodes
// without forms (the store tables) give nil.
func NextQuals(opcode string, written []Qual, v Version, t Target) []NextQual {
	var out []NextQual
	var d OpDecode
	var probs []Problem
	names := make([]string, len(written)+1)
	for i, q := range written {
		names[i] = q.String()
	}
	cand := append(append(make([]Qual, 0, len(written)+1), written...), QNone)
	last := len(written)
	for _, f := range Forms(opcode) {
		if last >= capacity(f) || !gatePasses(f, v, t) || !partialFits(f, written, names[:last], &d, &probs) {
			continue
		}
		for _, q := range formQuals(f, last, written) {
			if q == QNone || indexNext(out, q) >= 0 {
				continue
			}
			cand[last], names[last] = q, q.String()
			if !accepts(f, cand, names, &d, &probs) {
				continue
			}
			n := NextQual{Qual: q, Form: f, Slot: slotOf(f, q), Pos: syntaxPos(f, q), PTX: f.PTX, Arch: f.Arch}
			if g := qualGate(f.Name, q); g != nil {
				if !gateFits(g.PTX, g.Arch, v, t) {
					continue
				}
				n.PTX, n.Arch = max(n.PTX, g.PTX), g.Arch
			}
			out = append(out, n)
		}
	}
	return out
}

// QualGateOf returns the version and target a qualifier of the form named
// name needs beyond the form's own, and whether it has such a gate.
func QualGateOf(name string, q Qual) (Version, Arch, bool) {
	if g := qualGate(name, q); g != nil {
		return g.PTX, g.Arch, true
	}
	return 0, Arch{}, false
}

// SlotOf returns the index in f.Slots of the slot q can fill, or -1 when
// q is one of the form's required parts or not a qualifier of f.
func SlotOf(f *OpForm, q Qual) int { return slotOf(f, q) }

func qualGate(name string, q Qual) *QualGate {
	for k := range qualGates {
		if g := &qualGates[k]; g.Qual == q && g.Name == name {
			return g
		}
	}
	return nil
}

func gateFits(need Version, arch Arch, v Version, t Target) bool {
	return (v == 0 || need == 0 || v >= need) && (t.SM == 0 || arch.Allows(t, v))
}

// leading returns the qualifiers that begin every instruction of form f,
// in order: its name's parts (mbarrier.init) and the required qualifiers
// its syntax starts with (tcgen05.alloc, cp.async.bulk).
func leading(f *OpForm) []Qual {
	parts := strings.Count(f.Name, ".")
	n := parts
	for _, k := range f.Order {
		if k >= 0 {
			break
		}
		n++
	}
	l := make([]Qual, 0, n)
	l = append(l, f.Fixed[:parts]...)
	for _, k := range f.Order[:n-parts] {
		l = append(l, f.Fixed[-int(k)-1])
	}
	return l
}

// syntaxPos returns the place of q in f's syntax: the name's parts first,
// then the entries of f.Order.
func syntaxPos(f *OpForm, q Qual) int {
	parts := strings.Count(f.Name, ".")
	if k := indexQual(f.Fixed[:parts], q); k >= 0 {
		return k
	}
	for j, k := range f.Order {
		if k < 0 && f.Fixed[-int(k)-1] == q || k >= 0 && indexQual(f.Slots[k].Values, q) >= 0 {
			return parts + j
		}
	}
	return parts + len(f.Order)
}

// formQuals lists the qualifiers f could take after written: the next of
// its leading qualifiers while they are not all written, else its other
// required qualifiers and its slots' values.
func formQuals(f *OpForm, n int, written []Qual) []Qual {
	if lead := leading(f); n < len(lead) {
		return lead[n : n+1]
	}
	l := make([]Qual, 0, 16)
	for _, q := range f.Fixed {
		if indexQual(written, q) < 0 {
			l = append(l, q)
		}
	}
	for _, s := range f.Slots {
		l = append(l, s.Values...)
	}
	return l
}

// partialFits reports whether written, an instruction's qualifiers so
// far, fit form f apart from what is still missing. The form's leading
// qualifiers come first: "mbarrier.shared" fits no mbarrier form.
func partialFits(f *OpForm, written []Qual, names []string, d *OpDecode, probs *[]Problem) bool {
	lead := leading(f)
	for i := range min(len(written), len(lead)) {
		if written[i] != lead[i] {
			return false
		}
	}
	*probs = decodeForm(f, names, written, d, (*probs)[:0])
	for _, p := range *probs {
		if !p.Warning && !missing(p) {
			return false
		}
	}
	return rulesFit(d, names, probs)
}

// accepts reports whether f takes quals, whose last one is the candidate:
// that one draws no problem, not even a warning (a second .sat, an
// ignored .pred), and the others draw only missing qualifiers.
func accepts(f *OpForm, quals []Qual, names []string, d *OpDecode, probs *[]Problem) bool {
	last := len(quals) - 1
	*probs = decodeForm(f, names, quals, d, (*probs)[:0])
	for _, p := range *probs {
		if p.Qual == last || !p.Warning && !missing(p) {
			return false
		}
	}
	return rulesFit(d, names, probs)
}

// rulesFit applies the rule lines and the comparison, vector and cvt
// checks to a partial decode: a rule that requires a qualifier not yet
// written is still satisfiable, and the comparisons are checked once the
// type is known.
func rulesFit(d *OpDecode, names []string, probs *[]Problem) bool {
	*probs = formChecks(d, names, (*probs)[:0])
	for _, p := range *probs {
		if p.Warning || missing(p) || p.Rule == "cmp-type" && d.Types[0] == QNone {
			continue
		}
		return false
	}
	return true
}

// capacity is the most qualifiers an instruction of form f can have, so
// that a line of thousands of qualifiers costs one comparison per form.
func capacity(f *OpForm) int {
	n := len(f.Fixed)
	for _, s := range f.Slots {
		if s.Kind == SlotAny {
			n += len(s.Values)
		} else {
			n++
		}
	}
	return n
}

func missing(p Problem) bool { return p.Rule == "missing-qualifier" || p.Rule == "missing-type" }

func slotOf(f *OpForm, q Qual) int {
	if indexQual(f.Fixed, q) >= 0 {
		return -1
	}
	for i := range f.Slots {
		if indexQual(f.Slots[i].Values, q) >= 0 {
			return i
		}
	}
	return -1
}

func indexNext(l []NextQual, q Qual) int {
	for i := range l {
		if l[i].Qual == q {
			return i
		}
	}
	return -1
}

package isa

import "slices"

// widenTypeHint rewrites the hint of a wrong type that is the only error
// of the best form to list every type the instruction takes at that
// place with its other qualifiers: set.eq.f16.bf16 is told that .f16
// results take integer and floating-point sources, which two forms hold.
func widenTypeHint(opcode, name string, names []string, quals []Qual, probs []Problem) {
	i := -1
	for k := range probs {
		if probs[k].Warning {
			continue
		}
		if i >= 0 || probs[k].Rule != "type-not-allowed" {
			return
		}
		i = k
	}
	if i < 0 || probs[i].Qual < 0 || probs[i].Qual >= len(quals) {
		return
	}
	l := typesAt(opcode, names, quals, probs[i].Qual)
	if len(l) == 0 {
		return
	}
	qi := probs[i].Qual
	probs[i].Msg = names[qi] + " is not a type of " + name + " (" + joinQuals(l) + " here)"
	probs[i].Fix = "use one of " + joinQuals(l)
}

// typesAt returns the types that, written at position qi instead of
// quals[qi], give the instruction a form without errors, in the order of
// the type constants.
func typesAt(opcode string, names []string, quals []Qual, qi int) []Qual {
	forms := Forms(opcode)
	q2 := append([]Qual(nil), quals...)
	n2 := append([]string(nil), names...)
	var l []Qual
	var d OpDecode
	var buf []Problem
	for _, f := range forms {
		for _, s := range f.Slots {
			if s.Kind != SlotType {
				continue
			}
			for _, t := range s.Values {
				if indexQual(l, t) >= 0 {
					continue
				}
				q2[qi], n2[qi] = t, t.String()
				for _, g := range forms {
					if buf = decodeForm(g, n2, q2, &d, buf[:0]); score(buf) == 0 {
						l = append(l, t)
						break
					}
				}
			}
		}
	}
	slices.Sort(l)
	return l
}

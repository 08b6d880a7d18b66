package isa

// This file suggests the spelling a misspelt qualifier or opcode was
// probably meant to be: the nearest known spelling by edit distance, at
// most two edits away, preferring on a tie the one sharing the longest
// prefix with what was written ("stt" is "st", not "set").

// closer reports whether candidate k at distance d beats the best so far
// (best at bestD) as a suggestion for s.
func closer(s, k string, d int, best string, bestD int) bool {
	return d < bestD || d == bestD && best != "" && commonPrefix(s, k) > commonPrefix(s, best)
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// nearestQual returns the spelling of the qualifier among cands closest
// to name, or "" when none is within two edits.
func nearestQual(name string, cands []Qual) string {
	best, bestD := "", 3
	for _, q := range cands {
		k := q.String()
		if d := editDistance(name, k, bestD+1); d <= 2 && closer(name, k, d, best, bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// unknownQualProblem reports qualifier i, spelt name, which no instruction
// knows, suggesting the nearest of the qualifiers the instruction allows
// (cands) or else of all qualifiers.
func unknownQualProblem(i int, name, instr, spec string, cands []Qual) Problem {
	p := Problem{Rule: "unknown-qualifier", Qual: i, Spec: spec, Msg: "unknown qualifier " + name + " on " + instr}
	s := nearestQual(name, cands)
	if s == "" {
		s = nearestQual(name, allQuals())
	}
	if s != "" {
		p.Msg += "; did you mean " + s + "?"
		p.Fix = "write " + s
	}
	return p
}

// allQuals lists every qualifier (on the error path only).
func allQuals() []Qual {
	l := make([]Qual, 0, numQuals-1)
	for q := Qual(1); q < numQuals; q++ {
		l = append(l, q)
	}
	return l
}

// allowedQuals lists the qualifiers in may carry.
func (in *Instr) allowedQuals() []Qual {
	var l []Qual
	for q := Qual(1); q < numQuals; q++ {
		if in.allowed[q] {
			l = append(l, q)
		}
	}
	return l
}

// formQuals lists the qualifiers form f names.
func (f *OpForm) formQuals() []Qual {
	l := append([]Qual(nil), f.Fixed...)
	for _, s := range f.Slots {
		l = append(l, s.Values...)
	}
	return append(l, f.Ignores...)
}

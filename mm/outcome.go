package mm

import (
	"fmt"
	"sort"
	"strings"
)

// OutcomeCount is one final state, projected on the registers and
// locations the condition reads, with the number of allowed executions
// that end in it.
type OutcomeCount struct {
	State   string `json:"state"`
	Count   int    `json:"count"`
	Witness bool   `json:"witness"` // the state satisfies the witness
	// Example is the first allowed execution found that ends in the state
	// (Check keeps one per state).
	Example *Execution `json:"-"`
}

// condTerms lists the registers and locations a condition reads, in order
// of first appearance.
func condTerms(x Cond, out []Term) []Term {
	add := func(t Term) {
		if t.Thread < 0 && !t.IsLoc {
			return
		}
		for _, u := range out {
			if u.text == t.text {
				return
			}
		}
		out = append(out, t)
	}
	switch x := x.(type) {
	case *cmpCond:
		add(x.l)
		add(x.r)
	case *notCond:
		out = condTerms(x.x, out)
	case *binCond:
		out = condTerms(x.l, out)
		out = condTerms(x.r, out)
	}
	return out
}

// tallyOutcome counts an execution that ends in o and returns its state's
// count.
func (c *checker) tallyOutcome(o *Outcome, holds bool) *OutcomeCount {
	if c.outcomes == nil {
		c.outcomes = map[string]*OutcomeCount{}
		c.terms = condTerms(c.prog.Cond, nil)
	}
	var b strings.Builder
	for i, t := range c.terms {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s=%d", t.text, t.value(o))
	}
	k := b.String()
	oc := c.outcomes[k]
	if oc == nil {
		oc = &OutcomeCount{State: k, Witness: holds}
		c.outcomes[k] = oc
	}
	oc.Count++
	return oc
}

func (c *checker) sortedOutcomes() []OutcomeCount {
	var out []OutcomeCount
	for _, oc := range c.outcomes {
		out = append(out, *oc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].State < out[j].State })
	return out
}

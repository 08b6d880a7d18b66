package emu

import (
	"slices"

	"github.com/ptxkit/ptxkit/ptx/token"
)

// Keep-going runs (Config.KeepGoing, ptxkit run --keep-going): a report
// whose rule can be continued from is kept instead of stopping the run,
// the faulting access is suppressed and the run goes on. Each distinct
// problem (rule and instruction) is kept once, with a count of its
// instances; reports that cannot be continued from still end the run
// (docs/emu.md, "Keep going").

// DefaultMaxReports is the number of distinct problems a keep-going run
// keeps when Config.MaxReports is 0.
const DefaultMaxReports = 100

// KeptReport is one distinct problem of a keep-going run.
type KeptReport struct {
	*Report     // its first instance (the thread named is the first to hit it)
	Count   int // instances: how many times a thread (or an operation) hit it
}

// stopRules are the rules a run cannot be continued from: the run never
// ends, the thread cannot go on, or the emulator cannot model what follows.
var stopRules = map[string]bool{
	ruleDeadlock: true, RuleMaxSteps: true, RuleTimeout: true, RuleUnsupported: true,
	ruleCallDepth: true, ruleAssert: true, "trap": true,
}

// Continuable reports whether a keep-going run goes on after a report of
// rule.
func Continuable(rule string) bool { return !stopRules[rule] }

// keptKey identifies a distinct problem: its rule at one instruction.
type keptKey struct {
	rule string
	pos  token.Pos
}

// keptSet holds the distinct problems of one cluster (or, merged, of a
// launch), in order of first occurrence, at most max of them.
type keptSet struct {
	max     int
	list    []KeptReport
	index   map[keptKey]int
	leftOut int // instances of the problems past max
}

func newKeptSet(max int) *keptSet {
	if max <= 0 {
		max = DefaultMaxReports
	}
	return &keptSet{max: max, index: map[keptKey]int{}}
}

// add counts n instances of r's problem, keeping r when it is the first.
func (s *keptSet) add(r *Report, n int) {
	k := keptKey{r.Rule, r.Pos}
	if i, ok := s.index[k]; ok {
		s.list[i].Count += n
		return
	}
	if len(s.list) >= s.max {
		s.leftOut += n
		return
	}
	s.index[k] = len(s.list)
	s.list = append(s.list, KeptReport{Report: r, Count: n})
}

// merge adds the problems of o after those of s.
func (s *keptSet) merge(o *keptSet) {
	for _, k := range o.list {
		s.add(k.Report, k.Count)
	}
	s.leftOut += o.leftOut
}

// keep records r when the cluster keeps going after it, and reports
// whether it did.
func (c *Cluster) keep(r *Report) bool {
	if c.kept == nil || !Continuable(r.Rule) {
		return false
	}
	c.kept.add(r, 1)
	return true
}

// keptNil is the answer of Bytes when a keep-going run went on after the
// access's report: a zeroed scratch buffer of n bytes that a faulting load
// reads as zeros and a faulting store writes into, reaching no memory.
// It returns nil when the report stopped the run.
func (w *Warp) keptNil(n int) []byte {
	if w.CTA.cluster.report != nil || w.CTA.cluster.kept == nil {
		return nil
	}
	if cap(w.scratch) < n {
		w.scratch = make([]byte, n)
	}
	b := w.scratch[:n]
	clear(b)
	return b
}

// mergeKept merges the problems the clusters 0..last kept (by cluster
// index, so the order does not depend on Jobs) and stop, the report that
// ended the run (nil when none).
func mergeKept(by map[int]*keptSet, last, max int, stop *Report) *keptSet {
	all := newKeptSet(max)
	idx := make([]int, 0, len(by))
	for i, s := range by {
		if i <= last && s != nil {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	for _, i := range idx {
		all.merge(by[i])
	}
	if stop != nil {
		all.add(stop, 1)
	}
	return all
}

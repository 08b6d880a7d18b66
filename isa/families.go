package isa

import "strings"

// FamilyGate is the version and target floor of an instruction family the
// tables do not describe in full yet. The validator applies it to every
// instruction whose dotted name starts with Prefix (the longest prefix
// wins), so that, for example, tcgen05.alloc in a PTX 8.5 file or
// mbarrier.try_wait for sm_80 is reported even before the family has its
// own table.
type FamilyGate struct {
	Prefix  string // "tcgen05", "mbarrier.try_wait", "cp.async.bulk"
	Section string
	PTX     Version
	Arch    Arch
}

// familyGates are the introduction versions and targets from each
// family's "PTX ISA Notes" and "Target ISA Notes" (DIGEST §5, §6, §8).
var familyGates = []FamilyGate{
	{Prefix: "tcgen05", Section: "PTX ISA 9.7.16.8", PTX: V(8, 6), Arch: tcgen05Arch},
	{Prefix: "mbarrier", Section: "PTX ISA 9.7.13.15", PTX: V(7, 0), Arch: SM(80)},
	{Prefix: "mbarrier.try_wait", Section: "PTX ISA 9.7.13.15.16", PTX: V(7, 8), Arch: SM(90)},
	{Prefix: "mbarrier.expect_tx", Section: "PTX ISA 9.7.13.15.11", PTX: V(8, 0), Arch: SM(90)},
	{Prefix: "mbarrier.complete_tx", Section: "PTX ISA 9.7.13.15.12", PTX: V(8, 0), Arch: SM(90)},
	{Prefix: "cp.async", Section: "PTX ISA 9.7.9.25.3", PTX: V(7, 0), Arch: SM(80)},
	{Prefix: "cp.async.bulk", Section: "PTX ISA 9.7.9.25.4", PTX: V(8, 0), Arch: SM(90)},
	{Prefix: "cp.reduce.async.bulk", Section: "PTX ISA 9.7.9.25.4", PTX: V(8, 0), Arch: SM(90)},
	{Prefix: "red.async", Section: "PTX ISA 9.7.13.7", PTX: V(8, 1), Arch: SM(90)},
	{Prefix: "mapa", Section: "PTX ISA 9.7.9.23", PTX: V(7, 8), Arch: SM(90)},
	{Prefix: "getctarank", Section: "PTX ISA 9.7.9.24", PTX: V(7, 8), Arch: SM(90)},
	{Prefix: "barrier.cluster", Section: "PTX ISA 9.7.13.3", PTX: V(7, 8), Arch: SM(90)},
	{Prefix: "fence.proxy.async", Section: "PTX ISA 9.7.13.4", PTX: V(8, 0), Arch: SM(90)},
	{Prefix: "stmatrix", Section: "PTX ISA 9.7.14.5.16", PTX: V(7, 8), Arch: SM(90)},
	{Prefix: "multimem", Section: "PTX ISA 9.7.13.10", PTX: V(8, 1), Arch: SM(90)},
	{Prefix: "st.bulk", Section: "PTX ISA 9.7.9.13", PTX: V(8, 6), Arch: SM(100)},
}

// HasFamily reports whether some family gate starts with opcode (the text
// before the first dot), so that callers build the dotted name only then.
func HasFamily(opcode string) bool {
	for i := range familyGates {
		if familyOpcodeIs(familyGates[i].Prefix, opcode) {
			return true
		}
	}
	return false
}

// familyOpcodeIs reports whether the family prefix p starts with the
// opcode op (the text before its first dot).
func familyOpcodeIs(p, op string) bool {
	return len(p) >= len(op) && p[:len(op)] == op && (len(p) == len(op) || p[len(op)] == '.')
}

// LookupFamily returns the gate for a dotted instruction name
// ("mbarrier.try_wait.parity.shared::cta.b64"), or nil.
func LookupFamily(name string) *FamilyGate {
	var best *FamilyGate
	for i := range familyGates {
		g := &familyGates[i]
		p := g.Prefix
		if strings.HasPrefix(name, p) && (len(name) == len(p) || name[len(p)] == '.') {
			if best == nil || len(p) > len(best.Prefix) {
				best = g
			}
		}
	}
	return best
}

// FamilyOf is LookupFamily for an opcode and its qualifier spellings in
// source order, without building the dotted name. It also returns the
// number of dotted components the matching prefix has.
func FamilyOf(opcode string, names []string) (*FamilyGate, int) {
	var best *FamilyGate
	bestParts := 0
	for i := range familyGates {
		g := &familyGates[i]
		if !familyOpcodeIs(g.Prefix, opcode) {
			continue
		}
		if parts, ok := familyMatches(g.Prefix[len(opcode):], names); ok && parts > bestParts {
			best, bestParts = g, parts
		}
	}
	return best, bestParts
}

// familyMatches reports whether rest, the dotted parts of a family prefix
// after its opcode (".try_wait", or "" for the opcode alone), are the
// first qualifier spellings of names, and how many dotted components the
// prefix has with its opcode.
func familyMatches(rest string, names []string) (int, bool) {
	parts := 1
	for ; rest != ""; parts++ {
		end := strings.IndexByte(rest[1:], '.') + 1
		if end == 0 {
			end = len(rest)
		}
		if parts-1 >= len(names) || names[parts-1] != rest[:end] {
			return 0, false
		}
		rest = rest[end:]
	}
	return parts, true
}

// Check reports the problems of using the family in a module of version v
// for target t (zero values skip that half).
func (g *FamilyGate) Check(v Version, t Target, probs []Problem) []Problem {
	if v != 0 && v < g.PTX {
		probs = append(probs, Problem{Rule: "ptx-version", Qual: -1, Spec: g.Section,
			Msg: g.Prefix + " requires PTX ISA " + g.PTX.String() + " (this file declares " + v.String() + ")",
			Fix: "raise .version to " + g.PTX.String()})
	}
	if t.SM != 0 && !g.Arch.Allows(t, v) {
		probs = append(probs, Problem{Rule: "target", Qual: -1, Spec: g.Section,
			Msg: g.Prefix + " requires " + g.Arch.String() + " (target is " + t.String() + ")",
			Fix: "compile for " + g.Arch.Minimal()})
	}
	return probs
}

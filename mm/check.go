package mm

import (
	"errors"
	"fmt"
)

// Model selects a version of the PTX memory consistency model.
type Model uint8

// Model versions.
const (
	PTXv60 Model = iota // PTX ISA 6.0: scopes, strength, fences, RMWs, barriers
	PTXv75              // PTX ISA 7.5: adds proxies and virtual aliases (§8.6)
)

func (m Model) String() string {
	if m == PTXv60 {
		return "ptx-v6.0"
	}
	return "ptx-v7.5"
}

// ParseModel reads "ptx-v6.0" or "ptx-v7.5".
func ParseModel(s string) (Model, error) {
	switch s {
	case "ptx-v6.0", "v6.0", "6.0":
		return PTXv60, nil
	case "ptx-v7.5", "v7.5", "7.5":
		return PTXv75, nil
	}
	return 0, fmt.Errorf("unknown model %q (want ptx-v6.0 or ptx-v7.5)", s)
}

// Outcome is the final state of an execution: each thread's registers and
// each location's final value (the value of its last write in coherence
// order).
type Outcome struct {
	Regs []map[string]int64
	Mem  []int64 // per location (virtual address)
}

// Execution is one allowed execution, kept to show a witness.
type Execution struct {
	Events  []Event
	RF      []int    // per event: the write a read reads from, -1 otherwise
	CO      [][2]int // coherence edges (not transitively reduced)
	SW      [][2]int // synchronizes-with edges (§8.9.4)
	Values  []int64  // per event: the value read or written
	Outcome Outcome
}

// Result is the verdict on one program.
type Result struct {
	Model      Model
	Reachable  bool // some allowed execution satisfies the witness
	Pass       bool // the condition holds in Dartagnan's sense
	Executions int  // allowed executions: distinct (reads-from, coherence) pairs
	Witness    *Execution
	Outcomes   []OutcomeCount // final states over the condition's terms
}

// ErrTooLarge reports a program beyond the enumerator's bounds.
var ErrTooLarge = errors.New("program too large for exhaustive enumeration")

// Check decides the program's condition under model m: the witness is the
// condition for exists and ~exists, and its negation for forall.
func Check(prog *Program, m Model) (*Result, error) {
	c, err := newChecker(prog, m)
	if err != nil {
		return nil, err
	}
	c.wantWitness = true
	if err := c.run(); err != nil {
		return nil, err
	}
	res := &Result{Model: m, Reachable: c.reached, Executions: c.count, Witness: c.witness, Outcomes: c.sortedOutcomes()}
	switch prog.Quant {
	case Exists:
		res.Pass = c.reached
	default:
		res.Pass = !c.reached
	}
	return res, nil
}

// witnessHolds evaluates the witness formula on an outcome.
func witnessHolds(prog *Program, o *Outcome) bool {
	v := prog.Cond.eval(o)
	if prog.Quant == Forall {
		return !v
	}
	return v
}

package cudrv

import (
	"encoding/binary"
	"fmt"
)

// Conditional graph nodes (CUDA 12.3: cuGraphConditionalHandleCreate,
// CU_GRAPH_NODE_TYPE_CONDITIONAL). A conditional handle is the global
// address of a 32-bit cell that holds the condition: device code sets it
// with cudaGraphSetConditional, which the emulator provides as a system
// call storing the value at the handle (emu/graphcond.go), and the graph
// reads it when it reaches the conditional node. The cell is the
// driver's own memory, not an allocation the program may free.

// CUgraphConditionalNodeType values.
const (
	CondIf     = 0 // run body 0 once when the condition is non-zero (body 1, if any, when zero)
	CondWhile  = 1 // run body 0 while the condition is non-zero
	CondSwitch = 2 // run body number condition, when there is one
)

// conditional is a conditional handle's default value and whether each
// launch of its graph starts from it (CU_GRAPH_COND_ASSIGN_DEFAULT).
type conditional struct {
	deflt  uint32
	assign bool
}

// CreateConditional is cuGraphConditionalHandleCreate: a new handle whose
// condition starts as deflt; with assign, every launch of the graph
// resets it to deflt (ApplyConditionalDefaults).
func (d *Driver) CreateConditional(deflt uint32, assign bool) (uint64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.state(); r != Success {
		return 0, r
	}
	if d.conds == nil {
		d.conds = map[uint64]conditional{}
	}
	r := d.mem.Alloc(fmt.Sprintf("conditional handle %d", len(d.conds)+1), 4, 4)
	binary.LittleEndian.PutUint32(r.Data, deflt)
	d.conds[r.Base] = conditional{deflt: deflt, assign: assign}
	return r.Base, Success
}

// ApplyConditionalDefaults starts a graph launch: the handles created
// with CU_GRAPH_COND_ASSIGN_DEFAULT get their default value again.
func (d *Driver) ApplyConditionalDefaults(handles []uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range handles {
		if c, ok := d.conds[h]; ok && c.assign {
			if b, r := d.device(h, 4); r == Success {
				binary.LittleEndian.PutUint32(b, c.deflt)
			}
		}
	}
}

// Condition returns the value of conditional handle h.
func (d *Driver) Condition(h uint64) (uint32, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.conds[h]; !ok {
		return 0, ErrInvalidValue
	}
	b, r := d.device(h, 4)
	if r != Success {
		return 0, r
	}
	return binary.LittleEndian.Uint32(b), Success
}

// IsConditional reports whether h is a conditional handle.
func (d *Driver) IsConditional(h uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.conds[h]
	return ok
}

// RunConditional runs a conditional node of the given type (CondIf,
// CondWhile, CondSwitch) with n body graphs: body(i) runs body graph i.
// The condition is read before each decision, after the work before the
// node (and each run of the body) has completed, as on a GPU.
func (d *Driver) RunConditional(h uint64, kind, n int, body func(i int) Result) Result {
	for {
		v, r := d.Condition(h)
		if r != Success {
			return r
		}
		switch {
		case kind == CondIf && v != 0:
			return body(0)
		case kind == CondIf && n == 2:
			return body(1)
		case kind == CondSwitch && int64(v) < int64(n):
			return body(int(v))
		case kind != CondWhile || v == 0:
			return Success
		}
		if r := body(0); r != Success {
			return r
		}
		if r := d.State(); r != Success {
			return r
		}
	}
}

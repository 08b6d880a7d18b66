package emu

// The collector buffers of tcgen05.mma (PTX ISA §9.7.16.10.9): a buffer
// for A (.collector::a::op) and, for the weight-stationary .ws form, four
// buffers for B (.collector::bN::op). ::fill reads the operand and keeps it
// in the buffer, ::use and ::lastuse take the operand from the buffer
// instead of reading it (::lastuse empties the buffer afterwards),
// ::discard (the default) reads the operand and leaves the buffer's
// content undefined. The emulator keeps the matrix a fill read and hands
// it to later ::use/::lastuse MMAs of the CTA, in issue order; a ::use or
// ::lastuse of a buffer that holds no matrix of the MMA's shape and types
// (no fill since the last ::lastuse or ::discard) is reported when the MMA
// is issued.
//
// .ws: .cta_group::1 with M = 128 (the M = 128 data path: row i of D in
// lane i), 64 or 32 (D folded over the lanes, Layouts E and G,
// tcgen05_layout.go) and N = 64, 128 or 256; the idesc's B-reuse shift
// (bits 30-31) is allowed; the zero-column-mask-desc operand is in
// tcgen05_masks.go.

import (
	"fmt"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

const (
	specTcCollector = "PTX ISA §9.7.16.10.9 (tcgen05.mma collector usage: ::use and ::lastuse need a matrix an earlier ::fill kept)"
	// ruleTcgen05Collector: ::use or ::lastuse of an empty collector buffer.
	ruleTcgen05Collector = "tcgen05-collector"
)

// tcCollect is a collector usage.
type tcCollect uint8

const (
	tcCollectNone tcCollect = iota
	tcCollectFill
	tcCollectUse
	tcCollectLastuse
	tcCollectDiscard
)

// reuses reports whether the operand comes from the buffer.
func (c tcCollect) reuses() bool { return c == tcCollectUse || c == tcCollectLastuse }

var tcCollectorOps = map[isa.Qual]tcCollect{
	isa.QCollector_A_Fill: tcCollectFill, isa.QCollector_A_Use: tcCollectUse,
	isa.QCollector_A_Lastuse: tcCollectLastuse, isa.QCollector_A_Discard: tcCollectDiscard,
}

// tcCollectorB are the .collector::bN::op qualifiers: buffer and operation.
var tcCollectorB = map[isa.Qual][2]int{
	isa.QCollector_B0_Fill: {0, int(tcCollectFill)}, isa.QCollector_B0_Use: {0, int(tcCollectUse)},
	isa.QCollector_B0_Lastuse: {0, int(tcCollectLastuse)}, isa.QCollector_B0_Discard: {0, int(tcCollectDiscard)},
	isa.QCollector_B1_Fill: {1, int(tcCollectFill)}, isa.QCollector_B1_Use: {1, int(tcCollectUse)},
	isa.QCollector_B1_Lastuse: {1, int(tcCollectLastuse)}, isa.QCollector_B1_Discard: {1, int(tcCollectDiscard)},
	isa.QCollector_B2_Fill: {2, int(tcCollectFill)}, isa.QCollector_B2_Use: {2, int(tcCollectUse)},
	isa.QCollector_B2_Lastuse: {2, int(tcCollectLastuse)}, isa.QCollector_B2_Discard: {2, int(tcCollectDiscard)},
	isa.QCollector_B3_Fill: {3, int(tcCollectFill)}, isa.QCollector_B3_Use: {3, int(tcCollectUse)},
	isa.QCollector_B3_Lastuse: {3, int(tcCollectLastuse)}, isa.QCollector_B3_Discard: {3, int(tcCollectDiscard)},
}

// collectorQual records n if it is a collector usage.
func (x *tcMMAInst) collectorQual(n isa.Qual) bool {
	if c, ok := tcCollectorOps[n]; ok {
		x.collA = c
		return true
	}
	if b, ok := tcCollectorB[n]; ok {
		x.bufB, x.collB = b[0], tcCollect(b[1])
		return true
	}
	return false
}

func (x *tcMMAInst) form() tcForm {
	switch {
	case x.pair:
		return tcFormPair
	case x.ws:
		return tcFormWS
	}
	return tcFormCTA1
}

// decodeTcWS checks .ws against the rest of the instruction.
func decodeTcWS(d *Decoder, in *ast.Instruction, x *tcMMAInst) error {
	switch {
	case x.collB != tcCollectNone && !x.ws:
		return d.Errorf(in, "%s: .collector::bN goes with .ws", in.FullOpcode())
	case x.ws && x.collA != tcCollectNone:
		return d.Errorf(in, "%s: .ws takes .collector::bN, not .collector::a", in.FullOpcode())
	case x.ws && (x.pair || x.kind.blockScaled()):
		return d.Errorf(in, "%s: .ws goes with .cta_group::1 and without block scaling", in.FullOpcode())
	}
	return nil
}

// checkWSShape checks M and N of a .ws descriptor.
func checkWSShape(v uint32, m, n int) error {
	switch {
	case m != 32 && m != 64 && m != 128:
		return idescInvalid("idesc %#08x gives M = %d (bits 24-28 = M>>4); .ws allows 32, 64 and 128", v, m)
	case n != 64 && n != 128 && n != 256:
		return idescInvalid("idesc %#08x gives N = %d (bits 17-22 = N>>3); .ws allows 64, 128 and 256", v, n)
	}
	return nil
}

// tcCollectors are a CTA's collector buffers: index 0 is A's, 1-4 are
// B's b0-b3. shape is the state as issued MMAs leave it (what a later
// issue may use), data the matrices as landed MMAs leave them.
type tcCollectors struct {
	shape [5]string
	data  [5][]uint64
}

// collectorUses are the (buffer, usage) pairs of op.
func (op *tcMMAOp) collectorUses() [][2]int {
	var u [][2]int
	if op.x.collA != tcCollectNone {
		u = append(u, [2]int{0, int(op.x.collA)})
	}
	if op.x.collB != tcCollectNone {
		u = append(u, [2]int{1 + op.x.bufB, int(op.x.collB)})
	}
	return u
}

// checkCollectors applies op's collector usage to the issue-time state and
// reports a ::use or ::lastuse of a buffer without a matching matrix.
func (op *tcMMAOp) checkCollectors(w *Warp, l int) Status {
	st := &op.ct.collectors
	for _, u := range op.collectorUses() {
		buf, c := u[0], tcCollect(u[1])
		key := op.collectorKey(buf)
		switch c {
		case tcCollectUse, tcCollectLastuse:
			if st.shape[buf] != key {
				held := "no matrix"
				if st.shape[buf] != "" {
					held = "a " + st.shape[buf] + " matrix"
				}
				return w.Fault(l, ruleTcgen05Collector, specTcCollector, "tcgen05.mma: collector buffer %s holds %s, and this MMA uses a %s one",
					collectorName(buf), held, key)
			}
			if c == tcCollectLastuse {
				st.shape[buf] = ""
			}
		case tcCollectFill:
			st.shape[buf] = key
		case tcCollectDiscard:
			st.shape[buf] = ""
		}
	}
	return Continue
}

func collectorName(buf int) string {
	if buf == 0 {
		return "a"
	}
	return fmt.Sprintf("b%d", buf-1)
}

// collectorKey names the shape and element types of the operand buffer
// holds.
func (op *tcMMAOp) collectorKey(buf int) string {
	id := op.id
	if buf == 0 {
		return fmt.Sprintf("%dx%d %s", id.m, id.k, tensorcore.Name(id.a))
	}
	return fmt.Sprintf("%dx%d %s", id.k, id.bColumns(), tensorcore.Name(id.b))
}

// useCollectors takes the reused operands from the buffers (when the MMA
// lands).
func (op *tcMMAOp) useCollectors() {
	st := &op.ct.collectors
	for _, u := range op.collectorUses() {
		buf, c := u[0], tcCollect(u[1])
		if !c.reuses() {
			continue
		}
		m := append([]uint64(nil), st.data[buf]...)
		if buf == 0 {
			op.A = m
		} else {
			op.B = m
		}
		if c == tcCollectLastuse {
			st.data[buf] = nil
		}
	}
}

// fillCollectors keeps the operands of ::fill (before negation).
func (op *tcMMAOp) fillCollectors() {
	st := &op.ct.collectors
	for _, u := range op.collectorUses() {
		buf, c := u[0], tcCollect(u[1])
		switch {
		case c == tcCollectFill && buf == 0:
			st.data[0] = append([]uint64(nil), op.A...)
		case c == tcCollectFill:
			st.data[buf] = append([]uint64(nil), op.B...)
		case c == tcCollectDiscard:
			st.data[buf] = nil
		}
	}
}

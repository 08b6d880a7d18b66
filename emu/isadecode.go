package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// The emulator reads every instruction as isa decodes it: the store family
// (st, st.async, tcgen05.st) through its tables into an isa.Form, every
// other instruction through its forms into an isa.OpDecode (PTX ISA §9.7).
// An opcode or a qualifier isa does not know is a decode error whether or
// not the module was validated; the other problems isa finds are the
// validator's to report.

// isaDecoded is the isa decoding of the instruction being lowered.
type isaDecoded struct {
	names []string
	quals []isa.Qual
	store bool         // decoded by a store table: form is set
	form  isa.Form     // store family
	op    isa.OpDecode // every other instruction
	probs []isa.Problem
	q     Quals // quals, classified for the DecodeFuncs
	key   []byte
	// cache holds the decoding of each distinct opcode, qualifier list
	// and operand count already seen whose qualifiers are all known, so
	// that a kernel's repeated instruction shapes are decoded once.
	cache map[string]*isaDecoded
}

// decodeISA decodes in with isa into d.isa. It reports an unknown opcode
// or qualifier, positioned at it, and returns false.
func (d *Decoder) decodeISA(in *ast.Instruction) bool {
	x := &d.isa
	x.quals = x.quals[:0]
	x.key = append(append(x.key[:0], in.Opcode...), 0, byte(min(len(in.Operands), 255)))
	known := true
	for _, q := range in.Quals {
		v := isa.LookupQual(q.Name)
		known = known && v != isa.QNone
		x.quals = append(x.quals, v)
		x.key = append(x.key, byte(v), byte(v>>8))
	}
	if c := x.cache[string(x.key)]; known && c != nil {
		x.store, x.form, x.op, x.q = c.store, c.form, c.op, c.q
		x.form.Quals, x.op.Quals = x.quals, x.quals
		return true
	}
	x.names = x.names[:0]
	for _, q := range in.Quals {
		x.names = append(x.names, q.Name)
	}
	x.probs = x.probs[:0]
	desc, _ := isa.SelectInstr(in.Opcode, x.names, x.quals)
	x.store = desc != nil
	if x.store {
		x.probs = isa.DecodeQuals(&x.form, desc, x.names, x.quals, x.probs)
	} else {
		x.probs = isa.DecodeOp(in.Opcode, x.names, x.quals, len(in.Operands), &x.op, x.probs)
	}
	for _, p := range x.probs {
		switch p.Rule {
		case "unknown-opcode":
			d.errorf(in, "emu-decode", "%s", p.Msg)
			return false
		case "unknown-qualifier":
			if p.Qual >= 0 && p.Qual < len(in.Quals) {
				q := in.Quals[p.Qual]
				msg := p.Msg
				if p.Qual == 0 && !x.store && subOpcodes(in.Opcode) {
					msg = "unknown " + in.Opcode + " operation " + q.Name
				}
				d.errs.Errorf(d.prog.File, q.Pos, q.End(), "emu-decode", "%s", msg)
			} else {
				d.errorf(in, "emu-decode", "%s", p.Msg)
			}
			return false
		}
	}
	x.q = classify(x.quals)
	if known {
		if x.cache == nil {
			x.cache = map[string]*isaDecoded{}
		}
		q := x.q
		q.List = append([]isa.Qual(nil), x.quals...)
		x.cache[string(x.key)] = &isaDecoded{store: x.store, form: x.form, op: x.op, q: q}
	}
	return true
}

// Form returns the store table's decoding of the instruction being
// lowered (st, st.async, tcgen05.st), or nil for any other instruction.
func (d *Decoder) Form() *isa.Form {
	if !d.isa.store {
		return nil
	}
	return &d.isa.form
}

// Op returns the forms' decoding of the instruction being lowered, or nil
// for the store family (Form).
func (d *Decoder) Op() *isa.OpDecode {
	if d.isa.store {
		return nil
	}
	return &d.isa.op
}

// subOpcodes reports whether every form of opcode names an operation after
// it (mbarrier.init, mbarrier.arrive, ...), so that an unknown first
// qualifier is an unknown operation.
func subOpcodes(opcode string) bool {
	forms := isa.Forms(opcode)
	for _, f := range forms {
		if f.Name == f.Opcode {
			return false
		}
	}
	return len(forms) > 0
}

// operandForm decodes in the way decodeISA does, without reporting: it
// returns whether in is of the store table's family (st, st.async,
// tcgen05.st: every operand is read) and otherwise the form whose
// operands in has, or nil when no form fits without a problem. The
// register analysis (regalloc.go) asks before lowering.
func operandForm(in *ast.Instruction) (form *isa.OpForm, store bool) {
	names := make([]string, len(in.Quals))
	quals := make([]isa.Qual, len(in.Quals))
	for i, q := range in.Quals {
		names[i] = q.Name
		quals[i] = isa.LookupQual(q.Name)
	}
	if desc, _ := isa.SelectInstr(in.Opcode, names, quals); desc != nil {
		return nil, true
	}
	var od isa.OpDecode
	if probs := isa.DecodeOp(in.Opcode, names, quals, len(in.Operands), &od, nil); len(probs) > 0 {
		return nil, false
	}
	return od.Form, false
}

package main

import (
	"github.com/ptxkit/ptxkit/isa"
	"strings"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

func init() {
	registerExplainSection(explainSection{"layout", 55, renderTMEMLayout})
}

// renderTMEMLayout shows, for tcgen05.st and tcgen05.ld, the Tensor Memory
// lane and column (relative to taddr) each register of each thread of the
// warp moves to or from (PTX ISA §9.7.16.2.3.1).
func renderTMEMLayout(x *explanation) []string {
	in := x.Instr
	if in == nil || in.Opcode != "tcgen05" || len(in.Quals) == 0 {
		return nil
	}
	quals := x.Form.Quals // tcgen05.st: the store table's decoding
	if x.Form.Instr == nil {
		quals = x.Op.Quals // tcgen05.ld: its form's
	}
	if len(quals) == 0 || quals[0] != isa.QSt && quals[0] != isa.QLd {
		return nil
	}
	load := quals[0] == isa.QLd
	f, err := tmem.FormOf(quals[1:], load)
	if err != nil {
		return nil // the problems section reports it
	}
	if f.Shape == tmem.Shape16x32bx2 {
		imm := 1 // st: [taddr], imm, r; ld: r, [taddr], imm
		if load {
			imm = 2
		}
		if len(in.Operands) <= imm {
			return nil
		}
		v, ok := parser.ConstValue(in.Operands[imm])
		if !ok {
			return nil
		}
		f.SplitOffset = int(v)
		if f.Validate() != nil {
			return nil
		}
	}
	return strings.Split(strings.TrimSuffix(tmem.LayoutTable(f, load), "\n"), "\n")
}

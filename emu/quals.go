package emu

import "github.com/ptxkit/ptxkit/isa"

// Quals is the instruction being lowered, as isa decoded it, in the terms
// the DecodeFuncs read: its type qualifiers as emulator Types, its state
// space, vector width, rounding mode, comparison and boolean operator. Its
// qualifiers stay isa.Quals, tested with Has; no qualifier string is read.
type Quals struct {
	Types    []Type // type qualifiers in order
	Space    Space
	HasSpace bool
	Vec      int // 1, 2, 4 or 8
	Round    Round
	Cmp      isa.Qual   // the first comparison operator (isa.QEq ...), or QNone
	BoolOp   isa.Qual   // isa.QAnd, QOr or QXor for setp and set, or QNone
	List     []isa.Qual // every qualifier in source order
}

// quals returns the decoded qualifiers of the instruction being lowered,
// classified once by decodeISA. Its slices are shared: DecodeFuncs read
// them and do not write.
func (d *Decoder) quals() Quals { return d.isa.q }

func classify(list []isa.Qual) Quals {
	q := Quals{Vec: 1, List: list}
	for _, x := range list {
		if t, ok := typeOf(x); ok {
			q.Types = append(q.Types, t)
			continue
		}
		if sp, ok := spaceOf(x); ok {
			if !q.HasSpace {
				q.Space, q.HasSpace = sp, true
			}
			continue
		}
		if r, ok := roundOf(x); ok {
			q.Round = r
			continue
		}
		switch x {
		case isa.QV2:
			q.Vec = 2
		case isa.QV4:
			q.Vec = 4
		case isa.QV8:
			q.Vec = 8
		case isa.QAnd, isa.QOr, isa.QXor:
			q.BoolOp = x
		default:
			if _, ok := cmpCodes[x]; ok && q.Cmp == isa.QNone {
				q.Cmp = x
			}
		}
	}
	return q
}

// Has reports whether qualifier x was written.
func (q *Quals) Has(x isa.Qual) bool {
	for _, w := range q.List {
		if w == x {
			return true
		}
	}
	return false
}

// Type returns the last type qualifier, or TNone.
func (q *Quals) Type() Type {
	if len(q.Types) == 0 {
		return TNone
	}
	return q.Types[len(q.Types)-1]
}

// spaceOf returns the state space a qualifier names (PTX ISA §5.1).
func spaceOf(x isa.Qual) (Space, bool) {
	switch x {
	case isa.QGlobal:
		return SpaceGlobal, true
	case isa.QShared, isa.QSharedCta:
		return SpaceShared, true
	case isa.QSharedCluster:
		return SpaceSharedCluster, true
	case isa.QLocal:
		return SpaceLocal, true
	case isa.QConst:
		return SpaceConst, true
	case isa.QParam, isa.QParamEntry:
		return SpaceParam, true
	case isa.QParamFunc:
		return SpaceParamFunc, true
	}
	return 0, false
}

// roundOf returns the rounding mode a qualifier names (PTX ISA §9.7.3).
func roundOf(x isa.Qual) (Round, bool) {
	switch x {
	case isa.QRn, isa.QRni:
		return RoundNearest, true
	case isa.QRz, isa.QRzi:
		return RoundZero, true
	case isa.QRm, isa.QRmi:
		return RoundDown, true
	case isa.QRp, isa.QRpi:
		return RoundUp, true
	case isa.QRna:
		return RoundNearestAway, true
	}
	return 0, false
}

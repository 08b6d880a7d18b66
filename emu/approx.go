package emu

import "github.com/ptxkit/ptxkit/internal/sfu"

// The approximate binary32 instructions (rcp/sqrt/rsqrt/ex2/lg2/sin/cos/
// tanh .approx, div.approx and div.full; §9.7.3) give the H100's bits:
// internal/sfu models its special function unit and the sequences ptxas
// wraps around it (docs/sfu.md).

// approxUnary computes in on the lane value a when in is an approximate
// binary32 unary instruction; ok is false otherwise.
func approxUnary(in *Inst, a uint64) (r uint64, ok bool) {
	if in.Type != TF32 || in.Round != RoundDefault {
		return 0, false
	}
	x, ftz := uint32(a), in.Flags&FlagFtz != 0
	var v uint32
	switch in.Imm {
	case opRcp:
		v = sfu.Rcp(x, ftz)
	case opSqrt:
		v = sfu.Sqrt(x, ftz)
	case opRsqrt:
		v = sfu.Rsqrt(x, ftz)
	case opEx2:
		v = sfu.Ex2(x, ftz)
	case opLg2:
		v = sfu.Lg2(x, ftz)
	case opSin:
		v = sfu.Sin(x, ftz)
	case opCos:
		v = sfu.Cos(x, ftz)
	case opTanh:
		v = sfu.Tanh(x)
	default:
		return 0, false
	}
	return uint64(v), true
}

// approxDiv computes div.approx.f32 and div.full.f32 (FlagX marks .full);
// ok is false for the other divisions.
func approxDiv(in *Inst, a, b uint64) (r uint64, ok bool) {
	if in.Type != TF32 || in.Round != RoundDefault || in.Imm != opDiv {
		return 0, false
	}
	x, y, ftz := uint32(a), uint32(b), in.Flags&FlagFtz != 0
	if in.Flags&FlagX != 0 {
		return uint64(sfu.DivFull(x, y, ftz)), true
	}
	return uint64(sfu.DivApprox(x, y, ftz)), true
}
